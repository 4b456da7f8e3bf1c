"""LangGraph and LangChain agents with zepkit memory: node helpers, a search tool, middleware
for `langchain.agents.create_agent`, and a `BaseStore`.

In a graph you write yourself, call the helpers in your nodes::

    system = await build_system_message(memory, thread_id=..., base_instructions="...")

With `create_agent`, add `ZepMemoryMiddleware(memory)` to `middleware=[...]`.
"""

from zepkit.core.extras import missing_framework

try:
    import langchain.agents.middleware  # noqa: F401
    import langchain_core.messages  # noqa: F401
    import langgraph.store.base  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised only without the framework
    raise missing_framework("langgraph", "LangGraph and LangChain") from exc

from zepkit.langgraph.helpers import (
    build_system_message,
    build_system_message_sync,
    create_graph_search_tool,
    create_graph_search_tool_sync,
    get_zep_context,
    get_zep_context_sync,
    persist_messages,
    persist_messages_sync,
)
from zepkit.langgraph.identity import resolve_identity
from zepkit.langgraph.middleware import ZepMemoryMiddleware
from zepkit.langgraph.store import StoreTarget, ZepStore, default_namespace_target

__all__ = [
    "StoreTarget",
    "ZepMemoryMiddleware",
    "ZepStore",
    "build_system_message",
    "build_system_message_sync",
    "create_graph_search_tool",
    "create_graph_search_tool_sync",
    "default_namespace_target",
    "get_zep_context",
    "get_zep_context_sync",
    "persist_messages",
    "persist_messages_sync",
    "resolve_identity",
]
