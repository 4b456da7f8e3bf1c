"""Who CrewAI memory belongs to: one user's thread, fixed when the hooks or the storage are made
(CrewAI's hooks and storage calls carry no user of their own)."""

from __future__ import annotations

from typing import Any

from zepkit.core import Identity

STAGE = "crewai identity"


def hint(where: str) -> str:
    """What the app should pass to `where` when it gave no identity."""
    return f"give {where} user_id= and thread_id= (or identity=)"


def ids(holder: Any, *_: Any) -> dict[str, str]:
    """The ids a fail-soft log line carries for an object holding `identity` (none without one)."""
    identity: Identity | None = holder.identity
    if identity is None:
        return {}
    return {"user_id": identity.user_id, "thread_id": identity.thread_id}
