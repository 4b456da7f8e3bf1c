"""Answering searches per scope and building context blocks from one graph's memory."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Collection, Iterable, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from operator import itemgetter

from zepkit.core._limits import DEFAULT_MMR_LAMBDA
from zepkit.core._models import Entity, Episode, Fact, Reranker, Scope, SearchResults
from zepkit.core._rendering import compose_context
from zepkit.local.codec import decode_metadata, decode_time
from zepkit.local.dates import named_periods
from zepkit.local.hybrid import Retrieval, date_credit, fused, neighbours_of, spread
from zepkit.local.ids import UuidOf, graph_range, row_uuids
from zepkit.local.plan import QueryPlan, plan_query
from zepkit.local.profile import (
    heaviest_kind,
    kinds_asked,
    needed_topics,
    needs_limits,
    of_kinds_asked,
)
from zepkit.local.rerank import RRF_K, Candidate, by_relevance, fuse, mmr, rrf
from zepkit.local.retrieval import (
    EntityRow,
    EpisodeRow,
    ProfileRow,
    StatementHit,
    Turn,
    assistant_turns,
    entity_summary,
    heeded,
    kin_holders,
    limits,
    load_entities,
    load_episodes,
    load_turns,
    match_episodes,
    mentioned_entities,
    profile_statements,
    search_entities,
    search_statements,
    standing_instructions,
    statements_of_episodes,
    threads_of_turns,
    topic_holders,
    unprefixed,
    user_summary,
)
from zepkit.local.text import fact_key, name_mentions, stem, stems

CONTEXT_FACTS = 30
CONTEXT_TURNS = 25
"""The best turns whose statements a block considers, beside the best statement matches."""
TURN_POOL = 50
"""Turns ranked per block: as many as a search for 50 turns reads, so both rank alike."""
MATCH_TIEBREAK = 0.01
ENTRY_CHARS = 480
"""A long turn (or document) shows its best statements up to about this many characters."""
CONTEXT_ENTITIES = 5
PROFILE_FACTS = 6
"""This many profile statements lead a block, and up to `SALIENT_FACTS` more (the budget may
keep fewer)."""
SALIENT_FACTS = 2
"""The most salient current profile statements always lead a block, after the first
`PROFILE_FACTS` when they are not among them."""
SALIENT_CANDIDATES = 12
"""The most salient statements among which the weightiest kinds are picked (`_most_salient_led`)."""
MORE_PROFILE_FACTS = 24
"""At most this many more current profile statements close a block, after everything else, so
a short history carries all the user said about themselves and a full block drops them first."""
SALIENCE_WEIGHT = 1.0
RECENCY_WEIGHT = 0.5
RELEVANCE_WEIGHT = 2.0
"""A profile statement the query matches outranks a merely salient or recent one."""
DENSE_RELEVANCE_FLOOR = 0.5
"""With dense retrieval every turn is somewhat near a query ("I'm a translator" to "plan a day
out"): a profile statement whose relevance is under half the best one's counts as unmatched,
and its salience and recency rank it, as they do without dense retrieval."""
KIND_WEIGHT = 0.5
"""A profile statement of a kind the query names gains up to this share of the best match's
score: it comes after strong matches of the query's words and before nothing."""
ENDED_PENALTY = 3.0
"""An ended profile statement comes after every current one."""


def pool_size(limit: int) -> int:
    """How many BM25 candidates to fetch before reranking down to `limit`."""
    return max(limit * 3, 50)


BLOCK_POOL = pool_size(TURN_POOL)
"""Turns a context block's ranking starts from (each retriever's best)."""


@dataclass(frozen=True)
class TurnMatches:
    """The part of a block that does not need the new message's vector, read ahead of the rest
    (inside the write, while that message is embedded): its plan, BM25 matches and their scores
    with the query's left-out terms, and the user's profile candidates; valid for these terms."""

    terms: tuple[str, ...]
    plan: QueryPlan
    matched: list[Turn]
    relevance: dict[int, float]
    profile: list[ProfileRow]


def match_block_turns(
    conn: sqlite3.Connection, graph: int, terms: Sequence[str], own: Mapping[str, int]
) -> TurnMatches:
    """What `context_block` would read lexically for `terms` (`own`: see `plan_query`), read
    now."""
    plan = plan_query(conn, graph, terms, own)
    ids = plan.id_range(conn, "episodes", graph)
    matched = match_episodes(conn, plan.ranked, ids, BLOCK_POOL)
    relevance = _lexical_relevance(plan, matched)
    return TurnMatches(tuple(terms), plan, matched, relevance, profile_statements(conn, graph))


def _lexical_relevance(plan: QueryPlan, matched: Sequence[Turn]) -> dict[int, float]:
    """Each matched turn's BM25 score with its share of the query's left-out terms."""
    return {turn.id: turn.score + plan.boost(turn.content) for turn in matched}


def search_scope(
    conn: sqlite3.Connection,
    graph: int,
    terms: Sequence[str],
    retrieval: Retrieval | None = None,
    *,
    scope: Scope,
    reranker: Reranker | None,
    limit: int,
    mmr_lambda: float | None,
) -> SearchResults:
    """One search of one graph; the caller has checked the scope and reranker are supported."""
    lam = DEFAULT_MMR_LAMBDA if mmr_lambda is None else mmr_lambda
    search = GraphSearch(conn, graph, terms, retrieval)
    if scope == "edges":
        return SearchResults(scope=scope, edges=search.facts(reranker, limit, lam))
    if scope == "nodes":
        return SearchResults(scope=scope, nodes=search.entities(reranker, limit, lam))
    if scope == "episodes":
        return SearchResults(scope=scope, episodes=search.episodes(reranker, limit, lam))
    found = search.facts("rrf", limit, lam)
    named = search.entities("rrf", min(limit, CONTEXT_ENTITIES), lam)
    return SearchResults(scope=scope, context=compose_context(found, named))


class GraphSearch:
    """One query against one graph, planned once and answered per scope."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        graph: int,
        terms: Sequence[str],
        retrieval: Retrieval | None = None,
        ahead: TurnMatches | None = None,
        nearest: list[tuple[int, float]] | None = None,
        own: Mapping[str, int] | None = None,
    ) -> None:
        # `nearest`: the dense retriever's `BLOCK_POOL` closest episodes, found already; `own`:
        # the counts of the messages the query comes from (see `plan_query`).
        self._conn = conn
        self._graph = graph
        self.terms = terms
        self._retrieval = retrieval or Retrieval(" ".join(terms))
        self._statements: dict[int, list[StatementHit]] = {}
        self._nearest: dict[int, list[tuple[int, float]]] = {}
        if nearest is not None and self._retrieval.dense is not None:
            self._nearest[BLOCK_POOL] = nearest
        self.ahead = ahead if ahead is not None and ahead.terms == tuple(terms) else None
        self.plan: QueryPlan = (
            self.ahead.plan if self.ahead is not None else plan_query(conn, graph, terms, own)
        )
        self.periods = named_periods(self._retrieval.query)

    @property
    def query(self) -> str:
        """The text searched for."""
        return self._retrieval.query

    @property
    def dense(self) -> bool:
        """Whether dense retrieval takes part."""
        return self._retrieval.dense is not None

    def statements(self, pool: int) -> list[StatementHit]:
        """The best `pool` statements, lexical and/or dense (scope auto asks twice)."""
        if pool not in self._statements:
            self._statements[pool] = self._find_statements(pool)
        return self._statements[pool]

    def candidates(self, hits: Sequence[StatementHit]) -> list[Candidate]:
        """Statement hits as rerank candidates, with the left-out terms scored back in (dense
        fusion did that already) and credit for the dates the query names."""
        boosted = self._retrieval.dense is None
        relevance = {
            hit.id: hit.score + (self.plan.boost(hit.text) if boosted else 0.0) for hit in hits
        }
        if self.periods:
            relevance = date_credit(relevance, {hit.id: hit.valid_at for hit in hits}, self.periods)
        return [Candidate(hit.id, relevance[hit.id], hit.recency, hit.text) for hit in hits]

    def nearest(self, pool: int) -> list[tuple[int, float]]:
        """The dense retriever's `pool` closest episodes (empty when it is off)."""
        dense = self._retrieval.dense
        if dense is None:
            return []
        larger = [size for size in self._nearest if size >= pool]
        if larger:  # the best `pool` of a longer list are the same: no second scan
            return self._nearest[min(larger)][:pool]
        retrieval = self._retrieval
        query = retrieval.query if retrieval.vector is None else retrieval.vector
        if isinstance(query, Future):  # embedded on another thread meanwhile
            query = query.result()
        self._nearest[pool] = dense.nearest(self._conn, self._graph, query, pool)
        return self._nearest[pool]

    def _find_statements(self, pool: int) -> list[StatementHit]:
        return with_kinds_asked(
            self._conn, self._graph, self._retrieval.query, self._matched_statements(pool), pool
        )

    def _matched_statements(self, pool: int) -> list[StatementHit]:
        lexical: list[StatementHit] = []
        if self._retrieval.lexical:
            ids = self.plan.id_range(self._conn, "statements", self._graph)
            lexical = search_statements(self._conn, self.plan.ranked, ids, pool)
        if self._retrieval.dense is None:
            return lexical
        close = self.nearest(pool)
        per_episode = statements_of_episodes(self._conn, [key for key, _ in close])
        dense = [(hit.id, cosine) for key, cosine in close for hit in per_episode.get(key, ())]
        by_id = {hit.id: hit for hit in lexical}
        for hits in per_episode.values():
            for hit in hits:
                by_id.setdefault(hit.id, hit)
        relevance = {hit.id: hit.score + self.plan.boost(hit.text) for hit in lexical}
        ranked = fused(relevance, dense, pool=pool)
        return [by_id[key]._replace(score=score) for key, score in ranked]

    def facts(self, reranker: Reranker | None, limit: int, lam: float) -> list[Fact]:
        """The best statements as facts, each fact once (its latest telling)."""
        hits = unique_hits(self.statements(pool_size(limit)))
        by_id = {hit.id: hit for hit in hits}
        ranked = _rerank(self.candidates(hits), reranker, limit, lam)
        uuid_of = row_uuids(self._conn, "statements")
        return [_fact(by_id[key], score, uuid_of) for key, score in ranked[:limit]]

    def episodes(self, reranker: Reranker | None, limit: int, lam: float) -> list[Episode]:
        """The best episodes."""
        turns, relevance = self.turn_scores(pool_size(limit))
        dated = reranker == "rrf"  # only rrf reads recency: parsing every date costs ~1 ms
        candidates = [
            Candidate(key, score, turns[key].recency if dated else 0.0, turns[key].content)
            for key, score in relevance.items()
        ]
        ranked = _rerank(candidates, reranker, limit, lam)[:limit]
        rows = load_episodes(self._conn, [key for key, _ in ranked])
        uuid_of = row_uuids(self._conn, "episodes")
        return [_episode(rows[key], score, uuid_of) for key, score in ranked]

    def turn_scores(
        self, pool: int, *, texts: bool = True
    ) -> tuple[dict[int, Turn], dict[int, float]]:
        """Episodes scored as conversation turns (lexical and dense fused, then date, neighbour
        and thread credit): the turns read, and the scores of those that count. `texts=False`:
        the turns besides the lexical matches are read for their threads alone and left out of
        the turns returned (read whole when the query names a period: their dates count)."""
        turns: dict[int, Turn] = {}
        relevance: dict[int, float] = {}
        if self._retrieval.lexical:
            if self.ahead is not None and pool == BLOCK_POOL:
                matched, relevance = self.ahead.matched, dict(self.ahead.relevance)
            else:
                ids = self.plan.id_range(self._conn, "episodes", self._graph)
                matched = match_episodes(self._conn, self.plan.ranked, ids, pool)
                relevance = _lexical_relevance(self.plan, matched)
            turns = {turn.id: turn for turn in matched}
        if self._retrieval.dense is not None:
            relevance = dict(fused(relevance, self.nearest(pool), pool=pool))
        if relevance:
            order = sorted(relevance, key=relevance.__getitem__, reverse=True)
            extra = [k for k in relevance if k not in turns] + neighbours_of(order)
            if texts or self.periods:  # their texts, or their dates, are wanted
                turns.update(load_turns(self._conn, extra))
                threads = {key: turn.thread for key, turn in turns.items()}
            else:
                threads = {key: turn.thread for key, turn in turns.items()}
                threads.update(threads_of_turns(self._conn, extra))
            if self.periods:  # the query names a day or month
                times = {key: turn.created_at for key, turn in turns.items()}
                relevance = date_credit(relevance, times, self.periods)
            relevance = spread(relevance, threads, dense=self._retrieval.dense is not None)
        return turns, relevance

    def entities(self, reranker: Reranker | None, limit: int, lam: float) -> list[Entity]:
        """Entities ranked by fusing a match on their names with mentions in the best statements."""
        pool = pool_size(limit)
        named = search_entities(self._conn, self.terms, graph_range(self._graph), pool)
        hits = self.statements(pool)
        mentioned = mention_ranking(self._conn, [key for key, _ in rrf(self.candidates(hits))])
        fused = fuse([([row.id for row in named], 1.0), (mentioned, 1.0)])[:pool]
        rows = load_entities(self._conn, [key for key, _ in fused])
        summaries: dict[int, str] = {}

        def summary(entity: int) -> str:
            """The entity's summary (the model's when it wrote one), read once."""
            if entity not in summaries:
                written = rows[entity].summary
                summaries[entity] = written or entity_summary(self._conn, entity)
            return summaries[entity]

        if reranker == "mmr":
            candidates = [
                Candidate(key, score, text=f"{rows[key].name} {summary(key)}")
                for key, score in fused
            ]
            fused = mmr(candidates, lam=lam, limit=limit)
        uuid_of = row_uuids(self._conn, "entities")
        return [_entity(rows[key], summary(key), score, uuid_of) for key, score in fused[:limit]]


def with_kinds_asked(
    conn: sqlite3.Connection, graph: int, query: str, hits: list[StatementHit], pool: int
) -> list[StatementHit]:
    """`hits` (best first) joined by the user's profile statements of the kinds the query names
    ("allergies", "pets"), which need not share a word with it: each gains `KIND_WEIGHT` of the
    best hit's score, scaled by its salience (an ended one by half of that)."""
    asked = kinds_asked(query)
    if not asked:
        return hits
    rows = [row for row in profile_statements(conn, graph) if of_kinds_asked(row.hit.text, asked)]
    if not rows:
        return hits
    scale = KIND_WEIGHT * max((hit.score for hit in hits), default=1.0)
    most = max(row.salience for row in rows)
    scores = {hit.id: hit.score for hit in hits}
    found = {hit.id: hit for hit in hits}
    for row in rows:
        credit = scale * row.salience / most * (0.5 if row.hit.invalid_at else 1.0)
        scores[row.hit.id] = scores.get(row.hit.id, 0.0) + credit
        found.setdefault(row.hit.id, row.hit)
    best = sorted(scores, key=lambda key: (-scores[key], -key))[:pool]
    return [found[key]._replace(score=scores[key]) for key in best]


def context_block(
    conn: sqlite3.Connection,
    graph: int,
    terms: Sequence[str],
    retrieval: Retrieval | None = None,
    *,
    exclude: Mapping[int, str],
    ahead: TurnMatches | None = None,
    nearest: list[tuple[int, float]] | None = None,
    own: Mapping[str, int] | None = None,
    asked_back: bool = False,
) -> str | None:
    """The USER_PROFILE / FACTS / ENTITIES block for `terms`, leaving out the statements in
    `exclude` (what the current thread says: id -> sentence) and anything that repeats them;
    `ahead`: the lexical matches when they were read already (used only if made for the same
    terms); `nearest`: the episodes nearest `retrieval`'s vector, when found already; `own`:
    the counts of the messages `terms` come from (see `plan_query`); `asked_back`: the user's
    messages among them ask back what the assistant said (`asks_back`).

    Facts are the statements of the best turns (episode ranking credits a turn's neighbours and
    thread, which finds answers a sentence alone misses), one entry per turn; an assistant's
    turn shows only its best and its opening statements, so what the user said fills the room,
    but for the best ranked one, and every one when `asked_back`: those read from their start,
    up to an entry's room.
    Where a language model has read a turn, its facts stand for the turn instead of the rules'
    sentences (in FACTS and USER_PROFILE), its entity summaries replace the rules' and its
    summary of the user leads the block; turns it has not read (yet) show the rules' statements
    as before.
    """
    search = GraphSearch(conn, graph, terms, retrieval, ahead, nearest, own)
    said = {fact_key(text) for text in exclude.values()}
    relevance, rows = fact_relevance(conn, search, exclude) if terms else ({}, {})
    hits = {key: row for key, row in rows.items() if fact_key(row.text) not in said}
    relevance = {key: score for key, score in relevance.items() if key in hits}
    candidates = search.ahead.profile if search.ahead is not None else None
    asked = needed_topics(search.query) if terms else ()
    names, maybe_names = name_mentions(search.query) if terms else ([], [])
    ranked_profile, lead = pick_profile(
        conn,
        graph,
        relevance,
        exclude=exclude,
        said=said,
        candidates=candidates,
        asked=[
            *(topic_holders(conn, graph, asked) if asked else ()),
            *(limits(conn, graph) if terms and needs_limits(search.query) else ()),
        ],
        kin=kin_holders(conn, graph, [*names, *maybe_names]) if terms else (),
        standing=[*standing_instructions(conn, graph), *heeded(conn, graph)],
        floor=DENSE_RELEVANCE_FLOOR if search.dense else 0.0,
    )
    profile = ranked_profile[:lead]
    shown = {fact_key(hit.text) for hit, _ in profile}
    turns: dict[int, list[StatementHit]] = {}  # a turn's statements make one entry
    scores: dict[int, float] = {}
    replies = assistant_turns(conn, {hit.episode for hit in hits.values()})
    beside_best = _reply_statements(
        hits.values(), replies, _read_on(relevance, hits, replies, all_of=asked_back)
    )
    for hit in unique_hits([hits[key] for key in relevance]):
        if fact_key(hit.text) in shown:
            continue
        if hit.episode not in turns and len(turns) == CONTEXT_FACTS:
            continue
        entry = turns.setdefault(hit.episode, [])
        # an assistant's turn shows its best statement and, beside it, its opening one (the
        # answer, most often: "I'd go with Ticket to Ride."), so the block's room goes to what
        # the user said; or its first ones, when it reads on (`_read_on`)
        if entry and (
            (hit.episode in beside_best and hit.id not in beside_best[hit.episode])
            or sum(len(h.text) for h in entry) + len(hit.text) > ENTRY_CHARS
        ):
            continue
        entry.append(hit)
        scores.setdefault(hit.episode, relevance[hit.id])
    found = [hit for said_together in turns.values() for hit in said_together]
    written = user_summary(conn, graph)
    if not found and not profile and not written:
        return None
    in_block = {
        fact_key(unprefixed(hit.text, hit.speaker))
        for hit in [*(hit for hit, _ in profile), *found]
    }
    named: list[Entity] = []
    for key in mention_ranking(conn, [hit.id for hit, _ in profile] + [h.id for h in found]):
        if len(named) == CONTEXT_ENTITIES:
            break
        row = load_entities(conn, [key])[key]
        summary = row.summary or entity_summary(conn, key, exclude=exclude, shown=in_block)
        if summary:  # an entity whose statements the block already shows adds nothing
            named.append(_entity(row, summary, None, _as_stored))
    more = more_profile(ranked_profile[lead:], in_block, [e.summary or "" for e in named])
    return compose_context(
        [_turn_fact(said, scores[turn], _as_stored) for turn, said in turns.items()],
        named,
        profile=[_fact(hit, score, _as_stored) for hit, score in profile],
        user_summary=written,
        more_profile=[_fact(hit, score, _as_stored) for hit, score in more],
    )


def _read_on(
    relevance: Mapping[int, float],
    hits: Mapping[int, StatementHit],
    replies: Collection[int],
    *,
    all_of: bool,
) -> set[int]:
    """The assistant's turns that show their sentences as said: the best ranked one
    (`relevance` is best first), or all of them when `all_of` (the query asks back what the
    assistant said). The answer it gave is seldom the sentence that shares the question's
    words ("I'd learn the half-Windsor", "Leave at least 4 hours between coats")."""
    if all_of:
        return set(replies)
    best = next((hits[key].episode for key in relevance if hits[key].episode in replies), None)
    return set() if best is None else {best}


def _reply_statements(
    hits: Iterable[StatementHit], replies: Collection[int], read_on: Collection[int]
) -> dict[int, set[int]]:
    """For each assistant's turn among `hits`, the statements it may show beside its best one:
    its opening statement, or, for a turn in `read_on`, its statements from the first up to
    about `ENTRY_CHARS`."""
    by_turn: dict[int, list[StatementHit]] = {}
    for hit in hits:
        if hit.episode in replies:
            by_turn.setdefault(hit.episode, []).append(hit)
    shown: dict[int, set[int]] = {}
    for turn, said in by_turn.items():
        said.sort(key=lambda hit: hit.id)
        taken = {said[0].id}
        length = len(said[0].text)
        if turn in read_on:
            for hit in said[1:]:
                length += len(hit.text)
                if length > ENTRY_CHARS:
                    break
                taken.add(hit.id)
        shown[turn] = taken
    return shown


def _as_stored(stored: str, row: int) -> str:
    """A block's facts and entities are rendered as text only: their uuids are left as stored
    ('' for newer rows), not derived on every turn for nothing."""
    return stored


def fact_relevance(
    conn: sqlite3.Connection, search: GraphSearch, exclude: Collection[int]
) -> tuple[dict[int, float], dict[int, StatementHit]]:
    """Statement id -> relevance, best first, and the statement rows: the statements of the best
    turns, by their turn's score scaled to the best turn's; inside a turn (a long document),
    those that share more of the query's words come first."""
    _, turn_scores = search.turn_scores(BLOCK_POOL, texts=False)
    best_turns = sorted(turn_scores, key=turn_scores.__getitem__, reverse=True)[:CONTEXT_TURNS]
    top = turn_scores[best_turns[0]] if best_turns else 1.0
    wanted = {stem(term) for term in search.terms}
    scores: dict[int, float] = {}
    rows: dict[int, StatementHit] = {}
    for turn, hits in statements_of_episodes(conn, best_turns).items():
        if any(hit.origin is not None for hit in hits):
            hits = [hit for hit in hits if hit.origin is not None]  # the model's facts win
        for hit in hits:
            if hit.id not in exclude:
                shared = len(wanted & stems(hit.text)) / len(wanted) if wanted else 0.0
                scores[hit.id] = turn_scores[turn] / top + MATCH_TIEBREAK * shared
                rows[hit.id] = hit
    return dict(sorted(scores.items(), key=itemgetter(1), reverse=True)), rows


def pick_profile(
    conn: sqlite3.Connection,
    graph: int,
    relevance: dict[int, float],
    *,
    exclude: Collection[int],
    said: Collection[str],
    candidates: list[ProfileRow] | None = None,
    asked: Sequence[ProfileRow] = (),
    kin: Sequence[ProfileRow] = (),
    standing: Sequence[ProfileRow] = (),
    floor: float = 0.0,
) -> tuple[list[tuple[StatementHit, float]], int]:
    """The user's profile statements worth a block: current ones first, each ranked by how
    salient, recent and relevant to the query it is, best first (each fact once), and how many
    of them lead the block (`_most_salient_led`). `candidates`: the graph's `profile_statements`
    when they were read already; `asked`: the current value of a subject the query names or
    needs (`topic_holders`) and the limits a plan it makes must heed (`limits`), as relevant as
    the best match however old; `kin`: the most salient statements about the user's own people
    or pets the query names (`kin_holders`), at least `KIN_RELEVANCE` of the best match's
    relevance; `standing`: the standing
    instructions (`standing_instructions`) and the allergies and conditions to heed
    (`heeded`), which hold for every answer: they lead besides;
    `floor`: a relevance under this share of the best one's counts as none."""
    if candidates is None:
        candidates = profile_statements(conn, graph)
    if asked or kin or standing:
        known = {row.hit.id for row in candidates}
        extra = {row.hit.id: row for row in (*asked, *kin, *standing) if row.hit.id not in known}
        if extra:  # newest first, as the candidates are
            candidates = sorted([*candidates, *extra.values()], key=lambda row: -row.hit.id)
    # A turn a model has read speaks through its facts: the rules' reading of it steps aside.
    read = {row.hit.episode for row in candidates if row.hit.origin is not None}
    rows = [
        row
        for row in candidates
        if row.hit.id not in exclude
        and fact_key(row.hit.text) not in said
        and (row.hit.origin is not None or row.hit.episode not in read)
    ]
    if not rows:
        return [], 0
    top = max(relevance.values(), default=0.0) or 1.0
    if kin:  # at least this share of the best match's relevance
        least = KIN_RELEVANCE * top
        relevance = {
            **relevance,
            **{row.hit.id: least for row in kin if relevance.get(row.hit.id, 0.0) < least},
        }
    if asked:
        relevance = {**relevance, **{row.hit.id: top for row in asked}}
    most = max(row.salience for row in rows)
    scored: dict[str, tuple[float, StatementHit]] = {}
    for place, row in enumerate(rows):  # newest first
        hit = row.hit
        score = (
            SALIENCE_WEIGHT * row.salience / most
            + RECENCY_WEIGHT * (1.0 - place / len(rows))
            + RELEVANCE_WEIGHT * _at_least(relevance.get(hit.id, 0.0) / top, floor)
        )
        if hit.invalid_at is not None:
            score -= ENDED_PENALTY
        key = fact_key(hit.text)
        if key not in scored:  # the latest telling of a fact stands for it
            scored[key] = (score, hit)
    best = sorted(scored.values(), key=lambda item: (-item[0], -item[1].id))
    led, lead = _most_salient_led(_untold_again(best), {row.hit.id: row.salience for row in rows})
    if standing:  # after those that lead, the instructions not among them
        ids = {row.hit.id for row in standing}
        added = [item for item in led[lead:] if item[1].id in ids]
        led = [*led[:lead], *added, *(item for item in led[lead:] if item[1].id not in ids)]
        lead += len(added)
    return [(hit, score) for score, hit in led], lead


def _at_least(share: float, floor: float) -> float:
    """`share` when it reaches `floor`, else 0.0."""
    return share if share >= floor else 0.0


def _most_salient_led(
    ranked: list[tuple[float, StatementHit]], salience: Mapping[int, float]
) -> tuple[list[tuple[float, StatementHit]], int]:
    """`ranked` with its `SALIENT_FACTS` most salient current statements moved up to follow the
    first `PROFILE_FACTS` when they are not among them, and how many statements now lead: in a
    long history, stray words of the query match many weak statements ("my phone storage is
    full"), and what matters most about the user ("I use an insulin pump") still leads."""
    head = ranked[:PROFILE_FACTS]
    current = [item for item in ranked if item[1].invalid_at is None]
    most = sorted(current, key=lambda item: (-salience.get(item[1].id, 0.0), -item[1].id))
    # Among the most salient, the weightiest kind first: salience adds the kinds' weights, so
    # a chatty sentence touching four kinds would outrank "Type 2 diabetes."
    few = most[:SALIENT_CANDIDATES]
    few.sort(key=lambda item: -heaviest_kind(item[1].text))  # stable: salience breaks ties
    added = [item for item in few[:SALIENT_FACTS] if item not in head]
    rest = [item for item in ranked[PROFILE_FACTS:] if item not in added]
    return [*head, *added, *rest], len(head) + len(added)


_SENTENCE_END = re.compile(r"[.!?…] ")


KIN_RELEVANCE = 0.5
"""The share of the best match's relevance that the most salient statements about one of the
user's own people or pets, named in the message, have at least (`kin_holders`): "Njeri turns
11, gift ideas?" weighs what was told of Njeri, however few of the message's words it shares;
not more, as a message may name them in passing ("packing for me, Arjun packs for Meera")."""


JOINED_CHECKED = 24
"""How many of the best statements are compared two by two for one that goes on from another."""


def _untold_again(ranked: list[tuple[float, StatementHit]]) -> list[tuple[float, StatementHit]]:
    """`ranked` (best first) without a statement that opens another ("I have a dog." beside "I
    have a dog. His name is Rex.", "... how do we start" beside "... how do we start he's very
    good but bad with papers", the next message read on from it): the longer one says it all,
    in the place of the better ranked of the two."""
    opening: set[str] = set()
    kept: list[tuple[float, StatementHit]] = []
    for score, hit in ranked:
        text = hit.text
        if text in opening:
            continue
        if len(kept) < JOINED_CHECKED:
            goes_on = f"{text} "
            if any(other.text.startswith(goes_on) for _, other in kept):
                continue
            opened = next(
                (at for at, (_, other) in enumerate(kept) if text.startswith(f"{other.text} ")),
                None,
            )
            if opened is not None:
                kept[opened] = (kept[opened][0], hit)
                continue
        kept.append((score, hit))
        if ". " in text or "! " in text or "? " in text or "… " in text:  # most: one sentence
            opening.update(text[: end.start() + 1] for end in _SENTENCE_END.finditer(text))
    return kept


def more_profile(
    ranked: Sequence[tuple[StatementHit, float]], in_block: Collection[str], summaries: list[str]
) -> list[tuple[StatementHit, float]]:
    """The profile statements that close a block: current ones the block does not show yet
    (neither as an entry, `in_block`, nor inside an entity's summary)."""
    shown = " ".join(summaries).casefold()
    more = []
    for hit, score in ranked:
        sentence = unprefixed(hit.text, hit.speaker)
        if hit.invalid_at is not None or fact_key(sentence) in in_block:
            continue
        if sentence.casefold() in shown:
            continue
        more.append((hit, score))
    return more[:MORE_PROFILE_FACTS]


def unique_hits(hits: Sequence[StatementHit]) -> list[StatementHit]:
    """`hits` with each fact once: repeats fold into the latest telling, which keeps the best
    score and place of its group."""
    groups: dict[str, list[StatementHit]] = {}
    for hit in hits:
        groups.setdefault(fact_key(hit.text), []).append(hit)
    return [
        group[0]
        if len(group) == 1  # most facts are told once: no dates to read
        else max(group, key=lambda hit: (hit.recency, hit.id))._replace(
            score=max(hit.score for hit in group)
        )
        for group in groups.values()
    ]


def mention_ranking(conn: sqlite3.Connection, statements: Sequence[int]) -> list[int]:
    """Entities mentioned by ranked statements, each credited 1 / (k + rank) per mention."""
    rank = {statement: position for position, statement in enumerate(statements, start=1)}
    credit: dict[int, float] = {}
    for statement, entity in mentioned_entities(conn, statements):
        credit[entity] = credit.get(entity, 0.0) + 1.0 / (RRF_K + rank[statement])
    # Equal credit: the older entity (smaller id) first, so results are stable.
    return sorted(credit, key=lambda entity: (-credit[entity], entity))


def _rerank(
    candidates: Sequence[Candidate], reranker: Reranker | None, limit: int, lam: float
) -> list[tuple[int, float]]:
    if reranker == "rrf":
        return rrf(candidates)
    if reranker == "mmr":
        return mmr(candidates, lam=lam, limit=limit)
    return by_relevance(candidates)


def _turn_fact(hits: Sequence[StatementHit], score: float, uuid_of: UuidOf) -> Fact:
    """Statements of one turn as one fact: its speaker once, its sentences in order."""
    ordered = sorted(hits, key=lambda hit: hit.id)
    first = ordered[0]
    rest = [unprefixed(hit.text, hit.speaker) for hit in ordered[1:]]
    return _fact(first._replace(text=" ".join([first.text, *rest])), score, uuid_of)


def _fact(hit: StatementHit, score: float, uuid_of: UuidOf) -> Fact:
    return Fact(
        uuid=uuid_of(hit.uuid, hit.id),
        fact=hit.text,
        source_node_name=hit.speaker,
        valid_at=decode_time(hit.valid_at),
        invalid_at=decode_time(hit.invalid_at) if hit.invalid_at else None,
        created_at=decode_time(hit.created_at),
        score=score,
    )


def _episode(hit: EpisodeRow, score: float, uuid_of: UuidOf) -> Episode:
    return Episode(
        uuid=uuid_of(hit.uuid, hit.id),
        content=hit.content,
        source=hit.source,
        role=hit.role,
        name=hit.name,
        thread_id=hit.thread_id,
        created_at=decode_time(hit.created_at),
        metadata=decode_metadata(hit.metadata),
        score=score,
    )


def _entity(row: EntityRow, summary: str, score: float | None, uuid_of: UuidOf) -> Entity:
    return Entity(
        uuid=uuid_of(row.uuid, row.id),
        name=row.name,
        summary=summary,
        created_at=decode_time(row.created_at),
        score=score,
    )
