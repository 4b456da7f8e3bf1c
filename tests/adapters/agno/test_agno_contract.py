"""`ZepMemory` attached to a real Agno `Agent` driven by a scripted model holds the adapter
contract: persist once, inject on every model call, capture the reply, fail soft, isolate users.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest
from agno.agent import Agent

from zepkit.agno import ZepMemory
from zepkit.core import MemoryLoop
from zepkit.testing import AdapterContract, AdapterHarness, TurnResult


class AgnoHarness:
    """One agent for every user and turn; each turn gives it a model scripted for that run."""

    supports_tools = True
    surfaces_errors = False  # Agno runs hooks inside its own error handling

    def __init__(self, memory: MemoryLoop, scripted: Any, call: Any) -> None:
        self.memory = memory
        self.scripted = scripted
        self.call = call
        self.agent = ZepMemory(memory).attach(
            Agent(instructions="You are a helpful assistant.", telemetry=False)
        )

    async def run_turn(
        self,
        *,
        user_id: str,
        thread_id: str,
        text: str,
        reply: str,
        tool_queries: Sequence[str] = (),
    ) -> TurnResult:
        steps = [self.call("search_memory", {"query": query}) for query in tool_queries]
        model = self.scripted(script=[*steps, reply])
        self.agent.model = model
        result = await self.agent.arun(text, user_id=user_id, session_id=thread_id)
        assert not model.script, "the agent stopped before every scripted step was used"
        return TurnResult(reply=str(result.content), model_inputs=model.inputs)

    async def search_tool_schema(self, **pinned: Any) -> dict[str, Any]:
        tool = ZepMemory(self.memory, **pinned).tool
        assert tool is not None
        return {"name": tool.name, "description": tool.description, "parameters": tool.parameters}

    async def run_turn_without_identity(self, *, text: str, reply: str) -> TurnResult:
        model = self.scripted(script=[reply])
        self.agent.model = model
        result = await self.agent.arun(text, session_id="anonymous")
        return TurnResult(reply=str(result.content), model_inputs=model.inputs)


class TestAgnoAdapterContract(AdapterContract):
    framework_key = "agno"
    framework_modules = ("agno",)

    @pytest.fixture
    def make_harness(self, scripted: Any, call: Any) -> Callable[[MemoryLoop], AdapterHarness]:
        return lambda memory: AgnoHarness(memory, scripted, call)
