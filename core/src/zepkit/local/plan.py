"""Planning a search so it reads a bounded number of rows however large the graph grows.

FTS5 ranks every row that matches any term of an OR query, so a query that carries a few common
words ("week", "friend") ranks a large share of the graph. The plan sends FTS5 the rarest terms
whose document frequencies fit a row budget, like data-driven stop words, and scores the terms it
left out in Python on the candidates. When even the rarest term is too common, it searches only
the newest share of the graph that fits the budget.

The frequencies count the crude stems of `zepkit.local.text.stem`, while FTS5 matches by Porter
stems: "lovely" is rare by the counts, yet the index matches it wherever "love" or "loved" is
said. In a large graph a term the counts let in is therefore counted again by the index itself
(up to the budget) before it is ranked, and the newest share searched for a term too common to
rank whole is found in the index too.
"""

from __future__ import annotations

import functools
import math
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from zepkit.local.ids import graph_range, last_id
from zepkit.local.retrieval import match_expression
from zepkit.local.stats import document_frequencies
from zepkit.local.text import stem, words

ROW_BUDGET = 500
"""Matching rows one FTS5 query may rank. bm25 costs about 2-3 us a row (it looks up each row's
length), so this keeps ranking near 1 ms on a 2-core machine."""

MAX_RANKED_TERMS = 8
MIN_HELD_RANKED = 2
"""Terms that other messages hold, ranked whatever many the query's own messages alone hold."""
IDF_FLOOR = 1e-6
CHECKED_FROM = 5000
"""Statements from which a graph's ranked terms are counted by the index too: below it, a term
the counts underrate costs at most a few milliseconds, and a plan spares the counting."""


@dataclass(frozen=True)
class QueryPlan:
    """The terms FTS5 ranks by, the left-out terms' weights, and the share of rows searched."""

    ranked: tuple[str, ...]
    boosts: Mapping[str, float]
    fraction: float = 1.0

    def boost(self, text: str) -> float:
        """The BM25 weight of the left-out terms that `text` holds (one occurrence each): those
        that are the stem of one of its words (`stems_held`)."""
        if not self.boosts:
            return 0.0
        held = stems_held(text)
        # Summed in the plan's order, not the set's: a set of strings iterates in an order that
        # changes with each process's hash seed, and so would the last bits of the sum.
        return sum(weight for key, weight in self.boosts.items() if key in held)

    def id_range(self, conn: sqlite3.Connection, table: str, graph: int) -> tuple[int, int]:
        """The row ids of `table` to search: the whole graph, or its newest `fraction`."""
        low, high = graph_range(graph)
        if self.fraction >= 1.0:
            return low, high
        newest = last_id(conn, table, graph) or low
        return max(low, newest - math.ceil((newest - low) * self.fraction)), high


@functools.lru_cache(maxsize=1024)
def stems_held(text: str) -> frozenset[str]:
    """The crude stems of every word of `text`. Kept for the last texts: a context block ranks
    about 150 turns, and the next turn's block most of the same ones again (on chat at 100k
    messages, stemming them was a millisecond of each add with context; about 2 MB kept)."""
    return frozenset(map(stem, words(text)))


def plan_query(
    conn: sqlite3.Connection,
    graph: int,
    terms: Sequence[str],
    own: Mapping[str, int] | None = None,
) -> QueryPlan:
    """Pick the terms to rank by from the graph's document frequencies (rarest first).

    `own`: the counts (`sentence_counts`) of the messages the query comes from, when they are
    in the graph but not to be found (a block's thread). A term only they hold is the rarest of
    all, yet finds nothing else: such terms still rank (they match the query's own turn, which
    other turns' scores are read against), but beside them, not in the place of the terms the
    graph holds, of which at least `MIN_HELD_RANKED` rank ("what was that novel you told me to
    bring for the long flight?" ranks by "novel" and "flight", not by eight words of its own)."""
    keys = {term: stem(term) for term in terms}
    df, total = document_frequencies(conn, graph, set(keys.values()))
    most = MAX_RANKED_TERMS
    mine: list[str] = []  # terms only the query's own messages hold
    if own:
        mine = [t for t in terms if 0 < df.get(keys[t], 0) <= own.get(keys[t], 0)]
        most = max(MIN_HELD_RANKED, MAX_RANKED_TERMS - len(mine))
        terms = [t for t in terms if t not in set(mine)]
    position = {term: n for n, term in enumerate(terms)}
    order = sorted(terms, key=lambda t: (df.get(keys[t], 0), position[t]))
    checked = total >= CHECKED_FROM
    ranked: list[str] = []
    used = 0
    for term in order:
        count = df.get(keys[term], 0)
        if ranked and (used + count > ROW_BUDGET or len(ranked) >= most):
            break
        if (checked or count == 0) and used + count <= ROW_BUDGET:
            count = _index_matches(conn, graph, term, ROW_BUDGET - used + 1)
            if used + count > ROW_BUDGET:
                continue  # the index holds more than the counts said: a later term may fit
            if count == 0:
                # In no episode of the graph: it would take a ranked term's place for nothing
                # (a message's "hey", "airport", "blanked", ... before the words it holds).
                continue
        ranked.append(term)
        used += count
    for term in mine:  # they match the query's own turn, which sets the scores' scale
        ranked.append(term)
        used += df.get(keys[term], 0)
    fraction = min(1.0, ROW_BUDGET / used) if used else 1.0
    if checked and fraction < 1.0:
        # One term, over the budget by the counts alone, which may underrate it as much as any:
        # its share is the index's own ("stressful" counted 676 times matched 9,786 messages).
        fraction = _newest_share(conn, graph, ranked[0])
    if not ranked and order:  # every term the counts let in is common in the index
        ranked, fraction = [order[0]], _newest_share(conn, graph, order[0])
    left_out = {keys[t]: idf(total, df.get(keys[t], 0)) for t in terms if t not in ranked}
    # A term in half the graph or more scores FTS5's floor: it would only cost time.
    boosts = {key: weight for key, weight in left_out.items() if weight > IDF_FLOOR}
    return QueryPlan(ranked=tuple(ranked), boosts=boosts, fraction=fraction)


def _index_matches(conn: sqlite3.Connection, graph: int, term: str, cap: int) -> int:
    """How many of the graph's episodes the full-text index matches `term` in, counted up to
    `cap` (each row counted costs about 40 ns; an absent term about 10 us in all)."""
    low, high = graph_range(graph)
    row = conn.execute(
        "SELECT count(*) FROM (SELECT 1 FROM episodes_fts WHERE episodes_fts MATCH ? "
        "AND rowid BETWEEN ? AND ? LIMIT ?)",
        (match_expression([term]), low, high, cap),
    ).fetchone()
    return int(row[0])


def _newest_share(conn: sqlite3.Connection, graph: int, term: str) -> float:
    """The share of the graph's newest episodes that holds `ROW_BUDGET` of `term`'s matches: the
    index's own rows, read newest first, not the counts."""
    low, high = graph_range(graph)
    row = conn.execute(
        "SELECT rowid FROM episodes_fts WHERE episodes_fts MATCH ? AND rowid BETWEEN ? AND ? "
        "ORDER BY rowid DESC LIMIT 1 OFFSET ?",
        (match_expression([term]), low, high, ROW_BUDGET),
    ).fetchone()
    newest = last_id(conn, "episodes", graph)
    if row is None or newest is None or newest <= low:
        return 1.0
    return min(1.0, max(newest - int(row[0]), 1) / (newest - low))


def idf(total: int, df: int) -> float:
    """BM25's inverse document frequency, floored like FTS5's so it stays positive."""
    return max(math.log((max(total - df, 0) + 0.5) / (df + 0.5)), IDF_FLOOR)
