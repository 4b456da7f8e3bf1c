"""The core's memory search tool as an Agent Framework `FunctionTool`, bound to one identity."""

from __future__ import annotations

from typing import Any

from agent_framework import FunctionTool

from zepkit.core import Identity, MemoryLoop, SearchTool


def search_tool(memory: MemoryLoop, identity: Identity, **pinned: Any) -> FunctionTool:
    """The memory search tool for one user's runs: the model sends the arguments, the user comes
    from `identity`. Keyword arguments pin search parameters or name a shared graph (`graph_id=`,
    see `MemoryLoop.search_tool`)."""
    return wrap_search(memory.search_tool(**pinned), identity)


def wrap_search(search: SearchTool, identity: Identity) -> FunctionTool:
    """Wrap `search` for one run: the model sends the arguments, the user comes from `identity`.

    A tool is built per run rather than shared, so concurrent runs of different users cannot
    reach each other's memory through it.
    """

    async def search_memory(**arguments: Any) -> str:
        return await search.call(arguments, identity)

    return FunctionTool(
        name=search.name,
        description=search.description,
        func=search_memory,
        input_model=search.parameters,
    )
