"""A Microsoft Agent Framework agent with zepkit memory: one provider shared by two users.

A rule-based chat client stands in for an LLM, so this runs offline. It is built on the
framework's function-invocation layer, so its call of the memory search tool really runs. The
script shows: each user's session is bound to that user; what Ravi says in one session is
remembered in his next one (through the instructions and the search tool); Mia never sees it.

Run: python examples/agent_framework_agent.py
"""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import Sequence
from typing import Any

os.environ.setdefault("ENABLE_INSTRUMENTATION", "false")

from agent_framework import (
    Agent,
    BaseChatClient,
    ChatResponse,
    Content,
    FunctionInvocationLayer,
    Message,
)

from zepkit.agent_framework import ZepContextProvider
from zepkit.core import MemoryLoop


class RuleModel(FunctionInvocationLayer[Any], BaseChatClient[Any]):
    """Questions go to the memory search tool; a tool result is read back; anything else is
    acknowledged. Records the instructions of every call."""

    def __init__(self) -> None:
        super().__init__()
        self.instructions: list[str] = []

    async def _inner_get_response(
        self, *, messages: Sequence[Message], stream: bool, options: Any, **kwargs: Any
    ) -> ChatResponse:
        self.instructions.append(options.get("instructions") or "")
        question = next(m.text for m in reversed(messages) if m.role == "user")
        results = [c.result for c in messages[-1].contents if c.type == "function_result"]
        if results:  # read back the first hit that is not the question itself
            hits = [line for line in str(results[0]).splitlines() if question not in line]
            return _say(f"From memory: {hits[0] if hits else 'nothing relevant'}")
        if question.endswith("?"):
            call = Content.from_function_call(
                call_id=uuid.uuid4().hex, name="search_memory", arguments={"query": question}
            )
            return ChatResponse(messages=[Message(role="assistant", contents=[call])])
        return _say("Noted.")


def _say(text: str) -> ChatResponse:
    return ChatResponse(messages=[Message(role="assistant", contents=[text])])


async def main() -> None:
    async with MemoryLoop.local(":memory:") as memory:
        memory_provider = ZepContextProvider(memory)  # one instance for every user
        model = RuleModel()
        agent = Agent(
            client=model,
            name="Concierge",
            instructions="You are a hotel concierge.",
            context_providers=[memory_provider],
        )

        monday = agent.create_session(session_id="ravi-monday")
        memory_provider.set_identity(monday, "ravi", first_name="Ravi")
        said = await agent.run("I am allergic to peanuts, please tell the kitchen.", session=monday)
        print(f"Ravi (monday): {said.text}")

        friday = agent.create_session(session_id="ravi-friday")
        memory_provider.set_identity(friday, "ravi", first_name="Ravi")
        answer = await agent.run("What am I allergic to?", session=friday)
        print(f"Ravi (friday): {answer.text}")
        assert "peanuts" in answer.text, answer.text
        assert "peanuts" in model.instructions[-1]  # the memory block reached the model too

        mia = agent.create_session(session_id="mia-friday")
        memory_provider.set_identity(mia, "mia")
        other = await agent.run("What am I allergic to?", session=mia)
        print(f"Mia (friday): {other.text}")
        assert "peanuts" not in other.text
        assert "peanuts" not in model.instructions[-1]

        stored = await memory.get_messages("ravi-friday")
        print("Stored for ravi-friday:", [(m.role, m.content) for m in stored])
        assert [m.role for m in stored] == ["user", "assistant"]
        print("OK: memory carried across Ravi's sessions and stayed away from Mia.")


if __name__ == "__main__":
    asyncio.run(main())
