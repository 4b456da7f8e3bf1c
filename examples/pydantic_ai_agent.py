"""A Pydantic AI agent with zepkit memory: one `ZepMemory` capability gives every run the user's
long-term context as instructions, a memory search tool, and remembers the conversation.

One agent object serves every user: who a run belongs to comes from its `deps` (`ZepDeps`).
Runs offline: a scripted `FunctionModel` stands in for an LLM and memory is the embedded engine.
Swap in any real model (`Agent("openai:gpt-5.2", ...)`) and nothing else changes.

Run: python examples/pydantic_ai_agent.py
"""

from __future__ import annotations

import asyncio

from pydantic_ai import Agent
from pydantic_ai.messages import (
    ModelMessage,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from zepkit.core import MemoryLoop
from zepkit.pydantic_ai import ZepDeps, ZepMemory

instructions_seen: list[str] = []


def scripted_model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Stands in for an LLM: searches memory once when asked a question, then answers."""
    instructions_seen.append(info.instructions or "")
    prompt = next(
        str(p.content) for m in messages for p in m.parts if isinstance(p, UserPromptPart)
    )
    returned = [p for m in messages for p in m.parts if isinstance(p, ToolReturnPart)]
    if not prompt.endswith("?"):
        return ModelResponse(parts=[TextPart("Noted, thanks!")])
    if not returned:
        return ModelResponse(parts=[ToolCallPart("search_memory", {"query": "peanuts"})])
    return ModelResponse(parts=[TextPart(f"From memory:\n{returned[-1].content}")])


async def main() -> None:
    async with MemoryLoop.local(":memory:") as memory:
        agent = Agent(
            FunctionModel(scripted_model),
            deps_type=ZepDeps,
            instructions="You are a friendly cooking assistant.",
            capabilities=[ZepMemory(memory)],
        )
        ana_monday = ZepDeps("ana", "monday", first_name="Ana")
        await agent.run("I'm allergic to peanuts and I love Thai food.", deps=ana_monday)

        # Tuesday, a new thread: the first request already carries Monday's facts, and the
        # model's memory search is scoped to Ana by her deps, never by the model.
        instructions_seen.clear()
        ana_tuesday = ZepDeps("ana", "tuesday", first_name="Ana")
        result = await agent.run("Can you suggest a Thai dinner for me?", deps=ana_tuesday)
        print("Instructions of Tuesday's first model request:\n")
        print(instructions_seen[0])
        print(f"\nReply:\n{result.output}")
        assert len(instructions_seen) == 2  # the search, then the answer
        assert all("peanuts" in text for text in instructions_seen)
        assert "peanuts" in result.output

        # Same agent, another user: nothing of Ana's reaches Ben.
        instructions_seen.clear()
        ben = ZepDeps("ben", "ben-1")
        other = await agent.run("Can you suggest a Thai dinner for me?", deps=ben)
        assert not any("peanuts" in text for text in instructions_seen)
        assert "peanuts" not in other.output

        stored = await memory.get_messages("tuesday")
        assert [m.role for m in stored] == ["user", "assistant"]
        print(f"\nBen's reply (no memory of Ana): {other.output!r}")


if __name__ == "__main__":
    asyncio.run(main())
