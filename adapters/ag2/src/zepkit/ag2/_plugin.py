"""`zep_memory_plugin`: context, capture and search for an AG2 agent in one `ag2.Plugin`."""

from __future__ import annotations

from typing import Any

from ag2 import Middleware, Plugin

from zepkit.ag2._identity import RunIdentity
from zepkit.ag2._middleware import ZepMemoryMiddleware
from zepkit.ag2._tool import wrap_search
from zepkit.core import MemoryLoop
from zepkit.core.spi import search_tool_option


def zep_memory_plugin(
    memory: MemoryLoop,
    *,
    user_id: str | None = None,
    thread_id: str | None = None,
    search_tool: bool = True,
    **pinned: Any,
) -> Plugin:
    """Long-term memory for an AG2 agent: `Agent(..., plugins=[zep_memory_plugin(memory)])`, or
    per call with `agent.ask(..., plugins=[...])`.

    Each run's identity comes from `user_id` / `thread_id` when fixed here, else from the run's
    `variables` (`user_id`, `thread_id` and the optional profile fields `first_name`,
    `last_name`, `email`; the stream id is the thread when none is given). A run
    without a user gets no memory. `search_tool=False` leaves the search tool out; `**pinned`
    (and `graph_id=`) go to `memory.search_tool(...)`.
    """
    identity = RunIdentity(user_id, thread_id)
    search = search_tool_option(memory, search_tool, pinned)
    tools = [wrap_search(search, identity)] if search is not None else []
    middleware = Middleware(
        ZepMemoryMiddleware, memory=memory, user_id=user_id, thread_id=thread_id
    )
    return Plugin(tools=tools, middleware=[middleware])
