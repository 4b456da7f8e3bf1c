"""The core's memory search tool as a LiveKit `function_tool` (Form B)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from livekit.agents import RunContext, function_tool
from livekit.agents.llm import RawFunctionTool

from zepkit.core import Identity, MemoryLoop, SearchTool


def search_tool(
    memory: MemoryLoop, identity: Callable[[RunContext[Any]], Identity | None], **pinned: Any
) -> RawFunctionTool[Any, Any]:
    """The memory search tool for an agent's `tools`: the user comes from `identity(run_context)`
    (e.g. the session's userdata), never from the model. Keyword arguments pin search parameters
    or name a shared graph (`graph_id=`, see `MemoryLoop.search_tool`)."""
    return wrap_search(memory.search_tool(**pinned), identity)


def wrap_search(
    search: SearchTool, identity: Callable[[RunContext[Any]], Identity | None]
) -> RawFunctionTool[Any, Any]:
    """One raw-schema tool with the core's name, description and JSON schema. The user comes from
    `identity(run_context)` (the session's), never from the model."""

    async def search_memory(raw_arguments: dict[str, object], context: RunContext[Any]) -> str:
        return await search.call(raw_arguments, identity(context))

    schema = {
        "name": search.name,
        "description": search.description,
        "parameters": search.parameters,
    }
    tool: RawFunctionTool[Any, Any] = function_tool(search_memory, raw_schema=schema)
    return tool
