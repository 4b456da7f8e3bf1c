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

    @pytest.fixture
    def make_harness(self, harnesses: Callable[..., Any]) -> Callable[[MemoryLoop], AdapterHarness]:
        return harnesses
