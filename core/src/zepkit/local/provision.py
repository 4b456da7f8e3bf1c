"""Creating and looking up users, threads and graphs (run inside the caller's transaction)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from zepkit.core._backend import UserProfile
from zepkit.core._errors import ConflictError, NotFoundError
from zepkit.local.codec import encode_metadata, encode_time, now

_SETUP_HINT = "call ensure_user and ensure_thread first"


@dataclass(frozen=True)
class ThreadRef:
    """A thread's row id with its owner's row id, app id, graph and the name its entity takes."""

    id: int
    user: int
    graph: int
    user_name: str
    user_id: str


def ensure_graph(conn: sqlite3.Connection, kind: str, key: str) -> tuple[int, bool]:
    """The graph's row id, creating it when missing; True when this call created it."""
    created = conn.execute(
        "INSERT INTO graphs (kind, key, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
        (kind, key, encode_time(now())),
    ).rowcount
    row = conn.execute("SELECT id FROM graphs WHERE kind = ? AND key = ?", (kind, key)).fetchone()
    return int(row[0]), created == 1


def find_graph(conn: sqlite3.Connection, kind: str, key: str) -> int | None:
    """The graph's row id, or None when it does not exist."""
    row = conn.execute("SELECT id FROM graphs WHERE kind = ? AND key = ?", (kind, key)).fetchone()
    return None if row is None else int(row[0])


def ensure_user(conn: sqlite3.Connection, user: UserProfile) -> bool:
    """Create the user and its graph; on an existing user, update the profile fields given."""
    graph, _ = ensure_graph(conn, "user", user.user_id)
    metadata = encode_metadata(user.metadata)
    created = conn.execute(
        "INSERT INTO users (user_id, graph, first_name, last_name, email, metadata, created_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (user_id) DO NOTHING",
        (
            user.user_id,
            graph,
            user.first_name,
            user.last_name,
            user.email,
            metadata,
            encode_time(now()),
        ),
    ).rowcount
    if created == 1:
        return True
    conn.execute(
        "UPDATE users SET first_name = coalesce(?, first_name), last_name = coalesce(?, last_name),"
        " email = coalesce(?, email), metadata = coalesce(?, metadata) WHERE user_id = ?",
        (user.first_name, user.last_name, user.email, metadata, user.user_id),
    )
    return False


def user_graph(conn: sqlite3.Connection, user_id: str) -> int:
    """The graph of an existing user; NotFoundError otherwise."""
    row = conn.execute("SELECT graph FROM users WHERE user_id = ?", (user_id,)).fetchone()
    if row is None:
        raise NotFoundError(f"user {user_id!r} does not exist; call ensure_user first")
    return int(row[0])


def ensure_thread(conn: sqlite3.Connection, thread_id: str, user_id: str) -> bool:
    """Create the thread for the user; NotFoundError / ConflictError as the protocol says."""
    row = conn.execute("SELECT id FROM users WHERE user_id = ?", (user_id,)).fetchone()
    if row is None:
        raise NotFoundError(f"user {user_id!r} does not exist; call ensure_user first")
    user = int(row[0])
    created = conn.execute(
        "INSERT INTO threads (thread_id, user, created_at) VALUES (?, ?, ?) "
        "ON CONFLICT (thread_id) DO NOTHING",
        (thread_id, user, encode_time(now())),
    ).rowcount
    if created == 1:
        return True
    owner = conn.execute(
        "SELECT u.user_id FROM threads t JOIN users u ON u.id = t.user WHERE t.thread_id = ?",
        (thread_id,),
    ).fetchone()
    if owner[0] != user_id:
        raise ConflictError(f"thread {thread_id!r} already belongs to another user")
    return False


def find_thread(conn: sqlite3.Connection, thread_id: str) -> ThreadRef:
    """The thread with its owner; NotFoundError with a hint when it does not exist."""
    row = conn.execute(
        "SELECT t.id, u.id, u.graph, u.user_id, u.first_name, u.last_name "
        "FROM threads t JOIN users u ON u.id = t.user WHERE t.thread_id = ?",
        (thread_id,),
    ).fetchone()
    if row is None:
        raise NotFoundError(f"thread {thread_id!r} does not exist; {_SETUP_HINT}")
    full_name = " ".join(part for part in (row[4], row[5]) if part)
    return ThreadRef(
        id=row[0], user=row[1], graph=row[2], user_name=full_name or row[3], user_id=row[3]
    )
