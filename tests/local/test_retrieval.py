"""Row loading by id (any number of ids, in statements that stay under SQLite's parameter cap),
turns' threads alone, and a thread's latest statements."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from pathlib import Path

from zepkit.core._backend import UserProfile
from zepkit.core._models import Message
from zepkit.local import LocalBackend
from zepkit.local.hybrid import Retrieval
from zepkit.local.retrieval import load_episodes, load_turns, thread_statements, threads_of_turns
from zepkit.local.search import BLOCK_POOL, GraphSearch
from zepkit.local.text import query_terms


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


async def test_turns_threads_are_read_alone_as_their_turns_give_them(db_path: Path) -> None:
    """`threads_of_turns` gives each existing id the thread its row has (None for data), for
    more ids than one statement binds, and nothing for ids that are not there."""
    backend = LocalBackend(db_path, retriever="lexical")
    await backend.ensure_user(UserProfile("u"))
    for name in ("a", "b"):
        await backend.ensure_thread(name, "u")
        await backend.add_messages(name, [Message("user", f"Note {n}.") for n in range(600)])
    await backend.add_data("A note given as data.", type="text", user_id="u")
    await backend.aclose()

    with sqlite3.connect(db_path) as conn:
        episodes = [row[0] for row in conn.execute("SELECT id FROM episodes ORDER BY id")]
        wanted = [*episodes, episodes[-1] + 1, episodes[0] - 1]  # two that are not there
        threads = threads_of_turns(conn, wanted)
        turns = load_turns(conn, wanted)
    assert threads == {key: turn.thread for key, turn in turns.items()}
    assert len(threads) == 1201 and len(set(threads.values())) == 3
    assert threads[episodes[-1]] is None  # the data item


async def test_a_block_scores_turns_on_their_threads_alone_as_on_their_rows(
    db_path: Path,
) -> None:
    """The block reads only the threads of the turns it does not show; their scores (and their
    order) are those of the turns read whole, with and without a day named."""
    backend = LocalBackend(db_path, retriever="lexical")
    await backend.ensure_user(UserProfile("u"))
    for n in range(6):
        await backend.ensure_thread(f"t{n}", "u")
        when = datetime(2024, 3, 4 + n, 12, tzinfo=UTC)
        said = [
            ("user", f"My sister Ana visited Porto with the dog in week {n}."),
            ("assistant", "Lovely, how was the weather there?"),
            ("user", f"Rainy, so we stayed in and cooked soup number {n}."),
        ]
        await backend.add_messages(f"t{n}", [Message(r, c, created_at=when) for r, c in said])
    await backend.aclose()

    with sqlite3.connect(db_path) as conn:
        (graph,) = conn.execute("SELECT graph FROM users").fetchone()
        for query in ("Ana Porto dog weather", "what soup did we cook on 6 March 2024"):
            terms = query_terms(query)
            whole = GraphSearch(conn, graph, terms, Retrieval(query=query))
            _, scores = whole.turn_scores(BLOCK_POOL)
            alone = GraphSearch(conn, graph, terms, Retrieval(query=query))
            _, by_threads = alone.turn_scores(BLOCK_POOL, texts=False)
            assert list(by_threads.items()) == list(scores.items())
            assert len(scores) > 1 and bool(whole.periods) == ("2024" in query)
