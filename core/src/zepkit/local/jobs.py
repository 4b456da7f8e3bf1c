"""The queue of LLM extraction jobs: one row per message, written in the message's transaction.

A worker claims a thread's oldest waiting jobs under a token and a lease; it stores the model's
answer (`zepkit.local.llmwrite`) only while its token still holds them, and the jobs go in the
same transaction, so a batch is stored once even when a worker dies between claim and commit (its
lease runs out and another worker claims the batch again). Times here are epoch seconds.
"""

from __future__ import annotations

import sqlite3
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from zepkit.local.codec import encode_time, now

KNOWN_FACTS = 40
"""The user's latest current model facts shown to the model, numbered, for supersession."""
KNOWN_ENTITIES = 30
ROLES = ("user", "assistant")
"""Messages of these roles are extracted; a batch's size counts the user's."""


@dataclass(frozen=True)
class BatchMessage:
    """A claimed message: its row, its episode and what the model reads of it."""

    message: int
    episode: int
    role: str
    name: str | None
    content: str
    created_at: str


@dataclass(frozen=True)
class Batch:
    """A thread's claimed jobs with the context of its user's graph (and nothing else)."""

    claim: str
    thread: int
    user: int
    graph: int
    user_name: str
    messages: tuple[BatchMessage, ...]
    facts: tuple[tuple[int, str, str], ...]
    """(statement id, text, valid_at) of the user's current model facts, newest first."""
    entities: tuple[tuple[str, str], ...]
    user_summary: str | None
    attempts: int

    @property
    def user_turns(self) -> int:
        """How many of the batch's messages the user wrote."""
        return sum(m.role == "user" for m in self.messages)


def enqueue(conn: sqlite3.Connection, thread: int, episodes: Sequence[int]) -> None:
    """Queue the messages behind `episodes` (inside the write that stores them)."""
    if not episodes:
        return
    stamp = time.time()
    marks = ", ".join("?" * len(episodes))
    conn.execute(
        "INSERT OR IGNORE INTO llm_jobs (message, thread, user_turn, created_at, due_at) "
        "SELECT m.id, ?, m.role = 'user', ?, ? FROM episodes AS e JOIN messages AS m "
        f"ON m.id = e.message WHERE e.id IN ({marks}) AND m.role IN {ROLES}",
        (thread, stamp, stamp, *episodes),
    )


def ready_thread(
    conn: sqlite3.Connection, *, every: int, idle: float, force: bool, at: float | None = None
) -> int | None:
    """A thread whose waiting jobs are due for a call: `every` user turns, idle for `idle`
    seconds, a retry whose wait is over, or any waiting job when `force`; oldest first. A thread
    with a batch in flight waits for it, so its batches are read in order."""
    moment = time.time() if at is None else at
    row = conn.execute(
        "SELECT thread FROM llm_jobs WHERE state = 'pending' AND thread NOT IN "
        "(SELECT thread FROM llm_jobs WHERE state = 'claimed') GROUP BY thread "
        "HAVING max(due_at) <= ? AND (? OR sum(user_turn) >= ? OR max(created_at) <= ? "
        "OR max(attempts) > 0) ORDER BY min(message) LIMIT 1",
        (moment, force, every, moment - idle),
    ).fetchone()
    return None if row is None else int(row[0])


def expire_claims(conn: sqlite3.Connection, at: float | None = None) -> int:
    """Give back the jobs of workers whose lease ran out (they died or hung); how many."""
    moment = time.time() if at is None else at
    return conn.execute(
        "UPDATE llm_jobs SET state = 'pending', claim = NULL, claimed_until = NULL "
        "WHERE state = 'claimed' AND claimed_until < ?",
        (moment,),
    ).rowcount


def claim(
    conn: sqlite3.Connection, thread: int, *, limit: int, lease: float, at: float | None = None
) -> Batch | None:
    """Claim the thread's oldest `limit` waiting jobs for `lease` seconds, with the context the
    model gets; None when none wait (inside a write transaction)."""
    moment = time.time() if at is None else at
    token = uuid.uuid4().hex
    claimed = conn.execute(
        "UPDATE llm_jobs SET state = 'claimed', claim = ?, claimed_until = ? WHERE message IN "
        "(SELECT message FROM llm_jobs WHERE thread = ? AND state = 'pending' "
        "ORDER BY message LIMIT ?)",
        (token, moment + lease, thread, limit),
    ).rowcount
    if not claimed:
        return None
    return load_batch(conn, token)


def load_batch(conn: sqlite3.Connection, token: str) -> Batch | None:
    """The claimed batch of `token` with its context; None when its jobs are gone."""
    rows = conn.execute(
        "SELECT m.id, e.id, m.role, m.name, e.content, e.created_at, j.thread, j.attempts "
        "FROM llm_jobs AS j JOIN messages AS m ON m.id = j.message "
        "JOIN episodes AS e ON e.message = m.id WHERE j.claim = ? ORDER BY m.id",
        (token,),
    ).fetchall()
    if not rows:
        return None
    thread = rows[0][6]
    user, graph, user_id, first, last, summary = conn.execute(
        "SELECT u.id, u.graph, u.user_id, u.first_name, u.last_name, u.summary "
        "FROM threads AS t JOIN users AS u ON u.id = t.user WHERE t.id = ?",
        (thread,),
    ).fetchone()
    facts = conn.execute(
        "SELECT id, text, valid_at FROM statement_rows WHERE graph = ? AND origin = 'llm' "
        "AND invalid_at IS NULL ORDER BY id DESC LIMIT ?",
        (graph, KNOWN_FACTS),
    ).fetchall()
    entities = conn.execute(
        "SELECT name, summary FROM entities WHERE graph = ? AND summary IS NOT NULL "
        "ORDER BY id DESC LIMIT ?",
        (graph, KNOWN_ENTITIES),
    ).fetchall()
    return Batch(
        claim=token,
        thread=thread,
        user=user,
        graph=graph,
        user_name=" ".join(part for part in (first, last) if part) or user_id,
        messages=tuple(BatchMessage(*row[:6]) for row in rows),
        facts=tuple((key, text, valid_at) for key, text, valid_at in facts),
        entities=tuple((name, summary) for name, summary in entities),
        user_summary=summary,
        attempts=max(row[7] for row in rows),
    )


def holds(conn: sqlite3.Connection, batch: Batch) -> bool:
    """Whether the batch's token still holds its jobs (not expired and taken by another)."""
    row = conn.execute(
        "SELECT count(*) FROM llm_jobs WHERE claim = ? AND state = 'claimed'", (batch.claim,)
    ).fetchone()
    return int(row[0]) > 0


def finish(conn: sqlite3.Connection, batch: Batch) -> None:
    """The batch is stored: its jobs are done."""
    conn.execute("DELETE FROM llm_jobs WHERE claim = ?", (batch.claim,))


def fail(
    conn: sqlite3.Connection,
    batch: Batch,
    error: str,
    *,
    max_attempts: int,
    delay: float,
    at: float | None = None,
) -> bool:
    """Count a failed call against the batch's jobs: they wait `delay` seconds, or are set aside
    as dead after `max_attempts` calls. True when they are dead."""
    moment = time.time() if at is None else at
    attempts = batch.attempts + 1
    dead = attempts >= max_attempts
    conn.execute(
        "UPDATE llm_jobs SET state = ?, attempts = ?, due_at = ?, claim = NULL, "
        "claimed_until = NULL, error = ? WHERE claim = ?",
        ("dead" if dead else "pending", attempts, moment + delay, error[:500], batch.claim),
    )
    return dead


def release(conn: sqlite3.Connection, token: str) -> None:
    """Give a claim back untouched (the worker is stopping before it could store an answer)."""
    conn.execute(
        "UPDATE llm_jobs SET state = 'pending', claim = NULL, claimed_until = NULL "
        "WHERE claim = ? AND state = 'claimed'",
        (token,),
    )


def retry_dead(conn: sqlite3.Connection) -> int:
    """Put every dead job back in the queue with a fresh count of attempts; how many."""
    return conn.execute(
        "UPDATE llm_jobs SET state = 'pending', attempts = 0, due_at = 0, error = NULL "
        "WHERE state = 'dead'"
    ).rowcount


def record_usage(
    conn: sqlite3.Connection,
    batch: Batch,
    *,
    model: str,
    prompt_tokens: int | None,
    completion_tokens: int | None,
    seconds: float | None,
    error: str | None,
) -> None:
    """One row per call, answered or not, for `zepkit stats` (without its thread or user when
    they were deleted while the model answered)."""
    conn.execute(
        "INSERT INTO llm_usage (user, thread, at, model, messages, user_turns, prompt_tokens, "
        "completion_tokens, ok, seconds, error) VALUES ((SELECT id FROM users WHERE id = ?), "
        "(SELECT id FROM threads WHERE id = ?), ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            batch.user,
            batch.thread,
            encode_time(now()),
            model,
            len(batch.messages),
            batch.user_turns,
            prompt_tokens,
            completion_tokens,
            error is None,
            seconds,
            None if error is None else error[:500],
        ),
    )
