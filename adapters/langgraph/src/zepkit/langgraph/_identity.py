"""Who a LangGraph run belongs to: the user and thread ids from the run's context or config."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.config import get_config

from zepkit.core import Identity

_FIELDS = ("user_id", "thread_id", "first_name", "last_name", "email")


def _lookup(source: Any, key: str) -> Any:
    if source is None:
        return None
    if isinstance(source, Mapping):
        return source.get(key)
    return getattr(source, key, None)


def current_config() -> RunnableConfig | None:
    """The config of the running graph step, or None outside one."""
    try:
        return get_config()
    except RuntimeError:
        return None


def resolve_identity(context: Any = None, config: RunnableConfig | None = None) -> Identity:
    """Build the run's `Identity`: each field from the runtime `context` (an object or a mapping)
    first, then from `config["configurable"]` (LangGraph's own `thread_id` lives there).

    Raises ValueError when no user or thread id can be found: memory would otherwise be written
    to the wrong place or nowhere.
    """
    configurable = (config or {}).get("configurable") or {}
    values: dict[str, Any] = {}
    for field in _FIELDS:
        value = _lookup(context, field)
        if value is None:
            value = configurable.get(field)
        if value is not None:
            values[field] = str(value)
    missing = [field for field in ("user_id", "thread_id") if not values.get(field)]
    if missing:
        raise ValueError(
            f"zepkit needs {' and '.join(missing)} for this run: pass it in the runtime context "
            '(context=...) or in config={"configurable": {...}}'
        )
    return Identity(**values)
