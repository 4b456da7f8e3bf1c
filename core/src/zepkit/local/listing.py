"""Listing users, threads and messages a page at a time (run inside a read transaction).

Pages follow row ids, which only grow, so a listing is in creation order and a cursor (the last
row id seen, as a string) stays valid while rows are added or deleted around it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from zepkit.core._models import Episode, Fact, Message, Page, ThreadInfo, UserInfo
from zepkit.local import provision
from zepkit.local.codec import decode_metadata, decode_time
from zepkit.local.ids import graph_range, row_uuids

T = TypeVar("T")

_USER_COLUMNS = "id, user_id, first_name, last_name, email, metadata, created_at"


def _after(cursor: str | None) -> int:
    if cursor is None:
        return -(2**63)
    try:
        return int(cursor)
    except ValueError:
        raise ValueError(f"cursor {cursor!r} is not one this local backend made") from None


def _page(rows: Sequence[Any], limit: int, make: Callable[[Any], T]) -> Page[T]:
    """A page of `limit` rows (the query read one more, to tell whether a next page exists)."""
    more = len(rows) > limit
    rows = rows[:limit]
    cursor = str(rows[-1][0]) if more else None
    return Page[T](items=[make(row) for row in rows], next_cursor=cursor)


def _user(row: Any) -> UserInfo:
    _, user_id, first, last, email, metadata, created_at = row
    return UserInfo(
        user_id=user_id,
        first_name=first,
        last_name=last,
        email=email,
        metadata=decode_metadata(metadata),
        created_at=decode_time(created_at),
    )


def get_user(conn: sqlite3.Connection, user_id: str) -> UserInfo:
    """The user's profile; `NotFoundError` when unknown."""
    provision.user_graph(conn, user_id)
    row = conn.execute(f"SELECT {_USER_COLUMNS} FROM users WHERE user_id = ?", (user_id,))
    return _user(row.fetchone())


def list_users(conn: sqlite3.Connection, cursor: str | None, limit: int) -> Page[UserInfo]:
    rows = conn.execute(
        f"SELECT {_USER_COLUMNS} FROM users WHERE id > ? ORDER BY id LIMIT ?",
        (_after(cursor), limit + 1),
    ).fetchall()
    return _page(rows, limit, _user)


def list_threads(
    conn: sqlite3.Connection, user_id: str, cursor: str | None, limit: int
) -> Page[ThreadInfo]:
    """The user's threads; `NotFoundError` for an unknown user."""
    provision.user_graph(conn, user_id)
    rows = conn.execute(
        "SELECT t.id, t.thread_id, t.created_at FROM threads t JOIN users u ON u.id = t.user "
        "WHERE u.user_id = ? AND t.id > ? ORDER BY t.id LIMIT ?",
        (user_id, _after(cursor), limit + 1),
    ).fetchall()
    return _page(
        rows,
        limit,
        lambda row: ThreadInfo(thread_id=row[1], user_id=user_id, created_at=decode_time(row[2])),
    )


MESSAGE_ROWS = (
    "SELECT r.id, r.role, r.content, r.name, r.created_at, r.metadata, e.id, e.uuid "
    "FROM message_rows AS r LEFT JOIN episodes AS e ON e.message = r.id WHERE r.thread = ? "
)
"""A thread's messages with their episodes' ids and stored uuids (`message_maker` reads them)."""


def message_maker(conn: sqlite3.Connection) -> Callable[[Any], Message]:
    """Makes a `Message` of a `MESSAGE_ROWS` row, its uuid its episode's: the one a search shows
    for it, never given to another row of the file (None for a message kept without one)."""
    uuid_of = row_uuids(conn, "episodes")

    def message(row: Any) -> Message:
        _, role, content, name, created_at, metadata, episode, stored = row
        return Message(
            role,
            content,
            name,
            decode_time(created_at),
            decode_metadata(metadata),
            uuid=None if episode is None else uuid_of(stored, episode),
        )

    return message


def list_messages(
    conn: sqlite3.Connection, thread_id: str, cursor: str | None, limit: int
) -> Page[Message]:
    """The thread's messages oldest first; `NotFoundError` for an unknown thread."""
    thread = provision.find_thread(conn, thread_id)
    rows = conn.execute(
        MESSAGE_ROWS + "AND r.id > ? ORDER BY r.id LIMIT ?",
        (thread.id, _after(cursor), limit + 1),
    ).fetchall()
    return _page(rows, limit, message_maker(conn))


def list_data(
    conn: sqlite3.Connection, user_id: str, cursor: str | None, limit: int
) -> Page[Episode]:
    """The user's data items (episodes of their graph that belong to no thread)."""
    low, high = graph_range(provision.user_graph(conn, user_id))
    rows = conn.execute(
        "SELECT id, uuid, content, source, name, created_at, metadata FROM episodes "
        "WHERE id BETWEEN ? AND ? AND thread IS NULL AND id > ? ORDER BY id LIMIT ?",
        (low, high, _after(cursor), limit + 1),
    ).fetchall()
    uuid_of = row_uuids(conn, "episodes")
    return _page(
        rows,
        limit,
        lambda row: Episode(
            uuid=uuid_of(row[1], row[0]),
            content=row[2],
            source=row[3],
            name=row[4],
            created_at=decode_time(row[5]),
            metadata=decode_metadata(row[6]),
        ),
    )


def list_facts(
    conn: sqlite3.Connection, user_id: str, cursor: str | None, limit: int
) -> Page[Fact]:
    """The statements of the user's graph, as facts with their validity."""
    low, high = graph_range(provision.user_graph(conn, user_id))
    rows = conn.execute(
        "SELECT id, uuid, text, speaker, created_at, valid_at, invalid_at FROM statement_rows "
        "WHERE id BETWEEN ? AND ? AND id > ? ORDER BY id LIMIT ?",
        (low, high, _after(cursor), limit + 1),
    ).fetchall()
    uuid_of = row_uuids(conn, "statements")
    return _page(
        rows,
        limit,
        lambda row: Fact(
            uuid=uuid_of(row[1], row[0]),
            fact=row[2],
            source_node_name=row[3],
            created_at=decode_time(row[4]),
            valid_at=decode_time(row[5]),
            invalid_at=decode_time(row[6]) if row[6] else None,
        ),
    )
