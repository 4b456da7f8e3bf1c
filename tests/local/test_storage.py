"""How a file stores what it is told: each text once, uuids derived from ids never given twice,
and indexes that agree with the rows."""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from zepkit.core._backend import SearchRequest, UserProfile
from zepkit.core._models import Message
from zepkit.local import LocalBackend

SAID = "My sister Ilse keeps bees in Tromso."


async def _told(db_path: Path, thread: str = "t", said: str = SAID) -> LocalBackend:
    memory = LocalBackend(db_path, retriever="lexical")
    await memory.ensure_user(UserProfile("u"))
    await memory.ensure_thread(thread, "u")
    await memory.add_messages(thread, [Message("user", said)])
    return memory


async def _uuids(memory: LocalBackend, query: str) -> tuple[list[str], list[str], list[str]]:
    """(episode, fact, entity) uuids a search shows."""
    episodes = await memory.search(SearchRequest(query, user_id="u", scope="episodes"))
    edges = await memory.search(SearchRequest(query, user_id="u", scope="edges"))
    nodes = await memory.search(SearchRequest(query, user_id="u", scope="nodes"))
    return (
        [e.uuid for e in episodes.episodes],
        [f.uuid for f in edges.edges],
        [n.uuid for n in nodes.nodes],
    )


def _all(shown: tuple[list[str], ...]) -> set[str]:
    return {value for kind in shown for value in kind}


async def test_a_message_text_time_and_metadata_are_stored_once(db_path: Path) -> None:
    memory = LocalBackend(db_path, retriever="lexical")
    await memory.ensure_user(UserProfile("u"))
    await memory.ensure_thread("t", "u")
    at = datetime(2024, 5, 6, 7, 8, 9, tzinfo=UTC)
    told = [
        Message("user", SAID, created_at=at, metadata={"channel": "sms"}),
        Message("assistant", "", name="helper"),
    ]
    await memory.add_messages("t", told)
    try:
        back = await memory.get_messages("t")
        page = await memory.list_messages("t")
    finally:
        await memory.aclose()
    for got in (back, page.items):
        assert [(m.role, m.content, m.name) for m in got] == [
            ("user", SAID, None),
            ("assistant", "", "helper"),
        ]
        assert got[0].created_at == at and got[0].metadata == {"channel": "sms"}
        assert got[1].created_at is not None and got[1].metadata is None
    with sqlite3.connect(db_path) as conn:
        assert conn.execute("SELECT content, created_at, metadata FROM messages").fetchall() == [
            ("", "", None),
            ("", "", None),
        ]
        (held,) = conn.execute(
            "SELECT count(*) FROM episodes WHERE content = ?", (SAID,)
        ).fetchone()
    assert held == 1


async def test_uuids_are_derived_stable_and_not_stored(db_path: Path) -> None:
    memory = await _told(db_path)
    shown = await _uuids(memory, "Ilse bees")
    await memory.aclose()
    for kind in shown:
        assert kind, shown
        for value in kind:
            assert uuid.UUID(value).version == 4
    episodes, facts, entities = (set(kind) for kind in shown)
    assert not episodes & facts and not facts & entities and not episodes & entities
    with sqlite3.connect(db_path) as conn:
        for table in ("episodes", "statements", "entities"):
            assert conn.execute(f"SELECT DISTINCT uuid FROM {table}").fetchall() == [("",)]
    again = LocalBackend(db_path, retriever="lexical")
    try:
        assert await _uuids(again, "Ilse bees") == shown
        listed = await again.list_facts("u")
        assert {f.uuid for f in listed.items} >= set(shown[1])
    finally:
        await again.aclose()


async def test_two_files_give_the_same_rows_different_uuids(tmp_path: Path) -> None:
    one, two = await _told(tmp_path / "one.sqlite"), await _told(tmp_path / "two.sqlite")
    try:
        first, second = await _uuids(one, "Ilse bees"), await _uuids(two, "Ilse bees")
    finally:
        await one.aclose()
        await two.aclose()
    assert not _all(first) & _all(second)


async def test_a_deleted_rows_ids_and_uuids_are_never_given_again(db_path: Path) -> None:
    memory = await _told(db_path, "before")
    try:
        gone = await _uuids(memory, "Ilse bees")
        await memory.delete_thread("before")
        await memory.ensure_thread("after", "u")
        await memory.add_messages("after", [Message("user", SAID)])
        now = await _uuids(memory, "Ilse bees")
    finally:
        await memory.aclose()
    assert all(now) and not _all(now) & _all(gone)


async def test_a_version_6_file_keeps_its_texts_and_uuids(
    db_path: Path, as_version_6: Callable[[sqlite3.Connection], None]
) -> None:
    memory = await _told(db_path)
    await memory.aclose()
    with sqlite3.connect(db_path) as conn:
        as_version_6(conn)
        assert conn.execute("SELECT content FROM messages").fetchall() == [(SAID,)]
    older = LocalBackend(db_path, retriever="lexical")
    try:
        stored = await _uuids(older, "Ilse bees")
        await older.add_messages("t", [Message("user", "Ilse also keeps goats.")])
        assert [m.content for m in await older.get_messages("t")] == [
            SAID,
            "Ilse also keeps goats.",
        ]
        after = await _uuids(older, "Ilse bees goats")
    finally:
        await older.aclose()
    with sqlite3.connect(db_path) as conn:
        _index_agrees(conn)
        kept = {row[0] for row in conn.execute("SELECT uuid FROM statements WHERE uuid != ''")}
        (fresh,) = conn.execute("SELECT count(*) FROM statements WHERE uuid = ''").fetchone()
        marks = dict(conn.execute("SELECT kind, last FROM id_marks").fetchall())
        (last,) = conn.execute("SELECT max(id) FROM statements").fetchone()
    assert set(stored[1]) <= kept and fresh >= 1 and marks["statements"] == last
    assert set(stored[1]) <= set(after[1]) and len(set(after[1])) > len(set(stored[1]))


def _index_agrees(conn: sqlite3.Connection) -> None:
    """FTS5's own check that every index holds exactly what its rows say (rank 1: against the
    rows' texts); raises when one does not."""
    for table in ("episodes_fts", "statements_fts", "entities_fts"):
        conn.execute(f"INSERT INTO {table} ({table}, rank) VALUES ('integrity-check', 1)")


def _statements(db_path: Path, columns: str) -> list[tuple[object, ...]]:
    """`columns` of every statement in order (`s`: its row, `r`: as read back), once the
    indexes are checked against the rows."""
    with sqlite3.connect(db_path) as conn:
        _index_agrees(conn)
        return conn.execute(
            f"SELECT {columns} FROM statements AS s JOIN statement_rows AS r ON r.id = s.id "
            "ORDER BY s.id"
        ).fetchall()


async def test_a_statement_keeps_a_span_of_its_message_not_its_text(db_path: Path) -> None:
    memory = LocalBackend(db_path, retriever="lexical")
    await memory.ensure_user(UserProfile("u"))
    await memory.ensure_thread("t", "u")
    at = datetime(2024, 5, 6, 7, 8, 9, tzinfo=UTC)
    await memory.add_messages(
        "t",
        [
            Message("user", f"Hi! {SAID} She loves honey.", created_at=at),
            Message("assistant", "Where are you based?", created_at=at),
            Message("user", "Melbourne.", created_at=at),
        ],
    )
    try:
        edges = (await memory.search(SearchRequest("Ilse bees", user_id="u"))).edges
    finally:
        await memory.aclose()
    told = f"{SAID} She loves honey."  # one statement: the second sentence goes on about Ilse
    assert edges[0].fact == f"user: {told}"
    assert edges[0].valid_at == at and edges[0].created_at is not None
    assert edges[0].created_at > at
    stored = _statements(
        db_path, "s.text, s.valid_at, s.created_at, s.span_start, s.span_chars, r.text"
    )
    [span] = [row for row in stored if row[3] is not None]
    assert span == ("", "", "", len("Hi! "), len(told), f"user: {told}")
    # What is not a span of its message (a short answer stored with its question) is stored.
    [(answer, _, _, _, _, shown)] = [row for row in stored if row[3] is None]
    assert answer == shown and "Where are you based?" in answer and "Melbourne." in answer


async def test_deleting_takes_every_text_out_of_the_indexes(db_path: Path) -> None:
    memory = await _told(db_path, "one", f"{SAID} Her hives stand by the fjord.")
    await memory.ensure_thread("two", "u")
    await memory.add_messages("two", [Message("user", "I bake rye bread on Sundays.")])
    await memory.ensure_user(UserProfile("v"))
    await memory.ensure_thread("three", "v")
    await memory.add_messages("three", [Message("user", "I sail a dinghy in Kiel.")])
    await memory.delete_thread("one")
    with sqlite3.connect(db_path) as conn:
        _index_agrees(conn)
    await memory.delete_thread("two")
    await memory.delete_user("v")
    await memory.aclose()
    with sqlite3.connect(db_path) as conn:
        _index_agrees(conn)
        conn.execute("CREATE VIRTUAL TABLE temp.terms USING fts5vocab(main, statements_fts, row)")
        assert conn.execute("SELECT count(*) FROM temp.terms").fetchone() == (0,)


async def test_a_span_after_accents_and_emoji_reads_back_exactly(db_path: Path) -> None:
    said = "Ich heiße Zoë 🐝🐝 und wohne in Köln. My sister Åsa keeps bees in Malmö 🌻."
    memory = await _told(db_path, said=said)
    await memory.aclose()
    rows = _statements(db_path, "s.span_start, r.text")
    assert rows and all(start is not None for start, _ in rows)
    assert " ".join(text.removeprefix("user: ") for _, text in rows) == said
