"""Who a LlamaIndex memory belongs to: a fixed user, and the `Memory`'s session as the thread."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeAlias

from zepkit.core import Identity
from zepkit.core.spi import IdentityResolver as Resolver

IdentityResolver: TypeAlias = Callable[[str | None], Identity | Awaitable[Identity | None] | None]
"""Maps the `Memory`'s `session_id` to the `Identity` whose memory a run uses (None: no memory).
May be sync or async."""

STAGE = "llama-index identity"


def block_identity(
    identity: Identity | IdentityResolver | None, user_id: str | None, thread_id: str | None
) -> Resolver[str | None]:
    """The app's fixed `Identity` or function when given; else the fixed `user_id` with the fixed
    `thread_id`, or the session id of the `Memory` the block is in."""
    if identity is not None and (user_id is not None or thread_id is not None):
        raise ValueError("give either identity= or user_id=/thread_id=, not both")
    return Resolver[str | None](
        identity,
        user_id=user_id,
        thread_id=thread_id,
        thread_fallback=lambda session_id: session_id,
        hint="give ZepMemoryBlock user_id= (or identity=)",
    )
