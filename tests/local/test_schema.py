"""Opening a database: the FTS5 check, pragmas, versioned schema, reopening."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from zepkit.core._backend import SearchRequest, UserProfile
from zepkit.core._errors import ConfigurationError
from zepkit.core._models import Message
from zepkit.local import LocalBackend, check_fts5, schema
from zepkit.local.ids import graph_range
from zepkit.local.schema import SCHEMA_VERSION


def test_fts5_check_passes_on_this_python() -> None:
    check_fts5()


async def test_new_file_gets_schema_version_and_wal(db_path: Path) -> None:
    backend = LocalBackend(db_path)
    await backend.aclose()
    with sqlite3.connect(db_path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION >= 1
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


async def test_reopening_a_file_keeps_its_data(db_path: Path) -> None:
    first = LocalBackend(db_path)
    await first.ensure_user(UserProfile("u"))
    await first.ensure_thread("t", "u")
    await first.add_messages("t", [Message("user", "I keep bees in Oslo.")])
    await first.aclose()

    second = LocalBackend(str(db_path))
    try:
        assert await second.ensure_user(UserProfile("u")) is False
        assert [m.content for m in await second.get_messages("t")] == ["I keep bees in Oslo."]
    finally:
        await second.aclose()


async def test_file_from_a_newer_schema_is_refused(db_path: Path) -> None:
    await LocalBackend(db_path).aclose()
    with sqlite3.connect(db_path) as conn:
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(ConfigurationError, match="newer"):
        LocalBackend(db_path)


async def test_two_backends_on_one_file_see_each_others_writes(db_path: Path) -> None:
    writer, reader = LocalBackend(db_path), LocalBackend(db_path)
    try:
        await writer.ensure_user(UserProfile("u"))
        await writer.ensure_thread("t", "u")
        await writer.add_messages("t", [Message("user", "hello from the writer")])
        assert [m.content for m in await reader.get_messages("t")] == ["hello from the writer"]
        assert await reader.ensure_thread("t", "u") is False
    finally:
        await writer.aclose()
        await reader.aclose()


async def test_a_version_1_file_upgrades_and_keeps_its_data(db_path: Path) -> None:
    # Write a file with the first release's schema (only the v1 step) and its rows as that
    # release wrote them, then open it as today.
    with sqlite3.connect(db_path) as conn:
        for statement in schema.MIGRATIONS[0]:
            conn.execute(statement)
        conn.execute("PRAGMA user_version = 1")
        stamp = "2024-01-01T00:00:00+00:00"
        conn.execute("INSERT INTO graphs VALUES (1, 'user', 'u', 1, ?)", (stamp,))
        conn.execute(
            "INSERT INTO users (id, user_id, graph, created_at) VALUES (1, 'u', 1, ?)", (stamp,)
        )
        conn.execute("INSERT INTO threads VALUES (1, 't', 1, ?)", (stamp,))
        said = "I keep bees in Oslo."
        conn.execute("INSERT INTO messages VALUES (1, 1, 'user', NULL, ?, ?, NULL)", (said, stamp))
        row = graph_range(1)[0] + 1  # graph-owned rows take ids from their graph's range
        conn.execute(
            "INSERT INTO episodes VALUES (?, 'e-1', 1, 1, 1, 'message', 'user', NULL, ?, ?, NULL)",
            (row, said, stamp),
        )
        conn.execute(
            "INSERT INTO statements VALUES (?, 's-1', 1, ?, ?, 'user', ?, ?)",
            (row, row, f"user: {said}", stamp, stamp),
        )
    with sqlite3.connect(db_path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 1
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
        assert "episode_vectors" not in tables

    upgraded = LocalBackend(db_path, retriever="lexical")
    try:
        found = await upgraded.search(SearchRequest("bees", user_id="u", scope="episodes"))
        assert [e.content for e in found.episodes] == ["I keep bees in Oslo."]
        await upgraded.add_messages("t", [Message("user", "And a hive in Bergen.")])
        facts = await upgraded.search(SearchRequest("bees", user_id="u"))
        assert [f.fact for f in facts.edges] == [f"user: {said}"]
    finally:
        await upgraded.aclose()
    with sqlite3.connect(db_path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 7
        assert conn.execute("SELECT count(*) FROM episode_vectors").fetchone() == (0,)


async def test_a_version_4_file_gains_llm_extraction_and_keeps_its_statements(
    db_path: Path,
) -> None:
    # A file as the release before LLM extraction wrote it: steps 1 to 4, the rules' statements.
    with sqlite3.connect(db_path) as conn:
        for step in schema.MIGRATIONS[:4]:
            for statement in step:
                conn.execute(statement) if isinstance(statement, str) else statement(conn)
        conn.execute("PRAGMA user_version = 4")
        stamp = "2024-01-01T00:00:00+00:00"
        conn.execute("INSERT INTO graphs VALUES (1, 'user', 'u', 1, ?)", (stamp,))
        conn.execute(
            "INSERT INTO users (id, user_id, graph, created_at) VALUES (1, 'u', 1, ?)", (stamp,)
        )
        conn.execute("INSERT INTO threads VALUES (1, 't', 1, ?)", (stamp,))
        said = "I keep bees in Oslo."
        conn.execute("INSERT INTO messages VALUES (1, 1, 'user', NULL, ?, ?, NULL)", (said, stamp))
        row = graph_range(1)[0] + 1
        conn.execute(
            "INSERT INTO episodes VALUES (?, 'e-1', 1, 1, 1, 'message', 'user', NULL, ?, ?, NULL)",
            (row, said, stamp),
        )
        conn.execute(
            "INSERT INTO statements (id, uuid, graph, episode, text, speaker, valid_at, "
            "created_at) VALUES (?, 's-1', 1, ?, ?, 'user', ?, ?)",
            (row, row, f"user: {said}", stamp, stamp),
        )

    async with LocalBackend(db_path, retriever="lexical", llm=False) as upgraded:
        facts = await upgraded.search(SearchRequest("bees", user_id="u"))
        assert [f.fact for f in facts.edges] == [f"user: {said}"]
        await upgraded.delete_thread("t")  # the new tables' keys let a thread go
    with sqlite3.connect(db_path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        columns = {row[1] for row in conn.execute("PRAGMA table_info(statements)")}
        assert "origin" in columns
        assert conn.execute("SELECT count(*) FROM llm_jobs").fetchone() == (0,)
        assert conn.execute("SELECT count(*) FROM llm_usage").fetchone() == (0,)
