"""Query planning: common terms leave the FTS5 query but still count, so cost stays bounded."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from zepkit.core._backend import SearchRequest, UserProfile
from zepkit.core._models import Message
from zepkit.local import LocalBackend
from zepkit.local import plan as planning
from zepkit.local.plan import ROW_BUDGET, QueryPlan, plan_query
from zepkit.local.stats import sentence_counts

COMMON = ROW_BUDGET + 100


async def fill(path: Path) -> None:
    backend = LocalBackend(path)
    try:
        await backend.ensure_user(UserProfile("u"))
        await backend.ensure_thread("t", "u")
        await backend.add_messages("t", [Message("user", "The skies in Tromso are polar.")])
        # "weather" and "cloudy" get too common to rank by, but stay in under half the facts.
        reports = [Message("user", f"Weather report {n} says cloudy.") for n in range(COMMON)]
        notes = [Message("user", f"Note {n} about gardening.") for n in range(COMMON + 100)]
        for start in range(0, len(reports + notes), 30):
            await backend.add_messages("t", (reports + notes)[start : start + 30])
        await backend.add_messages("t", [Message("user", "The weather in Tromso is polar.")])
    finally:
        await backend.aclose()


def plan(path: Path, terms: list[str]) -> tuple[tuple[str, ...], set[str], float]:
    with sqlite3.connect(path) as conn:
        graph = conn.execute("SELECT graph FROM users WHERE user_id = 'u'").fetchone()[0]
        found = plan_query(conn, graph, terms)
    return found.ranked, set(found.boosts), found.fraction


async def test_common_terms_are_scored_outside_fts(db_path: Path) -> None:
    await fill(db_path)
    ranked, boosted, fraction = plan(db_path, ["weather", "tromso"])
    assert (ranked, boosted, fraction) == (("tromso",), {"weather"}, 1.0)

    backend = LocalBackend(db_path, retriever="lexical")  # this test is about BM25 planning
    try:
        found = await backend.search(SearchRequest("weather tromso", user_id="u", reranker=None))
        # Both Tromso facts match FTS5 equally; the one that also says "weather" ranks first.
        assert [f.fact for f in found.edges] == [
            "user: The weather in Tromso is polar.",
            "user: The skies in Tromso are polar.",
        ]
    finally:
        await backend.aclose()


async def test_terms_in_no_episode_leave_the_ranked_terms_to_those_held(db_path: Path) -> None:
    """A long message's words the graph never saw ("hey", "airport", ...) would fill the ranked
    terms, rarest first, before the two it holds: they are left out, and the search finds the
    fact by the words it shares."""
    await fill(db_path)
    absent = ["hey", "airport", "brain", "totally", "blanked", "quick", "honestly", "ugh"]
    ranked, _, _ = plan(db_path, [*absent, "tromso", "skies"])
    assert ranked == ("skies", "tromso")
    backend = LocalBackend(db_path, retriever="lexical")
    try:
        query = " ".join([*absent, "tromso", "skies"])
        found = await backend.search(SearchRequest(query, user_id="u", reranker=None))
        assert found.edges[0].fact == "user: The skies in Tromso are polar."
    finally:
        await backend.aclose()


async def test_a_messages_own_words_rank_beside_the_words_the_graph_holds(db_path: Path) -> None:
    """A block's query comes from messages already written: each of their new words is held by
    them alone, the rarest of the graph. They rank beside the query's words other messages
    hold, at least two of which rank however many new words there are."""
    new = ["hey", "airport", "brain", "totally", "blanked", "quick", "honestly", "ugh"]
    said = " ".join(new) + " tromso skies"
    await fill(db_path)
    backend = LocalBackend(db_path)
    try:
        await backend.add_messages("t", [Message("user", said)])
    finally:
        await backend.aclose()
    with sqlite3.connect(db_path) as conn:
        graph = conn.execute("SELECT graph FROM users WHERE user_id = 'u'").fetchone()[0]
        alone = plan_query(conn, graph, [*new, "tromso", "skies"])
        beside = plan_query(conn, graph, [*new, "tromso", "skies"], sentence_counts([said]))
    assert "tromso" not in alone.ranked  # eight words of its own, rarest, take every place
    assert set(beside.ranked) == {*new, "tromso", "skies"}


async def test_a_too_common_term_searches_the_newest_rows(db_path: Path) -> None:
    await fill(db_path)
    ranked, boosted, fraction = plan(db_path, ["cloudy"])
    assert ranked == ("cloudy",) and not boosted
    assert 0 < fraction < 1

    backend = LocalBackend(db_path)
    try:
        found = await backend.search(SearchRequest("cloudy", user_id="u", limit=50))
        assert len(found.edges) == 50
        assert "user: Weather report 0 says cloudy." not in [f.fact for f in found.edges]
    finally:
        await backend.aclose()


async def test_a_term_in_most_facts_is_neither_ranked_nor_scored(db_path: Path) -> None:
    await fill(db_path)
    # "note" is in more than half the facts: its weight would be FTS5's floor, so it is dropped.
    ranked, boosted, _ = plan(db_path, ["tromso", "note", "weather"])
    assert ranked == ("tromso",)
    assert boosted == {"weather"}


async def fill_love(path: Path) -> None:
    """Many messages that say "love" in its forms, which FTS5 matches for "lovely" (one Porter
    stem), while the graph's counts hold "lovely" once: the word itself is said once."""
    backend = LocalBackend(path, retriever="lexical")
    try:
        await backend.ensure_user(UserProfile("u"))
        await backend.ensure_thread("t", "u")
        said = [f"We loved show {n}." if n % 2 else f"I love song {n}." for n in range(COMMON)]
        said += ["A sandwich for lunch at the pier.", "The view was lovely from the pier."]
        for start in range(0, len(said), 50):
            batch = [Message("user", text) for text in said[start : start + 50]]
            await backend.add_messages("t", batch)
    finally:
        await backend.aclose()


def matched_in_range(path: Path, term: str, fraction: float) -> int:
    """FTS5's matches of `term` among the graph's newest `fraction` of episodes."""
    with sqlite3.connect(path) as conn:
        graph = conn.execute("SELECT graph FROM users WHERE user_id = 'u'").fetchone()[0]
        low, high = QueryPlan((term,), {}, fraction).id_range(conn, "episodes", graph)
        row = conn.execute(
            "SELECT count(*) FROM episodes_fts WHERE episodes_fts MATCH ? "
            "AND rowid BETWEEN ? AND ?",
            (term, low, high),
        ).fetchone()
    return int(row[0])


async def test_a_large_graph_counts_a_ranked_term_in_the_index_too(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The counts hold "lovely" once, FTS5 matches it in every message that says "love": in a
    graph large enough to be checked it is not ranked (it would rank all of those), the truly
    rare term is; a smaller graph keeps the counts' plan."""
    await fill_love(db_path)
    assert plan(db_path, ["lovely", "sandwich"])[0] == ("lovely", "sandwich")
    monkeypatch.setattr(planning, "CHECKED_FROM", 100)
    ranked, boosted, fraction = plan(db_path, ["lovely", "sandwich"])
    assert (ranked, boosted, fraction) == (("sandwich",), {"lovely"}, 1.0)

    backend = LocalBackend(db_path, retriever="lexical")
    try:
        found = await backend.search(SearchRequest("lovely sandwich", user_id="u", limit=3))
        assert found.edges[0].fact == "user: A sandwich for lunch at the pier."
        found = await backend.search(SearchRequest("lovely view", user_id="u", limit=3))
        assert found.edges[0].fact == "user: The view was lovely from the pier."
    finally:
        await backend.aclose()


async def test_when_every_term_is_common_in_the_index_the_newest_share_is_searched(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every term the counts let in matches more than the budget: the first is ranked over the
    newest episodes that hold the budget's worth of its matches, as the index counts them."""
    await fill_love(db_path)
    monkeypatch.setattr(planning, "CHECKED_FROM", 100)
    ranked, _, fraction = plan(db_path, ["lovely"])
    assert ranked == ("lovely",)
    assert 0 < fraction < 1
    assert ROW_BUDGET <= matched_in_range(db_path, "lovely", fraction) <= ROW_BUDGET + 2
    assert matched_in_range(db_path, "lovely", 1.0) == COMMON + 1


async def test_a_term_too_common_by_the_counts_gets_its_share_from_the_index(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A term over the budget by the counts alone is ranked over the newest share of the graph;
    the counts hold "lovely" only where it is said, FTS5 matches it wherever "love" is too, so
    in a checked graph the share is the index's: one that holds the budget's worth of matches,
    not the counts' guess (which would hold about ten times as many)."""
    said = [f"We loved show {n}." if n % 2 else f"I love song {n}." for n in range(COMMON)]
    said[::10] = [f"The view was lovely from pier {n}." for n in range(0, COMMON, 10)]
    backend = LocalBackend(db_path, retriever="lexical")
    try:
        await backend.ensure_user(UserProfile("u"))
        await backend.ensure_thread("t", "u")
        for start in range(0, len(said), 50):
            await backend.add_messages("t", [Message("user", x) for x in said[start : start + 50]])
    finally:
        await backend.aclose()
    budget = 30
    monkeypatch.setattr(planning, "ROW_BUDGET", budget)
    ranked, _, by_counts = plan(db_path, ["lovely"])  # a graph too small to check
    assert ranked == ("lovely",) and by_counts == budget / (COMMON // 10)
    assert matched_in_range(db_path, "lovely", by_counts) > 8 * budget
    monkeypatch.setattr(planning, "CHECKED_FROM", 100)
    ranked, _, fraction = plan(db_path, ["lovely"])
    assert ranked == ("lovely",)
    assert budget <= matched_in_range(db_path, "lovely", fraction) <= budget + 2


def test_left_out_terms_count_once_per_text_as_whole_words() -> None:
    query = QueryPlan(ranked=("tromso",), boosts={"shar": 2.0, "garden": 0.5})
    assert query.boost("Ana shared her garden, then kept sharing.") == 2.5
    assert query.boost("The GARDENS were Shared.") == 2.5
    # Inside another word a stem does not count, and neither does a word with another stem.
    assert query.boost("unshared gardener_notes, reshared") == 0.0
    assert query.boost("share it") == 0.0  # "share" stems to itself, not to "shar"
    assert QueryPlan(ranked=("tromso",), boosts={}).boost("shared garden") == 0.0


def test_a_texts_boost_is_the_same_float_in_every_process() -> None:
    # Summed in a set's order, the last bits of the sum changed with the hash seed, and so could
    # the order of two turns in a block from one process to the next.
    script = (
        "from zepkit.local.plan import QueryPlan\n"
        "weights = {'cello': 0.1, 'tango': 0.2, 'lisbon': 0.3, 'ferry': 0.7, 'quince': 1.3}\n"
        "plan = QueryPlan(ranked=('x',), boosts=weights)\n"
        "print(repr(plan.boost('Cello and tango in Lisbon, a ferry, then quince.')))\n"
    )
    printed = set()
    for seed in range(6):
        env = {**os.environ, "PYTHONHASHSEED": str(seed)}
        done = subprocess.run(
            [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
        )
        printed.add(done.stdout.strip())
    assert printed == {repr(0.1 + 0.2 + 0.3 + 0.7 + 1.3)}
