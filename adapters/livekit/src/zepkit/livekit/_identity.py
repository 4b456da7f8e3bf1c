"""Who a LiveKit turn belongs to: the agent's `identity=` (fixed or a function of the session),
else the session's `userdata` when it is a zepkit `Identity`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeAlias

from livekit.agents import AgentSession

from zepkit.core import ConfigurationError, Identity
from zepkit.core.spi import IdentityResolver

IdentitySource: TypeAlias = Identity | Callable[[AgentSession[Any]], Identity | None] | None
"""A fixed `Identity`, a callable `session -> Identity | None`, or None: `session.userdata`
when it is an `Identity`."""

STAGE = "livekit identity"
NO_IDENTITY = (
    "no identity for this turn: pass identity= to the agent or set "
    "AgentSession(userdata=Identity(...)); the turn runs without memory"
)


def session_resolver(identity: IdentitySource) -> IdentityResolver[AgentSession[Any]]:
    """The resolver for an agent given `identity` (None: the session's userdata)."""
    return IdentityResolver[AgentSession[Any]](_from_userdata if identity is None else identity)


def _from_userdata(session: AgentSession[Any]) -> Identity:
    try:
        userdata = session.userdata
    except ValueError:  # LiveKit raises when the session has no userdata
        userdata = None
    if not isinstance(userdata, Identity):
        raise ConfigurationError(NO_IDENTITY)
    return userdata
