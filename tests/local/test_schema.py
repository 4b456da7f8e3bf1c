"""Opening a database: the FTS5 check, pragmas, versioned schema, reopening."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

import pytest

from zepkit.core._backend import SearchRequest, UserProfile
from zepkit.core._errors import BackendError, ConfigurationError
from zepkit.core._models import Message
from zepkit.local import LocalBackend, check_fts5, schema
from zepkit.local.ids import graph_range
from zepkit.local.profile import LIMIT_MARK, STANDING_MARK
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
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
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


def _as_version(path: Path, version: int) -> None:
    """Make a file as the release with schema `version` (7 or 8) wrote it: the same, without
    step 16's column, step 10's index, step 9's column and index (and step 8's index)."""
    with sqlite3.connect(path) as conn:
        conn.execute("ALTER TABLE entities DROP COLUMN own")
        conn.execute("DROP INDEX statements_states_many")
        conn.execute("DROP INDEX statements_states")
        conn.execute("ALTER TABLE statements DROP COLUMN states")
        if version < 8:
            conn.execute("DROP INDEX statements_topics")
        conn.execute(f"PRAGMA user_version = {version}")
    conn.close()


def _indexes(path: Path) -> set[str]:
    with sqlite3.connect(path) as conn:
        names = {
            row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='index'")
        }
    conn.close()
    return names


async def test_a_version_7_file_is_read_as_it_is_and_indexed_when_written(db_path: Path) -> None:
    async with LocalBackend(db_path, retriever="lexical") as first:
        await first.ensure_user(UserProfile("u"))
        await first.ensure_thread("t", "u")
        await first.add_messages("t", [Message("user", "I live in Leeds.")])
    _as_version(db_path, 7)

    async with LocalBackend(db_path, retriever="lexical", read_only=True) as reader:
        found = await reader.search(SearchRequest("Leeds", user_id="u"))
        assert [edge.fact for edge in found.edges] == ["user: I live in Leeds."]
    assert "statements_topics" not in _indexes(db_path)  # a read-only open wrote nothing

    async with LocalBackend(db_path, retriever="lexical") as writer:
        await writer.add_messages("t", [Message("user", "I live in York now.")])
        found = await writer.search(SearchRequest("live", user_id="u", limit=5))
        current = [edge.fact for edge in found.edges if edge.invalid_at is None]
        assert current == ["user: I live in York now."]
    assert "statements_topics" in _indexes(db_path)
    with sqlite3.connect(db_path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    conn.close()


async def test_a_version_8_file_is_read_as_it_is_and_its_states_kept_when_written(
    db_path: Path,
) -> None:
    """Step 9 keeps each profile statement's states, which only writes read: a read-only open
    serves a version-8 file as it is, and a writable one fills the states of what was said."""
    waiting = "I'm waiting for my visa."
    async with LocalBackend(db_path, retriever="lexical") as first:
        await first.ensure_user(UserProfile("u"))
        await first.ensure_thread("t", "u")
        await first.add_messages("t", [Message("user", waiting)])
    _as_version(db_path, 8)

    async with LocalBackend(db_path, retriever="lexical", read_only=True) as reader:
        found = await reader.search(SearchRequest("visa", user_id="u"))
        assert [edge.fact for edge in found.edges] == [f"user: {waiting}"]
        await reader.get_context("t")  # the block's reads, without the column
        told = [Message("user", "I'm nervous, my visa interview is next week.")]  # a statement
        preview = await reader.preview_context(UserProfile("u"), "t2", told)
        assert preview is not None and waiting in preview  # written to a copy brought up to date

    ended = await _ended_after(db_path, ("Visa approved!",), "visa", limit=5)
    assert ended[f"user: {waiting}"] is not None
    with sqlite3.connect(db_path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        kept = conn.execute("SELECT states FROM statements WHERE states IS NOT NULL").fetchall()
        assert kept == [("|waiting|",)]
    conn.close()


async def test_a_version_9_file_has_its_states_read_again_by_the_newer_rules(
    db_path: Path,
) -> None:
    """Step 10 reads each profile statement's states again, so a state the older rules did not
    know (a thing broken) ends by news told after the upgrade."""
    broken = "My car broke down on the motorway."
    await _file_saying(db_path, broken)
    with sqlite3.connect(db_path) as conn:  # as a release without the kind stored it
        conn.execute("UPDATE statements SET states = NULL")
        conn.execute("DROP INDEX statements_states_many")
        conn.execute("ALTER TABLE entities DROP COLUMN own")
        conn.execute("PRAGMA user_version = 9")
    conn.close()

    assert await _facts_read_only(db_path, "car") == [f"user: {broken}"]
    with sqlite3.connect(db_path) as conn:  # a read-only open wrote nothing
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 9
    conn.close()

    ended = await _ended_after(db_path, ("The car is fixed now.",), "car", limit=5)
    assert ended[f"user: {broken}"] is not None
    with sqlite3.connect(db_path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        kept = conn.execute("SELECT states FROM statements WHERE states IS NOT NULL").fetchall()
        assert kept == [("|a breakdown|",)]
    conn.close()


async def test_a_version_10_file_has_its_states_read_again_for_the_newer_kinds(
    db_path: Path,
) -> None:
    """Step 11 reads the states again for the kinds it adds: a cold and a stay away said before
    the upgrade end by being well, and home, again after it."""
    cold, away = "I have a bad cold.", "I'm in Lisbon for a week."
    await _file_saying(db_path, cold, away)
    with sqlite3.connect(db_path) as conn:  # as a release without the kinds stored it
        for kind in ("|illness|", "|away from home|"):
            conn.execute("UPDATE statements SET states = replace(states, ?, '|')", (kind,))
        conn.execute("UPDATE statements SET states = NULL WHERE states = '|'")
        conn.execute("ALTER TABLE entities DROP COLUMN own")
        conn.execute("PRAGMA user_version = 10")
    conn.close()

    ended = await _ended_after(db_path, ("All better now!", "Back home!"), "cold Lisbon", limit=5)
    assert ended[f"user: {cold}"] is not None
    assert ended[f"user: {away}"] is not None
    with sqlite3.connect(db_path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    conn.close()


async def test_a_version_11_file_has_its_states_read_again_for_the_newer_kinds(
    db_path: Path,
) -> None:
    """Step 12 reads the states again for renting, working from home and studies at a
    university: each said before the upgrade ends by its outcome after it."""
    said = ("We rent a flat in Hackney.", "I work from home.", "I'm at uni studying law.")
    await _file_saying(db_path, *said)
    _stored_without(db_path, "states", version=11)

    ended = await _ended_after(
        db_path,
        ("We bought a house!", "Back in the office full time now.", "I graduated!"),
        "flat home uni law",
        limit=10,
    )
    assert all(ended[f"user: {text}"] is not None for text in said)
    with sqlite3.connect(db_path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    conn.close()


async def test_a_version_11_file_gains_the_subjects_of_its_instructions(db_path: Path) -> None:
    """Step 12 adds the subjects of the standing instructions stored before it to their topics:
    an instruction given before the upgrade ends by a newer one on its subject after it, and
    one on another subject stays."""
    spanish, short = "Always reply in Spanish.", "Please keep your answers short."
    await _file_saying(db_path, spanish, short)
    _stored_without(db_path, "topics", version=11)

    assert await _facts_read_only(db_path, "Spanish") == [f"user: {spanish}"]
    with sqlite3.connect(db_path) as conn:  # served as it is: a read-only open writes nothing
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 11
    conn.close()

    ended = await _ended_after(
        db_path, ("Reply in English from now on.",), "reply Spanish answers", limit=10
    )
    assert ended[f"user: {spanish}"] is not None
    assert ended[f"user: {short}"] is None
    with sqlite3.connect(db_path) as conn:
        topics = dict(conn.execute("SELECT text, topics FROM statement_rows"))
        assert topics[f"user: {short}"] == " manner-length "
    conn.close()


async def test_a_version_12_file_has_its_states_read_again_for_the_newer_kinds(
    db_path: Path,
) -> None:
    """Step 13 reads the states again for a wedding ahead and not driving: each said before
    the upgrade ends by its outcome after it."""
    said = ("We're getting married in June.", "I don't drive.")
    await _file_saying(db_path, *said)
    _stored_without(db_path, "states", version=12)

    ended = await _ended_after(
        db_path,
        ("We got married last weekend!", "I passed my driving test!"),
        "married wedding drive driving",
        limit=10,
    )
    assert all(ended[f"user: {text}"] is not None for text in said)
    with sqlite3.connect(db_path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    conn.close()


async def test_a_version_13_file_has_its_states_read_again_for_a_relatives_life(
    db_path: Path,
) -> None:
    """Step 14 reads the states again for the life now of someone close: said before the
    upgrade, it ends by news of their death after it."""
    said = "My dad has dementia and lives in a care home."
    await _file_saying(db_path, said)
    _stored_without(db_path, "states", version=13)

    ended = await _ended_after(db_path, ("My dad passed away last week.",), "dad", limit=10)
    assert ended[f"user: {said}"] is not None
    with sqlite3.connect(db_path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    conn.close()


async def test_a_version_14_file_gains_the_phone_and_laptop_subjects(db_path: Path) -> None:
    """Step 15 adds the phone and laptop subjects to the statements stored before it: each then
    ends by a newer phone or laptop after the upgrade; a statement naming neither is left."""
    said = ("I have a Samsung Galaxy S21.", "My laptop is an old Dell.", "I have a dog.")
    await _file_saying(db_path, *said)
    _stored_without(db_path, "topics", version=14)

    news = ("I switched to a Pixel last week.", "I got a new laptop, a ThinkPad.")
    ended = await _ended_after(db_path, news, "Samsung Dell dog Pixel ThinkPad", limit=10)
    assert ended[f"user: {said[0]}"] is not None
    assert ended[f"user: {said[1]}"] is not None
    assert ended[f"user: {said[2]}"] is None
    with sqlite3.connect(db_path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    conn.close()


async def test_a_version_16_file_marks_what_to_heed(db_path: Path) -> None:
    """Step 17 marks the profile statements of an allergy or condition to heed, told before it:
    a block whose message shares no word with them carries them after the upgrade; a mention
    of allergies is not marked."""
    said = ("I'm allergic to sesame.", "The form asks about allergies.", "I have a dog.")
    await _file_saying(db_path, *said)
    _stored_without(db_path, "topics", version=16)
    async with LocalBackend(db_path, retriever="lexical") as writer:
        marked = writer._engine.read(
            lambda conn: conn.execute(
                "SELECT text FROM statement_rows WHERE topics LIKE '% heed %'"
            ).fetchall()
        )
    assert marked == [(f"user: {said[0]}",)]


async def test_a_version_17_file_gains_the_hours_worked_and_the_marks(db_path: Path) -> None:
    """Step 18 adds the schedule subject to the statements stored before it: night shifts told
    then end by day shifts told after the upgrade; a statement of another subject is left. It
    marks a standing request on no subject the rules name, and a limit plans must heed."""
    said = (
        "I work permanent night shifts at the hospital.",
        "I have a dog.",
        "Can you always give me the cheapest option first?",
        "I'm scared of heights.",
    )
    await _file_saying(db_path, *said)
    _stored_without(db_path, "topics", version=17)

    news = ("I'm back on day shifts since Monday.",)
    ended = await _ended_after(db_path, news, "night shifts hospital dog day", limit=10)
    assert ended[f"user: {said[0]}"] is not None
    assert ended[f"user: {said[1]}"] is None
    with sqlite3.connect(db_path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        marked = conn.execute(
            "SELECT r.text FROM statement_rows AS r JOIN statements AS s ON s.id = r.id "
            "WHERE s.topics LIKE ?",
            (f"% {STANDING_MARK} %",),
        ).fetchall()
        limited = conn.execute(
            "SELECT r.text FROM statement_rows AS r JOIN statements AS s ON s.id = r.id "
            "WHERE s.topics LIKE ?",
            (f"% {LIMIT_MARK} %",),
        ).fetchall()
    conn.close()
    assert marked == [(f"user: {said[2]}",)]
    assert limited == [(f"user: {said[3]}",)]


async def test_a_version_18_file_gains_the_things_and_the_households_limits(
    db_path: Path,
) -> None:
    """Step 19 adds the car, the camera, what the kitchen lacks and the languages of the work to
    the statements stored before it (a car told then ends by one told after the upgrade), and
    marks a limit of the household's; a statement of none is left."""
    said = (
        "We have an old diesel VW Passat estate from 2012.",
        "My camera is an old Canon 600D with just the kit lens.",
        "My flat has no oven, just a two-burner hob.",
        "Our whole backend team is a Kotlin shop.",
        "My mum uses a wheelchair now.",
        "I have a dog.",
    )
    await _file_saying(db_path, *said)
    _stored_without(db_path, "topics", version=18)

    news = ("We traded the Passat in for a Kia EV6 last week.",)
    ended = await _ended_after(db_path, news, "Passat camera oven Kotlin wheelchair dog", limit=10)
    assert ended[f"user: {said[0]}"] is not None
    assert ended[f"user: {said[5]}"] is None
    with sqlite3.connect(db_path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        topics = dict(
            conn.execute(
                "SELECT r.text, s.topics FROM statement_rows AS r "
                "JOIN statements AS s ON s.id = r.id WHERE r.profile IS NOT NULL"
            ).fetchall()
        )
    conn.close()
    assert [topics[f"user: {text}"] for text in said] == [
        " car ",
        " camera ",
        " kitchen ",
        " stack ",
        f" {LIMIT_MARK} ",
        None,
    ]


async def _facts_read_only(db_path: Path, query: str) -> list[str]:
    """The facts of user "u" a search for `query` finds through a read-only open of the file."""
    async with LocalBackend(db_path, retriever="lexical", read_only=True) as reader:
        found = await reader.search(SearchRequest(query, user_id="u"))
    return [edge.fact for edge in found.edges]


async def _ended_after(
    db_path: Path, news: Sequence[str], query: str, *, limit: int
) -> dict[str, datetime | None]:
    """User "u" tells each of `news` in thread "t" (opening the file for writing, so upgrading
    it); then each fact a search for `query` finds, with when it ended (None: current)."""
    async with LocalBackend(db_path, retriever="lexical") as writer:
        for text in news:
            await writer.add_messages("t", [Message("user", text)])
        found = await writer.search(SearchRequest(query, user_id="u", limit=limit))
    return {edge.fact: edge.invalid_at for edge in found.edges}


def _stored_without(db_path: Path, column: str, *, version: int) -> None:
    """The file as a release at `version` left it, without the statements' `column` ("states"
    or "topics") that the rules after it read, nor, before 16, the entities' marks of step 16."""
    with sqlite3.connect(db_path) as conn:
        conn.execute(f"UPDATE statements SET {column} = NULL")
        if version < 16:
            conn.execute("ALTER TABLE entities DROP COLUMN own")
        conn.execute(f"PRAGMA user_version = {version}")
    conn.close()


async def _file_saying(db_path: Path, *said: str) -> None:
    """A file where user "u" said each of `said` in thread "t"."""
    async with LocalBackend(db_path, retriever="lexical") as first:
        await first.ensure_user(UserProfile("u"))
        await first.ensure_thread("t", "u")
        for text in said:
            await first.add_messages("t", [Message("user", text)])


async def test_an_older_file_is_not_read_before_it_is_upgraded(db_path: Path) -> None:
    async with LocalBackend(db_path, retriever="lexical") as first:
        await first.ensure_user(UserProfile("u"))
    with sqlite3.connect(db_path) as conn:
        conn.execute("PRAGMA user_version = 6")
    conn.close()
    with pytest.raises(BackendError, match="older than 7; open it once for writing"):
        LocalBackend(db_path, read_only=True)


async def test_a_single_valued_subject_reads_only_the_statements_with_one(db_path: Path) -> None:
    """A newer statement on a subject reads the statements that have a subject through their
    own index, not every profile statement of the user (tens of thousands for a large one)."""
    async with LocalBackend(db_path, retriever="lexical") as backend:
        await backend.ensure_user(UserProfile("u"))
        await backend.ensure_thread("t", "u")
        await backend.add_messages("t", [Message("user", "I live in Leeds.")])
        said: list[str] = []
        backend._engine.run(lambda conn: conn.set_trace_callback(said.append))
        await backend.add_messages("t", [Message("user", "I live in York now.")])
        backend._engine.run(lambda conn: conn.set_trace_callback(None))
        rivals = [sql for sql in said if "topics LIKE" in sql and "statement_rows" in sql]
        assert rivals  # the query ran, values bound in its text
        plans = backend._engine.read(
            lambda conn: [conn.execute(f"EXPLAIN QUERY PLAN {sql}").fetchall() for sql in rivals]
        )
    for plan in plans:
        assert any("statements_topics" in row[-1] for row in plan), plan


def test_the_steps_a_read_only_open_may_skip_only_change_indexes() -> None:
    """A read-only open serves files from `READABLE_FROM` on as they are: a later step that
    changed a table or a view would have it read what is not there, so `READABLE_FROM` must
    then move up to that step (or the step add only what writes read or reads do without,
    `WRITE_ONLY_STEPS`).
    An index made or dropped changes only how fast a query runs."""
    for step in schema.MIGRATIONS[schema.READABLE_FROM :]:
        for statement in step:
            if statement in schema.WRITE_ONLY_STEPS:
                continue
            assert isinstance(statement, str), statement
            assert statement.startswith(("CREATE INDEX", "DROP INDEX")), statement


async def test_every_deleted_parent_finds_its_children_through_an_index(db_path: Path) -> None:
    """A row referenced by a foreign key is checked for children when it is deleted (threads,
    messages, episodes, statements, entities, users all are), by a look-up of the child's
    column: without an index to seek it in, each such delete scans the child table of every user
    in the file. Graph rows stay as tombstones, so their children are never looked for."""
    backend = LocalBackend(db_path, retriever="lexical")
    await backend.aclose()
    with sqlite3.connect(db_path) as conn:
        tables = [
            row[0]
            for row in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE '%VIRTUAL%'"
            )
        ]
        scanned = []
        for table in tables:
            for fk in conn.execute(f"PRAGMA foreign_key_list({table})").fetchall():
                parent, column = fk[2], fk[3]
                plan = conn.execute(
                    f"EXPLAIN QUERY PLAN SELECT 1 FROM {table} WHERE {column} = ?", (1,)
                ).fetchall()
                if parent != "graphs" and any(row[-1].startswith("SCAN") for row in plan):
                    scanned.append(f"{table}.{column} -> {parent}")
    conn.close()
    assert "episodes" in tables and scanned == []
