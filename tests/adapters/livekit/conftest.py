"""LiveKit test setup: a scripted LLM (no network, no keys) and a harness that runs real
`AgentSession` turns through `on_user_turn_completed`, the way LiveKit's end-of-turn path does."""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

os.environ.setdefault("OTEL_SDK_DISABLED", "true")

import pytest
from livekit.agents import AgentSession, ChatContext, ChatMessage, llm
from livekit.agents.types import DEFAULT_API_CONNECT_OPTIONS, NOT_GIVEN, APIConnectOptions

from zepkit.core import Identity, MemoryLoop
from zepkit.livekit import ZepMemoryAgent
from zepkit.testing import TurnResult


@dataclass
class Step:
    """One scripted model answer: a call of `tool` with `args`, or the final `text`."""

    text: str = ""
    tool: str | None = None
    args: dict[str, Any] | None = None


def context_text(chat_ctx: ChatContext) -> str:
    """Everything the model receives in a chat context, as plain text."""
    lines = []
    for item in chat_ctx.items:
        if isinstance(item, ChatMessage):
            lines.append(f"{item.role}: {item.text_content or ''}")
        elif isinstance(item, llm.FunctionCall):
            lines.append(f"call {item.name}({item.arguments})")
        elif isinstance(item, llm.FunctionCallOutput):
            lines.append(f"tool {item.name}: {item.output}")
    return "\n".join(lines)


class ScriptedLLM(llm.LLM):
    """Answers each chat call with the next scripted step and records what it was given."""

    def __init__(self) -> None:
        super().__init__()
        self.steps: list[Step] = []
        self.inputs: list[str] = []
        self.tool_names: list[list[str]] = []

    def chat(
        self,
        *,
        chat_ctx: ChatContext,
        tools: list[Any] | None = None,
        conn_options: APIConnectOptions = DEFAULT_API_CONNECT_OPTIONS,
        parallel_tool_calls: Any = NOT_GIVEN,
        tool_choice: Any = NOT_GIVEN,
        extra_kwargs: Any = NOT_GIVEN,
    ) -> llm.LLMStream:
        self.inputs.append(context_text(chat_ctx))
        self.tool_names.append([getattr(t, "id", "") for t in tools or []])
        step = self.steps.pop(0) if self.steps else Step(text="(no script)")
        return _ScriptedStream(
            self, step, chat_ctx=chat_ctx, tools=tools or [], conn_options=conn_options
        )


class _ScriptedStream(llm.LLMStream):
    def __init__(self, model: ScriptedLLM, step: Step, **kwargs: Any) -> None:
        super().__init__(model, **kwargs)
        self._step = step

    async def _run(self) -> None:
        step = self._step
        calls = []
        if step.tool is not None:
            arguments = json.dumps(step.args or {})
            calls = [llm.FunctionToolCall(name=step.tool, arguments=arguments, call_id="call_1")]
        delta = llm.ChoiceDelta(role="assistant", content=step.text or None, tool_calls=calls)
        self._event_ch.send_nowait(llm.ChatChunk(id="chunk_1", delta=delta))


async def user_turn(session: AgentSession, agent: ZepMemoryAgent, text: str) -> None:
    """One completed user turn, as LiveKit's end-of-turn path runs it: the hook on a copy of the
    agent's context, then the reply generated from that copy with the new message."""
    turn_ctx = agent.chat_ctx.copy()
    message = ChatMessage(role="user", content=[text])
    await agent.on_user_turn_completed(turn_ctx, message)
    await session.generate_reply(user_input=message, chat_ctx=turn_ctx)
    await agent.flush()


class LiveKitHarness:
    """Real `AgentSession`s (one per user and thread) with a `ZepMemoryAgent` and a scripted LLM."""

    supports_tools = True

    def __init__(self, memory: MemoryLoop, **agent_options: Any) -> None:
        self.memory = memory
        self.agent_options = agent_options
        self.sessions: dict[tuple[str, str], tuple[AgentSession, ZepMemoryAgent, ScriptedLLM]] = {}

    async def open(
        self, user_id: str, thread_id: str, *, with_identity: bool = True
    ) -> tuple[AgentSession, ZepMemoryAgent, ScriptedLLM]:
        """The session for these ids (started on first use); without identity, no userdata."""
        key = (user_id, thread_id)
        if key not in self.sessions:
            model = ScriptedLLM()
            identity = Identity(user_id=user_id, thread_id=thread_id)
            session: AgentSession = (
                AgentSession(llm=model, userdata=identity)
                if with_identity
                else AgentSession(llm=model)
            )
            agent = ZepMemoryAgent(
                self.memory, instructions="You are a helpful voice assistant.", **self.agent_options
            )
            await session.start(agent)
            self.sessions[key] = (session, agent, model)
        return self.sessions[key]

    async def run_turn(
        self,
        *,
        user_id: str,
        thread_id: str,
        text: str,
        reply: str,
        tool_queries: Sequence[str] = (),
    ) -> TurnResult:
        session, agent, model = await self.open(user_id, thread_id)
        model.steps = [Step(tool="search_memory", args={"query": q}) for q in tool_queries]
        model.steps.append(Step(text=reply))
        first = len(model.inputs)
        await user_turn(session, agent, text)
        return TurnResult(reply=reply, model_inputs=model.inputs[first:])

    async def run_turn_without_identity(self, *, text: str, reply: str) -> TurnResult:
        """A session started with no userdata: the agent finds no identity."""
        session, agent, model = await self.open("anonymous", "anonymous", with_identity=False)
        model.steps = [Step(text=reply)]
        first = len(model.inputs)
        await user_turn(session, agent, text)
        return TurnResult(reply=reply, model_inputs=model.inputs[first:])

    async def aclose(self) -> None:
        for session, _, _ in self.sessions.values():
            await session.aclose()


@pytest.fixture
async def harnesses() -> AsyncIterator[Callable[..., LiveKitHarness]]:
    """Builds `LiveKitHarness`es and closes their sessions after the test."""
    made: list[LiveKitHarness] = []

    def make(memory: MemoryLoop, **agent_options: Any) -> LiveKitHarness:
        made.append(LiveKitHarness(memory, **agent_options))
        return made[-1]

    yield make
    for harness in made:
        await harness.aclose()


@pytest.fixture
def drive_turn() -> Callable[[AgentSession, ZepMemoryAgent, str], Awaitable[None]]:
    """Runs one completed user turn through the hook (see `user_turn`)."""
    return user_turn
