"""`zep_memory_plugin` on a real AG2 `Agent` driven by a scripted `TestConfig` holds the adapter
contract: persist once, inject on every model call, capture the reply, fail soft, isolate users.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from ag2 import Agent
from ag2.events import BaseEvent, ModelResponse, ToolCallEvent

from zepkit.ag2 import search_tool, zep_memory_plugin
from zepkit.core import MemoryLoop
from zepkit.testing import AdapterContract, AdapterHarness, TurnResult


def model_inputs(prompts: Sequence[tuple[str, ...]], events: Sequence[BaseEvent]) -> list[str]:
    """Each model call as text: the prompt it was sent (recorded at the call), then the events
    the conversation held at that call (everything before that call's `ModelResponse`)."""
    responses = [i for i, event in enumerate(events) if isinstance(event, ModelResponse)]
    inputs = []
    for prompt, end in zip(prompts, responses, strict=True):
        lines = [f"system: {part}" for part in prompt]
        lines += [repr(event) for event in events[:end]]
        inputs.append("\n".join(lines))
    return inputs


class AG2Harness:
    """One agent (with the plugin) for every user and turn; each turn scripts its own model."""

    supports_tools = True

    def __init__(self, memory: MemoryLoop, track: Callable[..., Any]) -> None:
        self.memory = memory
        self.track = track
        self.agent = Agent(
            "assistant", "You are a helpful assistant.", plugins=[zep_memory_plugin(memory)]
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
        script: list[Any] = [
            ToolCallEvent("search_memory", arguments=json.dumps({"query": query}))
            for query in tool_queries
        ]
        config = self.track(*script, reply)
        answer = await self.agent.ask(
            text, config=config, variables={"user_id": user_id, "thread_id": thread_id}
        )
        events = await answer.history.get_events()
        assert len(config.prompts) == len(tool_queries) + 1, "every scripted call must be made"
        return TurnResult(
            reply=answer.body or "", model_inputs=model_inputs(config.prompts, events)
        )

    async def search_tool_schema(self, **pinned: Any) -> dict[str, Any]:
        tool = search_tool(self.memory, **pinned)
        function = tool.schema.function
        return {
            "name": tool.name,
            "description": function.description,
            "parameters": function.parameters,
        }

    async def run_turn_without_identity(self, *, text: str, reply: str) -> TurnResult:
        config = self.track(reply)
        answer = await self.agent.ask(text, config=config)
        events = await answer.history.get_events()
        return TurnResult(
            reply=answer.body or "", model_inputs=model_inputs(config.prompts, events)
        )


class TestAG2AdapterContract(AdapterContract):
    framework_key = "ag2"
    framework_modules = ("ag2",)

    @pytest.fixture
    def make_harness(self, track: Callable[..., Any]) -> Callable[[MemoryLoop], AdapterHarness]:
        return lambda memory: AG2Harness(memory, track)
