"""Time for facts: a newer statement on a single-valued subject ends the older ones (unless
both give it the same value).

Runs inside the write transaction that stores the newer statement. Times are compared as
instants (stored ISO text may mix offsets), and an older statement that arrives after a newer
one is ended by it at once, so ingestion order never decides what is current.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable, Sequence
from typing import NamedTuple

from zepkit.local.codec import timestamp
from zepkit.local.denials import affirms, denies, match_words
from zepkit.local.habits import (
    Habit,
    changed_habit,
    does_habit,
    names_thing,
    says_not,
    watches,
)
from zepkit.local.ids import graph_range
from zepkit.local.outcomes import (
    closes,
    closes_one,
    in_states_column,
    shared_with,
    states_marker,
    words_shared,
)
from zepkit.local.profile import (
    about_someone,
    names_left,
    negated_value,
    owner_named,
    topic_value,
)
from zepkit.local.retrieval import match_expression, rows_for
from zepkit.local.text import fact_key, normalise_name

RECENT_PROFILE = 2000
"""Current profile statements, newest first, that news giving up a habit or leaving a place is
checked against: such a check reads each statement's text, and a user with tens of thousands of
them would wait a tenth of a second or more on every such message. A user who has told fewer has
every one checked. (News of an outcome reads only the statements in a state: all of them.)"""


_RECENT = (
    "SELECT id, text, valid_at, invalid_at, topics FROM statement_rows WHERE graph = ? "
    "AND profile IS NOT NULL AND invalid_at IS NULL AND id != ? ORDER BY id DESC LIMIT ?"
)
"""The graph's newest current profile statements but one (`RECENT_PROFILE` of them)."""


def _may_matter(rows: str) -> str:
    """SQL for a statement of `rows` (a table alias) that may end the new one or be ended by it:
    a current one, or one not older than the new one's time (the `?`) by more than a second
    (beyond SQLite's rounding of a time, milliseconds). An ended statement older than the news
    changes nothing, and a user who told a subject for years has hundreds of them. SQLite reads
    times as instants too (offsets applied); a time it cannot read keeps the statement, and
    `supersede` still compares exactly, so this leaves out only rows that change nothing."""
    return (
        f"({rows}.invalid_at IS NULL "
        f"OR coalesce(julianday({rows}.valid_at) < julianday(?) - 1.0 / 86400, 0) = 0)"
    )


class Change(NamedTuple):
    """A new statement that may end others: its id, text, time, subjects, whether it ends
    what was true of the entities it mentions, the root of a habit it gives up or takes up
    again (`zepkit.local.habits`), the names of whoever says it (their own entity is not
    one it ends: "I lost my wallet" ends nothing the user said before), and whether it is a
    profile statement: news of an ending that is not ("Mochi passed away") ends only the
    profile statements about someone ("My cat Mochi sleeps all day"), never a taste ("I love
    Michael Jackson's music" outlives "Michael Jackson died in 2009")."""

    statement: int
    text: str
    valid_at: str
    topics: Sequence[str]
    ends: bool
    habit: Habit | None = None
    speakers: tuple[str, ...] = ()
    in_profile: bool = True
    left: str | None = None
    """The place or employer it says the user left (`profile.left_value`): it ends the home or
    work statements that give that value ("I left Google" ends "I work at Google")."""
    outcomes: tuple[str, ...] = ()
    """The states it tells the outcome of (`outcomes.outcomes_told`): a child born ends the
    user's statements of the pregnancy, a job got those of the search for one."""
    denied: frozenset[str] | None = None
    """The claim it denies (`denials.denied_claim`): "I'm not allergic to penicillin after all"
    ends "I'm allergic to penicillin"."""
    affirmed: frozenset[str] | None = None
    """The claim it says is so now (`denials.affirmed_claim`): "I like sushi now" ends "I don't
    like sushi"."""


def supersede(conn: sqlite3.Connection, graph: int, change: Change) -> None:
    """End the statements `change` replaces, or end `change` itself when a newer one exists."""
    rivals: dict[int, tuple[str, str, str | None]] = {}
    for topic in change.topics:
        # "topics IS NOT NULL" spelled out: SQLite then reads the partial index of such rows.
        rows = conn.execute(
            "SELECT id, text, valid_at, invalid_at FROM statement_rows WHERE graph = ? "
            "AND profile IS NOT NULL AND topics IS NOT NULL AND topics LIKE ? AND id != ? "
            f"AND {_may_matter('statement_rows')}",
            (graph, f"% {topic} %", change.statement, change.valid_at),
        ).fetchall()
        value = topic_value(topic, change.text)
        # "I no longer live in Hackney" ends living in Hackney, not the flat bought since
        negated = negated_value(topic, change.text) if value is None else None
        for key, text, valid_at, invalid_at in rows:
            said = topic_value(topic, text) if value is not None or negated is not None else None
            if (negated is not None and said == negated) or (
                negated is None and (value is None or said != value)
            ):
                rivals[key] = (text, valid_at, invalid_at)
    if change.ends:
        rivals.update(_mentioning_same_entities(conn, change))
    if change.habit:
        rivals.update(_doing_habit(conn, graph, change, change.habit))
    if change.left:
        rivals.update(_valued(conn, graph, change.statement, change.left))
    if change.outcomes:
        rivals.update(_in_states(conn, graph, change))
    if change.denied:
        denied = change.denied
        rivals.update(_said_against(conn, graph, change, denied, lambda t: denies(denied, t)))
    if change.affirmed:
        affirmed = change.affirmed
        rivals.update(_said_against(conn, graph, change, affirmed, lambda t: affirms(affirmed, t)))
    same = fact_key(change.text)
    when = timestamp(change.valid_at)
    ended: list[int] = []
    newer: list[tuple[float, str, int]] = []
    for key, (text, valid_at, invalid_at) in rivals.items():
        if fact_key(text) == same:
            continue  # the same fact said again ends nothing; reading keeps the latest
        # at the same instant (one message's sentences), the one said later is the newer
        moment = timestamp(valid_at)
        if (moment, key) < (when, change.statement):
            if invalid_at is None:
                ended.append(key)
        elif change.topics:
            newer.append((moment, valid_at, key))
    conn.executemany(
        "UPDATE statements SET invalid_at = ?, ended_by = ? WHERE id = ?",
        [(change.valid_at, change.statement, key) for key in ended],
    )
    if newer:
        _, valid_at, key = min(newer)
        conn.execute(
            "UPDATE statements SET invalid_at = ?, ended_by = ? WHERE id = ?",
            (valid_at, key, change.statement),
        )


def _mentioning_same_entities(
    conn: sqlite3.Connection, change: Change
) -> dict[int, tuple[str, str, str | None]]:
    """Statements that mention the entities `change` mentions, other than its speakers', or a
    longer name that ends or begins with one ("Sold the Fiesta" ends "I drive a Ford Fiesta",
    "Sold the Skoda" ends "I drive a Skoda Octavia"); when it names them as someone else's, only
    those naming that owner too (`owner_named`)."""
    own = sorted({key for key in map(normalise_name, change.speakers) if key})
    rows = conn.execute(
        "SELECT DISTINCT s.id, s.text, s.valid_at, s.invalid_at, s.topics, n.norm "
        "FROM mentions AS m "
        "JOIN entities AS n ON n.id = m.entity "
        "JOIN entities AS named ON named.graph = n.graph AND (named.id = n.id "
        "OR substr(named.norm, -length(n.norm) - 1) = ' ' || n.norm "
        "OR substr(named.norm, 1, length(n.norm) + 1) = n.norm || ' ') "
        "JOIN mentions AS other ON other.entity = named.id "
        "JOIN statement_rows AS s ON s.id = other.statement "
        f"WHERE m.statement = ? AND s.id != ? AND n.norm NOT IN ({', '.join('?' * len(own))})"
        + ("" if change.in_profile else " AND s.profile IS NOT NULL")
        # An ended statement can matter only as a newer value of `change`'s subjects (see
        # `_may_matter`): without subjects, what an earlier ending ended is not read again.
        + (f" AND {_may_matter('s')}" if change.topics else " AND s.invalid_at IS NULL"),
        (
            change.statement,
            change.statement,
            *own,
            *((change.valid_at,) if change.topics else ()),
        ),
    ).fetchall()
    owner = owner_named(change.text)
    found = {
        key: (text, valid_at, invalid_at)
        for key, text, valid_at, invalid_at, topics, name in rows
        if (change.in_profile or about_someone(text))
        and (owner is None or owner in text.lower())
        and _ends_with_the_name(text, topics, name)
    }
    several = {key: text for key, (text, _, _) in found.items() if _AND.search(text)}
    for key in _naming_others(conn, change.statement, several, own):
        del found[key]
    return found


def _ends_with_the_name(text: str, topics: str | None, name: str) -> bool:
    """Whether a statement ends with what it says of a name: one on the user's home or job
    ends so only when the name is that home or employer ("Tom and I have separated" keeps "I'm
    an accountant at Deloitte, off for March Break with my husband Tom"; "Rex died" keeps "I live
    in Leeds with my dog Rex"). Other statements end whole ("Rex died" ends "My dog Rex and I
    run")."""
    subjects = [topic for topic in ("home", "work") if topics and f" {topic} " in topics]
    return not subjects or any(names_left(topic, text, name) for topic in subjects)


_AND = re.compile(r"\band\b|&", re.IGNORECASE)


def _naming_others(
    conn: sqlite3.Connection, news: int, statements: dict[int, str], own: list[str]
) -> list[int]:
    """Of `statements` (id -> text, each joining things with "and"), those that name, beside a
    name the news names, another one of their kind that it does not ("I have a cat called Pixel
    and a dragon called Spike" outlives "Spike died", "We have two dogs, Rex and Bella" outlives
    "Rex died"; not a place named in passing): the news ends one of them, and a statement cannot
    end in part."""
    if not statements:
        return []
    told = {norm for _, norm in conn.execute(_NORMS_OF.format(marks="?"), (news,))}
    named: dict[int, set[str]] = {}
    for statement, norm in rows_for(conn, _NORMS_OF, list(statements)):
        named.setdefault(statement, set()).add(norm)
    return [
        statement
        for statement, norms in named.items()
        if any(
            norm not in own
            and not _same_thing(norm, told)
            and _listed_with(statements[statement], norm, told)
            for norm in norms
        )
    ]


def _listed_with(text: str, other: str, told: set[str]) -> bool:
    """Whether `text` names `other` as one of a set with a name the news names: called so
    ("a dragon called Spike"), or beside it with "and" or a comma ("Rex and Bella")."""
    said = " ".join(text.lower().split())
    if re.search(rf"\b(?:called|named)\s+{re.escape(other)}\b", said):
        return True
    return any(
        re.search(rf"\b{re.escape(a)}\s*(?:,|and|&)\s*(?:\w+\s+)?{re.escape(b)}\b", said)
        for name in told
        for a, b in ((name, other), (other, name))
    )


_NORMS_OF = (
    "SELECT m.statement, n.norm FROM mentions AS m JOIN entities AS n ON n.id = m.entity "
    "WHERE m.statement IN ({marks})"
)


def _same_thing(norm: str, told: set[str]) -> bool:
    """Whether a name is one the news names, whole or as the start or end of it ("ford fiesta"
    and "fiesta", "skoda octavia" and "skoda")."""
    return any(
        norm == name or norm.endswith(f" {name}") or norm.startswith(f"{name} ") for name in told
    )


def _doing_habit(
    conn: sqlite3.Connection, graph: int, change: Change, habit: Habit
) -> dict[int, tuple[str, str, str | None]]:
    """The user's current statements, other than the change's, that say they do `habit` (the
    habit the change gives up or takes up again), watched if it is watched, to what it is done
    to if the change names that, not those saying they do not; for a habit taken up again,
    those that gave it up."""
    rows = conn.execute(
        f"SELECT id, text, valid_at, invalid_at FROM ({_RECENT}) WHERE text LIKE ?",
        (graph, change.statement, RECENT_PROFILE, f"%{habit.root}%"),
    ).fetchall()
    watched = watches(change.text, habit.root)
    return {
        row[0]: row[1:]
        for row in rows
        if does_habit(row[1], habit.root)
        and watches(row[1], habit.root) == watched
        and (habit.thing is None or names_thing(row[1], habit.thing))
        and (_gives_up(row[1], habit.root) if habit.again else not says_not(row[1], habit.root))
    }


def _gives_up(text: str, root: str) -> bool:
    """Whether a statement gives up the habit `root` (what taking it up again ends: "I started
    cycling again" ends "I stopped cycling", not "I cycle to work every day")."""
    given_up = changed_habit(text)
    return given_up is not None and given_up.root == root and not given_up.again


def _valued(
    conn: sqlite3.Connection, graph: int, statement: int, value: str
) -> dict[int, tuple[str, str, str | None]]:
    """The user's current home and work statements, other than `statement`, that name `value`
    (a place or employer left, lower case) as their home or employer."""
    rows = conn.execute(
        f"SELECT id, text, valid_at, invalid_at, topics FROM ({_RECENT}) WHERE text LIKE ? "
        "AND (topics LIKE '% home %' OR topics LIKE '% work %')",
        (graph, statement, RECENT_PROFILE, f"%{value}%"),
    ).fetchall()
    return {
        key: (text, valid_at, invalid_at)
        for key, text, valid_at, invalid_at, topics in rows
        if any(names_left(topic, text, value) for topic in topics.split())
    }


def _in_states(
    conn: sqlite3.Connection, graph: int, change: Change
) -> dict[int, tuple[str, str, str | None]]:
    """The user's current profile statements, other than `change`'s, that say they are in a
    state `change` tells the outcome of (`outcomes.closes`). Only statements written as being
    in some state are read (their `states`, through a partial index), however many the user
    has."""
    news = [(state, shared_with(state, change.text)) for state in change.outcomes]
    # someone else's news, or news that names nothing, closes nothing: no statement to read
    news = [(state, shared) for state, shared in news if shared is None or shared]
    if not news:
        return {}
    # "+s.profile": without statistics SQLite would rather walk the user's profile statements
    # by the (graph, profile) index than read the partial indexes of those in a state. The rows
    # in exactly one of the news' states are sought by their value; the rare ones in several
    # states come from their own index and are checked here (a user may be in thousands of
    # states of other kinds: none of them is read).
    kinds = [states_marker(state) for state, _ in news]
    current = "AND +s.profile IS NOT NULL AND s.invalid_at IS NULL AND s.id != ?"
    rows = conn.execute(
        "SELECT s.id, s.states, r.text, r.valid_at FROM statements AS s "
        "JOIN statement_rows AS r ON r.id = s.id WHERE s.graph = ? AND s.states IN "
        f"({', '.join('?' * len(kinds))}) {current} "
        "UNION ALL SELECT s.id, s.states, r.text, r.valid_at FROM statements AS s "
        "INDEXED BY statements_states_many "
        "JOIN statement_rows AS r ON r.id = s.id WHERE s.graph = ? "
        f"AND s.states GLOB '|*|*|*' {current}",
        (graph, *kinds, change.statement, graph, change.statement),
    ).fetchall()
    closed: dict[int, tuple[str, str, str | None]] = {}
    for state, shared in news:
        found: dict[int, tuple[str, str, str | None]] = {
            key: (text, valid_at, None)
            for key, states, text, valid_at in rows
            if in_states_column(states, state) and closes(state, text, shared)
        }
        if closes_one(state) and shared and len(found) > 1:
            found = _the_one(found, shared)
        closed.update(found)
    return closed


def _the_one(
    found: dict[int, tuple[str, str, str | None]], shared: frozenset[str]
) -> dict[int, tuple[str, str, str | None]]:
    """Of the statements news may close, the one holding most of its words; none when two hold
    as many (the news does not say which)."""
    counts = {key: words_shared(row[0], shared) for key, row in found.items()}
    most = max(counts.values())
    best = [key for key, count in counts.items() if count == most]
    return {best[0]: found[best[0]]} if len(best) == 1 else {}


OPPOSED_CANDIDATES = 200
"""The newest statements holding a denial's or an affirmation's words that are read against
it."""


def _said_against(
    conn: sqlite3.Connection,
    graph: int,
    change: Change,
    claim: frozenset[str],
    against: Callable[[str], bool],
) -> dict[int, tuple[str, str, str | None]]:
    """The user's current profile statements that `change` says the opposite of (`against`:
    `denials.denies` or `denials.affirms` of its `claim`), found through the statements'
    full-text index by the words of its claim (one of each group of them)."""
    groups = match_words(change.text, claim)
    if not groups:
        return {}
    low, high = graph_range(graph)
    rows = conn.execute(
        "SELECT r.id, r.text, r.valid_at FROM statements_fts AS f "
        "JOIN statements AS s ON s.id = f.rowid JOIN statement_rows AS r ON r.id = s.id "
        "WHERE statements_fts MATCH ? AND f.rowid BETWEEN ? AND ? AND s.profile IS NOT NULL "
        "AND s.invalid_at IS NULL AND s.id != ? ORDER BY f.rowid DESC LIMIT ?",
        (
            " AND ".join(f"({match_expression(group)})" for group in groups),
            low,
            high,
            change.statement,
            OPPOSED_CANDIDATES,
        ),
    ).fetchall()
    return {key: (text, valid_at, None) for key, text, valid_at in rows if against(text)}


def reopen(conn: sqlite3.Connection, statements_sql: str, params: Sequence[object]) -> None:
    """Bring back the statements that the statements selected by `statements_sql` had ended
    (they are about to be deleted)."""
    conn.execute(
        "UPDATE statements SET invalid_at = NULL, ended_by = NULL "
        f"WHERE ended_by IN ({statements_sql})",
        params,
    )
