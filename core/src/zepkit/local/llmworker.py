"""The extraction worker: claim a thread's batch, call the model with no lock held, store the
answer in one transaction; retry with backoff, set aside as dead after repeated failures.

It reaches the database only through `db`, a function that runs a piece of work on a connection:
inside `LocalBackend` that is the backend's own SQLite thread (turns and the worker's short writes
take turns there, and the model call never blocks it); `zepkit worker` gives it its own connection.
"""

from __future__ import annotations

import functools
import logging
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, TypeVar

from zepkit.local import jobs
from zepkit.local.connection import write_transaction
from zepkit.local.llm import LLMError, LLMExtractor, ModelOutput, Prompt, PromptMessage, Usage
from zepkit.local.llmwrite import Stored, store

T = TypeVar("T")
logger = logging.getLogger("zepkit.local")

LEASE_MARGIN = 60.0
"""A claim outlives the model's timeout by this much before another worker may take it."""


IN_FLIGHT_POLL = 0.05


class Database(Protocol):
    """Runs one piece of work on the worker's connection and returns its result."""

    def __call__(self, work: Callable[[sqlite3.Connection], T]) -> T: ...


@dataclass
class OwnConnection:
    """`Database` over a connection of the caller's own, used on the caller's thread."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def __call__(self, work: Callable[[sqlite3.Connection], T]) -> T:
        return work(self.conn)


@dataclass
class ExtractionRun:
    """What a run of the worker did: calls made, facts stored, failed calls, batches dead."""

    calls: int = 0
    facts: int = 0
    failures: int = 0
    dead: int = 0


class ExtractionWorker:
    """Runs `llm` over the queue of one database."""

    def __init__(self, llm: LLMExtractor, db: Database, *, lease: float | None = None) -> None:
        self.llm = llm
        self._db = db
        self._lease = llm.timeout + LEASE_MARGIN if lease is None else lease
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._claim: str | None = None

    @property
    def poll_seconds(self) -> float:
        """How often an idle worker looks for threads gone quiet and retries come due."""
        return max(0.05, min(self.llm.idle_seconds / 2, 5.0))

    def run_once(self, *, force: bool = False, run: ExtractionRun | None = None) -> bool:
        """Handle one due batch; False when none is due. `force` takes a thread's waiting jobs
        without waiting for `every` user turns or the idle time (retries still wait)."""
        run = run if run is not None else ExtractionRun()
        batch = self.claim(force=force)
        if batch is None:
            return False
        self._claim = batch.claim
        started = time.monotonic()
        run.calls += 1
        try:
            output = self.llm.extract(prompt_of(batch))
        except LLMError as exc:
            run.failures += 1
            run.dead += self.failed(batch, exc, time.monotonic() - started)
        else:
            stored = self.commit(batch, output)
            run.facts += stored.facts if stored is not None else 0
        self._claim = None
        return True

    def claim(self, *, force: bool = False) -> jobs.Batch | None:
        """Claim the next due batch with its context (see `run_once`); None when none is due."""
        return self._db(functools.partial(self._claim_batch, force))

    def commit(self, batch: jobs.Batch, output: ModelOutput) -> Stored | None:
        """Store the model's answer and end the batch's jobs in one transaction; None (nothing
        stored) when the claim was lost: taken over after its lease, or its thread deleted."""
        return self._db(functools.partial(self._store, batch, output))

    def failed(self, batch: jobs.Batch, error: LLMError, seconds: float) -> bool:
        """Count a failed call: the batch waits its backoff, or is dead (True)."""
        return self._db(functools.partial(self._failed, batch, error, seconds))

    def drain(self, *, force: bool = True) -> ExtractionRun:
        """Handle batches until none is due and none is in flight (another worker's batch is
        waited for, or taken over when its lease runs out); what was done here."""
        run = ExtractionRun()
        while True:
            if self.run_once(force=force, run=run):
                continue
            if not self._db(_in_flight):
                return run
            time.sleep(IN_FLIGHT_POLL)

    def _claim_batch(self, force: bool, conn: sqlite3.Connection) -> jobs.Batch | None:
        llm = self.llm
        at = time.time()
        # A read first, so a poll with nothing to do never takes the write lock.
        due = jobs.ready_thread(conn, every=llm.every, idle=llm.idle_seconds, force=force, at=at)
        if due is None and not _expired(conn, at):
            return None
        with write_transaction(conn):
            jobs.expire_claims(conn, at)
            thread = jobs.ready_thread(
                conn, every=llm.every, idle=llm.idle_seconds, force=force, at=at
            )
            if thread is None:
                return None
            return jobs.claim(conn, thread, limit=llm.max_messages, lease=self._lease, at=at)

    def _store(
        self, batch: jobs.Batch, output: ModelOutput, conn: sqlite3.Connection
    ) -> Stored | None:
        with write_transaction(conn):
            self._usage(conn, batch, output.usage, output.seconds, None)
            if not jobs.holds(conn, batch):
                logger.info("zepkit.local: a batch was taken over or deleted; answer dropped")
                return None
            stored = store(conn, batch, output)
            jobs.finish(conn, batch)
            return stored

    def _failed(
        self, batch: jobs.Batch, error: LLMError, seconds: float, conn: sqlite3.Connection
    ) -> bool:
        delay = self.llm.retry_delay(batch.attempts + 1)
        with write_transaction(conn):
            self._usage(conn, batch, error.usage or Usage(), seconds, str(error))
            if not jobs.holds(conn, batch):
                return False
            dead = jobs.fail(
                conn, batch, str(error), max_attempts=self.llm.max_attempts, delay=delay
            )
        if dead:
            logger.warning(
                "zepkit.local: LLM extraction of %d messages set aside after %d failed calls: "
                "%s (the messages stay searchable; `zepkit worker --retry-dead` tries again)",
                len(batch.messages),
                self.llm.max_attempts,
                error,
            )
        return dead

    def _usage(
        self,
        conn: sqlite3.Connection,
        batch: jobs.Batch,
        usage: Usage,
        seconds: float,
        error: str | None,
    ) -> None:
        jobs.record_usage(
            conn,
            batch,
            model=self.llm.model,
            prompt_tokens=usage.prompt_tokens,
            completion_tokens=usage.completion_tokens,
            seconds=seconds,
            error=error,
        )

    def start(self) -> None:
        """Run in a background thread until `stop`."""
        self._thread = threading.Thread(target=self._loop, name="zepkit-llm", daemon=True)
        self._thread.start()

    def wake(self) -> None:
        """New messages were queued: look for a due batch now rather than at the next poll."""
        self._wake.set()

    def stop(self) -> str | None:
        """Ask the background thread to stop (it may be waiting on the model: not joined); the
        claim it holds, for the caller to release before closing the database."""
        self._stopping.set()
        self._wake.set()
        return self._claim

    def serve(self) -> None:
        """Run in this thread until interrupted (`zepkit worker`); a held claim is released."""
        try:
            self._loop()
        finally:
            claim = self._claim
            if claim is not None:
                self._db(functools.partial(_release, claim))

    def _loop(self) -> None:
        while not self._stopping.is_set():
            try:
                busy = self.run_once()
            except Exception:  # the next poll tries again; a closed backend ends the loop
                if self._stopping.is_set():
                    return
                logger.exception("zepkit.local: the LLM extraction worker failed; retrying")
                busy = False
            if not busy:
                self._wake.wait(self.poll_seconds)
                self._wake.clear()


def release(conn: sqlite3.Connection, claim: str) -> None:
    """Give a claim back in its own transaction."""
    with write_transaction(conn):
        jobs.release(conn, claim)


def _release(claim: str, conn: sqlite3.Connection) -> None:
    release(conn, claim)


def _in_flight(conn: sqlite3.Connection) -> bool:
    return (
        conn.execute("SELECT 1 FROM llm_jobs WHERE state = 'claimed' LIMIT 1").fetchone()
        is not None
    )


def _expired(conn: sqlite3.Connection, at: float) -> bool:
    row = conn.execute(
        "SELECT 1 FROM llm_jobs WHERE state = 'claimed' AND claimed_until < ? LIMIT 1", (at,)
    ).fetchone()
    return row is not None


def prompt_of(batch: jobs.Batch) -> Prompt:
    """What the model is shown of a batch: messages and known facts numbered from 1."""
    return Prompt(
        user_name=batch.user_name,
        messages=[
            PromptMessage(number, m.role, m.name, m.content, m.created_at)
            for number, m in enumerate(batch.messages, start=1)
        ],
        known_facts=[
            (number, text, valid_at)
            for number, (_, text, valid_at) in enumerate(batch.facts, start=1)
        ],
        known_entities=batch.entities,
        user_summary=batch.user_summary,
    )
