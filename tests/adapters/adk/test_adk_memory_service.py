"""`ZepMemoryService`: session ingestion without duplicates, search as ADK `MemoryEntry` items,
and ADK's own `load_memory` / `preload_memory` tools reading zepkit memory."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from google.adk.tools.load_memory_tool import load_memory_tool
from google.adk.tools.preload_memory_tool import preload_memory_tool
from google.genai import types

from zepkit.adk import ZepMemoryService
from zepkit.core import MemoryLoop
from zepkit.local import LocalBackend
from zepkit.testing import FailingBackend

APP = "zepkit-tests"
FACT = "My sister Beatrix moved to Lisbon last spring and opened a bakery."


def text(value: str) -> types.Part:
    return types.Part(text=value)


@pytest.fixture
async def memory() -> AsyncIterator[MemoryLoop]:
    loop = MemoryLoop.local(":memory:")
    yield loop
    await loop.aclose()


async def test_add_session_twice_stores_nothing_new(
    memory: MemoryLoop, adk_harness: Callable[..., Any]
) -> None:
    service = ZepMemoryService(memory)
    # A plain ADK agent: no zepkit tools or callbacks, memory comes only from the service.
    harness = adk_harness(memory, tools=[], after_model_callback=None, memory_service=service)
    await harness.run("alice", "s1", FACT, [text("How lovely!")])
    session = await harness.session("alice", "s1")
    await service.add_session_to_memory(session)
    await service.add_session_to_memory(session)
    stored = await memory.get_messages("s1")
    assert [(m.role, m.content) for m in stored] == [("user", FACT), ("assistant", "How lovely!")]
    assert all(m.metadata and m.metadata["adk_event_id"] for m in stored)

    await harness.run("alice", "s1", "Thanks!", [text("Any time.")])
    await service.add_session_to_memory(await harness.session("alice", "s1"))
    stored = await memory.get_messages("s1")
    assert [m.content for m in stored][2:] == ["Thanks!", "Any time."]


async def test_session_written_by_the_context_tool_is_not_stored_again(
    memory: MemoryLoop, adk_harness: Callable[..., Any]
) -> None:
    service = ZepMemoryService(memory)
    harness = adk_harness(memory, memory_service=service)
    for _ in range(2):  # the same text twice: two real turns, each stored once
        await harness.run("alice", "s1", "hi", [text("Hello!")])
    await service.add_session_to_memory(await harness.session("alice", "s1"))
    assert [m.content for m in await memory.get_messages("s1")] == ["hi", "Hello!"] * 2


async def test_search_memory_returns_memory_entries(
    memory: MemoryLoop, adk_harness: Callable[..., Any]
) -> None:
    service = ZepMemoryService(memory, limit=5)
    harness = adk_harness(memory, tools=[], after_model_callback=None, memory_service=service)
    await harness.run("alice", "s1", FACT, [text("How lovely!")])
    await service.add_session_to_memory(await harness.session("alice", "s1"))
    found = await service.search_memory(app_name=APP, user_id="alice", query="Beatrix Lisbon")
    assert found.memories
    first = found.memories[0]
    assert "Lisbon" in first.content.parts[0].text and first.id and first.timestamp
    other = await service.search_memory(app_name=APP, user_id="bob", query="Beatrix Lisbon")
    assert other.memories == []
    empty = await service.search_memory(app_name=APP, user_id="alice", query="   ")
    assert empty.memories == []


async def test_load_memory_tool_reads_zepkit(
    memory: MemoryLoop, adk_harness: Callable[..., Any]
) -> None:
    service = ZepMemoryService(memory, scope="episodes")
    first = adk_harness(memory, tools=[], after_model_callback=None, memory_service=service)
    await first.run("alice", "s1", FACT, [text("How lovely!")])
    await service.add_session_to_memory(await first.session("alice", "s1"))

    second = adk_harness(
        memory, tools=[load_memory_tool], after_model_callback=None, memory_service=service
    )
    load = types.Part(
        function_call=types.FunctionCall(name="load_memory", args={"query": "sister"})
    )
    await second.run("alice", "s2", "Where does my sister live?", [load, text("Lisbon.")])
    assert "Lisbon" in second.llm.inputs[1].split("tool load_memory:", 1)[1]


async def test_preload_memory_tool_reads_zepkit(
    memory: MemoryLoop, adk_harness: Callable[..., Any]
) -> None:
    service = ZepMemoryService(memory)
    first = adk_harness(memory, tools=[], after_model_callback=None, memory_service=service)
    await first.run("alice", "s1", FACT, [text("How lovely!")])
    await service.add_session_to_memory(await first.session("alice", "s1"))

    second = adk_harness(
        memory, tools=[preload_memory_tool], after_model_callback=None, memory_service=service
    )
    await second.run("alice", "s2", "Where does my sister Beatrix live?", [text("Lisbon.")])
    assert "Lisbon" in second.llm.inputs[0]


async def test_service_fails_soft(
    adk_harness: Callable[..., Any], caplog: pytest.LogCaptureFixture
) -> None:
    failing = MemoryLoop(FailingBackend(LocalBackend(":memory:")))
    service = ZepMemoryService(failing)
    harness = adk_harness(failing, tools=[], after_model_callback=None, memory_service=service)
    await harness.run("alice", "s1", FACT, [text("How lovely!")])
    with caplog.at_level(logging.WARNING, logger="zepkit"):
        await service.add_session_to_memory(await harness.session("alice", "s1"))
        found = await service.search_memory(app_name=APP, user_id="alice", query="Lisbon")
    assert found.memories == []
    assert [r for r in caplog.records if r.name.startswith("zepkit")]
    lines = [r.getMessage() for r in caplog.records]
    ingest = [line for line in lines if "adk add_session_to_memory" in line]
    assert len(ingest) == 1 and "user_id='alice' session_id='s1' events=" in ingest[0]
    assert all("Beatrix" not in r.getMessage() for r in caplog.records)
    await failing.aclose()


def test_service_rejects_bad_settings(memory: MemoryLoop) -> None:
    with pytest.raises(ValueError, match="scope"):
        ZepMemoryService(memory, scope="galaxy")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="limit"):
        ZepMemoryService(memory, limit=0)
