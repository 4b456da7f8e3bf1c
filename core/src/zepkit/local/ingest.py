"""Writing drafts: messages, episodes, statements, entities and mentions in batched inserts.

Writes run inside the caller's IMMEDIATE transaction, which makes taking ids from `id_marks` a
safe way to number new rows, so each batch goes in with one multi-row `INSERT` per table (`bulk`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from typing import Any

from zepkit.local.bulk import insert_rows
from zepkit.local.codec import encode_time, now
from zepkit.local.denials import affirmed_claim, denied_claim
from zepkit.local.drafts import Draft
from zepkit.local.habits import changed_habit
from zepkit.local.history import told_at
from zepkit.local.ids import next_id
from zepkit.local.kin import told_of_own
from zepkit.local.outcomes import outcomes_told, states_column
from zepkit.local.profile import MARKS, left_value
from zepkit.local.retrieval import unprefixed
from zepkit.local.stats import count_terms
from zepkit.local.supersede import Change, supersede
from zepkit.local.text import normalise_name

_CHUNK = 500  # bound parameters per IN list, well under every SQLite build's limit


def write_messages(
    conn: sqlite3.Connection, *, thread: int, graph: int, user_name: str, drafts: Sequence[Draft]
) -> list[int]:
    """Insert a thread's messages in order with their episodes; the new episode row ids."""
    # A message's text, time and metadata are its episode's (read through `message_rows`).
    first = _next_message_id(conn)
    ids = list(range(first, first + len(drafts)))
    insert_rows(
        conn,
        "INSERT INTO messages (id, thread, role, name, content, created_at)",
        [(i, thread, d.role, d.name, "", "") for i, d in zip(ids, drafts, strict=True)],
    )
    return write_episodes(
        conn, graph=graph, thread=thread, messages=ids, user_name=user_name, drafts=drafts
    )


def write_episodes(
    conn: sqlite3.Connection,
    *,
    graph: int,
    drafts: Sequence[Draft],
    thread: int | None = None,
    messages: Sequence[int | None] | None = None,
    user_name: str | None = None,
) -> list[int]:
    """Insert episodes with their statements, entities and mentions; the episodes' row ids.
    Their uuids, and their statements' and entities', are derived from the ids (`row_uuid`)."""
    stamp = encode_time(now())
    first = next_id(conn, "episodes", graph, len(drafts))
    episodes = list(range(first, first + len(drafts)))
    links = messages if messages is not None else [None] * len(drafts)
    insert_rows(
        conn,
        "INSERT INTO episodes (id, uuid, graph, thread, message, source, role, name, content, "
        "created_at, stored_at, metadata)",
        [
            (
                i,
                "",
                graph,
                thread,
                m,
                d.source,
                d.role,
                d.name,
                d.content,
                d.created_at,
                stamp,
                d.metadata,
            )
            for i, m, d in zip(episodes, links, drafts, strict=True)
        ],
    )
    count = sum(len(draft.statements) for draft in drafts)
    statement_id = next_id(conn, "statements", graph, count)
    rows: list[tuple[Any, ...]] = []
    named: list[tuple[int, tuple[str, ...]]] = []
    maybe: list[tuple[int, tuple[str, ...]]] = []
    changes: list[Change] = []
    owned = _owned(conn, graph, drafts)
    for episode, draft in zip(episodes, drafts, strict=True):
        for s, kin in zip(draft.statements, _told_of_own(draft, owned), strict=True):
            topics = f" {' '.join(s.topics)} " if s.topics else None
            span = _span(s.text, s.speaker, draft.content)
            text = s.text if span[0] is None else ""
            states = states_column(s.text) if s.profile is not None else None
            # News of the user's own people or pets by name joins their profile, with no
            # subject or state of the user's own: their news ends none of the user's.
            profile = s.profile if s.profile is not None else (kin or None)
            row = (statement_id, "", graph, episode, text, s.speaker, "", "", profile, topics)
            rows.append((*row, *span, states))
            names = (user_name, *s.entities) if s.by_user and user_name else s.entities
            named.append((statement_id, names))
            maybe.append((statement_id, s.maybe))
            # A user's sentence without "I" may still give a habit up or leave a place ("Quit
            # the choir, too much drama."): the rules read whose it is.
            habit = changed_habit(s.text) if s.by_user else None
            left = left_value(s.text) if s.by_user else None
            # Read without the speaker's prefix: "Got the job!" opens the sentence. Any of the
            # user's sentences may tell an outcome ("Ran the marathon on Sunday!" is no profile
            # statement), and it ends only their profile statements.
            outcomes = outcomes_told(unprefixed(s.text, s.speaker)) if s.by_user else ()
            denied = denied_claim(s.text) if s.profile is not None else None
            affirmed = affirmed_claim(s.text) if s.profile is not None else None
            subjects = tuple(topic for topic in s.topics if topic not in MARKS)  # marks end nothing
            if subjects or s.ends or habit or left or outcomes or denied or affirmed:
                speakers = (s.speaker, user_name) if s.by_user else (s.speaker,)
                changes.append(
                    Change(
                        statement_id,
                        s.text,
                        # "I quit my job at Aldi years ago" is no newer than what was said since
                        told_at(unprefixed(s.text, s.speaker), draft.created_at),
                        subjects,
                        s.ends,
                        habit,
                        tuple(name for name in speakers if name),
                        s.profile is not None,
                        left,
                        outcomes,
                        denied,
                        affirmed,
                    )
                )
            statement_id += 1
    insert_rows(
        conn,
        "INSERT INTO statements (id, uuid, graph, episode, text, speaker, valid_at, created_at, "
        "profile, topics, span_start, span_chars, states)",
        rows,
    )
    write_mentions(conn, graph, named, stamp)
    _write_known_mentions(conn, graph, maybe)
    _mark_own(conn, graph, {normalise_name(n) for d in drafts for s in d.statements for n in s.own})
    counted = [
        text
        for draft in drafts
        for text in (
            draft.counted if draft.counted is not None else [s.text for s in draft.statements]
        )
    ]
    count_terms(conn, graph, counted, sign=1)
    for change in changes:
        supersede(conn, graph, change)
    return episodes


def _owned(conn: sqlite3.Connection, graph: int, drafts: Sequence[Draft]) -> set[str]:
    """The names (normalised) of the user's own people and pets that the user's statements
    name, given as such in these drafts or before (`kin`); none when every statement of the
    user's is in their profile already (nothing could join it)."""
    mine = [s for d in drafts for s in d.statements if s.by_user]
    if all(s.profile is not None for s in mine):
        return set()
    told = {normalise_name(name) for s in mine for name in s.own}
    # "Kuro has diabetes. The vet says he ...": a profile statement's name is the pronoun's
    named = {
        normalise_name(name)
        for s in mine
        for name in (*s.entities, *s.maybe)  # "Mango has ...": a name opening a sentence is a maybe
    }
    asked = sorted(named - told)
    for start in range(0, len(asked), _CHUNK):
        chunk = asked[start : start + _CHUNK]
        marks = ", ".join("?" * len(chunk))
        told.update(
            row[0]
            for row in conn.execute(
                f"SELECT norm FROM entities WHERE graph = ? AND own = 1 AND norm IN ({marks})",
                (graph, *chunk),
            )
        )
    return told & named


def _told_of_own(draft: Draft, owned: set[str]) -> list[float]:
    """Each of the draft's statements' profile weight from news of the user's own people or
    pets (`kin.told_of_own`), 0.0 for none."""
    weights = [0.0] * len(draft.statements)
    if not owned:
        return weights
    mine = [at for at, s in enumerate(draft.statements) if s.by_user]
    said = [
        (unprefixed(s.text, s.speaker), (*s.entities, *s.maybe), s.profile is not None)
        for s in (draft.statements[at] for at in mine)
    ]
    for at, weight in zip(mine, told_of_own(said, owned), strict=True):
        weights[at] = weight
    return weights


def _mark_own(conn: sqlite3.Connection, graph: int, names: set[str]) -> None:
    """Mark the entities of `names` (normalised) as the user's own people or pets."""
    ordered = sorted(names)
    for start in range(0, len(ordered), _CHUNK):
        chunk = ordered[start : start + _CHUNK]
        marks = ", ".join("?" * len(chunk))
        conn.execute(
            f"UPDATE entities SET own = 1 WHERE graph = ? AND norm IN ({marks}) AND own IS NULL",
            (graph, *chunk),
        )


def _span(text: str, speaker: str | None, content: str) -> tuple[int, int] | tuple[None, None]:
    """(first character, length) of the span of `content` that `text` is, after its speaker's
    prefix; (None, None) when it is not one (the statement then stores its text)."""
    said = unprefixed(text, speaker)
    if not speaker or not said or said == text or "\x00" in content:
        return None, None
    start = content.find(said)
    return (None, None) if start < 0 else (start, len(said))


def write_mentions(
    conn: sqlite3.Connection, graph: int, named: Iterable[tuple[int, tuple[str, ...]]], stamp: str
) -> None:
    """Link statements to their entities, creating the entities this graph has not seen."""
    spelled: dict[str, str] = {}
    wanted: list[tuple[int, str]] = []
    for statement, names in named:
        for name in names:
            key = normalise_name(name)
            if key:
                spelled.setdefault(key, " ".join(name.split()))
                wanted.append((statement, key))
    if not wanted:
        return
    ids = _entity_ids(conn, graph, list(spelled))
    missing = [key for key in spelled if key not in ids]
    first = next_id(conn, "entities", graph, len(missing))
    for n, key in enumerate(missing):
        ids[key] = first + n
    insert_rows(
        conn,
        "INSERT INTO entities (id, uuid, graph, name, norm, created_at)",
        [(ids[key], "", graph, spelled[key], key, stamp) for key in missing],
    )
    insert_rows(
        conn,
        "INSERT OR IGNORE INTO mentions (entity, statement)",
        [(ids[key], statement) for statement, key in wanted],
    )


def _write_known_mentions(
    conn: sqlite3.Connection, graph: int, named: Iterable[tuple[int, tuple[str, ...]]]
) -> None:
    """Link statements to the maybe-names that this graph already knows as entities."""
    wanted = [(statement, normalise_name(name)) for statement, names in named for name in names]
    if not wanted:
        return
    ids = _entity_ids(conn, graph, list({key for _, key in wanted if key}))
    insert_rows(
        conn,
        "INSERT OR IGNORE INTO mentions (entity, statement)",
        [(ids[key], statement) for statement, key in wanted if key in ids],
    )


def _entity_ids(conn: sqlite3.Connection, graph: int, keys: Sequence[str]) -> dict[str, int]:
    found: dict[str, int] = {}
    for start in range(0, len(keys), _CHUNK):
        chunk = keys[start : start + _CHUNK]
        marks = ", ".join("?" * len(chunk))
        found.update(
            conn.execute(
                f"SELECT norm, id FROM entities WHERE graph = ? AND norm IN ({marks})",
                (graph, *chunk),
            ).fetchall()
        )
    return found


def _next_message_id(conn: sqlite3.Connection) -> int:
    row = conn.execute("SELECT coalesce(max(id), 0) + 1 FROM messages").fetchone()
    return int(row[0])
