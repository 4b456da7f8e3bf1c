"""Who CrewAI memory belongs to: one user's thread, fixed when the hooks or the storage are made
(CrewAI's hooks and storage calls carry no user of their own)."""

from __future__ import annotations

from typing import Any

from zepkit.core import Identity, MemoryLoop
from zepkit.core.spi import IdentityResolver

STAGE = "crewai identity"


def fixed_identity(
    memory: MemoryLoop,
    identity: Identity | None,
    *,
    user_id: str | None,
    thread_id: str | None,
    first_name: str | None,
    last_name: str | None,
    email: str | None,
    where: str,
) -> Identity | None:
    """The app's `Identity` when given; else the ids and profile fields. A missing identity goes to
    the loop's `on_error` once, here (None: no memory); blank ids raise at once."""
    profile = {"first_name": first_name, "last_name": last_name, "email": email}
    given = (user_id, thread_id, *profile.values())
    if identity is not None and any(value is not None for value in given):
        raise ValueError("give either identity= or user_id=/thread_id= (and profile), not both")
    resolver = IdentityResolver[None](
        identity,
        user_id=user_id,
        thread_id=thread_id,
        lookups=(lambda _: profile,),
        hint=f"give {where} user_id= and thread_id= (or identity=)",
    )
    return resolver.resolve_now(None, memory.failsoft, STAGE)


def ids(holder: Any, *_: Any) -> dict[str, str]:
    """The ids a fail-soft log line carries for an object holding `identity` (none without one)."""
    identity: Identity | None = holder.identity
    if identity is None:
        return {}
    return {"user_id": identity.user_id, "thread_id": identity.thread_id}
