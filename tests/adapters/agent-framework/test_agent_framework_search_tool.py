"""`search_tool(memory, identity, **pinned)`: the search tool on its own, for one user's runs."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from agent_framework import FunctionTool

from zepkit.agent_framework import search_tool
from zepkit.core import Identity, MemoryLoop


async def _answer(tool: FunctionTool, query: str) -> str:
    """What the model reads back from a call of the tool."""
    contents = await tool.invoke(arguments={"query": query})
    return "".join(content.text or "" for content in contents)


@pytest.fixture
async def memory() -> AsyncIterator[MemoryLoop]:
    loop = MemoryLoop.local(":memory:")
    yield loop
    await loop.aclose()


async def test_the_tool_searches_its_users_memory_with_pins(memory: MemoryLoop) -> None:
    await memory.add_data("Ana's locker code is ZEBRA.", user_id="ana")
    await memory.add_data("Ben's locker code is OTTER.", user_id="ben")
    tool = search_tool(memory, Identity(user_id="ana", thread_id="t1"), scope="episodes")
    assert tool.name == "search_memory"
    assert "scope" not in tool.parameters()["properties"]
    found = await _answer(tool, "locker code")
    assert "ZEBRA" in found and "OTTER" not in found


async def test_a_shared_graph_tool(memory: MemoryLoop) -> None:
    await memory.add_data("Refunds take 5 business days.", graph_id="policies")
    ana = Identity(user_id="ana", thread_id="t1")
    tool = search_tool(memory, ana, graph_id="policies", scope="episodes")
    assert "5 business days" in await _answer(tool, "refunds")
