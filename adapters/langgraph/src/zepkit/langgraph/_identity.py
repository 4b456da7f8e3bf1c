"""Who a LangGraph run belongs to: the user and thread ids from the run's context or config."""

from __future__ import annotations

from typing import Any, TypeAlias

from langchain_core.runnables import RunnableConfig
from langgraph.config import get_config

from zepkit.core import Identity
from zepkit.core.spi import IdentityResolver

Run: TypeAlias = tuple[Any, RunnableConfig | None]
"""A run as the identity sees it: the runtime `context` and the config."""


def current_config() -> RunnableConfig | None:
    """The config of the running graph step, or None outside one."""
    try:
        return get_config()
    except RuntimeError:
        return None


def _context(run: Run) -> Any:
    return run[0]


def _configurable(run: Run) -> Any:
    return (run[1] or {}).get("configurable")


RUN_IDENTITY = IdentityResolver[Run](
    lookups=(_context, _configurable),
    hint='pass it in the runtime context (context=...) or in config={"configurable": {...}}',
)


def resolve_identity(context: Any = None, config: RunnableConfig | None = None) -> Identity:
    """Build the run's `Identity`: each field from the runtime `context` (an object or a mapping)
    first, then from `config["configurable"]` (LangGraph's own `thread_id` lives there).

    Raises `ConfigurationError` when no user or thread id can be found: memory would otherwise be
    written to the wrong place or nowhere.
    """
    identity = RUN_IDENTITY.find_now((context, config))
    assert identity is not None  # the resolver has no app function that could choose None
    return identity
