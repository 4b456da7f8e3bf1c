"""`search_tool(memory, identity, **pinned)`: the search tool on its own, for an agent's tools."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from livekit.agents import RunContext

from zepkit.core import Identity, MemoryLoop
from zepkit.livekit import search_tool


@pytest.fixture
async def memory() -> AsyncIterator[MemoryLoop]:
    loop = MemoryLoop.local(":memory:")
    yield loop
    await loop.aclose()


async def test_the_user_comes_from_the_run_and_pins_leave_the_schema(memory: MemoryLoop) -> None:
    await memory.add_data("Ana's locker code is ZEBRA.", user_id="ana")
    await memory.add_data("Ben's locker code is OTTER.", user_id="ben")
    asked: list[object] = []

    def identity(context: RunContext[Any]) -> Identity | None:
        asked.append(context)
        return Identity(user_id="ana", thread_id="t1")

    tool = search_tool(memory, identity, scope="episodes")
    assert tool.info.name == "search_memory"
    assert "scope" not in tool.info.raw_schema["parameters"]["properties"]
    context: Any = object()  # what LiveKit passes; here only the identity callable reads it
    found = await tool({"query": "locker code"}, context)
    assert "ZEBRA" in found and "OTTER" not in found
    assert asked == [context]
