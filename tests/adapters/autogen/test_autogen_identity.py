"""Who a `ZepMemory` belongs to, decided by the core's identity kit: the app's `Identity` or the
ids with profile fields, and a missing identity reported once through `on_error`."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from typing import Any

import pytest
from autogen_agentchat.agents import AssistantAgent
from autogen_core.memory import MemoryContent, MemoryMimeType

from zepkit.autogen import ZepChatCompletionContext, ZepMemory
from zepkit.core import ConfigurationError, Identity, MemoryLoop


@pytest.fixture
async def memory() -> AsyncIterator[MemoryLoop]:
    loop = MemoryLoop.local(":memory:")
    yield loop
    await loop.aclose()


async def test_profile_fields_reach_the_stored_user(memory: MemoryLoop, replay: Any) -> None:
    zep = ZepMemory(memory, user_id="ana", thread_id="a1", first_name="Ana", email="ana@x.org")
    assert zep.identity == Identity(
        user_id="ana", thread_id="a1", first_name="Ana", email="ana@x.org"
    )
    agent = AssistantAgent("coach", replay.client("Noted."), memory=[zep])
    await agent.run(task="I run on Sundays.")
    user = await memory.get_user("ana")
    assert (user.first_name, user.email) == ("Ana", "ana@x.org")


async def test_an_identity_is_taken_as_is_and_never_mixed_with_ids(memory: MemoryLoop) -> None:
    ana = Identity(user_id="ana", thread_id="a1", last_name="Lima")
    assert ZepMemory(memory, identity=ana).identity is ana
    for extra in ({"user_id": "bob"}, {"thread_id": "b1"}, {"first_name": "Bob"}):
        with pytest.raises(ValueError, match="not both"):
            ZepMemory(memory, identity=ana, **extra)
    with pytest.raises(ValueError, match="non-empty"):
        ZepMemory(memory, user_id="ana", thread_id=" ")


async def test_missing_identity_warns_once_and_the_agent_runs_without_memory(
    memory: MemoryLoop, replay: Any, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="zepkit"):
        zep = ZepMemory(memory, user_id="ana")
        client = replay.client("Hello!", "Again!")
        agent = AssistantAgent(
            "coach", client, memory=[zep], model_context=ZepChatCompletionContext(zep)
        )
        await agent.run(task="I run on Sundays.")
        await agent.run(task="When do I run?")
        await zep.add(MemoryContent(content="a note", mime_type=MemoryMimeType.TEXT))
        await zep.clear()
        assert (await zep.query("Sundays")).results == []
        tool_answer = await zep.search_tool().run_json({"query": "Sundays"}, None)  # type: ignore[arg-type]
    assert zep.identity is None and "no identity" in repr(zep)
    [warning] = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert "autogen identity" in warning.getMessage() and "thread_id" in warning.getMessage()
    assert "no user" in tool_answer
    assert (await memory.list_users()).items == []  # nothing was stored for anyone


async def test_missing_identity_raises_or_reaches_the_callback(memory: MemoryLoop) -> None:
    strict = MemoryLoop(memory.backend, on_error="raise")
    with pytest.raises(ConfigurationError, match="user_id and thread_id"):
        ZepMemory(strict)
    seen: list[str] = []
    called = MemoryLoop(memory.backend, on_error=lambda stage, exc: seen.append(stage))
    ZepMemory(called, thread_id="a1")
    assert seen == ["autogen identity"]
