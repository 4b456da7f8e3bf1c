"""Inserting many rows with one statement per chunk instead of one per row.

A statement that writes to an FTS5 index (through a table's trigger) flushes the index's pending
terms when it ends, so `executemany` pays that once per row; one multi-row `INSERT` pays it once
per chunk: about half the cost of writing a message's episode and statements.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

MAX_PARAMETERS = 999
"""Bound parameters in one statement: SQLite's limit before 3.32, safe in every build."""

MAX_ROWS = 500
"""Rows of one `VALUES` list: SQLite's default limit on compound terms."""


def insert_rows(
    conn: sqlite3.Connection, head: str, rows: Sequence[Sequence[Any]], tail: str = ""
) -> None:
    """Run `head VALUES (?, ...), (?, ...) tail` over `rows` (all of one width), a chunk of rows
    per statement; `head` is "INSERT INTO table (columns)", `tail` e.g. an ON CONFLICT clause."""
    if not rows:
        return
    width = len(rows[0])
    if width == 0 or width > MAX_PARAMETERS:
        raise ValueError(f"rows of {width} values cannot be inserted in one statement")
    step = min(MAX_ROWS, MAX_PARAMETERS // width)
    one = "(" + ", ".join("?" * width) + ")"
    for start in range(0, len(rows), step):
        chunk = rows[start : start + step]
        values = ", ".join([one] * len(chunk))
        conn.execute(f"{head} VALUES {values} {tail}", [value for row in chunk for value in row])
