"""`ZepMemoryBlock` (in a LlamaIndex `Memory`) and `search_tool` on a real `FunctionAgent` driven
by a scripted function-calling LLM hold the adapter contract: persist once, inject on every model
call, capture the reply, fail soft, isolate users.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest
from llama_index.core.agent.workflow import FunctionAgent
from llama_index.core.memory import Memory

from zepkit.core import MemoryLoop
from zepkit.llama_index import ZepMemoryBlock, search_tool, zep_memory
from zepkit.testing import AdapterContract, AdapterHarness, TurnResult


class LlamaIndexHarness:
    """One agent (and one search tool) for every user; each conversation has its own `Memory`,
    and each turn gives the agent an LLM scripted for that run."""

    supports_tools = True

    def __init__(self, memory: MemoryLoop, scripted: Any, call: Any) -> None:
        self.memory = memory
        self.scripted = scripted
        self.call = call
        self.agent = FunctionAgent(
            tools=[search_tool(memory)],
            llm=scripted(),
            system_prompt="You are a helpful assistant.",
        )
        self.conversations: dict[tuple[str, str], Any] = {}

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
        llm = self.scripted(script=[*steps, reply])
        self.agent.llm = llm
        key = (user_id, thread_id)
        if key not in self.conversations:
            self.conversations[key] = zep_memory(self.memory, user_id=user_id, thread_id=thread_id)
        result = await self.agent.run(text, memory=self.conversations[key])
        assert not llm.script, "the agent stopped before every scripted step was used"
        return TurnResult(reply=str(result.response.content), model_inputs=llm.inputs)

    async def search_tool_schema(self, **pinned: Any) -> dict[str, Any]:
        metadata = search_tool(self.memory, **pinned).metadata
        return {
            "name": metadata.name,
            "description": metadata.description,
            "parameters": metadata.get_parameters_dict(),
        }

    async def run_turn_without_identity(self, *, text: str, reply: str) -> TurnResult:
        llm = self.scripted(script=[reply])
        self.agent.llm = llm
        conversation = Memory.from_defaults(memory_blocks=[ZepMemoryBlock(self.memory)])
        result = await self.agent.run(text, memory=conversation)
        return TurnResult(reply=str(result.response.content), model_inputs=llm.inputs)


class TestLlamaIndexAdapterContract(AdapterContract):
    framework_key = "llama-index"
    framework_modules = ("llama_index",)

    @pytest.fixture
    def make_harness(self, scripted: Any, call: Any) -> Callable[[MemoryLoop], AdapterHarness]:
        return lambda memory: LlamaIndexHarness(memory, scripted, call)
