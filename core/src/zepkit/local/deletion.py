"""Deleting a thread, or a whole user, with everything derived from them."""

from __future__ import annotations

import sqlite3

from zepkit.core._errors import BackendUnavailableError, NotFoundError
from zepkit.local.ids import graph_range
from zepkit.local.provision import ThreadRef
from zepkit.local.stats import count_terms, message_sentences
from zepkit.local.supersede import reopen

_EPISODES = "SELECT id FROM episodes WHERE thread = ?"
_STATEMENTS = f"SELECT id FROM statements WHERE episode IN ({_EPISODES})"


def delete_thread(conn: sqlite3.Connection, thread: ThreadRef) -> None:
    """Remove the thread and everything its messages left behind, so none of it is recalled."""
    # Episodes, statements (the model's too), mentions, term counts, and entities nothing else
    # mentions; the FTS rows follow through the delete triggers, the thread's LLM jobs through
    # their foreign keys, and its LLM usage rows keep their counts without the thread.
    key = (thread.id,)
    texts = [
        text
        for content, name, role in conn.execute(
            "SELECT content, name, role FROM episodes WHERE thread = ?", key
        )
        for text in message_sentences(content, name or role)
    ]
    touched = [
        row[0]
        for row in conn.execute(
            f"SELECT DISTINCT entity FROM mentions WHERE statement IN ({_STATEMENTS})", key
        )
    ]
    # A model's summaries may tell what this thread said: they go, and are written afresh from
    # what remains the next time the model sees the user (until then the rules' summaries show).
    conn.executemany("UPDATE entities SET summary = NULL WHERE id = ?", [(e,) for e in touched])
    conn.execute("UPDATE users SET summary = NULL WHERE id = ?", (thread.user,))
    reopen(conn, _STATEMENTS, key)
    conn.execute(f"DELETE FROM mentions WHERE statement IN ({_STATEMENTS})", key)
    conn.execute(f"DELETE FROM statements WHERE episode IN ({_EPISODES})", key)
    conn.execute("DELETE FROM episodes WHERE thread = ?", key)
    conn.execute("DELETE FROM messages WHERE thread = ?", key)
    conn.execute("DELETE FROM threads WHERE id = ?", key)
    count_terms(conn, thread.graph, texts, sign=-1)
    conn.executemany(
        "DELETE FROM entities WHERE id = ? "
        "AND NOT EXISTS (SELECT 1 FROM mentions WHERE entity = ?)",
        [(entity, entity) for entity in touched],
    )


_FTS_TABLES = ("episodes_fts", "statements_fts", "entities_fts")


def delete_user(conn: sqlite3.Connection, user_id: str) -> int:
    """Remove the user, their threads, messages and whole graph; the graph's row id (run inside a
    write transaction). `NotFoundError` when the user does not exist."""
    row = conn.execute("SELECT id, graph FROM users WHERE user_id = ?", (user_id,)).fetchone()
    if row is None:
        raise NotFoundError(f"user {user_id!r} does not exist")
    user, graph = int(row[0]), int(row[1])
    low, high = graph_range(graph)
    span = (low, high)
    # Every graph-owned row lives in the graph's id range; the FTS rows follow the triggers.
    conn.execute("DELETE FROM episode_vectors WHERE episode BETWEEN ? AND ?", span)
    conn.execute("DELETE FROM vector_stats WHERE graph = ?", (graph,))
    conn.execute("DELETE FROM mentions WHERE statement BETWEEN ? AND ?", span)
    conn.execute("DELETE FROM statements WHERE id BETWEEN ? AND ?", span)
    conn.execute("DELETE FROM entities WHERE id BETWEEN ? AND ?", span)
    conn.execute("DELETE FROM episodes WHERE id BETWEEN ? AND ?", span)
    conn.execute("DELETE FROM terms WHERE graph = ?", (graph,))
    threads = "SELECT id FROM threads WHERE user = ?"
    conn.execute(f"DELETE FROM messages WHERE thread IN ({threads})", (user,))
    conn.execute("DELETE FROM threads WHERE user = ?", (user,))
    conn.execute("DELETE FROM users WHERE id = ?", (user,))
    # The graph row stays as a nameless tombstone, so its id (and id range) is never reused.
    conn.execute(
        "UPDATE graphs SET key = ?, statements = 0 WHERE id = ?", (f"\x00deleted:{graph}", graph)
    )
    for table in _FTS_TABLES:  # merge the index, so deleted terms leave its segments
        conn.execute(f"INSERT INTO {table} ({table}) VALUES ('optimize')")
    return graph


def vacuum(conn: sqlite3.Connection) -> None:
    """Rewrite the file without free pages and empty the write-ahead log, so deleted content
    leaves no trace on disk (outside any transaction). `BackendUnavailableError` when another
    connection's read keeps the log from being emptied."""
    conn.execute("VACUUM")
    busy, _, _ = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    if busy:
        raise BackendUnavailableError(
            "the file was rewritten, but its write-ahead log still holds old pages: another "
            "connection is reading it; vacuum again when no other process has the file open"
        )
