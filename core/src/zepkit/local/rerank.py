"""Rerankers over a BM25 candidate pool: reciprocal rank fusion and maximal marginal relevance."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import NamedTuple, TypeVar

from zepkit.local.text import token_set

RRF_K = 60
RECENCY_WEIGHT = 0.25
"""Recency's vote in rrf, against 1.0 for lexical rank: it breaks near-ties but never beats a
clearly better match (rank 1 and oldest still outranks rank 20 and newest)."""

K = TypeVar("K", bound=Hashable)


class Candidate(NamedTuple):
    """One item to rank: its key, relevance (higher is better), recency and text for similarity."""

    key: int
    relevance: float
    recency: float = 0.0
    text: str = ""


def fuse(rankings: Sequence[tuple[Sequence[K], float]], *, k: int = RRF_K) -> list[tuple[K, float]]:
    """Weighted reciprocal rank fusion of several rankings; (key, score), best first, stable."""
    scores: dict[K, float] = {}
    for ranking, weight in rankings:
        for rank, key in enumerate(ranking, start=1):
            scores[key] = scores.get(key, 0.0) + weight / (k + rank)
    return sorted(scores.items(), key=lambda item: -item[1])


def by_relevance(candidates: Sequence[Candidate]) -> list[tuple[int, float]]:
    """No reranking: the candidates in relevance order with their relevance as score."""
    ordered = sorted(candidates, key=lambda c: -c.relevance)
    return [(c.key, c.relevance) for c in ordered]


def rrf(candidates: Sequence[Candidate], *, k: int = RRF_K) -> list[tuple[int, float]]:
    """Fuse relevance rank (weight 1) with recency rank (`RECENCY_WEIGHT`); ties share a rank."""
    lexical = _shared_ranks([c.relevance for c in candidates])
    recent = _shared_ranks([c.recency for c in candidates])
    scored = [
        (c.key, 1.0 / (k + lexical[n]) + RECENCY_WEIGHT / (k + recent[n]))
        for n, c in enumerate(candidates)
    ]
    return sorted(scored, key=lambda item: -item[1])


def _shared_ranks(values: Sequence[float]) -> list[int]:
    """1-based ranks, highest value first; equal values get the same (best) rank."""
    order = sorted(range(len(values)), key=lambda n: -values[n])
    ranks = [0] * len(values)
    for position, n in enumerate(order, start=1):
        same = position > 1 and values[n] == values[order[position - 2]]
        ranks[n] = ranks[order[position - 2]] if same else position
    return ranks


def mmr(candidates: Sequence[Candidate], *, lam: float, limit: int) -> list[tuple[int, float]]:
    """Greedy maximal marginal relevance: lam * relevance - (1 - lam) * max Jaccard to picks."""
    # Relevance is scaled to [0, 1] by the best candidate. A candidate's value can only fall as
    # picks accumulate, so the scores come out non-increasing: "higher is better" still holds.
    pool = sorted(candidates, key=lambda c: -c.relevance)
    if not pool:
        return []
    top = pool[0].relevance
    relevance = [c.relevance / top if top > 0 else 1.0 for c in pool]
    tokens = [token_set(c.text) for c in pool]
    closest = [0.0] * len(pool)
    remaining = list(range(len(pool)))
    chosen: list[tuple[int, float]] = []
    while remaining and len(chosen) < limit:
        # max() keeps the first of equal values, i.e. the more relevant one.
        best = max(remaining, key=lambda i: lam * relevance[i] - (1 - lam) * closest[i])
        chosen.append((pool[best].key, lam * relevance[best] - (1 - lam) * closest[best]))
        remaining.remove(best)
        for i in remaining:
            closest[i] = max(closest[i], jaccard(tokens[i], tokens[best]))
    return chosen


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    """|a & b| / |a | b|, 0 for two empty sets."""
    if not a and not b:
        return 0.0
    return len(a & b) / len(a | b)
