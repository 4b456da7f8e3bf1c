"""Helpers to call from the nodes of a graph you write: context for the system message,
persistence of the turn's messages, and the search tool. Each has a blocking `_sync` twin."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.messages import BaseMessage, SystemMessage
from langchain_core.tools import StructuredTool

from zepkit.core import Identity, MemoryLoop
from zepkit.langgraph._messages import to_core_messages
from zepkit.langgraph._tool import as_structured_tool

# Several chat APIs reject an empty system message; this stands in when there is nothing else.
FALLBACK_INSTRUCTIONS = "You are a helpful assistant."


async def _provision(memory: MemoryLoop, thread_id: str, user_id: str | None) -> None:
    """With a user id, make sure the user and thread exist (cached; fail-soft)."""
    if user_id is None:
        return
    try:
        await memory.provision(Identity(user_id=user_id, thread_id=thread_id))
    except Exception as exc:
        memory.failsoft.handle("provision", exc, user_id=user_id, thread_id=thread_id)


async def get_zep_context(
    memory: MemoryLoop, *, thread_id: str, user_id: str | None = None
) -> str | None:
    """The thread's rendered context block, or None when there is nothing to inject. Writes
    nothing; with `user_id` the user and thread are created first if needed. Never raises
    (unless the loop's `on_error` says so)."""
    await _provision(memory, thread_id, user_id)
    return memory.render(await memory.get_context(thread_id)) or None


def get_zep_context_sync(
    memory: MemoryLoop, *, thread_id: str, user_id: str | None = None
) -> str | None:
    """Blocking twin of `get_zep_context`."""
    return memory.sync.run(get_zep_context(memory, thread_id=thread_id, user_id=user_id))


async def build_system_message(
    memory: MemoryLoop, *, thread_id: str, user_id: str | None = None, base_instructions: str = ""
) -> SystemMessage:
    """`base_instructions` followed by the thread's context block, as one `SystemMessage` to put
    first in the model's input. Never empty: with neither, a one-line neutral instruction."""
    block = await get_zep_context(memory, thread_id=thread_id, user_id=user_id)
    parts = [part for part in (base_instructions.strip(), block) if part]
    return SystemMessage(content="\n\n".join(parts) or FALLBACK_INSTRUCTIONS)


def build_system_message_sync(
    memory: MemoryLoop, *, thread_id: str, user_id: str | None = None, base_instructions: str = ""
) -> SystemMessage:
    """Blocking twin of `build_system_message`."""
    return memory.sync.run(
        build_system_message(
            memory, thread_id=thread_id, user_id=user_id, base_instructions=base_instructions
        )
    )


async def persist_messages(
    memory: MemoryLoop,
    *,
    thread_id: str,
    messages: Sequence[BaseMessage],
    user_id: str | None = None,
    include_system: bool = False,
    include_tool: bool = False,
) -> int:
    """Store LangChain messages in the thread: human -> user, ai -> assistant (with its name, else
    the loop's assistant name); system and tool messages only when asked; AI messages that only
    call tools are skipped. Pass only the turn's new messages: nothing is deduplicated here.
    Returns how many messages were handed to the memory loop (which splits and batches them).
    Never raises (unless the loop's `on_error` says so)."""
    mapped = to_core_messages(
        messages,
        assistant_name=memory.assistant_name,
        include_system=include_system,
        include_tool=include_tool,
    )
    if not mapped:
        return 0
    await _provision(memory, thread_id, user_id)
    await memory.add_messages(thread_id, mapped)
    return len(mapped)


def persist_messages_sync(
    memory: MemoryLoop,
    *,
    thread_id: str,
    messages: Sequence[BaseMessage],
    user_id: str | None = None,
    include_system: bool = False,
    include_tool: bool = False,
) -> int:
    """Blocking twin of `persist_messages`."""
    return memory.sync.run(
        persist_messages(
            memory,
            thread_id=thread_id,
            messages=messages,
            user_id=user_id,
            include_system=include_system,
            include_tool=include_tool,
        )
    )


async def search_tool(
    memory: MemoryLoop,
    *,
    user_id: str | None = None,
    graph_id: str | None = None,
    **pinned: Any,
) -> StructuredTool:
    """A `StructuredTool` searching one user's graph or one shared graph (exactly one of
    `user_id` / `graph_id`); `pinned` fixes search parameters (see `MemoryLoop.search_tool`).
    The target is created first if needed (fail-soft), so the first search finds it. The tool
    works with `invoke` and `ainvoke` and answers with sentences, never exceptions."""
    if (user_id is None) == (graph_id is None):
        raise ValueError("search_tool needs exactly one of user_id and graph_id")
    search = memory.search_tool(graph_id=graph_id, **pinned)
    # The core's search tool targets the user of an Identity; only its user_id is used.
    identity = None if user_id is None else Identity(user_id=user_id, thread_id=user_id)
    try:
        if user_id is not None:
            await memory.ensure_user(user_id)
        else:
            await memory.ensure_graph(str(graph_id))
    except Exception as exc:
        memory.failsoft.handle("search_tool", exc, user_id=user_id, graph_id=graph_id)
    return as_structured_tool(search, lambda: identity)


def search_tool_sync(
    memory: MemoryLoop,
    *,
    user_id: str | None = None,
    graph_id: str | None = None,
    **pinned: Any,
) -> StructuredTool:
    """Blocking twin of `search_tool`."""
    return memory.sync.run(search_tool(memory, user_id=user_id, graph_id=graph_id, **pinned))
