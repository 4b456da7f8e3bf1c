"""delete_thread removes the thread and what was derived from it, nothing else."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from zepkit.core._backend import SearchRequest, UserProfile
from zepkit.core._errors import NotFoundError
from zepkit.core._models import Message
from zepkit.local import LocalBackend


async def test_delete_thread_removes_only_its_own_memory(db_path: Path) -> None:
    backend = LocalBackend(db_path)
    try:
        for user in ("a", "b"):
            await backend.ensure_user(UserProfile(user))
        await backend.ensure_thread("a-gone", "a")
        await backend.ensure_thread("a-kept", "a")
        await backend.ensure_thread("b-kept", "b")
        gone = [Message("user", "I secretly love Zanzibar pineapples.")]
        kept = [Message("user", "I openly love pineapples.")]
        await backend.add_messages("a-gone", gone)
        await backend.add_messages("a-kept", kept)
        await backend.add_messages("b-kept", gone)
        await backend.add_data("Pineapples grow slowly.", type="text", user_id="a")

        await backend.delete_thread("a-gone")

        with pytest.raises(NotFoundError):
            await backend.get_messages("a-gone")
        with pytest.raises(NotFoundError):
            await backend.delete_thread("a-gone")
        facts = await backend.search(SearchRequest("pineapples", user_id="a", limit=50))
        assert sorted(f.fact for f in facts.edges) == [
            "Pineapples grow slowly.",
            "user: I openly love pineapples.",
        ]
        nodes = await backend.search(SearchRequest("zanzibar", user_id="a", scope="nodes"))
        assert "Zanzibar" not in [n.name for n in nodes.nodes]
        episodes = await backend.search(SearchRequest("secretly", user_id="a", scope="episodes"))
        assert episodes.is_empty()
        others = await backend.search(SearchRequest("zanzibar", user_id="b", limit=50))
        assert [f.fact for f in others.edges] == ["user: I secretly love Zanzibar pineapples."]
        assert len(await backend.get_messages("b-kept")) == 1
    finally:
        await backend.aclose()

    with sqlite3.connect(db_path) as conn:
        for table in ("episodes_fts", "statements_fts", "entities_fts"):
            conn.execute(f"INSERT INTO {table} ({table}) VALUES ('integrity-check')")
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
        orphans = conn.execute(
            "SELECT count(*) FROM entities WHERE id NOT IN (SELECT entity FROM mentions)"
        )
        assert orphans.fetchone()[0] == 0


async def test_a_threads_episodes_and_a_users_data_are_sought_not_scanned(db_path: Path) -> None:
    """Deleting a thread finds its episodes through its messages and listing a user's data finds
    the episodes of no message, each through an index: no statement reads every episode. What
    goes is the thread's; the data item and the other thread stay."""
    backend = LocalBackend(db_path, retriever="lexical")
    try:
        await backend.ensure_user(UserProfile("a"))
        for name in ("gone", "kept"):
            await backend.ensure_thread(name, "a")
            await backend.add_messages(name, [Message("user", f"Thread {name} says hello.")] * 3)
        await backend.add_data("A note of no thread.", type="text", user_id="a")
        said: list[str] = []
        backend._engine.run(lambda conn: conn.set_trace_callback(said.append))
        await backend.delete_thread("gone")
        listed = await backend.list_data("a")
        backend._engine.run(lambda conn: conn.set_trace_callback(None))
        plans = backend._engine.read(
            lambda conn: [
                (sql, conn.execute(f"EXPLAIN QUERY PLAN {sql}").fetchall())
                for sql in said
                if "episodes" in sql and sql.lstrip().upper().startswith(("SELECT", "DELETE"))
            ]
        )
        kept = await backend.get_messages("kept")
    finally:
        await backend.aclose()
    assert [item.content for item in listed.items] == ["A note of no thread."]
    assert [message.content for message in kept] == ["Thread kept says hello."] * 3
    assert len(plans) >= 4
    for sql, plan in plans:
        assert not any(row[-1].startswith("SCAN episodes") for row in plan), (sql, plan)
    # the data items are sought among the episodes of no message, not walked to in id order
    (listing,) = [plan for sql, plan in plans if "source" in sql]
    assert any("(message=?" in row[-1] for row in listing), listing
    with sqlite3.connect(db_path) as conn:
        left = conn.execute("SELECT content FROM episodes ORDER BY id").fetchall()
    conn.close()
    assert left == [("Thread kept says hello.",)] * 3 + [("A note of no thread.",)]
