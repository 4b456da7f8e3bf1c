"""The core's memory search tool as an AG2 tool (Form B).

A plain function: AG2 runs it in a worker thread (or inline on a running loop), and the core's
sync facade serves it on the loop's private event loop either way, so no run ever reuses a closed
loop. The user comes from the run (fixed id or `variables`), never from the model.
"""

from __future__ import annotations

import copy
import inspect
from typing import Any

import ag2
from ag2 import Context
from ag2.tools.final import FunctionTool

from zepkit.ag2._identity import RunIdentity
from zepkit.core import MemoryLoop, SearchTool


def search_tool(memory: MemoryLoop, *, user_id: str | None = None, **pinned: Any) -> FunctionTool:
    """The memory search tool for `Agent(tools=[...])`: searches the run's user graph (a fixed
    `user_id`, else `variables["user_id"]`), or the shared graph of `graph_id=`. Other keyword
    arguments pin search parameters (see `MemoryLoop.search_tool`)."""
    return wrap_search(memory.search_tool(**pinned), RunIdentity(user_id=user_id))


def wrap_search(search: SearchTool, identity: RunIdentity) -> FunctionTool:
    """Wrap a core `SearchTool` with the core's name, description and JSON schema."""

    def search_memory(context: Context, args: dict[str, Any]) -> str:
        found = identity.resolve_now(context, search.loop.failsoft, "ag2 search", report=False)
        return search.call_sync(args, found)

    context = inspect.Parameter(
        "context", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=Context
    )
    return ag2.tool(
        search.model_function(search_memory, leading=[context]),
        name=search.name,
        description=search.description,
        schema=copy.deepcopy(search.parameters),  # AG2 edits the schema dict it is given
    )
