"""Ranking episodes as conversation turns: lexical and dense scores fused, then context credit.

Each retriever's scores are scaled to its best and added with weights (dense hits below
`MIN_COSINE` count nothing, so a query about nothing stored finds nothing); a turn from a day or
month the query names gains (facts too); then a turn takes credit from its adjacent turns and
from its thread. Weights were tuned on LoCoMo's dev split.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import Any

from zepkit.local.dates import Period, within
from zepkit.local.dense import Dense

LEXICAL_WEIGHT = 1.0
DENSE_WEIGHT = 0.6
MIN_COSINE = 0.3
"""all-MiniLM-L6-v2 puts unrelated English sentences at 0 to 0.15 cosine."""
NEIGHBOUR_WEIGHT = 0.3
"""Share of the best adjacent turn's score a turn takes: answers often sit next to the match."""
SESSION_WEIGHT = 0.5
"""Weight of the turn's thread's evidence (its best few scores), so strong sessions rise."""
SESSION_TOP = 3
DENSE_SESSION_WEIGHT = 0.7
"""With dense scores in the mix a session's best two turns are surer evidence: more weight."""
DENSE_SESSION_TOP = 2
DATE_WEIGHT = 0.75
"""Share of the best score an item gains when it dates from a day or month the query names."""
SPREAD_FROM = 10
"""How many of the best candidates bring their adjacent turns into the pool."""


@dataclass(frozen=True)
class Retrieval:
    """How one search finds candidates: which retrievers, and the raw query for the dense one.

    `vector`, when set, is the dense query already embedded (the text is then not embedded), or
    a `Future` of it being embedded on another thread.
    """

    query: str
    dense: Dense | None = None
    lexical: bool = True
    vector: Any = None


def fused(
    lexical: dict[int, float], dense: Sequence[tuple[int, float]], *, pool: int
) -> list[tuple[int, float]]:
    """The best `pool` keys of both lists by weighted score fusion: (key, score), best first.

    Each side is scaled to its best score (BM25 has no fixed range), then
    `LEXICAL_WEIGHT * bm25 + DENSE_WEIGHT * cosine`; dense hits below `MIN_COSINE` count 0.
    """
    scores: dict[int, float] = {}
    top = max(lexical.values(), default=0.0)
    if top > 0:
        for key, value in lexical.items():
            scores[key] = LEXICAL_WEIGHT * value / top
    close = [(key, cosine) for key, cosine in dense if cosine >= MIN_COSINE]
    if close:
        best = close[0][1]
        for key, cosine in close:
            scores[key] = scores.get(key, 0.0) + DENSE_WEIGHT * cosine / best
    return sorted(scores.items(), key=itemgetter(1), reverse=True)[:pool]


def date_credit(
    scores: dict[int, float], times: Mapping[int, str], periods: Sequence[Period]
) -> dict[int, float]:
    """Scores plus `DATE_WEIGHT` of the best one for keys whose stored time (ISO text in
    `times`) falls within a period the query names."""
    top = max(scores.values(), default=0.0)
    if not periods or top <= 0:
        return scores
    return {
        key: value + DATE_WEIGHT * top if within(times[key], periods) else value
        for key, value in scores.items()
    }


def neighbours_of(ranked: Sequence[int]) -> list[int]:
    """The ids adjacent to the first `SPREAD_FROM` ranked ids (same thread is checked later)."""
    known = set(ranked)
    found: dict[int, None] = {}
    for key in ranked[:SPREAD_FROM]:
        found.setdefault(key - 1, None)
        found.setdefault(key + 1, None)
    return [key for key in found if key not in known]


def spread(
    scores: dict[int, float], threads: dict[int, int | None], *, dense: bool = False
) -> dict[int, float]:
    """Scores scaled to the best one, plus credit from adjacent turns and the turn's thread.

    `threads` maps every candidate and loaded neighbour to its thread's row id (None for data);
    a key that neither matched nor sits next to a match is dropped. `dense`: the scores include
    dense ones (the session credit's settings differ).
    """
    top = max(scores.values(), default=0.0)
    if top <= 0:
        return scores
    weight = DENSE_SESSION_WEIGHT if dense else SESSION_WEIGHT
    best_few = DENSE_SESSION_TOP if dense else SESSION_TOP
    own = {key: scores.get(key, 0.0) / top for key in threads}
    per_thread: dict[int | None, list[float]] = {}
    for key, value in own.items():
        thread = threads[key]
        if thread in per_thread:
            per_thread[thread].append(value)
        else:
            per_thread[thread] = [value]
    # A thread's evidence: its best few scores, summed best first (one alone is itself).
    session = {
        thread: values[0] if len(values) == 1 else sum(sorted(values, reverse=True)[:best_few])
        for thread, values in per_thread.items()
    }
    best = max(session.values())
    credit = {thread: weight * total / best for thread, total in session.items()}
    thread_of = threads.get
    out: dict[int, float] = {}
    for key, value in own.items():
        thread = threads[key]
        if thread is None:  # data items: no conversation around them
            if value > 0:
                out[key] = value
            continue
        before = own[key - 1] if thread_of(key - 1) == thread else 0.0
        after = own[key + 1] if thread_of(key + 1) == thread else 0.0
        near = before if before > after else after
        if value > 0 or near > 0:
            out[key] = value + NEIGHBOUR_WEIGHT * near + credit[thread]
    return out
