"""A LiveKit voice agent with zepkit memory, run offline as a scripted session.

Two sessions of the same user: the first tells the agent a fact, the second (a new thread) asks
about it; the second reply's model input carries the memory block. A scripted LLM stands in for a
real model and the user turns go through `on_user_turn_completed` as after speech.
"""

from __future__ import annotations

import asyncio
from typing import Any

from livekit.agents import AgentSession, ChatMessage, llm
from livekit.agents.types import DEFAULT_API_CONNECT_OPTIONS, NOT_GIVEN, APIConnectOptions

from zepkit.core import Identity, MemoryLoop
from zepkit.livekit import ZepMemoryAgent


class ScriptedLLM(llm.LLM):
    """Says the next scripted line and keeps what it was given."""

    def __init__(self, lines: list[str]) -> None:
        super().__init__()
        self.lines = lines
        self.seen: list[str] = []

    def chat(
        self,
        *,
        chat_ctx: llm.ChatContext,
        tools: list[Any] | None = None,
        conn_options: APIConnectOptions = DEFAULT_API_CONNECT_OPTIONS,
        parallel_tool_calls: Any = NOT_GIVEN,
        tool_choice: Any = NOT_GIVEN,
        extra_kwargs: Any = NOT_GIVEN,
    ) -> llm.LLMStream:
        self.seen.append(
            "\n".join(i.text_content or "" for i in chat_ctx.items if isinstance(i, ChatMessage))
        )
        return _Line(
            self, self.lines.pop(0), chat_ctx=chat_ctx, tools=tools or [], conn_options=conn_options
        )


class _Line(llm.LLMStream):
    def __init__(self, model: ScriptedLLM, line: str, **kwargs: Any) -> None:
        super().__init__(model, **kwargs)
        self._line = line

    async def _run(self) -> None:
        delta = llm.ChoiceDelta(role="assistant", content=self._line)
        self._event_ch.send_nowait(llm.ChatChunk(id="line", delta=delta))


async def talk(memory: MemoryLoop, thread_id: str, said: str, answer: str) -> str:
    """One session with one spoken user turn; returns what the model saw."""
    model = ScriptedLLM([answer])
    session: AgentSession = AgentSession(
        llm=model, userdata=Identity(user_id="ada", thread_id=thread_id, first_name="Ada")
    )
    agent = ZepMemoryAgent(memory, instructions="You are a friendly voice assistant.")
    await session.start(agent)
    turn_ctx = agent.chat_ctx.copy()
    message = ChatMessage(role="user", content=[said])
    await agent.on_user_turn_completed(turn_ctx, message)  # what LiveKit calls after speech
    await session.generate_reply(user_input=message, chat_ctx=turn_ctx)
    await agent.flush()
    await session.aclose()
    return model.seen[0]


async def main() -> None:
    async with MemoryLoop.local(":memory:") as memory:
        await talk(memory, "call-1", "My sister Beatrix moved to Lisbon.", "How nice!")
        seen = await talk(memory, "call-2", "Where does my sister live?", "In Lisbon.")
        assert "<ZEP_CONTEXT>" in seen and "Lisbon" in seen, seen
        stored = [(m.role, m.content) for m in await memory.get_messages("call-2")]
        assert stored == [("user", "Where does my sister live?"), ("assistant", "In Lisbon.")]
        print("second call's model input carried memory:", "Lisbon" in seen)
        print("stored for call-2:", stored)


if __name__ == "__main__":
    asyncio.run(main())
