"""Row ids of graph-owned rows (episodes, statements, entities).

Each graph owns one contiguous id range, so every FTS5 query is confined to its graph by a rowid
range, which FTS5 applies inside the index: other graphs' rows are never ranked or returned.
"""

from __future__ import annotations

import hashlib
import sqlite3
import uuid
from collections.abc import Callable

from zepkit.core._errors import BackendError

GRAPH_BITS = 32
"""Rows per graph: 2**32 - 1 of each kind; graph ids stay below 2**31 to fit SQLite's rowid."""


def graph_range(graph: int) -> tuple[int, int]:
    """The first and last row id the graph may use (inclusive)."""
    low = graph << GRAPH_BITS
    return low, low + (1 << GRAPH_BITS) - 1


def last_id(conn: sqlite3.Connection, table: str, graph: int) -> int | None:
    """The largest id the graph uses in `table`, or None when it has no row there."""
    low, high = graph_range(graph)
    row = conn.execute(f"SELECT max(id) FROM {table} WHERE id BETWEEN ? AND ?", (low, high))
    value = row.fetchone()[0]
    return None if value is None else int(value)


def next_id(conn: sqlite3.Connection, table: str, graph: int, count: int = 1) -> int:
    """The first of `count` ids in the graph's range never given before, now taken (call inside
    the write transaction): a deleted row's id is not given again, nor so its uuid."""
    low, high = graph_range(graph)
    row = conn.execute(
        "SELECT last FROM id_marks WHERE graph = ? AND kind = ?", (graph, table)
    ).fetchone()
    first = (low if row is None else int(row[0])) + 1
    if first + count - 1 > high:
        raise BackendError(f"graph {graph} has no {table} ids left")
    if count:
        conn.execute(
            "INSERT INTO id_marks (graph, kind, last) VALUES (?, ?, ?) "
            "ON CONFLICT (graph, kind) DO UPDATE SET last = excluded.last",
            (graph, table, first + count - 1),
        )
    return first


def row_uuid(salt: bytes, table: str, row: int) -> str:
    """The uuid of a row of `table` stored without one: a keyed hash of the table and the row's
    id, so uuids stay unique across tables and files (each has its own salt) and cost no bytes."""
    digest = hashlib.blake2b(f"{table}:{row}".encode(), key=salt, digest_size=16).digest()
    return str(uuid.UUID(bytes=digest, version=4))


UuidOf = Callable[[str, int], str]
"""`uuid_of(stored, row)`: the uuid a row shows (see `row_uuids`)."""


def row_uuids(conn: sqlite3.Connection, table: str) -> UuidOf:
    """`uuid_of(stored, row)` for rows of `table` (episodes, statements or entities): the row's
    stored uuid, or for a row stored with '' the one derived from its id and the file's salt."""
    (salt,) = conn.execute("SELECT value FROM settings WHERE key = 'uuid_salt'").fetchone()

    def uuid_of(stored: str, row: int) -> str:
        return stored or row_uuid(salt, table, row)

    return uuid_of
