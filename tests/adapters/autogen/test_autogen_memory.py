"""`ZepMemory` beyond the contract: one block per run in any model context (never stacked, first,
next to the system message), reply capture, the rest of the Memory protocol (query, add, clear,
close), the search tool, fail-soft and the import guard."""

from __future__ import annotations

import inspect
import logging
from collections.abc import AsyncIterator
from typing import Any

import pytest
from autogen_agentchat.agents import AssistantAgent
from autogen_agentchat.messages import MemoryQueryEvent
from autogen_core.memory import MemoryContent, MemoryMimeType
from autogen_core.model_context import (
    BufferedChatCompletionContext,
    UnboundedChatCompletionContext,
)
from autogen_core.models import LLMMessage, SystemMessage, UserMessage

from zepkit.autogen import ZepChatCompletionContext, ZepMemory, search_tool
from zepkit.core import BackendError, MemoryLoop
from zepkit.local import LocalBackend
from zepkit.testing import FailingBackend

FACT = "My sister Beatrix moved to Lisbon last spring and opened a bakery."
SECRET = "My locker code is ZEBRA-7781."
SYSTEM = "You are a helpful assistant."


@pytest.fixture
async def memory() -> AsyncIterator[MemoryLoop]:
    loop = MemoryLoop.local(":memory:")
    yield loop
    await loop.aclose()


@pytest.fixture
async def failing_memory() -> AsyncIterator[MemoryLoop]:
    loop = MemoryLoop(FailingBackend(LocalBackend(":memory:")))
    yield loop
    await loop.aclose()


def blocks(messages: list[LLMMessage]) -> list[int]:
    """Positions of memory blocks among what one model call received."""
    return [
        i
        for i, m in enumerate(messages)
        if isinstance(m, SystemMessage) and "<ZEP_CONTEXT>" in m.content
    ]


def stored(messages: list[Any]) -> list[tuple[str, str]]:
    return [(m.role, m.content) for m in messages]


async def remember(memory: MemoryLoop, user_id: str, text: str) -> None:
    """An earlier conversation of the same user, on another thread."""
    zep = ZepMemory(memory, user_id=user_id, thread_id=f"{user_id}-earlier")
    await zep.add(MemoryContent(content=text, mime_type="text/plain", metadata={"role": "user"}))


@pytest.mark.parametrize("context", ["zep", "unbounded", "buffered"])
async def test_one_block_per_model_call_over_many_runs(
    memory: MemoryLoop, replay: Any, context: str
) -> None:
    await remember(memory, "alice", FACT)
    zep = ZepMemory(memory, user_id="alice", thread_id="today")
    model_context = {
        "zep": ZepChatCompletionContext(zep, BufferedChatCompletionContext(buffer_size=3)),
        "unbounded": UnboundedChatCompletionContext(),
        "buffered": BufferedChatCompletionContext(buffer_size=50),
    }[context]
    client = replay.client()
    agent = AssistantAgent(
        "assistant",
        model_client=client,
        system_message=SYSTEM,
        memory=[zep],
        model_context=model_context,
        tools=[zep.search_tool()],
        reflect_on_tool_use=True,
    )
    for run in range(3):
        client.chat_completions.extend([*replay.searches([f"Beatrix {run}"]), f"Reply {run}."])
        await agent.run(task=f"Where does Beatrix live? ({run})")
    calls = replay.calls(client)
    assert len(calls) == 6
    for call in calls:
        # exactly one block, right after the agent's system message: the system messages stay
        # contiguous, which clients that merge them into one (or reject gaps) require
        assert blocks(call) == [1]
        assert isinstance(call[0], SystemMessage)
        assert call[0].content == SYSTEM
        assert "Lisbon" in call[1].content
    user_turns = [m for m in await memory.get_messages("today") if m.role == "user"]
    assert [m.content for m in user_turns] == [f"Where does Beatrix live? ({r})" for r in range(3)]


async def test_the_agents_own_context_holds_one_block_after_many_runs(
    memory: MemoryLoop, replay: Any
) -> None:
    """Stock ListMemory adds a block per run; ZepMemory replaces its block in the stored history."""
    await remember(memory, "alice", FACT)
    zep = ZepMemory(memory, user_id="alice", thread_id="t1")
    model_context = UnboundedChatCompletionContext()
    client = replay.client("One.", "Two.", "Three.")
    agent = AssistantAgent("assistant", client, memory=[zep], model_context=model_context)
    for text in ("Beatrix?", "And my brother?", "Anything else?"):
        await agent.run(task=text)
    kept = await model_context.get_messages()
    assert len(blocks(kept)) == 1
    assert [type(m).__name__ for m in kept][1:] == ["UserMessage", "AssistantMessage"] * 3


async def test_a_block_saved_with_the_agent_state_is_replaced_after_reload(
    memory: MemoryLoop, replay: Any
) -> None:
    await remember(memory, "alice", FACT)
    first = AssistantAgent(
        "assistant",
        replay.client("Noted."),
        memory=[ZepMemory(memory, user_id="alice", thread_id="t1")],
    )
    await first.run(task="Tell me about Beatrix.")
    state = await first.save_state()

    client = replay.client("Lisbon.")
    second = AssistantAgent(
        "assistant", client, memory=[ZepMemory(memory, user_id="alice", thread_id="t1")]
    )
    await second.load_state(state)
    await second.run(task="Where does she live?")
    assert blocks(replay.calls(client)[0]) == [1]  # after the default system message


async def test_zep_context_keeps_the_block_out_of_saved_state(
    memory: MemoryLoop, replay: Any
) -> None:
    await remember(memory, "alice", FACT)
    zep = ZepMemory(memory, user_id="alice", thread_id="t1")
    agent = AssistantAgent(
        "assistant",
        replay.client("Noted."),
        memory=[zep],
        model_context=ZepChatCompletionContext(zep),
    )
    await agent.run(task="Tell me about Beatrix.")
    state = await agent.save_state()
    assert "ZEP_CONTEXT" not in str(state)
    await agent.on_reset(cancellation_token=None)  # type: ignore[arg-type]
    assert await agent.model_context.get_messages() == []


async def test_memory_query_event_shows_the_block(memory: MemoryLoop, replay: Any) -> None:
    await remember(memory, "alice", FACT)
    zep = ZepMemory(memory, user_id="alice", thread_id="t1")
    agent = AssistantAgent("assistant", replay.client("Lisbon."), memory=[zep])
    result = await agent.run(task="Where does Beatrix live?")
    events = [m for m in result.messages if isinstance(m, MemoryQueryEvent)]
    assert len(events) == 1
    assert "Lisbon" in str(events[0].content[0].content)


async def test_reply_after_tool_calls_is_captured_once(memory: MemoryLoop, replay: Any) -> None:
    zep = ZepMemory(memory, user_id="alice", thread_id="t1")
    client = replay.client(*replay.searches(["bakery", "Lisbon"]), "Found nothing.")
    agent = AssistantAgent(
        "assistant",
        client,
        memory=[zep],
        model_context=ZepChatCompletionContext(zep),
        tools=[zep.search_tool()],
        max_tool_iterations=5,
    )
    await agent.run(task=FACT)
    assert stored(await memory.get_messages("t1")) == [
        ("user", FACT),
        ("assistant", "Found nothing."),
    ]


async def test_a_run_without_a_new_message_saves_nothing(memory: MemoryLoop, replay: Any) -> None:
    zep = ZepMemory(memory, user_id="alice", thread_id="t1")
    agent = AssistantAgent(
        "assistant",
        replay.client("Hi!", "Still here."),
        memory=[zep],
        model_context=ZepChatCompletionContext(zep),
    )
    await agent.run(task="Hello")
    await agent.run()  # continue without a task: the agent spoke last
    assert stored(await memory.get_messages("t1")) == [("user", "Hello"), ("assistant", "Hi!")]


async def test_capture_reply_by_hand_with_another_context(memory: MemoryLoop, replay: Any) -> None:
    zep = ZepMemory(memory, user_id="alice", thread_id="t1")
    agent = AssistantAgent("assistant", replay.client("Hi!"), memory=[zep])
    result = await agent.run(task="Hello")
    last = result.messages[-1]
    assert await zep.capture_reply(last.to_text(), name=last.source)
    assert not await zep.capture_reply(last.to_text())  # once per run
    assert stored(await memory.get_messages("t1")) == [("user", "Hello"), ("assistant", "Hi!")]


async def test_failing_backend_runs_without_memory(
    failing_memory: MemoryLoop, replay: Any, caplog: pytest.LogCaptureFixture
) -> None:
    zep = ZepMemory(failing_memory, user_id="alice", thread_id="t1")
    client = replay.client(*replay.searches(["locker"]), "Got it.", "Still fine.")
    agent = AssistantAgent(
        "assistant",
        client,
        memory=[zep],
        tools=[zep.search_tool()],
        reflect_on_tool_use=True,
    )
    with caplog.at_level(logging.WARNING, logger="zepkit"):
        first = await agent.run(task=SECRET)
        second = await agent.run(task="Anything?")
        await zep.add(MemoryContent(content=SECRET, mime_type=MemoryMimeType.TEXT))
        await zep.clear()
        found = await zep.query("locker")
    assert first.messages[-1].to_text() == "Got it."
    assert second.messages[-1].to_text() == "Still fine."
    assert found.results == []
    assert all(not blocks(call) for call in replay.calls(client))
    assert caplog.records
    assert all("ZEBRA" not in r.getMessage() for r in caplog.records)


async def test_on_error_raise_surfaces_failures(replay: Any) -> None:
    loop = MemoryLoop(FailingBackend(LocalBackend(":memory:")), on_error="raise")
    zep = ZepMemory(loop, user_id="alice", thread_id="t1")
    with pytest.raises(BackendError):
        await zep.add(MemoryContent(content="hello", mime_type="text/plain"))
    await loop.aclose()


async def test_query_searches_this_user_only(memory: MemoryLoop) -> None:
    alice = ZepMemory(memory, user_id="alice", thread_id="a1")
    bob = ZepMemory(memory, user_id="bob", thread_id="b1")
    await alice.add(MemoryContent(content=SECRET, mime_type=MemoryMimeType.TEXT))
    found = await alice.query("locker code", scope="episodes", limit=5)
    assert found.results
    assert "ZEBRA" in str(found.results[0].content)
    assert found.results[0].metadata is not None
    assert found.results[0].metadata["kind"] == "episode"
    assert (await alice.query(MemoryContent(content="locker", mime_type="text/plain"))).results
    assert (await bob.query("locker code", scope="episodes")).results == []
    with pytest.raises(TypeError):
        await alice.query(MemoryContent(content={"q": 1}, mime_type=MemoryMimeType.JSON))


async def test_query_a_shared_graph(memory: MemoryLoop) -> None:
    await memory.add_data("The office closes at 6pm on Fridays.", graph_id="handbook")
    zep = ZepMemory(memory, user_id="alice", thread_id="a1")
    found = await zep.query("office Fridays", graph_id="handbook", scope="episodes")
    assert "6pm" in str(found.results[0].content)
    assert (await zep.query("office Fridays", scope="episodes")).results == []


async def test_add_routes_messages_text_and_json(memory: MemoryLoop) -> None:
    zep = ZepMemory(memory, user_id="alice", thread_id="a1")
    await zep.add(
        MemoryContent(
            content="I prefer aisle seats.",
            mime_type=MemoryMimeType.TEXT,
            metadata={"role": "user", "name": "Alice"},
        )
    )
    await zep.add(MemoryContent(content="Alice is vegetarian.", mime_type=MemoryMimeType.MARKDOWN))
    await zep.add(MemoryContent(content={"frequent_flyer": "TP-123"}, mime_type="application/json"))
    messages = await memory.get_messages("a1")
    assert [(m.role, m.content, m.name) for m in messages] == [
        ("user", "I prefer aisle seats.", "Alice")
    ]
    found = await memory.search("vegetarian flyer", user_id="alice", scope="episodes")
    sources = {e.source: e.content for e in found.episodes}
    assert sources["text"] == "Alice is vegetarian."
    assert "TP-123" in sources["json"]


async def test_add_never_raises_on_content_it_cannot_store(
    memory: MemoryLoop, caplog: pytest.LogCaptureFixture
) -> None:
    zep = ZepMemory(memory, user_id="alice", thread_id="a1")
    with caplog.at_level(logging.WARNING, logger="zepkit"):
        await zep.add(MemoryContent(content=b"\x89PNG", mime_type=MemoryMimeType.BINARY))
        await zep.add(MemoryContent(content="   ", mime_type=MemoryMimeType.TEXT))
        await zep.add(MemoryContent(content="hi", mime_type="text/plain", metadata={"role": "x"}))
    assert len([r for r in caplog.records if r.levelno == logging.WARNING]) == 3
    assert await memory.get_messages("a1") == []


async def test_clear_deletes_only_this_thread(memory: MemoryLoop, replay: Any) -> None:
    mine = ZepMemory(memory, user_id="alice", thread_id="a1")
    other = ZepMemory(memory, user_id="alice", thread_id="a2")
    for zep in (mine, other):
        await zep.add(
            MemoryContent(content="hello", mime_type="text/plain", metadata={"role": "user"})
        )
    await mine.clear()
    await mine.clear()  # already clear
    assert await memory.get_messages("a1") == []
    assert stored(await memory.get_messages("a2")) == [("user", "hello")]
    # the thread comes back on the next run
    agent = AssistantAgent("assistant", replay.client("Hi."), memory=[mine])
    await agent.run(task="Back again")
    assert stored(await memory.get_messages("a1")) == [("user", "Back again")]


async def test_close_leaves_the_loop_open(memory: MemoryLoop) -> None:
    zep = ZepMemory(memory, user_id="alice", thread_id="a1")
    await zep.close()
    await zep.add(
        MemoryContent(content="still works", mime_type="text/plain", metadata={"role": "user"})
    )
    assert stored(await memory.get_messages("a1")) == [("user", "still works")]


async def test_search_tool_binds_the_user(memory: MemoryLoop) -> None:
    alice = ZepMemory(memory, user_id="alice", thread_id="a1")
    bob = ZepMemory(memory, user_id="bob", thread_id="b1")
    await alice.add(MemoryContent(content=SECRET, mime_type=MemoryMimeType.TEXT))
    tool = alice.search_tool(scope="episodes")
    assert "scope" not in tool.schema.get("parameters", {}).get("properties", {})
    token: Any = None
    assert "ZEBRA" in await tool.run_json({"query": "locker code"}, token)
    assert "ZEBRA" not in await bob.search_tool(scope="episodes").run_json(
        {"query": "locker"}, token
    )
    assert "empty" in await tool.run_json({}, token)
    unpinned = alice.search_tool()
    assert "scope" in unpinned.schema.get("parameters", {}).get("properties", {})
    assert "not available" in await unpinned.run_json({"query": "x", "scope": "nowhere"}, token)


def test_the_tool_function_takes_the_parameters_the_model_sees(memory: MemoryLoop) -> None:
    search = memory.search_tool()
    tool = search_tool(memory, "alice")
    assert list(inspect.signature(tool._func).parameters) == list(search.visible_parameters)
    pinned = search_tool(memory, "alice", scope="nodes", limit=3)
    assert set(inspect.signature(pinned._func).parameters) == {"query", "reranker", "mmr_lambda"}


async def test_shared_graph_tool_needs_no_user(memory: MemoryLoop) -> None:
    await memory.add_data("Refunds take 5 business days.", graph_id="policies")
    tool = search_tool(memory, None, graph_id="policies", scope="episodes")
    assert "5 business days" in await tool.run_json({"query": "refunds"}, None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="identity"):
        search_tool(memory, None)


def test_identity_is_checked_at_construction(memory: MemoryLoop) -> None:
    with pytest.raises(ValueError, match="non-empty"):
        ZepMemory(memory, user_id=" ", thread_id="t1")
    with pytest.raises(TypeError):
        ZepMemory("memory.db", user_id="u", thread_id="t")  # type: ignore[arg-type]


def test_user_message_text_from_multimodal_content() -> None:
    from zepkit.autogen._content import newest_user_text

    messages: list[LLMMessage] = [
        UserMessage(content=["look at this", "and this"], source="user"),
    ]
    assert newest_user_text(messages) == "look at this\nand this"


async def test_a_failed_add_is_logged_with_its_content_type_and_ids(
    memory: MemoryLoop, caplog: pytest.LogCaptureFixture
) -> None:
    zep = ZepMemory(memory, user_id="alice", thread_id="t1")
    bad = MemoryContent(content={"a": 1}, mime_type=MemoryMimeType.JSON, metadata={"role": "user"})
    with caplog.at_level(logging.WARNING, logger="zepkit"):
        await zep.add(bad)  # a message must be text
    [record] = caplog.records
    assert "autogen add failed (TypeError" in record.getMessage()
    assert "user_id='alice' thread_id='t1'" in record.getMessage()
    assert "mime_type=" in record.getMessage()
