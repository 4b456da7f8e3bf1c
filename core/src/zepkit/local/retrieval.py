"""FTS5 queries confined to one graph's row ids: statements, episodes and entity names by BM25.

Statements and entity names rank inside a subquery (`ORDER BY rank LIMIT pool`) that joins only
the winners; episodes are scored by `bm25()` and picked in Python (see `match_episodes`). Rows
come back as named tuples: a search builds hundreds, and a tuple is built several times faster
than a frozen dataclass.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Collection, Sequence
from operator import itemgetter
from typing import Any, NamedTuple

from zepkit.core._models import DataType
from zepkit.local.codec import timestamp
from zepkit.local.profile import HEED_TOPIC, LIMIT_MARK
from zepkit.local.text import fact_key, normalise_name

SUMMARY_STATEMENTS = 2
SUMMARY_CHARS = 240
PROFILE_CANDIDATES = 60
_CHUNK = 500  # bound parameters per IN list


def match_expression(terms: Sequence[str]) -> str:
    """An FTS5 MATCH for any of `terms`; each term is quoted, so user text is never syntax."""
    return " OR ".join('"' + term.replace('"', '""') + '"' for term in terms)


class StatementHit(NamedTuple):
    """A statement row that matched, with its BM25 relevance (higher is better)."""

    id: int
    uuid: str
    text: str
    speaker: str | None
    valid_at: str
    created_at: str
    invalid_at: str | None
    episode: int
    score: float
    origin: str | None = None
    """'llm' for a fact a language model wrote; None for the rules' statements."""

    @property
    def recency(self) -> float:
        """When the statement became true, in epoch seconds."""
        return timestamp(self.valid_at)


class EpisodeRow(NamedTuple):
    """A whole episode row with its app thread id: what a result shows."""

    id: int
    uuid: str
    content: str
    source: DataType
    role: str | None
    name: str | None
    thread_id: str | None
    created_at: str
    metadata: str | None


class EntityRow(NamedTuple):
    """An entity row; `score` is its BM25 relevance when it came from a name match."""

    id: int
    uuid: str
    name: str
    created_at: str
    score: float = 0.0
    summary: str | None = None
    """The summary a language model wrote, when it did."""


def _ranked(table: str) -> str:
    """The subquery that scores `table`'s FTS rows in an id range: (id, score), the best `?`
    (ties: the older first). Scored with `bm25()` and kept by SQLite's bounded sort: FTS5's own
    `ORDER BY rank` sorts through an inner statement, about twice the cost."""
    return (
        f"(SELECT rowid AS id, -bm25({table}_fts) AS score FROM {table}_fts "
        f"WHERE {table}_fts MATCH ? AND rowid BETWEEN ? AND ? ORDER BY score DESC, rowid LIMIT ?)"
    )


def search_statements(
    conn: sqlite3.Connection, terms: Sequence[str], ids: tuple[int, int], pool: int
) -> list[StatementHit]:
    """The `pool` best statements with ids in `ids` for `terms`, best first."""
    rows = conn.execute(
        "SELECT s.id, s.uuid, s.text, s.speaker, s.valid_at, s.created_at, s.invalid_at, "
        "s.episode, hit.score "
        f"FROM {_ranked('statements')} AS hit JOIN statement_rows AS s ON s.id = hit.id "
        "ORDER BY hit.score DESC, hit.id",
        (match_expression(terms), *ids, pool),
    ).fetchall()
    return [StatementHit(*row) for row in rows]


class Turn(NamedTuple):
    """What ranking needs of an episode: its thread (row id, None for data), date, text, score."""

    id: int
    thread: int | None
    created_at: str
    content: str
    score: float = 0.0

    @property
    def recency(self) -> float:
        """When the episode happened, in epoch seconds."""
        return timestamp(self.created_at)


def match_episodes(
    conn: sqlite3.Connection, terms: Sequence[str], ids: tuple[int, int], pool: int
) -> list[Turn]:
    """The `pool` best episodes with ids in `ids` for `terms` by BM25, best first (ties: the
    older first).

    Every match is scored from the index alone, the best kept by SQLite's bounded sort on that
    score, and only they are read from the table. FTS5's own `ORDER BY rank` sorts through an
    inner statement and costs about as much as the scoring itself; picking in Python costs a
    tuple and a key call per match.
    """
    best = conn.execute(
        "SELECT rowid, -bm25(episodes_fts) AS score FROM episodes_fts "
        "WHERE episodes_fts MATCH ? AND rowid BETWEEN ? AND ? ORDER BY score DESC, rowid LIMIT ?",
        (match_expression(terms), *ids, pool),
    ).fetchall()
    rows: dict[int, tuple[int, int | None, str, str]] = {
        row[0]: row for row in rows_for(conn, _TURNS, [key for key, _ in best])
    }
    return [Turn(*rows[key], score) for key, score in best if key in rows]


_TURNS = "SELECT id, thread, created_at, content FROM episodes WHERE id IN ({marks})"


def load_turns(conn: sqlite3.Connection, ids: Sequence[int]) -> dict[int, Turn]:
    """Episode rows by id, as turns with score 0 (neighbours, other retrievers' candidates)."""
    return {row[0]: Turn(*row) for row in rows_for(conn, _TURNS, ids)}


def threads_of_turns(conn: sqlite3.Connection, ids: Sequence[int]) -> dict[int, int | None]:
    """Episode id -> its thread's row id (None for data), for the existing ids in `ids`: their
    threads alone, without building a turn of each row's text and date."""
    return dict(rows_for(conn, _TURN_THREADS, ids))


_TURN_THREADS = "SELECT id, thread FROM episodes WHERE id IN ({marks})"


def assistant_turns(conn: sqlite3.Connection, episodes: Collection[int]) -> set[int]:
    """Those of `episodes` the assistant said."""
    return {row[0] for row in rows_for(conn, _ASSISTANT_TURNS, list(episodes))}


_ASSISTANT_TURNS = "SELECT id FROM episodes WHERE id IN ({marks}) AND role = 'assistant'"


def search_entities(
    conn: sqlite3.Connection, terms: Sequence[str], ids: tuple[int, int], pool: int
) -> list[EntityRow]:
    """The `pool` entities with ids in `ids` whose names best match `terms`, best first."""
    rows = conn.execute(
        f"SELECT n.id, n.uuid, n.name, n.created_at, hit.score FROM {_ranked('entities')} AS hit "
        "JOIN entities AS n ON n.id = hit.id ORDER BY hit.score DESC, hit.id",
        (match_expression(terms), *ids, pool),
    ).fetchall()
    return [EntityRow(*row) for row in rows]


def mentioned_entities(
    conn: sqlite3.Connection, statements: Sequence[int]
) -> list[tuple[int, int]]:
    """(statement, entity) pairs for the given statements."""
    sql = "SELECT statement, entity FROM mentions WHERE statement IN ({marks})"
    return [(statement, entity) for statement, entity in rows_for(conn, sql, statements)]


def load_entities(conn: sqlite3.Connection, ids: Sequence[int]) -> dict[int, EntityRow]:
    """Entity rows by id."""
    sql = "SELECT id, uuid, name, created_at, 0.0, summary FROM entities WHERE id IN ({marks})"
    return {row[0]: EntityRow(*row) for row in rows_for(conn, sql, ids)}


class ProfileRow(NamedTuple):
    """A statement of the user's profile: the hit and its salience."""

    hit: StatementHit
    salience: float


_PROFILE_COLUMNS = (
    "id, uuid, text, speaker, valid_at, created_at, invalid_at, episode, 0.0, origin, profile"
)
"""A `ProfileRow`'s columns of `statement_rows`: its hit's, then its salience."""


def profile_statements(
    conn: sqlite3.Connection, graph: int, limit: int = PROFILE_CANDIDATES
) -> list[ProfileRow]:
    """The graph's profile statements a block weighs: the latest `limit` and the `limit` most
    salient, newest first (both read through partial indexes: a few rows however long the
    user's history)."""
    where = "FROM statement_rows WHERE graph = ? AND profile IS NOT NULL"
    latest = conn.execute(
        f"SELECT {_PROFILE_COLUMNS} {where} ORDER BY id DESC LIMIT ?", (graph, limit)
    ).fetchall()
    salient = conn.execute(
        f"SELECT {_PROFILE_COLUMNS} {where} ORDER BY profile DESC, id DESC LIMIT ?", (graph, limit)
    ).fetchall()
    rows = {row[0]: row for row in [*latest, *salient]}
    return [
        ProfileRow(StatementHit(*row[:-1]), row[-1])
        for row in sorted(rows.values(), key=itemgetter(0), reverse=True)
    ]


def topic_holders(conn: sqlite3.Connection, graph: int, topics: Sequence[str]) -> list[ProfileRow]:
    """For each of `topics` (single-valued subjects: "home", "work"), the current profile
    statement that gives its value (the latest, when more than one does), if any. The current
    statements with topics are read once for all of them (a message about photos needs the
    phone and the camera), by the partial index of statements with topics."""
    wanted = set(topics)
    newest: dict[str, int] = {}
    for key, held in conn.execute(
        "SELECT id, topics FROM statements WHERE graph = ? AND topics IS NOT NULL "
        "AND profile IS NOT NULL AND invalid_at IS NULL",
        (graph,),
    ):
        for topic in wanted.intersection(held.split()):
            newest[topic] = max(key, newest.get(topic, key))
    ids = sorted(set(newest.values()), reverse=True)
    if not ids:
        return []
    marks = ", ".join("?" * len(ids))
    rows = conn.execute(
        f"SELECT {_PROFILE_COLUMNS} FROM statement_rows WHERE id IN ({marks}) ORDER BY id DESC",
        ids,
    ).fetchall()
    return [ProfileRow(StatementHit(*row[:-1]), row[-1]) for row in rows]


KIN_SHOWN = 3
"""How many current profile statements about each of the user's own people or pets that a
message names it weighs as relevant (the most salient, newest first; `search.KIN_RELEVANCE`)."""
KIN_READ = 1000
"""How many of the newest profile statements naming one of them are read for the most salient:
a child named in thousands of statements costs a block no more than one named in a thousand."""


def kin_holders(conn: sqlite3.Connection, graph: int, names: Sequence[str]) -> list[ProfileRow]:
    """For each of `names` that is one of the user's own people or pets (`kin`), the
    `KIN_SHOWN` most salient current profile statements that mention them: "Njeri turns 11 next
    month, gift ideas?" asks about what the user told of Njeri, however old."""
    norms = sorted({normalise_name(name) for name in names} - {""})
    if not norms:
        return []
    marks = ", ".join("?" * len(norms))
    try:
        entities = [
            key
            for (key,) in conn.execute(
                f"SELECT id FROM entities WHERE graph = ? AND own = 1 AND norm IN ({marks})",
                (graph, *norms),
            )
        ]
    except sqlite3.OperationalError as exc:
        if "no such column" not in str(exc):
            raise
        return []  # a file a read-only open serves as an older release left it: no marks yet
    found: dict[int, ProfileRow] = {}
    for entity in entities:
        best = conn.execute(
            "SELECT id FROM (SELECT s.id, s.profile FROM mentions AS m "
            "JOIN statements AS s ON s.id = m.statement WHERE m.entity = ? "
            "AND s.profile IS NOT NULL AND s.invalid_at IS NULL ORDER BY m.statement DESC LIMIT ?) "
            "ORDER BY profile DESC, id DESC LIMIT ?",
            (entity, KIN_READ, KIN_SHOWN),
        ).fetchall()
        ids = [key for (key,) in best if key not in found]
        if not ids:
            continue
        marks = ", ".join("?" * len(ids))
        for row in conn.execute(
            f"SELECT {_PROFILE_COLUMNS} FROM statement_rows WHERE id IN ({marks})", ids
        ):
            found[row[0]] = ProfileRow(StatementHit(*row[:-1]), row[-1])
    return sorted(found.values(), key=lambda row: -row.hit.id)


HEEDED_SHOWN = 2
"""How many of the user's current allergies and conditions to heed every block carries."""


def heeded(conn: sqlite3.Connection, graph: int, limit: int = HEEDED_SHOWN) -> list[ProfileRow]:
    """The user's newest `limit` current profile statements of an allergy, intolerance or
    condition that suggestions of food or medicine must heed (marked `HEED_TOPIC` when
    written), read by the topics' index: a few rows however long the history."""
    return _current_with_topic(conn, graph, f"% {HEED_TOPIC} %", limit)


LIMITS_SHOWN = 2
"""How many of the user's current limits a block planning outings, travel or exercise carries."""


def limits(conn: sqlite3.Connection, graph: int, limit: int = LIMITS_SHOWN) -> list[ProfileRow]:
    """The user's newest `limit` current profile statements of a limit that plans of outings,
    travel or exercise must heed (a fear, motion sickness, a wheelchair, an injury: marked
    `LIMIT_MARK` when written), read by the topics' index."""
    return _current_with_topic(conn, graph, f"% {LIMIT_MARK} %", limit)


STANDING_SHOWN = 3
"""How many of the user's current standing instructions every block carries, newest first."""


def standing_instructions(
    conn: sqlite3.Connection, graph: int, limit: int = STANDING_SHOWN
) -> list[ProfileRow]:
    """The user's current standing instructions (profile statements with a subject of how to
    answer: "keep answers short, bullet points please", "call me Sam"), newest first."""
    return _current_with_topic(conn, graph, "% manner-%", limit)


def _current_with_topic(
    conn: sqlite3.Connection, graph: int, like: str, limit: int
) -> list[ProfileRow]:
    """The graph's newest `limit` current profile statements whose topics are `like` (a LIKE
    pattern). All of them are read, by the partial index of statements with topics (a few,
    however long the history), and ordered here: asked to order them by id, SQLite walks every
    profile statement of the graph from the newest."""
    found = conn.execute(
        "SELECT id FROM statements WHERE graph = ? AND topics IS NOT NULL "
        "AND profile IS NOT NULL AND topics LIKE ? AND invalid_at IS NULL",
        (graph, like),
    ).fetchall()
    ids = sorted((key for (key,) in found), reverse=True)[:limit]
    if not ids:
        return []
    marks = ", ".join("?" * len(ids))
    rows = conn.execute(
        f"SELECT {_PROFILE_COLUMNS} FROM statement_rows WHERE id IN ({marks}) ORDER BY id DESC",
        ids,
    ).fetchall()
    return [ProfileRow(StatementHit(*row[:-1]), row[-1]) for row in rows]


def user_summary(conn: sqlite3.Connection, graph: int) -> str | None:
    """The summary a language model wrote of the graph's user (None for a shared graph, or
    when no model has written one)."""
    row = conn.execute("SELECT summary FROM users WHERE graph = ?", (graph,)).fetchone()
    return None if row is None else row[0]


def entity_summary(
    conn: sqlite3.Connection,
    entity: int,
    *,
    exclude: Collection[int] = frozenset(),
    shown: Collection[str] = frozenset(),
) -> str:
    """What the entity's latest few current statements say, oldest first, within
    `SUMMARY_CHARS`: each sentence once, without its speaker's prefix, leaving out the
    statements in `exclude` and the sentences in `shown` (case-folded, already in the block)."""
    # Stepped row by row: the loop usually stops after a few, however many `exclude` holds.
    rows = conn.execute(
        "SELECT m.statement, s.text, s.speaker FROM mentions AS m "
        "JOIN statement_rows AS s ON s.id = m.statement "
        "WHERE m.entity = ? AND s.invalid_at IS NULL ORDER BY m.statement DESC LIMIT ?",
        (entity, 2 * SUMMARY_STATEMENTS + len(exclude)),
    )
    said: dict[str, str] = {}
    for statement, text, speaker in rows:
        if statement in exclude:
            continue
        sentence = " ".join(unprefixed(text, speaker).split())
        if fact_key(sentence) in shown:
            continue
        said.setdefault(sentence.casefold(), sentence)
        if len(said) == SUMMARY_STATEMENTS:
            break
    return _clip(" ".join(reversed(said.values())), SUMMARY_CHARS)


def unprefixed(text: str, speaker: str | None) -> str:
    """A statement's sentence without the `"<speaker>: "` it was stored with."""
    prefix = f"{speaker}: " if speaker else ""
    return text[len(prefix) :] if prefix and text.startswith(prefix) else text


def thread_statements(conn: sqlite3.Connection, thread: int, last: int) -> dict[int, str]:
    """The statements extracted from the thread's latest `last` messages: id -> sentence."""
    rows = conn.execute(
        "SELECT s.id, s.text FROM statement_rows AS s JOIN episodes AS e ON e.id = s.episode "
        "WHERE e.message IN (SELECT id FROM messages WHERE thread = ? ORDER BY id DESC LIMIT ?)",
        (thread, last),
    )
    return dict(rows)


def _clip(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > limit // 2 else cut).rstrip() + "…"


def rows_for(conn: sqlite3.Connection, sql: str, ids: Sequence[int]) -> list[Any]:
    """The rows of `sql`, whose `IN ({marks})` takes `ids`, a chunk of ids per statement (SQLite
    caps the parameters of one)."""
    rows: list[Any] = []
    for start in range(0, len(ids), _CHUNK):
        chunk = ids[start : start + _CHUNK]
        rows += conn.execute(sql.format(marks=", ".join("?" * len(chunk))), chunk).fetchall()
    return rows


def load_episodes(conn: sqlite3.Connection, ids: Sequence[int]) -> dict[int, EpisodeRow]:
    """Whole episode rows by id (the results, once ranked)."""
    sql = (
        "SELECT e.id, e.uuid, e.content, e.source, e.role, e.name, t.thread_id, e.created_at, "
        "e.metadata FROM episodes AS e LEFT JOIN threads AS t ON t.id = e.thread "
        "WHERE e.id IN ({marks})"
    )
    return {row[0]: EpisodeRow(*row) for row in rows_for(conn, sql, ids)}


def statements_of_episodes(
    conn: sqlite3.Connection, episodes: Sequence[int]
) -> dict[int, list[StatementHit]]:
    """Each episode's statement rows, in statement order, as hits with score 0."""
    sql = (
        "SELECT id, uuid, text, speaker, valid_at, created_at, invalid_at, episode, 0.0, origin "
        "FROM statement_rows WHERE episode IN ({marks}) ORDER BY id"
    )
    found: dict[int, list[StatementHit]] = {}
    for row in rows_for(conn, sql, episodes):
        hit = StatementHit(*row)
        found.setdefault(hit.episode, []).append(hit)
    return found
