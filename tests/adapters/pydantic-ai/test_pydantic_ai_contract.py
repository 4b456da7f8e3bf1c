"""`ZepMemory` on a real Pydantic AI `Agent` driven by a scripted `FunctionModel` holds the adapter
contract: persist once, inject on every model request, capture the reply, fail soft, isolate users.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel

from zepkit.core import MemoryLoop
from zepkit.pydantic_ai import ZepDeps, ZepMemory
from zepkit.testing import AdapterContract, AdapterHarness, TurnResult


def model_input(messages: Sequence[ModelMessage], info: AgentInfo) -> str:
    """Everything one model request carries, as text: instructions first, then every part."""
    lines = [f"instructions: {info.instructions or ''}"]
    for message in messages:
        for part in message.parts:
            if isinstance(part, ToolCallPart):
                lines.append(f"tool-call {part.tool_name}: {part.args_as_json_str()}")
            else:
                lines.append(f"{part.part_kind}: {getattr(part, 'content', '')}")
    return "\n".join(lines)


class PydanticAIHarness:
    """One agent for every user and turn; each turn scripts its own model for that run."""

    supports_tools = True

    def __init__(self, memory: MemoryLoop) -> None:
        self.memory = memory
        self.agent: Agent[ZepDeps, str] = Agent(
            deps_type=ZepDeps,
            instructions="You are a helpful assistant.",
            capabilities=[ZepMemory(memory)],
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
        queries = list(tool_queries)
        inputs: list[str] = []

        def scripted(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            inputs.append(model_input(messages, info))
            if queries:
                return ModelResponse(
                    parts=[ToolCallPart("search_memory", {"query": queries.pop(0)})]
                )
            return ModelResponse(parts=[TextPart(reply)])

        result = await self.agent.run(
            text, deps=ZepDeps(user_id, thread_id), model=FunctionModel(scripted)
        )
        assert not queries, "the agent stopped before every scripted tool call was made"
        return TurnResult(reply=result.output, model_inputs=inputs)

    async def run_streamed_turn(
        self,
        *,
        user_id: str,
        thread_id: str,
        text: str,
        reply: str,
        tool_queries: Sequence[str] = (),
    ) -> TurnResult:
        queries = list(tool_queries)
        inputs: list[str] = []

        async def scripted(
            messages: list[ModelMessage], info: AgentInfo
        ) -> AsyncIterator[str | DeltaToolCalls]:
            inputs.append(model_input(messages, info))
            if queries:
                arguments = json.dumps({"query": queries.pop(0)})
                yield {0: DeltaToolCall(name="search_memory", json_args=arguments)}
                return
            half = len(reply) // 2
            for chunk in (reply[:half], reply[half:]):
                yield chunk

        model = FunctionModel(stream_function=scripted)
        deps = ZepDeps(user_id, thread_id)
        async with self.agent.run_stream(text, deps=deps, model=model) as run:
            chunks = [chunk async for chunk in run.stream_text(delta=True, debounce_by=None)]
        assert not queries, "the agent stopped before every scripted tool call was made"
        return TurnResult(reply="".join(chunks), model_inputs=inputs)

    async def search_tool_schema(self, **pinned: Any) -> dict[str, Any]:
        """What the model is offered, seen from inside a run."""
        shown: list[Any] = []

        def capture(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            shown.extend(info.function_tools)
            return ModelResponse(parts=[TextPart("ok")])

        agent: Agent[ZepDeps, str] = Agent(
            deps_type=ZepDeps, capabilities=[ZepMemory(self.memory, **pinned)]
        )
        await agent.run("hi", deps=ZepDeps("schema", "schema-1"), model=FunctionModel(capture))
        (tool,) = shown
        return {
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.parameters_json_schema,
        }

    async def run_turn_without_identity(self, *, text: str, reply: str) -> TurnResult:
        inputs: list[str] = []

        def scripted(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            inputs.append(model_input(messages, info))
            return ModelResponse(parts=[TextPart(reply)])

        result = await self.agent.run(text, model=FunctionModel(scripted))
        return TurnResult(reply=result.output, model_inputs=inputs)


class TestPydanticAIAdapterContract(AdapterContract):
    framework_key = "pydantic-ai"
    framework_modules = ("pydantic_ai",)

    @pytest.fixture
    def make_harness(self) -> Callable[[MemoryLoop], AdapterHarness]:
        return PydanticAIHarness
