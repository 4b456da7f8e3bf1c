"""The shared adapter contract on LiveKit's real `AgentSession` with a scripted LLM."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from zepkit.core import MemoryLoop
from zepkit.testing import AdapterContract, AdapterHarness


class TestLiveKitContract(AdapterContract):
    framework_key = "livekit"
    framework_modules = ("livekit.agents",)

    @pytest.fixture(autouse=True)
    def _bind(self, harnesses: Callable[..., Any]) -> None:
        self._harnesses = harnesses

    def make_harness(self, memory: MemoryLoop) -> AdapterHarness:
        harness: AdapterHarness = self._harnesses(memory)
        return harness
