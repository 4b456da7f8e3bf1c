"""zepkit's adapter contract on Google ADK's real runtime (InMemoryRunner, scripted model)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from zepkit.core import MemoryLoop
from zepkit.testing import AdapterContract, AdapterHarness


class TestAdkContract(AdapterContract):
    framework_key = "adk"
    framework_modules = ("google.adk",)

    @pytest.fixture
    def make_harness(
        self, adk_harness: Callable[..., Any]
    ) -> Callable[[MemoryLoop], AdapterHarness]:
        return adk_harness
