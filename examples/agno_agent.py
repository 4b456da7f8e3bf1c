"""An Agno agent with zepkit memory: `ZepMemory(...).attach(agent)` puts the user's long-term
context into the system message of every model call of a run, gives the model a memory search
tool, and remembers each run's input and final reply.

One agent object serves every user: who a run belongs to comes from `arun(user_id=...)`, and the
run's `session_id` is its thread. Runs offline: a scripted `Model` stands in for an LLM and memory
is the embedded engine. Swap in any real model (`OpenAIChat(id="gpt-5.2")`, ...) and nothing else
changes.

Run: python examples/agno_agent.py
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

from agno.agent import Agent
from agno.models.base import Model
from agno.models.message import Message
from agno.models.response import ModelResponse

from zepkit.agno import ZepMemory
from zepkit.core import MemoryLoop

system_messages_seen: list[str] = []


class ScriptedModel(Model):
    """Stands in for an LLM: searches memory once when asked a question, then answers."""

    def respond(self, messages: list[Message]) -> ModelResponse:
        system_messages_seen.append(messages[0].get_content_string())
        prompt = next(m.get_content_string() for m in messages if m.role == "user")
        results = [m.get_content_string() for m in messages if m.role == "tool"]
        if not prompt.endswith("?"):
            return ModelResponse(role="assistant", content="Noted, thanks!")
        if not results:
            arguments = json.dumps({"query": "peanuts"})
            call = {"id": "c1", "type": "function"}
            call["function"] = {"name": "search_memory", "arguments": arguments}
            return ModelResponse(role="assistant", tool_calls=[call])
        return ModelResponse(role="assistant", content=f"From memory:\n{results[-1]}")

    def invoke(self, messages: list[Message], **kwargs: Any) -> ModelResponse:
        return self.respond(messages)

    async def ainvoke(self, messages: list[Message], **kwargs: Any) -> ModelResponse:
        return self.respond(messages)

    def invoke_stream(self, messages: list[Message], **kwargs: Any) -> Iterator[ModelResponse]:
        yield self.respond(messages)

    async def ainvoke_stream(
        self, messages: list[Message], **kwargs: Any
    ) -> AsyncIterator[ModelResponse]:
        yield self.respond(messages)

    def _parse_provider_response(self, response: Any, **kwargs: Any) -> ModelResponse:
        return response

    def _parse_provider_response_delta(self, response: Any) -> ModelResponse:
        return response


async def main() -> None:
    async with MemoryLoop.local(":memory:") as memory:
        agent = Agent(
            model=ScriptedModel(id="scripted"),
            instructions="You are a friendly cooking assistant.",
            telemetry=False,  # an offline example sends nothing
        )
        ZepMemory(memory).attach(agent)  # the block, the search tool, the turn and the reply
        await agent.arun(
            "I'm allergic to peanuts and I love Thai food.", user_id="ana", session_id="monday"
        )

        # Tuesday, a new session: the first model call already carries Monday's facts, and the
        # model's memory search is scoped to Ana by the run, never by the model.
        system_messages_seen.clear()
        result = await agent.arun(
            "Can you suggest a Thai dinner for me?", user_id="ana", session_id="tuesday"
        )
        print("System message of Tuesday's first model call:\n")
        print(system_messages_seen[0])
        print(f"\nReply:\n{result.content}")
        assert len(system_messages_seen) == 2  # the search, then the answer
        assert all("peanuts" in text for text in system_messages_seen)
        assert "peanuts" in str(result.content)

        # Same agent, another user: nothing of Ana's reaches Ben.
        system_messages_seen.clear()
        other = await agent.arun(
            "Can you suggest a Thai dinner for me?", user_id="ben", session_id="ben-1"
        )
        assert not any("peanuts" in text for text in system_messages_seen)
        assert "peanuts" not in str(other.content)

        stored = await memory.get_messages("tuesday")
        assert [m.role for m in stored] == ["user", "assistant"]
        print(f"\nBen's reply (no memory of Ana): {other.content!r}")


if __name__ == "__main__":
    asyncio.run(main())
