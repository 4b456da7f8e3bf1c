"""Who a run belongs to: the session's bound identity, fixed ids, or the app's resolver."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeAlias

from agent_framework import AgentSession, SessionContext

from zepkit.core import Identity
from zepkit.core.spi import IdentityResolver as Resolver
from zepkit.core.spi import check_id

IdentityResolver: TypeAlias = Callable[
    [AgentSession, SessionContext], Identity | Awaitable[Identity | None] | None
]
"""Called once per run with the run's session and context; returns the run's identity, or None
to run without memory. May be sync or async."""


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


_Run: TypeAlias = tuple[AgentSession, SessionContext, Mapping[str, Any]]
"""A run as the identity sees it: its session, its context and this provider's state slice."""


def run_identity(
    resolver: IdentityResolver | None, user_id: str | None, thread_id: str | None
) -> Resolver[_Run]:
    """The app's resolver when given; else the session's bound identity, then the fixed ids; the
    thread defaults to the session id."""
    if resolver is not None:
        app_resolver = resolver
        return Resolver[_Run](lambda run: app_resolver(run[0], run[1]))
    fixed = {"user_id": user_id, "thread_id": thread_id}
    return Resolver[_Run](
        lookups=(lambda run: run[2], lambda run: fixed),
        thread_fallback=lambda run: run[0].session_id,
        hint="bind the session with ZepContextProvider.set_identity(), "
        "or give the provider user_id= or resolver=",
    )
