"""Row loading by id (any number of ids, in statements that stay under SQLite's parameter cap)
and a thread's latest statements."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from zepkit.core._backend import UserProfile
from zepkit.core._models import Message
from zepkit.local import LocalBackend
from zepkit.local.retrieval import load_episodes, load_turns, thread_statements


async def test_more_ids_than_one_statement_may_bind_are_all_loaded(db_path: Path) -> None:
    backend = LocalBackend(db_path, retriever="lexical")
    await backend.ensure_user(UserProfile("u"))
    await backend.ensure_thread("t", "u")
    await backend.add_messages("t", [Message("user", f"Note {n} is here.") for n in range(1100)])
    await backend.aclose()

    with sqlite3.connect(db_path) as conn:
        episodes = [row[0] for row in conn.execute("SELECT id FROM episodes ORDER BY id")]
        (thread,) = conn.execute("SELECT id FROM threads").fetchone()
        turns = load_turns(conn, episodes)
        rows = load_episodes(conn, episodes)
        statements = thread_statements(conn, thread, 2000)
        latest = thread_statements(conn, thread, 3)
    assert len(episodes) == 1100
    assert sorted(turns) == episodes and sorted(rows) == episodes
    assert turns[episodes[-1]].content == rows[episodes[-1]].content == "Note 1099 is here."
    assert len(statements) == 1100
    assert sorted(latest.values()) == [f"user: Note {n} is here." for n in (1097, 1098, 1099)]
