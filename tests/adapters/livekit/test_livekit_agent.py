"""LiveKit-specific behaviour: per-turn context only, the recall budget, conversation events,
interrupted replies, turns outside the hook and runs without an identity."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

import pytest
from livekit.agents import ChatMessage
from livekit.agents.voice.events import ConversationItemAddedEvent

from zepkit.core import BackendError, Identity, MemoryLoop
from zepkit.livekit import CONTEXT_ITEM_PREFIX, DEFAULT_RECALL_BUDGET, ZepMemoryAgent
from zepkit.local import LocalBackend
from zepkit.testing import FailingBackend, SlowBackend

FACT = "My sister Beatrix moved to Lisbon last spring and opened a bakery."
QUESTION = "Which city does my sister Beatrix live in now?"


async def roles(memory: MemoryLoop, thread_id: str) -> list[tuple[str, str]]:
    return [(m.role, m.content) for m in await memory.get_messages(thread_id)]


async def test_block_reaches_one_reply_and_never_the_agent_history(
    harnesses: Callable[..., Any],
) -> None:
    memory = MemoryLoop.local(":memory:")
    harness = harnesses(memory)
    await harness.run_turn(user_id="alice", thread_id="s1", text=FACT, reply="Noted.")
    result = await harness.run_turn(user_id="alice", thread_id="s2", text=QUESTION, reply="Lisbon.")
    assert "<ZEP_CONTEXT>" in result.model_inputs[0]
    _, agent, _ = harness.sessions[("alice", "s2")]
    kept = [item for item in agent.chat_ctx.items if item.id.startswith(CONTEXT_ITEM_PREFIX)]
    assert kept == []
    assert all(
        "<ZEP_CONTEXT>" not in (getattr(i, "text_content", "") or "") for i in agent.chat_ctx.items
    )
    await memory.aclose()


async def test_recall_budget_defaults_to_the_loops_else_250ms_and_never_changes_the_loop() -> None:
    plain = MemoryLoop.local(":memory:")
    assert ZepMemoryAgent(plain, instructions="hi").recall_budget == DEFAULT_RECALL_BUDGET
    assert plain.recall_budget is None  # the agent's budget is per call, the loop is untouched
    own = MemoryLoop.local(":memory:", recall_budget=1.5)
    assert ZepMemoryAgent(own, instructions="hi").recall_budget == 1.5
    assert ZepMemoryAgent(own, instructions="hi", recall_budget=0.1).recall_budget == 0.1
    assert ZepMemoryAgent(own, instructions="hi", recall_budget=None).recall_budget is None
    assert own.recall_budget == 1.5
    with pytest.raises(ValueError, match="recall_budget"):
        ZepMemoryAgent(plain, instructions="hi", recall_budget=0)
    for loop in (plain, own):
        await loop.aclose()


async def test_slow_memory_keeps_the_turn_going_and_the_late_block_serves_the_next(
    harnesses: Callable[..., Any],
) -> None:
    backend = SlowBackend(LocalBackend(":memory:"), delay=0.2)
    memory = MemoryLoop(backend, recall_budget=0.01)
    for thread in ("s1", "s2"):
        await memory.provision(Identity(user_id="alice", thread_id=thread))
    harness = harnesses(memory)
    await harness.run_turn(user_id="alice", thread_id="s1", text=FACT, reply="Noted.")
    first = await harness.run_turn(user_id="alice", thread_id="s2", text=QUESTION, reply="Hm.")
    assert all("<ZEP_CONTEXT>" not in text for text in first.model_inputs)
    # the late recall of that turn lands in the thread's slot
    async with asyncio.timeout(10):
        await memory.drain()
    second = await harness.run_turn(user_id="alice", thread_id="s2", text="And?", reply="Lisbon.")
    assert "<ZEP_CONTEXT>" in second.model_inputs[0]
    assert "Lisbon" in second.model_inputs[0]
    stored: list[tuple[str, str]] = []
    for _ in range(50):  # the second turn's late write lands in the background
        stored = await roles(memory, "s2")
        if len(stored) >= 4:
            break
    assert [role for role, _ in stored] == ["user", "assistant"] * 2
    await memory.aclose()


async def test_interrupted_replies_are_skipped_and_finals_stored_once(
    harnesses: Callable[..., Any],
) -> None:
    memory = MemoryLoop.local(":memory:")
    harness = harnesses(memory)
    await harness.run_turn(user_id="alice", thread_id="s1", text="hello", reply="Hi there.")
    session, agent, _ = harness.sessions[("alice", "s1")]
    cut = ChatMessage(role="assistant", content=["Let me tell you a long st"], interrupted=True)
    final = ChatMessage(role="assistant", content=["Short answer."])
    for item in (cut, final, final):
        session.emit("conversation_item_added", ConversationItemAddedEvent(item=item))
    await agent.flush()
    assert await roles(memory, "s1") == [
        ("user", "hello"),
        ("assistant", "Hi there."),
        ("assistant", "Short answer."),
    ]
    await memory.aclose()


async def test_turns_outside_the_hook_are_stored_from_the_events(
    harnesses: Callable[..., Any],
) -> None:
    memory = MemoryLoop.local(":memory:")
    harness = harnesses(memory)
    session, agent, _ = await harness.open("alice", "s1")
    await session.generate_reply(user_input="typed in the chat box")
    await agent.flush()
    assert await roles(memory, "s1") == [
        ("user", "typed in the chat box"),
        ("assistant", "(no script)"),
    ]
    await memory.aclose()


async def test_a_preemptive_copy_of_a_hooked_turn_is_not_stored_twice(
    harnesses: Callable[..., Any],
) -> None:
    memory = MemoryLoop.local(":memory:")
    harness = harnesses(memory)
    session, agent, _ = await harness.open("alice", "s1")
    hooked = ChatMessage(role="user", content=["same words"])
    await agent.on_user_turn_completed(agent.chat_ctx.copy(), hooked)
    copy = ChatMessage(role="user", content=["same words"])  # another id, as a reused draft has
    session.emit("conversation_item_added", ConversationItemAddedEvent(item=copy))
    await agent.flush()
    assert await roles(memory, "s1") == [("user", "same words")]
    await memory.aclose()


async def test_search_tool_is_offered_and_pins_reach_it() -> None:
    memory = MemoryLoop.local(":memory:")
    agent = ZepMemoryAgent(memory, instructions="hi", scope="edges", limit=3)
    assert agent.search is not None
    assert agent.search.pinned == {"scope": "edges", "limit": 3}
    assert len(agent.tools) == 1  # the search tool (its name is checked by the contract run)
    bare = ZepMemoryAgent(memory, instructions="hi", search_tool=False)
    assert bare.tools == []
    with pytest.raises(ValueError, match="search_tool=False"):
        ZepMemoryAgent(memory, instructions="hi", search_tool=False, limit=3)
    await memory.aclose()


async def test_early_provisioning_failures_follow_on_error(
    caplog: pytest.LogCaptureFixture,
) -> None:
    failing = FailingBackend(LocalBackend(":memory:"), fail_on=frozenset({"ensure_user"}))
    alice = Identity(user_id="alice", thread_id="a1")
    logged = ZepMemoryAgent(MemoryLoop(failing), instructions="Be brief.")
    with caplog.at_level(logging.WARNING, logger="zepkit"):
        await logged._provision(alice)
    [record] = caplog.records
    assert "livekit provision failed" in record.getMessage()
    assert "user_id='alice' thread_id='a1'" in record.getMessage()
    strict = ZepMemoryAgent(MemoryLoop(failing, on_error="raise"), instructions="Be brief.")
    with pytest.raises(BackendError):
        await strict._provision(alice)
