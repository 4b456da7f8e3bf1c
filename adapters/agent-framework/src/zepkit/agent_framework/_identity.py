"""Who a run belongs to: the session's bound identity, fixed ids, or the app's resolver."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeAlias

from agent_framework import AgentSession, SessionContext

from zepkit.core import ConfigurationError, Identity
from zepkit.core.spi import check_id

IdentityResolver: TypeAlias = Callable[
    [AgentSession, SessionContext], Identity | Awaitable[Identity | None] | None
]
"""Called once per run with the run's session and context; returns the run's identity, or None
to run without memory. May be sync or async."""

PROFILE_KEYS = ("first_name", "last_name", "email")


def identity_state(
    user_id: str,
    thread_id: str | None,
    first_name: str | None,
    last_name: str | None,
    email: str | None,
) -> dict[str, str]:
    """The JSON-native record `set_identity` stores in the session state (ids checked first)."""
    check_id(user_id, "user_id")
    if thread_id is not None:
        check_id(thread_id, "thread_id")
    values = {
        "user_id": user_id,
        "thread_id": thread_id,
        "first_name": first_name,
        "last_name": last_name,
        "email": email,
    }
    return {key: value for key, value in values.items() if value is not None}


def identity_from_state(
    state: Mapping[str, Any],
    session_id: str,
    *,
    user_id: str | None,
    thread_id: str | None,
) -> Identity:
    """The session's bound identity, else the fixed ids; the thread defaults to the session id."""
    user = state.get("user_id") or user_id
    if not user:
        raise ConfigurationError(
            "no user for this run: bind the session with ZepContextProvider.set_identity(), "
            "or give the provider user_id= or resolver="
        )
    profile = {key: state[key] for key in PROFILE_KEYS if state.get(key)}
    thread = state.get("thread_id") or thread_id or session_id
    return Identity(user_id=user, thread_id=thread, **profile)


async def call_resolver(
    resolver: IdentityResolver, session: AgentSession, context: SessionContext
) -> Identity | None:
    """Run a sync or async resolver and check what it returned."""
    result = resolver(session, context)
    if inspect.isawaitable(result):
        result = await result
    if result is not None and not isinstance(result, Identity):
        raise TypeError(
            f"the identity resolver must return a zepkit Identity or None, got {type(result)!r}"
        )
    return result
