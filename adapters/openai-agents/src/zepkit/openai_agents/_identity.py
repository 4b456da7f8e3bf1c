"""Who an OpenAI Agents run belongs to, read from the run's context (`Runner.run(context=...)`)
so one agent serves every user."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeAlias

from zepkit.core import Identity
from zepkit.core.spi import IdentityResolver as Resolver

STAGE = "openai_agents identity"

IdentityResolver: TypeAlias = Callable[[Any], Identity | Awaitable[Identity | None] | None]
"""Maps a run's context object to the `Identity` whose memory the run uses (None: no memory this
run). May be sync or async."""


def run_identity(identity: Identity | IdentityResolver | None) -> Resolver[Any]:
    """The app's fixed `Identity` or function when given; else `user_id` and `thread_id` (and the
    optional profile fields) read from the run's context, an object or a mapping (a zepkit
    `Identity` works as the context as is)."""
    if identity is not None:
        return Resolver(identity)
    return Resolver(
        lookups=(lambda context: context,),
        hint="run with context= an object or dict that has user_id and thread_id (a zepkit "
        "Identity works), or give ZepMemory(identity=...)",
    )
