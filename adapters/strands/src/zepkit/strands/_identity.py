"""Who a Strands invocation belongs to: the invocation state, then the agent's state, or the
app's own function."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeAlias

from strands import Agent

from zepkit.core import Identity
from zepkit.core.spi import IdentityResolver as Resolver

STAGE = "strands identity"

IdentityResolver: TypeAlias = Callable[
    [Agent, Mapping[str, Any]], Identity | Awaitable[Identity | None] | None
]
"""Called with the agent and the invocation state; returns the invocation's identity, or None to
run it without memory. May be sync or async."""

Run: TypeAlias = tuple[Agent, Mapping[str, Any]]
"""An invocation as the identity sees it: the agent and its invocation state."""


def run_identity(identity: Identity | IdentityResolver | None) -> Resolver[Run]:
    """The app's fixed `Identity` or function when given; else `user_id` and `thread_id` (and the
    optional profile fields) from the invocation state, then from the agent's state."""
    if isinstance(identity, Identity) or identity is None:
        return Resolver[Run](
            identity,
            lookups=(lambda run: run[1], lambda run: run[0].state.get()),
            hint='pass invocation_state={"user_id": ..., "thread_id": ...}, create the Agent '
            'with state={"user_id": ..., "thread_id": ...}, or give ZepMemory(identity=...)',
        )
    resolver = identity
    return Resolver[Run](lambda run: resolver(run[0], run[1]))
