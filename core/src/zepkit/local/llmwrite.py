"""Storing a model's answer for a batch: new facts with their entities, what they supersede, the
entities' and the user's summaries (inside the transaction that ends the batch's jobs).

Everything maps back through the batch: a fact's message number to that message's episode, a
superseded fact's number to a statement the batch showed the model (from the user's own graph),
so nothing the model invents can reach another row.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import datetime

from zepkit.local.bulk import insert_rows
from zepkit.local.codec import decode_time, encode_time, now
from zepkit.local.ids import next_id
from zepkit.local.ingest import write_mentions
from zepkit.local.jobs import Batch, BatchMessage
from zepkit.local.llm import ModelFact, ModelOutput
from zepkit.local.outcomes import states_column
from zepkit.local.profile import salience
from zepkit.local.text import fact_key, normalise_name

ORIGIN = "llm"
"""`statements.origin` of the facts a model wrote."""
PROFILE_BONUS = 0.5
"""A model fact about the user joins their profile weighed like the rules weigh a statement
(`profile.salience`: a health fact before a taste), plus this for being stated cleanly."""


@dataclass(frozen=True)
class Stored:
    """What one answer changed."""

    facts: int
    duplicates: int
    superseded: int
    entity_summaries: int
    user_summary: bool


def store(conn: sqlite3.Connection, batch: Batch, output: ModelOutput) -> Stored:
    """Write the answer's facts, supersessions and summaries into the batch's graph."""
    stamp = encode_time(now())
    known = {
        fact_key(text)
        for (text,) in conn.execute(
            "SELECT text FROM statement_rows WHERE graph = ? AND origin = ? AND invalid_at IS NULL",
            (batch.graph, ORIGIN),
        )
    }
    fresh: list[tuple[ModelFact, str]] = []
    duplicates = 0
    for fact in output.facts:
        text = _sentence(fact.fact)
        if not text:
            continue
        key = fact_key(text)
        if key in known:
            duplicates += 1
            continue
        known.add(key)
        fresh.append((fact, text))
    first = next_id(conn, "statements", batch.graph, len(fresh))
    rows = []
    named: list[tuple[int, tuple[str, ...]]] = []
    ended: list[tuple[str, int, int, int]] = []
    shown = {number: key for number, (key, _, _) in enumerate(batch.facts, start=1)}
    for offset, (fact, text) in enumerate(fresh):
        statement = first + offset
        source = _source(batch, fact)
        valid_at = _valid_at(fact.valid_at, source.created_at)
        rows.append(
            (
                statement,
                "",
                batch.graph,
                source.episode,
                text,
                None,
                valid_at,
                stamp,
                salience(text) + PROFILE_BONUS if fact.about_user else None,
                ORIGIN,
                states_column(text) if fact.about_user else None,
            )
        )
        names = (batch.user_name, *fact.entities) if fact.about_user else fact.entities
        named.append((statement, names))
        ended += [
            (valid_at, statement, shown[number], batch.graph)
            for number in fact.supersedes
            if number in shown
        ]
    insert_rows(
        conn,
        "INSERT INTO statements (id, uuid, graph, episode, text, speaker, valid_at, created_at, "
        "profile, origin, states)",
        rows,
    )
    write_mentions(conn, batch.graph, named, stamp)
    superseded = sum(
        conn.execute(
            "UPDATE statements SET invalid_at = ?, ended_by = ? WHERE id = ? AND graph = ? "
            "AND invalid_at IS NULL",
            change,
        ).rowcount
        for change in ended
    )
    summaries = sum(
        conn.execute(
            "UPDATE entities SET summary = ? WHERE graph = ? AND norm = ?",
            (summary, batch.graph, normalise_name(name)),
        ).rowcount
        for name, summary in output.entity_summaries.items()
    )
    if output.user_summary:
        conn.execute("UPDATE users SET summary = ? WHERE id = ?", (output.user_summary, batch.user))
    return Stored(len(fresh), duplicates, superseded, summaries, bool(output.user_summary))


def _sentence(text: str) -> str:
    """The fact as stored: one line, ending with a full stop unless it has an end mark."""
    text = " ".join(text.split())
    return text if not text or text[-1] in ".!?…" else text + "."


def _source(batch: Batch, fact: ModelFact) -> BatchMessage:
    """The message the fact came from: the one the model named, else the batch's last user
    message (the model may leave the number out)."""
    if fact.message is not None:
        return batch.messages[fact.message - 1]
    said = [m for m in batch.messages if m.role == "user"]
    return said[-1] if said else batch.messages[-1]


def _valid_at(value: str | None, fallback: str) -> str:
    """The model's ISO date or date-time when it parses (a bare date or naive time takes the
    message's offset), else the message's time."""
    if value is None:
        return fallback
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return fallback
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=decode_time(fallback).tzinfo)
    return encode_time(moment)
