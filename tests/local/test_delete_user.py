"""delete_user leaves nothing of the user in the database: no row, no index term and, with
`vacuum`, not a byte in the file or its write-ahead log; other users keep everything."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from zepkit.core._backend import SearchRequest, UserProfile
from zepkit.core._errors import BackendUnavailableError, NotFoundError
from zepkit.core._models import Message
from zepkit.local import LocalBackend

GONE = ("Xylophonicquasar", "Wobbleberrylane", "gone@quasarmail.example")
KEPT = ("Zamboniferous", "Krumpetville", "kept@zambonimail.example")
FTS_TABLES = ("episodes_fts", "statements_fts", "entities_fts")


async def _fill(backend: LocalBackend, user_id: str, words: tuple[str, str, str]) -> None:
    name, place, email = words
    await backend.ensure_user(UserProfile(user_id, first_name=name, email=email))
    for thread_id in (f"{user_id}-1", f"{user_id}-2"):
        await backend.ensure_thread(thread_id, user_id)
        await backend.add_messages(
            thread_id,
            [
                Message("user", f"My codename is {name} and I live in {place}.", name=name),
                Message("assistant", f"Noted, {name} from {place}.", metadata={"tag": place}),
            ],
        )
    await backend.add_data(f"{name} owns a boat called {place}.", type="text", user_id=user_id)


def _tables(conn: sqlite3.Connection) -> list[str]:
    rows = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
    return [name for (name,) in rows]


def _rows_mentioning(conn: sqlite3.Connection, word: str) -> list[str]:
    """Tables (FTS5 shadow tables included) with a row whose text or bytes hold `word`."""
    found = []
    for table in _tables(conn):
        if table in FTS_TABLES:
            continue  # external-content tables read the base tables; checked by the vocabulary
        for row in conn.execute(f'SELECT * FROM "{table}"'):
            for value in row:
                text = value.decode("utf-8", "replace") if isinstance(value, bytes) else value
                if isinstance(text, str) and word.lower() in text.lower():
                    found.append(table)
    return found


def _index_terms(conn: sqlite3.Connection) -> set[str]:
    """Every term the full-text indexes hold."""
    terms: set[str] = set()
    for table in FTS_TABLES:
        conn.execute(f"CREATE VIRTUAL TABLE temp.vocab_{table} USING fts5vocab(main, {table}, row)")
        terms.update(term for (term,) in conn.execute(f"SELECT term FROM temp.vocab_{table}"))
    return terms


async def test_nothing_of_the_user_remains_in_any_table(db_path: Path) -> None:
    backend = LocalBackend(db_path, retriever="lexical")
    try:
        await _fill(backend, "gone", GONE)
        await _fill(backend, "kept", KEPT)
        await backend.delete_user("gone")
        with pytest.raises(NotFoundError):
            await backend.get_messages("gone-1")
        found = await backend.search(SearchRequest("Zamboniferous", user_id="kept", limit=50))
        assert any("Krumpetville" in fact.fact for fact in found.edges)
    finally:
        await backend.aclose()

    with sqlite3.connect(db_path) as conn:
        for word in (*GONE, "gone-1", "gone-2"):
            assert _rows_mentioning(conn, word) == [], word
        for word in KEPT[:2]:
            assert _rows_mentioning(conn, word), word
        terms = _index_terms(conn)
        assert not [t for t in terms if t.startswith(("xylophon", "wobbleberri", "quasarmail"))]
        assert [t for t in terms if t.startswith("zambonifer")]
        for table in FTS_TABLES:
            conn.execute(f"INSERT INTO {table} ({table}) VALUES ('integrity-check')")
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
        assert conn.execute("SELECT count(*) FROM graphs WHERE key = 'gone'").fetchone() == (0,)


def _file_bytes(path: Path) -> bytes:
    wal = path.with_name(path.name + "-wal")
    return path.read_bytes() + (wal.read_bytes() if wal.exists() else b"")


async def test_vacuum_leaves_no_byte_of_the_user_on_disk(db_path: Path) -> None:
    backend = LocalBackend(db_path, retriever="lexical")
    try:
        await _fill(backend, "gone", GONE)
        await _fill(backend, "kept", KEPT)
        before = _file_bytes(db_path).lower()
        assert all(word.lower().encode() in before for word in GONE)

        await backend.delete_user("gone", vacuum=True)

        while_open = _file_bytes(db_path).lower()  # the database and its -wal, as they are now
        for word in GONE:
            assert word.lower().encode() not in while_open, word
        for word in KEPT:
            assert word.lower().encode() in while_open, word
        assert len(await backend.get_messages("kept-1")) == 2
    finally:
        await backend.aclose()
    after_close = _file_bytes(db_path).lower()
    assert not [word for word in GONE if word.lower().encode() in after_close]


async def test_the_user_comes_back_empty_and_ids_are_not_reused(db_path: Path) -> None:
    async with LocalBackend(db_path) as backend:
        await _fill(backend, "gone", GONE)
        await backend.delete_user("gone")
        await backend.ensure_user(UserProfile("gone"))
        await backend.ensure_thread("gone-1", "gone")
        assert await backend.get_messages("gone-1") == []
        found = await backend.search(SearchRequest(GONE[0], user_id="gone", scope="episodes"))
        assert found.is_empty()
        await backend.add_messages("gone-1", [Message("user", "A fresh start in Lisbon.")])
        found = await backend.search(SearchRequest("Lisbon", user_id="gone", scope="episodes"))
        assert [e.content for e in found.episodes] == ["A fresh start in Lisbon."]
    with sqlite3.connect(db_path) as conn:
        graphs = conn.execute("SELECT id FROM graphs ORDER BY id").fetchall()
    assert len(graphs) == 2  # the deleted user's graph id stays taken by a nameless row


async def test_vacuum_while_another_connection_reads_says_so(db_path: Path) -> None:
    backend = LocalBackend(db_path, retriever="lexical")
    try:
        await _fill(backend, "gone", GONE)
        reader = sqlite3.connect(db_path)
        reader.execute("BEGIN")
        reader.execute("SELECT count(*) FROM users").fetchone()  # holds a snapshot of the log
        with pytest.raises(BackendUnavailableError, match="another connection is reading"):
            await backend.delete_user("gone", vacuum=True)
        with pytest.raises(NotFoundError):  # the delete itself was done
            await backend.get_user("gone")
        reader.close()
        await backend.vacuum()
        assert not [w for w in GONE if w.lower().encode() in _file_bytes(db_path).lower()]
    finally:
        await backend.aclose()
