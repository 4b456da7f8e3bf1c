"""The adapter contract, run against the framework-free reference harness."""

from __future__ import annotations

from zepkit.core import MemoryLoop
from zepkit.testing import AdapterContract, AdapterHarness, PlainAgentHarness


class TestPlainAgentHarness(AdapterContract):
    def make_harness(self, memory: MemoryLoop) -> AdapterHarness:
        return PlainAgentHarness(memory)
