"""What the AG2 adapter does beyond the contract: identity from a run's variables or fixed ids,
continued conversations, the search tool's schema and target, and runs on many event loops."""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest
from ag2 import Agent, MemoryStream
from ag2.context import ConversationContext
from ag2.events import ToolCallEvent, ToolResultEvent
from ag2.testing import TestConfig

from zepkit.ag2 import RunIdentity, search_tool, zep_memory_plugin
from zepkit.core import ConfigurationError, Identity, MemoryLoop
from zepkit.core.spi import Backend
from zepkit.local import LocalBackend

Track = Callable[..., Any]  # the `track` fixture: a scripted model recording each prompt

FACT = "Nadia's daughter Ines plays the cello in the Porto youth orchestra."


@pytest.fixture
async def memory() -> AsyncIterator[MemoryLoop]:
    loop = MemoryLoop.local(":memory:")
    yield loop
    await loop.aclose()


def search_call(**args: Any) -> ToolCallEvent:
    return ToolCallEvent("search_memory", arguments=json.dumps(args))


async def tool_results(reply: Any) -> list[str]:
    events = await reply.history.get_events()
    return [str(e.result.parts[0].content) for e in events if isinstance(e, ToolResultEvent)]


async def test_identity_comes_from_the_run_variables(memory: MemoryLoop, track: Track) -> None:
    await memory.add_data(FACT, user_id="nadia")
    config = track(search_call(query="Ines cello"), "Cello.")
    agent = Agent("assistant", "Be brief.", config=config, plugins=[zep_memory_plugin(memory)])
    reply = await agent.ask(
        "What does Ines play?", variables={"user_id": "nadia", "thread_id": "n1"}
    )
    assert reply.body == "Cello."
    assert any("Porto youth orchestra" in text for text in await tool_results(reply))
    stored = await memory.get_messages("n1")
    assert [(m.role, m.content) for m in stored] == [
        ("user", "What does Ines play?"),
        ("assistant", "Cello."),
    ]


async def test_fixed_ids_win_over_variables(memory: MemoryLoop, track: Track) -> None:
    await memory.add_data(FACT, user_id="nadia")
    config = track(search_call(query="Ines"), "Noted.")
    plugin = zep_memory_plugin(memory, user_id="nadia", thread_id="fixed")
    agent = Agent("assistant", "Be brief.", config=config, plugins=[plugin])
    reply = await agent.ask("Hi", variables={"user_id": "mallory", "thread_id": "other"})
    assert any("Porto" in text for text in await tool_results(reply))
    assert [m.role for m in await memory.get_messages("fixed")] == ["user", "assistant"]
    assert await memory.get_messages("other") == []


async def test_the_model_cannot_choose_whose_memory_it_searches(
    memory: MemoryLoop, track: Track
) -> None:
    await memory.add_data(FACT, user_id="nadia")
    config = track(search_call(query="Ines cello", user_id="nadia"), "No.")
    agent = Agent("assistant", "Be brief.", config=config, plugins=[zep_memory_plugin(memory)])
    reply = await agent.ask("What does Ines play?", variables={"user_id": "omar"})
    assert all("Porto" not in text for text in await tool_results(reply))


async def test_a_continued_conversation_is_a_new_turn_with_a_fresh_block(
    memory: MemoryLoop, track: Track
) -> None:
    await memory.add_data(FACT, user_id="nadia")
    await memory.add_data("Nadia grows tomatoes and basil in her rooftop garden.", user_id="nadia")
    ines_fact = "- Nadia's daughter Ines plays"
    config = track("Basil.", "The Porto youth orchestra.")
    agent = Agent("assistant", "Be brief.", config=config, plugins=[zep_memory_plugin(memory)])
    first = await agent.ask(
        "What grows in my rooftop garden?", variables={"user_id": "nadia", "thread_id": "n1"}
    )
    assert not any("<ZEP_CONTEXT>" in part for part in first.context.prompt), "block left behind"
    await first.ask("Which orchestra does Ines play in?")  # AG2 re-evaluates no dynamic prompt here
    first_prompt, second_prompt = ("\n".join(prompt) for prompt in config.prompts)
    assert "rooftop garden" in first_prompt and ines_fact not in first_prompt
    assert second_prompt.count("<ZEP_CONTEXT>") == 1 and ines_fact in second_prompt
    stored = await memory.get_messages("n1")
    assert [m.content for m in stored] == [
        "What grows in my rooftop garden?",
        "Basil.",
        "Which orchestra does Ines play in?",
        "The Porto youth orchestra.",
    ]


async def test_thread_defaults_to_the_stream(memory: MemoryLoop) -> None:
    stream = MemoryStream()
    agent = Agent("assistant", "Be brief.", plugins=[zep_memory_plugin(memory)])
    for text, reply in (("first", "One."), ("second", "Two.")):
        await agent.ask(
            text, stream=stream, config=TestConfig(reply), variables={"user_id": "nadia"}
        )
    stored = await memory.get_messages(f"ag2-{stream.id}")
    assert [m.content for m in stored] == ["first", "One.", "second", "Two."]


@pytest.mark.skipif(
    "plugins" not in inspect.signature(Agent.ask).parameters,
    reason="this AG2 release takes plugins only at construction",
)
async def test_plugin_can_be_given_per_call(memory: MemoryLoop) -> None:
    agent = Agent("assistant", "Be brief.", config=TestConfig("Hello."))
    plugin = zep_memory_plugin(memory, user_id="nadia", thread_id="n1")
    reply = await agent.ask("hi", plugins=[plugin])
    assert reply.body == "Hello."
    assert [m.role for m in await memory.get_messages("n1")] == ["user", "assistant"]


async def test_a_run_without_a_user_runs_without_memory(
    memory: MemoryLoop, track: Track, caplog: pytest.LogCaptureFixture
) -> None:
    config = track(search_call(query="anything"), "Fine.")
    agent = Agent("assistant", "Be brief.", config=config, plugins=[zep_memory_plugin(memory)])
    with caplog.at_level(logging.WARNING, logger="zepkit"):
        reply = await agent.ask("hello", variables={"thread_id": "t1"})
    assert reply.body == "Fine."
    assert await tool_results(reply) == ["Error: memory search has no user for this conversation."]
    assert await memory.get_messages("t1") == []
    assert any("ConfigurationError" in r.getMessage() for r in caplog.records)


async def test_shared_graph_tool_needs_no_user(memory: MemoryLoop) -> None:
    await memory.add_data("The shop opens at 9am on weekdays.", graph_id="shop")
    tool = search_tool(memory, graph_id="shop", limit=3)
    assert "limit" not in tool.schema.function.parameters["properties"]
    agent = Agent(
        "assistant", "x", config=TestConfig(search_call(query="opens"), "9am."), tools=[tool]
    )
    reply = await agent.ask("When do you open?")
    assert any("9am" in text for text in await tool_results(reply))


def test_construction_errors_are_immediate(memory: MemoryLoop) -> None:
    with pytest.raises(ValueError, match="user_id"):
        zep_memory_plugin(memory, user_id=" ")
    with pytest.raises(ValueError, match="search_tool=False"):
        zep_memory_plugin(memory, search_tool=False, limit=3)
    with pytest.raises(TypeError, match="MemoryLoop"):
        zep_memory_plugin(object())  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="not supported"):
        zep_memory_plugin(memory, scope="nope")


async def test_run_identity_ignores_variables_that_are_not_ids() -> None:
    context = ConversationContext(MemoryStream(), variables={"user_id": ["alice"]})
    with pytest.raises(ConfigurationError, match="needs user_id"):
        await RunIdentity().find(context)


async def test_run_identity_keeps_profile_fields() -> None:
    variables = {"user_id": "alice", "first_name": "Alice", "email": "a@example.com"}
    context = ConversationContext(MemoryStream(), variables=variables)
    identity = await RunIdentity(thread_id="t1").find(context)
    assert identity == Identity(
        user_id="alice", thread_id="t1", first_name="Alice", email="a@example.com"
    )


class LoopBoundBackend:
    """A backend that, like an HTTP client's connection pool, belongs to the first event loop
    that uses it: touched from any other loop it fails with "Event loop is closed"."""

    def __init__(self, inner: Backend) -> None:
        self.inner = inner
        self.owner: asyncio.AbstractEventLoop | None = None
        self.capabilities = inner.capabilities

    def __getattr__(self, name: str) -> Callable[..., Awaitable[Any]]:
        operation = getattr(self.inner, name)

        async def bound(*args: Any, **kwargs: Any) -> Any:
            loop = asyncio.get_running_loop()
            if self.owner is None:
                self.owner = loop
            elif loop is not self.owner and name != "aclose":
                raise RuntimeError("Event loop is closed")
            return await operation(*args, **kwargs)

        return bound


def test_loop_bound_backend_fails_across_loops() -> None:
    """The double used below does fail when one backend is used from two event loops."""
    backend = LoopBoundBackend(LocalBackend(":memory:"))
    asyncio.run(backend.ensure_graph("g"))
    with pytest.raises(RuntimeError, match="Event loop is closed"):
        asyncio.run(backend.ensure_graph("g"))


def question(index: int) -> str:
    return f"Question {index}: which instrument does Ines play?"


def test_ten_runs_each_on_its_own_event_loop(
    track: Track, caplog: pytest.LogCaptureFixture
) -> None:
    """Ten `asyncio.run` calls on one agent, each with a tool call: every memory call (turn,
    tool, reply) stays on the core's private loop, so none meets a closed loop."""
    backend = LoopBoundBackend(LocalBackend(":memory:"))
    memory = MemoryLoop(backend)  # type: ignore[arg-type]
    memory.sync.add_data(FACT, user_id="nadia")
    agent = Agent("assistant", "Be brief.", plugins=[zep_memory_plugin(memory)])
    variables = {"user_id": "nadia", "thread_id": "n1"}
    with caplog.at_level(logging.WARNING):
        for index in range(10):
            config = track(search_call(query="Ines cello"), f"Answer {index}.")
            reply = asyncio.run(agent.ask(question(index), config=config, variables=variables))
            assert reply.body == f"Answer {index}."
            assert any("Porto" in text for text in asyncio.run(tool_results(reply)))
            assert all("<ZEP_CONTEXT>" in "\n".join(prompt) for prompt in config.prompts)
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
    stored = memory.sync.get_messages("n1")
    assert [m.content for m in stored[-2:]] == [question(9), "Answer 9."]
    assert len(stored) == 20
    memory.sync.close()


async def test_ten_runs_in_one_event_loop_with_a_tool_call_each(
    caplog: pytest.LogCaptureFixture,
) -> None:
    backend = LoopBoundBackend(LocalBackend(":memory:"))
    memory = MemoryLoop(backend)  # type: ignore[arg-type]
    await asyncio.to_thread(memory.sync.add_data, FACT, user_id="nadia")
    agent = Agent("assistant", "Be brief.", plugins=[zep_memory_plugin(memory)])
    with caplog.at_level(logging.WARNING):
        for index in range(10):
            config = TestConfig(search_call(query="cello"), f"Answer {index}.")
            reply = await agent.ask(
                f"Q{index}", config=config, variables={"user_id": "nadia", "thread_id": "n1"}
            )
            assert any("Porto" in text for text in await tool_results(reply))
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(await asyncio.to_thread(memory.sync.get_messages, "n1")) == 20
    await asyncio.to_thread(memory.sync.close)
