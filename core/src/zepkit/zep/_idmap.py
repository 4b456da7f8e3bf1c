"""Where zepkit remembers which Zep UUID stands for each app id (v4 threads have no developer id).

An entry is addressed by a kind ("thread", "graph", ...) and the app's id. `InMemoryIdMap` lives as
long as the process; `SqliteIdMap` survives restarts and can be shared by several processes.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from os import PathLike, fspath
from typing import Protocol, runtime_checkable

from zepkit.core._sqlite import open_connection


@runtime_checkable
class IdMap(Protocol):
    """App id -> Zep UUID, per kind. Implementations must be safe under concurrent use."""

    async def get(self, kind: str, app_id: str) -> str | None:
        """The UUID recorded for `app_id`, or None."""
        ...

    async def set(self, kind: str, app_id: str, uuid: str) -> None:
        """Record (or replace) the UUID for `app_id`."""
        ...

    async def delete(self, kind: str, app_id: str) -> None:
        """Forget `app_id`; forgetting an unknown id is not an error."""
        ...

    async def find(self, kind: str, uuid: str) -> str | None:
        """The app id recorded for `uuid` (the reverse of `get`), or None."""
        ...


class InMemoryIdMap:
    """The default map: a dict, gone when the process ends."""

    def __init__(self) -> None:
        self._entries: dict[tuple[str, str], str] = {}

    async def get(self, kind: str, app_id: str) -> str | None:
        return self._entries.get((kind, app_id))

    async def set(self, kind: str, app_id: str, uuid: str) -> None:
        self._entries[(kind, app_id)] = uuid

    async def delete(self, kind: str, app_id: str) -> None:
        self._entries.pop((kind, app_id), None)

    async def find(self, kind: str, uuid: str) -> str | None:
        for (entry_kind, app_id), value in self._entries.items():
            if entry_kind == kind and value == uuid:
                return app_id
        return None


_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS zep_ids ("
    " kind TEXT NOT NULL, app_id TEXT NOT NULL, uuid TEXT NOT NULL,"
    " PRIMARY KEY (kind, app_id)) WITHOUT ROWID",
    "CREATE INDEX IF NOT EXISTS zep_ids_uuid ON zep_ids (kind, uuid)",  # for `find`
)


class SqliteIdMap:
    """A durable map in one SQLite file (WAL), shared safely by threads and processes.

    Each operation opens its own short-lived connection in a worker thread, so the event loop never
    blocks on disk and nothing stays open to leak.
    """

    def __init__(self, path: str | PathLike[str], *, busy_timeout: float = 10.0) -> None:
        self.path = fspath(path)
        if self.path == ":memory:":
            raise ValueError("SqliteIdMap needs a file path; use InMemoryIdMap for memory only")
        self._busy_timeout = busy_timeout
        self._ready = False
        self._ready_lock = threading.Lock()

    def _connect(self) -> sqlite3.Connection:
        connection = open_connection(self.path, busy_timeout=self._busy_timeout)
        if not self._ready:
            with self._ready_lock:
                if not self._ready:
                    for statement in _SCHEMA:
                        connection.execute(statement)
                    self._ready = True
        return connection

    def _run(self, sql: str, params: tuple[str, ...]) -> str | None:
        connection = self._connect()
        try:
            row = connection.execute(sql, params).fetchone()
            return None if row is None else str(row[0])
        except UnicodeEncodeError as exc:  # an id with half a character: the caller's to fix
            reason = f"a lone surrogate (half a character) cannot be stored: {exc}"
            raise ValueError(reason) from None
        finally:
            connection.close()

    async def get(self, kind: str, app_id: str) -> str | None:
        return await asyncio.to_thread(
            self._run, "SELECT uuid FROM zep_ids WHERE kind = ? AND app_id = ?", (kind, app_id)
        )

    async def set(self, kind: str, app_id: str, uuid: str) -> None:
        await asyncio.to_thread(
            self._run,
            "INSERT INTO zep_ids (kind, app_id, uuid) VALUES (?, ?, ?)"
            " ON CONFLICT (kind, app_id) DO UPDATE SET uuid = excluded.uuid",
            (kind, app_id, uuid),
        )

    async def delete(self, kind: str, app_id: str) -> None:
        await asyncio.to_thread(
            self._run, "DELETE FROM zep_ids WHERE kind = ? AND app_id = ?", (kind, app_id)
        )

    async def find(self, kind: str, uuid: str) -> str | None:
        return await asyncio.to_thread(
            self._run, "SELECT app_id FROM zep_ids WHERE kind = ? AND uuid = ?", (kind, uuid)
        )
