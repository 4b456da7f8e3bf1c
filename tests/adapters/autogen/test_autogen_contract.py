"""`ZepMemory` on a real AutoGen `AssistantAgent` driven by `ReplayChatCompletionClient` (function
calling on) holds the adapter contract: persist once, one block on every model call of a run,
capture the reply, fail soft, isolate users."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest
from autogen_agentchat.agents import AssistantAgent
from autogen_agentchat.messages import TextMessage

from zepkit.autogen import ZepChatCompletionContext, ZepMemory
from zepkit.core import MemoryLoop
from zepkit.testing import AdapterContract, AdapterHarness, TurnResult


class AutoGenHarness:
    """One agent per thread, kept across turns, so later turns are later `run()`s of the same
    agent with the same model context (where blocks could pile up)."""

    supports_tools = True

    def __init__(self, memory: MemoryLoop, replay: Any) -> None:
        self.memory = memory
        self.replay = replay
        self.agents: dict[tuple[str, str], tuple[AssistantAgent, Any]] = {}

    def agent_for(self, user_id: str, thread_id: str) -> tuple[AssistantAgent, Any]:
        key = (user_id, thread_id)
        if key not in self.agents:
            zep = ZepMemory(self.memory, user_id=user_id, thread_id=thread_id)
            client = self.replay.client()
            agent = AssistantAgent(
                "assistant",
                model_client=client,
                system_message="You are a helpful assistant.",
                memory=[zep],
                model_context=ZepChatCompletionContext(zep),
                tools=[zep.search_tool()],
                max_tool_iterations=10,
            )
            self.agents[key] = (agent, client)
        return self.agents[key]

    async def search_tool_schema(self, **pinned: Any) -> dict[str, Any]:
        zep = ZepMemory(self.memory, user_id="alice", thread_id="a1")
        tool = zep.search_tool(**pinned)
        schema = tool.schema
        return {
            "name": tool.name,
            "description": schema.get("description"),
            "parameters": schema.get("parameters", {}),
        }

    async def run_turn(
        self,
        *,
        user_id: str,
        thread_id: str,
        text: str,
        reply: str,
        tool_queries: Sequence[str] = (),
    ) -> TurnResult:
        agent, client = self.agent_for(user_id, thread_id)
        start = len(client.create_calls)
        client.chat_completions.extend([*self.replay.searches(tool_queries), reply])
        result = await agent.run(task=text)
        inputs = self.replay.inputs(client, start)
        assert len(inputs) == len(tool_queries) + 1, "one model call per query, then the reply"
        final = result.messages[-1]
        assert isinstance(final, TextMessage)
        return TurnResult(reply=final.content, model_inputs=inputs)


class TestAutoGenAdapterContract(AdapterContract):
    framework_key = "autogen"
    framework_modules = ("autogen_agentchat", "autogen_core")

    @pytest.fixture
    def make_harness(self, replay: Any) -> Callable[[MemoryLoop], AdapterHarness]:
        return lambda memory: AutoGenHarness(memory, replay)
