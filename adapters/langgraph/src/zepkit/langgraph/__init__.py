"""LangGraph and LangChain agents with zepkit memory: node helpers, a search tool, middleware
for `langchain.agents.create_agent`, and a `BaseStore`.

In a graph you write yourself, call the helpers in your nodes::

    system = await build_system_message(memory, thread_id=..., base_instructions="...")

With `create_agent`, add `ZepMemoryMiddleware(memory)` to `middleware=[...]`.
"""

from zepkit.core.spi import missing_framework as _missing_framework

try:
    import langchain.agents.middleware as _langchain_agents_middleware  # noqa: F401
    import langchain_core.messages as _langchain_core_messages  # noqa: F401
    import langgraph.store.base as _langgraph_store_base  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised only without the framework
    raise _missing_framework("langgraph", "LangGraph and LangChain") from exc

from zepkit.langgraph._helpers import (
    build_system_message,
    build_system_message_sync,
    get_zep_context,
    get_zep_context_sync,
    persist_messages,
    persist_messages_sync,
    search_tool,
    search_tool_sync,
)
from zepkit.langgraph._identity import resolve_identity
from zepkit.langgraph._middleware import ZepMemoryMiddleware
from zepkit.langgraph._store import StoreTarget, ZepStore, default_namespace_target

__all__ = [
    "StoreTarget",
    "ZepMemoryMiddleware",
    "ZepStore",
    "build_system_message",
    "build_system_message_sync",
    "default_namespace_target",
    "get_zep_context",
    "get_zep_context_sync",
    "persist_messages",
    "persist_messages_sync",
    "resolve_identity",
    "search_tool",
    "search_tool_sync",
]
