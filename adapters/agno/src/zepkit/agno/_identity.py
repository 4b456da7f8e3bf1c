"""Who an Agno run belongs to: the run's own `user_id` and `session_id`, unless the app says."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeAlias

from agno.run import RunContext

from zepkit.core import Identity
from zepkit.core.spi import IdentityResolver as Resolver

IdentityResolver: TypeAlias = Callable[[RunContext], Identity | Awaitable[Identity | None] | None]
"""Maps a run's `RunContext` to the `Identity` whose memory it uses (None: no memory this run).
May be sync or async."""

STAGE = "agno identity"


def _run_ids(run: RunContext) -> dict[str, str | None]:
    return {"user_id": run.user_id, "thread_id": run.session_id}


def run_identity(identity: Identity | IdentityResolver | None) -> Resolver[RunContext]:
    """The app's fixed `Identity` or function when given; else the run's `user_id` (Agno falls back
    to `Agent(user_id=...)`) and its `session_id` as the thread."""
    return Resolver[RunContext](
        identity,
        lookups=(_run_ids,),
        hint="pass user_id= to arun() or Agent(user_id=...), or ZepMemory(identity=...)",
    )
