"""`ZepContextProvider` on Agent Framework's real `Agent` runtime with an offline chat client.

The client is built on `FunctionInvocationLayer`, so a scripted tool call really runs the memory
search tool and its result comes back to the model on the next call.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest
from agent_framework import (
    Agent,
    AgentSession,
    BaseChatClient,
    ChatResponse,
    ChatResponseUpdate,
    Content,
    FunctionInvocationLayer,
    Message,
    ResponseStream,
    SessionContext,
)

from zepkit.agent_framework import ZepContextProvider
from zepkit.core import Identity, MemoryLoop
from zepkit.local import LocalBackend
from zepkit.testing import AdapterContract, FailingBackend, TurnResult

SECRET = "My locker code is ZEBRA-7781."


@dataclass
class Script:
    """What the scripted model does for one user message: search once per query, then reply."""

    queries: list[str]
    reply: str
    seen: list[str] = field(default_factory=list)


class ScriptedClient(FunctionInvocationLayer[Any], BaseChatClient[Any]):
    """A chat client that plays the script registered for the run's latest user message."""

    def __init__(self, tool_name: str = "search_memory") -> None:
        super().__init__()
        self.tool_name = tool_name
        self.scripts: dict[str, Script] = {}

    def expect(self, text: str, reply: str, queries: Sequence[str] = ()) -> Script:
        script = Script(list(queries), reply)
        self.scripts[text] = script
        return script

    def _inner_get_response(
        self, *, messages: Sequence[Message], stream: bool, options: Any, **kwargs: Any
    ) -> Any:
        last_user = next(
            (m.text for m in reversed(messages) if m.role == "user" and m.text), messages[-1].text
        )
        script = self.scripts[last_user]
        script.seen.append(render_call(messages, options))
        if script.queries:
            content = Content.from_function_call(
                call_id=f"call-{uuid.uuid4().hex[:8]}",
                name=self.tool_name,
                arguments={"query": script.queries.pop(0)},
            )
        else:
            content = Content.from_text(script.reply)
        if stream:
            return ResponseStream(_updates(content), finalizer=ChatResponse.from_updates)
        return _respond(content)


async def _respond(content: Content) -> ChatResponse:
    return ChatResponse(messages=[Message(role="assistant", contents=[content])])


async def _updates(content: Content) -> AsyncIterator[ChatResponseUpdate]:
    yield ChatResponseUpdate(role="assistant", contents=[content])


def render_call(messages: Sequence[Message], options: Any) -> str:
    """Everything the model received on one call, as text: instructions, tools, messages."""
    tools = [getattr(tool, "name", str(tool)) for tool in options.get("tools") or []]
    lines = [f"instructions: {options.get('instructions') or ''}", f"tools: {tools}"]
    for message in messages:
        for content in message.contents:
            if content.type == "text":
                lines.append(f"{message.role}: {content.text}")
            elif content.type == "function_call":
                lines.append(f"{message.role} calls {content.name}({content.arguments})")
            elif content.type == "function_result":
                lines.append(f"tool result: {content.result}")
    return "\n".join(lines)


class AgentFrameworkHarness:
    """One `Agent` and ONE provider for every user; each thread is an Agent Framework session."""

    supports_tools = True

    def __init__(self, memory: MemoryLoop) -> None:
        self.provider = ZepContextProvider(memory)
        self.client = ScriptedClient()
        self.agent = Agent(
            client=self.client,
            instructions="You are a helpful assistant.",
            name="Helper",
            context_providers=[self.provider],
        )
        self.sessions: dict[str, AgentSession] = {}

    def session(self, user_id: str, thread_id: str) -> AgentSession:
        if thread_id not in self.sessions:
            session = self.agent.create_session(session_id=thread_id)
            self.provider.set_identity(session, user_id)
            self.sessions[thread_id] = session
        return self.sessions[thread_id]

    async def run_turn(
        self,
        *,
        user_id: str,
        thread_id: str,
        text: str,
        reply: str,
        tool_queries: Sequence[str] = (),
    ) -> TurnResult:
        script = self.client.expect(text, reply, tool_queries)
        response = await self.agent.run(text, session=self.session(user_id, thread_id))
        return TurnResult(reply=response.text, model_inputs=script.seen)

    async def run_streamed_turn(
        self,
        *,
        user_id: str,
        thread_id: str,
        text: str,
        reply: str,
        tool_queries: Sequence[str] = (),
    ) -> TurnResult:
        script = self.client.expect(text, reply, tool_queries)
        stream = self.agent.run(text, session=self.session(user_id, thread_id), stream=True)
        async for _ in stream:
            pass
        final = await stream.get_final_response()
        return TurnResult(reply=final.messages[-1].text, model_inputs=script.seen)

    async def run_turn_without_identity(self, *, text: str, reply: str) -> TurnResult:
        """A session nobody set an identity on."""
        script = self.client.expect(text, reply, ())
        session = self.agent.create_session(session_id="anonymous")
        response = await self.agent.run(text, session=session)
        return TurnResult(reply=response.text, model_inputs=script.seen)


class TestAgentFrameworkContract(AdapterContract):
    framework_key = "agent-framework"
    framework_modules = ("agent_framework",)

    @pytest.fixture
    def make_harness(self) -> Callable[[MemoryLoop], AgentFrameworkHarness]:
        return AgentFrameworkHarness


@pytest.fixture
async def memory() -> AsyncIterator[MemoryLoop]:
    loop = MemoryLoop.local(":memory:")
    yield loop
    await loop.aclose()


def _pairs(messages: Sequence[Any]) -> list[tuple[str, str]]:
    return [(m.role, m.content) for m in messages]


async def test_the_tool_call_loops_and_its_result_reaches_the_model(memory: MemoryLoop) -> None:
    harness = AgentFrameworkHarness(memory)
    await harness.run_turn(user_id="alice", thread_id="a1", text=SECRET, reply="Saved.")
    result = await harness.run_turn(
        user_id="alice",
        thread_id="a2",
        text="What is my locker code?",
        reply="ZEBRA-7781.",
        tool_queries=["locker code"],
    )
    assert len(result.model_inputs) == 2
    assert "tools: ['search_memory']" in result.model_inputs[0]
    assert "tool result: - " in result.model_inputs[1]
    assert "ZEBRA-7781" in result.model_inputs[1].split("tool result:", 1)[1]
    assert _pairs(await memory.get_messages("a2")) == [
        ("user", "What is my locker code?"),
        ("assistant", "ZEBRA-7781."),
    ]


async def test_concurrent_users_on_one_provider_stay_apart(memory: MemoryLoop) -> None:
    harness = AgentFrameworkHarness(memory)
    await harness.run_turn(user_id="alice", thread_id="a1", text=SECRET, reply="Saved.")
    bob_asks = "Bob here: what is my locker code?"
    alice_asks = "Alice here: what is my locker code?"
    bob = harness.client.expect(bob_asks, "I don't know.", ["locker code"])
    alice = harness.client.expect(alice_asks, "ZEBRA-7781.", ["locker code"])
    await asyncio.gather(
        harness.agent.run(bob_asks, session=harness.session("bob", "b1")),
        harness.agent.run(alice_asks, session=harness.session("alice", "a2")),
    )
    assert all("ZEBRA" not in seen for seen in bob.seen)
    assert "ZEBRA-7781" in alice.seen[-1]
    assert _pairs(await memory.get_messages("b1")) == [
        ("user", bob_asks),
        ("assistant", "I don't know."),
    ]
    assert [m.role for m in await memory.get_messages("a2")] == ["user", "assistant"]


async def test_the_reply_is_saved_under_the_agent_name_without_tool_chatter(
    memory: MemoryLoop,
) -> None:
    harness = AgentFrameworkHarness(memory)
    await harness.run_turn(
        user_id="alice", thread_id="a1", text="Hi", reply="Hello!", tool_queries=["hi", "hello"]
    )
    stored = await memory.get_messages("a1")
    assert _pairs(stored) == [("user", "Hi"), ("assistant", "Hello!")]
    assert stored[1].name == "Helper"


async def test_bound_identity_survives_session_serialization(memory: MemoryLoop) -> None:
    harness = AgentFrameworkHarness(memory)
    session = harness.agent.create_session(session_id="s1")
    harness.provider.set_identity(session, "carol", thread_id="carol-main", first_name="Carol")
    restored = AgentSession.from_dict(session.to_dict())
    harness.client.expect("Hello there", "Hi Carol.")
    await harness.agent.run("Hello there", session=restored)
    stored = await memory.get_messages("carol-main")
    assert _pairs(stored) == [("user", "Hello there"), ("assistant", "Hi Carol.")]
    assert stored[0].name == "Carol"
    found = await memory.search("Hello", user_id="carol", scope="episodes")
    assert found.episodes


async def test_resolver_decides_each_run(memory: MemoryLoop) -> None:
    seen: list[str] = []

    async def resolver(session: AgentSession, context: SessionContext) -> Identity | None:
        user = context.options.get("user")  # the chat option naming the end user
        seen.append(session.session_id)
        if user is None:
            return None  # anonymous runs get no memory
        return Identity(user_id=user, thread_id=f"{user}-{session.session_id}")

    client = ScriptedClient()
    agent = Agent(client=client, context_providers=[ZepContextProvider(memory, resolver=resolver)])
    session = agent.create_session(session_id="web-1")
    client.expect("I love sailing.", "Nice!")
    await agent.run("I love sailing.", session=session, options={"user": "dan"})
    anonymous = client.expect("Who am I?", "No idea.")
    await agent.run("Who am I?", session=session)
    assert seen == ["web-1", "web-1"]
    assert _pairs(await memory.get_messages("dan-web-1")) == [
        ("user", "I love sailing."),
        ("assistant", "Nice!"),
    ]
    assert "tools: []" in anonymous.seen[0]
    assert "ZEP_CONTEXT" not in anonymous.seen[0]


async def test_a_sync_resolver_and_fixed_ids_work_without_a_session(memory: MemoryLoop) -> None:
    client = ScriptedClient()
    fixed = ZepContextProvider(memory, user_id="erin", thread_id="erin-1")
    agent = Agent(client=client, context_providers=[fixed])
    client.expect("Remember: I am vegan.", "Noted.")
    await agent.run("Remember: I am vegan.")
    assert [m.role for m in await memory.get_messages("erin-1")] == ["user", "assistant"]

    resolved = ZepContextProvider(
        memory, resolver=lambda s, c: Identity(user_id="f", thread_id="f1")
    )
    agent = Agent(client=client, context_providers=[resolved])
    client.expect("Hello from f", "Hi f.")
    await agent.run("Hello from f")
    assert [m.role for m in await memory.get_messages("f1")] == ["user", "assistant"]


async def test_an_unknown_user_or_a_broken_resolver_never_breaks_the_run(
    memory: MemoryLoop, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(session: AgentSession, context: SessionContext) -> Identity:
        raise RuntimeError("directory service down")

    client = ScriptedClient()
    for provider in (ZepContextProvider(memory), ZepContextProvider(memory, resolver=broken)):
        agent = Agent(client=client, context_providers=[provider])
        script = client.expect("Keep this: ZEBRA-7781", "Done.")
        with caplog.at_level(logging.WARNING, logger="zepkit"):
            caplog.clear()
            response = await agent.run("Keep this: ZEBRA-7781", session=AgentSession())
        assert response.text == "Done."
        assert "tools: []" in script.seen[0]
        assert any("before_run" in r.getMessage() for r in caplog.records)
        assert all("ZEBRA" not in r.getMessage() for r in caplog.records)


async def test_a_run_without_user_text_saves_nothing(memory: MemoryLoop) -> None:
    client = ScriptedClient()
    provider = ZepContextProvider(memory)
    agent = Agent(client=client, context_providers=[provider])
    session = agent.create_session(session_id="t1")
    provider.set_identity(session, "gail")
    client.expect("Earlier question", "An answer.")
    await agent.run(Message(role="assistant", contents=["Earlier question"]), session=session)
    assert await memory.get_messages("t1") == []


async def test_a_failure_in_after_run_goes_to_on_error_and_the_run_ends() -> None:
    seen: list[str] = []

    def on_error(stage: str, exc: BaseException) -> None:
        seen.append(stage)
        if stage == "capture_reply":
            raise exc  # out of the loop, into after_run's guard

    failing = FailingBackend(LocalBackend(":memory:"), fail_on=frozenset({"add_messages"}))
    memory = MemoryLoop(failing, on_error=on_error)
    client = ScriptedClient()
    provider = ZepContextProvider(memory)
    agent = Agent(client=client, context_providers=[provider])
    session = agent.create_session(session_id="t1")
    provider.set_identity(session, "gail")
    client.expect("Hello", "Hi!")
    try:
        assert (await agent.run("Hello", session=session)).text == "Hi!"
    finally:
        await memory.aclose()
    assert seen == ["begin_turn", "capture_reply", "agent_framework after_run"]
