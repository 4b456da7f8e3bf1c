"""Read-only views of a local memory file as typed records: the facts (statements) of a user
with their validity ranges, and the entities with their summaries (users, threads and messages
are listed by the backend itself).

What the inspector page (`zepkit ui`) shows; nothing here writes to the file.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from zepkit.core._backend import UserProfile
from zepkit.core._errors import NotFoundError
from zepkit.core._models import Message
from zepkit.local.backend import LocalBackend
from zepkit.local.codec import decode_time
from zepkit.local.ids import graph_range, row_uuids
from zepkit.local.retrieval import entity_summary

FACTS_SHOWN = 500
"""A user's newest facts listed at most (the total is counted)."""
ENTITIES_SHOWN = 200
"""A user's most mentioned entities listed at most (the total is counted)."""


@dataclass(frozen=True)
class StoredFact:
    """A statement of a user's graph and when it held: from `valid_at` until `invalid_at` (None:
    it still holds, `current`), ended by the statement `ended_by` (its uuid)."""

    uuid: str
    text: str
    speaker: str | None
    valid_at: datetime
    invalid_at: datetime | None
    ended_by: str | None
    current: bool
    profile: bool
    """Something the user said about themselves (it can lead a block's USER_PROFILE)."""
    source: str
    thread_id: str | None
    created_at: datetime


@dataclass(frozen=True)
class StoredEntity:
    """An entity of a user's graph: what its current statements say, and how often it is named."""

    uuid: str
    name: str
    summary: str
    mentions: int
    created_at: datetime


@dataclass(frozen=True)
class Listed:
    """Up to a fixed number of records, and how many there are in all."""

    items: Sequence[StoredFact | StoredEntity]
    total: int


class Inspector:
    """Reads of one open `LocalBackend`, run on its worker like every other call."""

    def __init__(self, backend: LocalBackend) -> None:
        self.backend = backend

    async def facts(self, user_id: str, limit: int = FACTS_SHOWN) -> Listed:
        """The user's newest facts, ended ones included; `NotFoundError` for an unknown user."""
        return await self.backend._read(lambda conn: facts(conn, user_id, limit))

    async def entities(self, user_id: str, limit: int = ENTITIES_SHOWN) -> Listed:
        """The user's most mentioned entities; `NotFoundError` for an unknown user."""
        return await self.backend._read(lambda conn: entities(conn, user_id, limit))

    async def preview_context(
        self, user: UserProfile, thread_id: str, messages: Sequence[Message]
    ) -> str | None:
        """See `LocalBackend.preview_context`: the context a turn would get, nothing stored."""
        return await self.backend.preview_context(user, thread_id, messages)


def facts(conn: sqlite3.Connection, user_id: str, limit: int) -> Listed:
    graph = _graph(conn, user_id)
    low, high = graph_range(graph)
    rows = conn.execute(
        "SELECT s.id, s.uuid, s.text, s.speaker, s.valid_at, s.invalid_at, e.id, e.uuid, "
        "s.profile IS NOT NULL, ep.source, t.thread_id, s.created_at "
        "FROM statement_rows AS s JOIN episodes AS ep ON ep.id = s.episode "
        "LEFT JOIN threads AS t ON t.id = ep.thread "
        "LEFT JOIN statements AS e ON e.id = s.ended_by "
        "WHERE s.id BETWEEN ? AND ? ORDER BY s.id DESC LIMIT ?",
        (low, high, max(limit, 0)),
    ).fetchall()
    (total,) = conn.execute(
        "SELECT count(*) FROM statements WHERE id BETWEEN ? AND ?", (low, high)
    ).fetchone()
    uuid_of = row_uuids(conn, "statements")
    items = [
        StoredFact(
            uuid=uuid_of(uuid, key),
            text=text,
            speaker=speaker,
            valid_at=decode_time(valid_at),
            invalid_at=decode_time(invalid_at) if invalid_at else None,
            ended_by=None if ender is None else uuid_of(ended_by, ender),
            current=invalid_at is None,
            profile=bool(profile),
            source=source,
            thread_id=thread_id,
            created_at=decode_time(created_at),
        )
        for key, uuid, text, speaker, valid_at, invalid_at, ender, ended_by, profile, source, (
            thread_id
        ), created_at in rows
    ]
    return Listed(items, total)


def entities(conn: sqlite3.Connection, user_id: str, limit: int) -> Listed:
    graph = _graph(conn, user_id)
    low, high = graph_range(graph)
    rows = conn.execute(
        "SELECT n.id, n.uuid, n.name, n.created_at, "
        "(SELECT count(*) FROM mentions AS m WHERE m.entity = n.id) AS named "
        "FROM entities AS n WHERE n.id BETWEEN ? AND ? ORDER BY named DESC, n.id LIMIT ?",
        (low, high, max(limit, 0)),
    ).fetchall()
    (total,) = conn.execute(
        "SELECT count(*) FROM entities WHERE id BETWEEN ? AND ?", (low, high)
    ).fetchone()
    uuid_of = row_uuids(conn, "entities")
    items = [
        StoredEntity(
            uuid_of(uuid, key), name, entity_summary(conn, key), named, decode_time(created)
        )
        for key, uuid, name, created, named in rows
    ]
    return Listed(items, total)


def _graph(conn: sqlite3.Connection, user_id: str) -> int:
    """The user's graph; `NotFoundError` when the file has no such user."""
    row = conn.execute("SELECT graph FROM users WHERE user_id = ?", (user_id,)).fetchone()
    if row is None:
        raise NotFoundError(f"user {user_id!r} does not exist")
    return int(row[0])
