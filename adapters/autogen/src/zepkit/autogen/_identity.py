"""Who an AutoGen memory belongs to: one user's thread, fixed when the `ZepMemory` is made."""

from __future__ import annotations

from zepkit.core import Identity, MemoryLoop
from zepkit.core.spi import IdentityResolver

STAGE = "autogen identity"


def memory_identity(
    memory: MemoryLoop,
    identity: Identity | None,
    *,
    user_id: str | None,
    thread_id: str | None,
    first_name: str | None,
    last_name: str | None,
    email: str | None,
) -> Identity | None:
    """The app's `Identity` when given; else the ids and profile fields. A missing identity goes to
    the loop's `on_error` once, here (None: this memory stays empty); blank ids raise at once."""
    profile = {"first_name": first_name, "last_name": last_name, "email": email}
    given = (user_id, thread_id, *profile.values())
    if identity is not None and any(value is not None for value in given):
        raise ValueError("give either identity= or user_id=/thread_id= (and profile), not both")
    resolver = IdentityResolver[None](
        identity,
        user_id=user_id,
        thread_id=thread_id,
        lookups=(lambda _: profile,),
        hint="give ZepMemory user_id= and thread_id= (or identity=)",
    )
    return resolver.resolve_now(None, memory.failsoft, STAGE)
