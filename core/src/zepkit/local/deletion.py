"""Deleting a thread with everything derived from its messages (run inside a write transaction)."""

from __future__ import annotations

import sqlite3

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
