"""Time from the end of a user turn to the start of the reply in a LiveKit agent with zepkit
memory, on a normal and on a slow backend, with and without the recall budget. Prints JSON.

Runs a real `AgentSession` offline with a scripted LLM; the turn goes through
`on_user_turn_completed` the way LiveKit's end-of-turn path runs it.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from livekit.agents import AgentSession, ChatMessage, llm
from livekit.agents.types import DEFAULT_API_CONNECT_OPTIONS, NOT_GIVEN, APIConnectOptions

from zepkit.core import Identity, MemoryLoop
from zepkit.livekit import ZepMemoryAgent
from zepkit.local import LocalBackend
from zepkit.testing import SlowBackend

TURNS = 8
SLOW_DELAY = 1.0


class _FirstTokenLLM(llm.LLM):
    """Replies "ok" at once and records when each reply started (the first model call)."""

    def __init__(self) -> None:
        super().__init__()
        self.started: list[float] = []

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
        self.started.append(time.perf_counter())
        return _Stream(self, chat_ctx=chat_ctx, tools=tools or [], conn_options=conn_options)


class _Stream(llm.LLMStream):
    async def _run(self) -> None:
        delta = llm.ChoiceDelta(role="assistant", content="ok")
        self._event_ch.send_nowait(llm.ChatChunk(id="c", delta=delta))


async def measure(backend_delay: float, budget: float | None) -> dict[str, Any]:
    inner = LocalBackend(":memory:")
    backend = SlowBackend(inner, delay=backend_delay) if backend_delay else inner
    memory = MemoryLoop(backend)
    identity = Identity(user_id="bench-user", thread_id="bench-thread")
    await memory.provision(identity)  # a session provisions in on_enter, before the first turn
    model = _FirstTokenLLM()
    session: AgentSession = AgentSession(llm=model, userdata=identity)
    agent = ZepMemoryAgent(memory, instructions="Be brief.", recall_budget=budget)
    await session.start(agent)
    waits: list[float] = []
    for turn in range(TURNS):
        turn_ctx = agent.chat_ctx.copy()
        message = ChatMessage(role="user", content=[f"turn {turn}: my sister lives in Lisbon"])
        ended = time.perf_counter()
        await agent.on_user_turn_completed(turn_ctx, message)
        await session.generate_reply(user_input=message, chat_ctx=turn_ctx)
        waits.append((model.started[-1] - ended) * 1000)
    await agent.flush()
    await session.aclose()
    await memory.aclose()
    return {
        "backend_delay_ms": backend_delay * 1000,
        "recall_budget_ms": None if budget is None else budget * 1000,
        "turns": TURNS,
        "turn_end_to_reply_start_ms": {
            "median": round(statistics.median(waits), 1),
            "max": round(max(waits), 1),
        },
    }


async def main() -> None:
    results = [
        await measure(0.0, 0.25),
        await measure(SLOW_DELAY, 0.25),
        await measure(SLOW_DELAY, None),
    ]
    json.dump({"benchmark": Path(__file__).stem, "results": results}, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    asyncio.run(main())
