"""The project's id registry: Zep v4 addresses users, threads and graphs by UUID, the backend by
the app's ids. One small SQLite file beside the project's database keeps the two apart and
survives restarts.

Backend ids: a user is its external `user_id` (or its UUID when it has none), a thread and a
shared graph are their UUIDs. The v3 wire names threads and graphs by the app's ids
(`thread_id`, `graph_id`); one made on the v4 wire has its UUID as that id, so both dialects
reach the same data. A create sent with an `Idempotency-Key` gets a UUID derived from
the key, so a retried create answers with the same resource instead of making a second one.
"""

from __future__ import annotations

import json
import sqlite3
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

_SCHEMA = """
CREATE TABLE IF NOT EXISTS users (
    uuid TEXT PRIMARY KEY,
    user_id TEXT NOT NULL UNIQUE,
    graph_uuid TEXT NOT NULL UNIQUE,
    first_name TEXT,
    last_name TEXT,
    email TEXT,
    metadata TEXT,
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS threads (
    uuid TEXT PRIMARY KEY,
    thread_id TEXT NOT NULL UNIQUE,
    user_uuid TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS graphs (
    uuid TEXT PRIMARY KEY,
    graph_id TEXT NOT NULL UNIQUE,
    name TEXT,
    description TEXT,
    created_at TEXT NOT NULL
);
"""
_USER_FIELDS = "uuid, user_id, graph_uuid, first_name, last_name, email, metadata, created_at"


def now() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


@dataclass(frozen=True)
class UserRow:
    uuid: str
    user_id: str
    graph_uuid: str
    first_name: str | None
    last_name: str | None
    email: str | None
    metadata: dict[str, Any] | None
    created_at: str


@dataclass(frozen=True)
class ThreadRow:
    uuid: str
    thread_id: str
    user_uuid: str
    created_at: str


@dataclass(frozen=True)
class GraphRow:
    uuid: str
    graph_id: str
    name: str | None
    description: str | None
    created_at: str


@dataclass(frozen=True)
class Listing:
    """One page of a listing and how many rows the whole listing has."""

    rows: list[Any]
    total: int


@dataclass(frozen=True)
class GraphTarget:
    """Where a graph UUID points: a user's graph (by backend user id) or a shared graph."""

    user_id: str | None = None
    graph_id: str | None = None


class Registry:
    """UUIDs <-> backend ids for one project. Calls are short and synchronous: each statement
    commits at once, so a write acknowledged on the wire is on disk."""

    def __init__(self, path: str | Path, namespace: str) -> None:
        self._db = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.executescript(_SCHEMA)
        self._ns = uuid.uuid5(uuid.NAMESPACE_URL, f"zepkit-server:{namespace}")

    def derived(self, kind: str, key: str | None) -> str:
        """A UUID from an idempotency key (the same key, the same UUID), or a fresh one."""
        return str(uuid.uuid5(self._ns, f"{kind}:{key}")) if key else str(uuid.uuid4())

    # -- users --------------------------------------------------------------------------------

    def add_user(self, user_uuid: str, user_id: str, profile: dict[str, Any]) -> UserRow | None:
        """Insert a user; None when its `user_id` (or UUID) is taken."""
        graph_uuid = str(uuid.uuid5(self._ns, f"user-graph:{user_uuid}"))
        metadata = profile.get("metadata")
        try:
            self._db.execute(
                f"INSERT INTO users ({_USER_FIELDS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    user_uuid,
                    user_id,
                    graph_uuid,
                    profile.get("first_name"),
                    profile.get("last_name"),
                    profile.get("email"),
                    None if metadata is None else json.dumps(metadata),
                    now(),
                ),
            )
        except sqlite3.IntegrityError:
            return None
        return self.user(user_uuid)

    def update_user(self, user_uuid: str, fields: dict[str, Any]) -> UserRow | None:
        """Set the profile fields given (first_name, last_name, email, metadata); the others
        stay. None when there is no such user."""
        columns = [
            name for name in ("first_name", "last_name", "email", "metadata") if name in fields
        ]
        if columns:
            values = [
                json.dumps(fields[name]) if name == "metadata" else fields[name] for name in columns
            ]
            self._db.execute(
                f"UPDATE users SET {', '.join(f'{name} = ?' for name in columns)} WHERE uuid = ?",
                (*values, user_uuid),
            )
        return self.user(user_uuid)

    def _user_where(self, column: str, value: str) -> UserRow | None:
        row = self._db.execute(
            f"SELECT {_USER_FIELDS} FROM users WHERE {column} = ?", (value,)
        ).fetchone()
        if row is None:
            return None
        metadata = json.loads(row[6]) if row[6] is not None else None
        return UserRow(row[0], row[1], row[2], row[3], row[4], row[5], metadata, row[7])

    def user(self, user_uuid: str) -> UserRow | None:
        return self._user_where("uuid", user_uuid)

    def user_by_id(self, user_id: str) -> UserRow | None:
        return self._user_where("user_id", user_id)

    def delete_user(self, user_uuid: str) -> None:
        """Forget the user and its threads (the backend has deleted their memory)."""
        self._db.execute("DELETE FROM threads WHERE user_uuid = ?", (user_uuid,))
        self._db.execute("DELETE FROM users WHERE uuid = ?", (user_uuid,))

    def users(self, *, start: int, size: int, newest_first: bool, search: str | None) -> Listing:
        """A page of users in creation order; `search`: a part of their `user_id`."""
        where, args = (
            ("WHERE instr(lower(user_id), lower(?)) > 0", [search]) if search else ("", [])
        )
        (total,) = self._db.execute(f"SELECT count(*) FROM users {where}", args).fetchone()
        order = "DESC" if newest_first else "ASC"
        rows = self._db.execute(
            f"SELECT uuid FROM users {where} ORDER BY created_at {order}, rowid {order} "
            "LIMIT ? OFFSET ?",
            [*args, size, start],
        ).fetchall()
        found = [self.user(user_uuid) for (user_uuid,) in rows]
        return Listing([row for row in found if row is not None], total)

    # -- threads ------------------------------------------------------------------------------

    def add_thread(
        self, thread_uuid: str, user_uuid: str, thread_id: str | None = None
    ) -> ThreadRow | None:
        """Insert a thread (its id defaults to its UUID); None when the UUID or id is taken."""
        try:
            self._db.execute(
                "INSERT INTO threads (uuid, thread_id, user_uuid, created_at) VALUES (?, ?, ?, ?)",
                (thread_uuid, thread_id or thread_uuid, user_uuid, now()),
            )
        except sqlite3.IntegrityError:
            return None
        return self.thread(thread_uuid)

    def _thread_where(self, column: str, value: str) -> ThreadRow | None:
        row = self._db.execute(
            f"SELECT uuid, thread_id, user_uuid, created_at FROM threads WHERE {column} = ?",
            (value,),
        ).fetchone()
        return None if row is None else ThreadRow(*row)

    def thread(self, thread_uuid: str) -> ThreadRow | None:
        return self._thread_where("uuid", thread_uuid)

    def thread_by_id(self, thread_id: str) -> ThreadRow | None:
        return self._thread_where("thread_id", thread_id)

    def delete_thread(self, thread_uuid: str) -> None:
        self._db.execute("DELETE FROM threads WHERE uuid = ?", (thread_uuid,))

    def threads(
        self, *, user_uuid: str | None, start: int, size: int, newest_first: bool
    ) -> Listing:
        """A page of threads (of one user, or all) in creation order."""
        where, args = ("WHERE user_uuid = ?", [user_uuid]) if user_uuid else ("", [])
        (total,) = self._db.execute(f"SELECT count(*) FROM threads {where}", args).fetchone()
        order = "DESC" if newest_first else "ASC"
        rows = self._db.execute(
            f"SELECT uuid, thread_id, user_uuid, created_at FROM threads {where} "
            f"ORDER BY created_at {order}, rowid {order} LIMIT ? OFFSET ?",
            [*args, size, start],
        ).fetchall()
        return Listing([ThreadRow(*row) for row in rows], total)

    # -- graphs -------------------------------------------------------------------------------

    def add_graph(
        self,
        graph_uuid: str,
        name: str | None,
        description: str | None,
        graph_id: str | None = None,
    ) -> GraphRow | None:
        """Insert a shared graph (its id defaults to its UUID); None when either is taken."""
        try:
            self._db.execute(
                "INSERT INTO graphs (uuid, graph_id, name, description, created_at)"
                " VALUES (?, ?, ?, ?, ?)",
                (graph_uuid, graph_id or graph_uuid, name, description, now()),
            )
        except sqlite3.IntegrityError:
            return None
        return self.graph(graph_uuid)

    def _graph_where(self, column: str, value: str) -> GraphRow | None:
        row = self._db.execute(
            f"SELECT uuid, graph_id, name, description, created_at FROM graphs WHERE {column} = ?",
            (value,),
        ).fetchone()
        return None if row is None else GraphRow(*row)

    def graph(self, graph_uuid: str) -> GraphRow | None:
        return self._graph_where("uuid", graph_uuid)

    def graph_by_id(self, graph_id: str) -> GraphRow | None:
        return self._graph_where("graph_id", graph_id)

    def target(self, uuid_: str) -> GraphTarget | None:
        """A graph UUID, or a user UUID standing for that user's graph, as Zep accepts both."""
        if self.graph(uuid_) is not None:
            return GraphTarget(graph_id=uuid_)
        row = self._db.execute(
            "SELECT user_id FROM users WHERE graph_uuid = ? OR uuid = ?", (uuid_, uuid_)
        ).fetchone()
        return None if row is None else GraphTarget(user_id=row[0])

    def close(self) -> None:
        self._db.close()
