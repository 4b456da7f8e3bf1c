"""Row ids of graph-owned rows (episodes, statements, entities).

Each graph owns one contiguous id range, so every FTS5 query is confined to its graph by a rowid
range, which FTS5 applies inside the index: other graphs' rows are never ranked or returned.
"""

from __future__ import annotations

import sqlite3

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
    """The first of `count` fresh ids in the graph's range (call inside the write transaction)."""
    low, high = graph_range(graph)
    first = (last_id(conn, table, graph) or low) + 1
    if first + count - 1 > high:
        raise BackendError(f"graph {graph} has no {table} ids left")
    return first
