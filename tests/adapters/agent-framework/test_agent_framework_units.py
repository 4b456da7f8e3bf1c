"""The adapter's pieces on their own: message reading, construction rules, the import guard."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from agent_framework import AgentSession, Content, Message

from zepkit.agent_framework import ZepContextProvider
from zepkit.agent_framework._messages import final_reply, user_text
from zepkit.core import MemoryLoop


@pytest.fixture
async def memory() -> AsyncIterator[MemoryLoop]:
    loop = MemoryLoop.local(":memory:")
    yield loop
    await loop.aclose()


def test_final_reply_is_the_text_after_the_last_tool_activity() -> None:
    call = Content.from_function_call(call_id="c1", name="search_memory", arguments={"query": "x"})
    result = Content.from_function_result(call_id="c1", result="- a fact")
    messages = [
        Message(role="assistant", contents=["Let me look that up.", call]),
        Message(role="tool", contents=[result]),
        Message(role="assistant", contents=["Found it:"]),
        Message(role="assistant", contents=["you like teal."]),
    ]
    assert final_reply(messages) == "Found it:\nyou like teal."


def test_final_reply_is_empty_when_the_run_ends_on_a_tool_call() -> None:
    call = Content.from_function_call(call_id="c1", name="book", arguments={})
    assert final_reply([Message(role="assistant", contents=["Booking now.", call])]) == ""
    assert final_reply([]) == ""


def test_user_text_joins_user_messages_only() -> None:
    messages = [
        Message(role="system", contents=["be brief"]),
        Message(role="user", contents=["first"]),
        Message(role="user", contents=["  "]),
        Message(role="user", contents=["second"]),
    ]
    assert user_text(messages) == "first\nsecond"
    assert user_text([Message(role="assistant", contents=["hi"])]) == ""


def test_construction_rules(memory: MemoryLoop) -> None:
    with pytest.raises(ValueError, match="either resolver"):
        ZepContextProvider(memory, user_id="u", resolver=lambda s, c: None)
    with pytest.raises(ValueError, match="user_id"):
        ZepContextProvider(memory, user_id="  ")
    with pytest.raises(TypeError, match="MemoryLoop"):
        ZepContextProvider(object())  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="search_tool"):
        ZepContextProvider(memory, search_tool="yes")  # type: ignore[arg-type]
    assert ZepContextProvider(memory, search_tool=False).search is None
    pinned = memory.search_tool(scope="nodes")
    assert ZepContextProvider(memory, search_tool=pinned).search is pinned


def test_set_identity_stores_plain_values_and_checks_ids(memory: MemoryLoop) -> None:
    provider = ZepContextProvider(memory, source_id="memory")
    session = AgentSession(session_id="s1")
    provider.set_identity(session, "u1", email="u1@example.com")
    assert session.state == {"memory": {"user_id": "u1", "email": "u1@example.com"}}
    with pytest.raises(ValueError, match="user_id"):
        provider.set_identity(session, "")
    with pytest.raises(ValueError, match="thread_id"):
        provider.set_identity(session, "u1", thread_id=" ")
