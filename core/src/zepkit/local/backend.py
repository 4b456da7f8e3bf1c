"""`LocalBackend`: the embedded engine behind the async `Backend` protocol.

All SQLite work runs on one dedicated worker thread with one connection, so the backend can be
awaited from any event loop (the sync facade uses its own) and concurrent calls run one at a time.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import sqlite3
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import replace
from datetime import datetime
from types import TracebackType
from typing import Any, Literal, TypeVar

from zepkit.core._backend import Capabilities, SearchRequest, UserProfile
from zepkit.core._errors import BackendError, BackendUnavailableError, ConfigurationError
from zepkit.core._limits import DEFAULT_PAGE_SIZE
from zepkit.core._models import (
    DataType,
    Episode,
    Fact,
    Message,
    Page,
    SearchResults,
    ThreadInfo,
    UserInfo,
)
from zepkit.core._sqlite import BUSY_TIMEOUT_MS, is_file_path, open_connection
from zepkit.core._validation import check_page
from zepkit.local import backfill, jobs, writekeys
from zepkit.local.checkpoints import Checkpointer
from zepkit.local.connection import check_fts5, passing_read, write_transaction
from zepkit.local.dense import Dense, RetrieverMode, resolve
from zepkit.local.embedders import Embedder
from zepkit.local.engine import CAPABILITIES, Engine
from zepkit.local.extraction import Extractor, RuleExtractor
from zepkit.local.files import check_file
from zepkit.local.llm import LLMExtractor
from zepkit.local.llmstats import extraction_stats
from zepkit.local.llmworker import ExtractionRun, ExtractionWorker, release
from zepkit.local.schema import migrate

T = TypeVar("T")
logger = logging.getLogger("zepkit.local")

FIRST_PAUSE_S = 0.0002
LAST_PAUSE_S = 0.002
"""An inline write waiting for SQLite's write lock tries again after these pauses, doubling:
a write holds the lock for about half a millisecond."""


class LocalBackend:
    """zepkit's embedded memory: one SQLite file (or ":memory:") searched with FTS5, no server."""

    def __init__(
        self,
        path: str | os.PathLike[str] = ":memory:",
        *,
        extractor: Extractor | None = None,
        retriever: RetrieverMode = "auto",
        embedder: Embedder | None = None,
        read_only: bool = False,
        verify: bool = True,
        llm: LLMExtractor | Literal[False] | None = None,
        llm_worker: bool = True,
        inline: bool = False,
    ) -> None:
        # A missing file is created; `extractor` defaults to the rule-based one. `retriever`:
        # "lexical" (FTS5 BM25), "dense" (vectors), "hybrid" (both, fused) or "auto" (hybrid when
        # `embedder` is given or the extra `embeddings` is installed, else lexical). `embedder`
        # defaults to the local all-MiniLM-L6-v2 model; it loads on first use. `read_only` opens
        # an existing zepkit file without ever writing it; `verify` runs SQLite's quick integrity
        # check at open (linear in the file size: turn it off for very large files).
        # `llm` adds extraction by a language model, off the turn's path (see `LLMExtractor`);
        # None reads `ZEPKIT_LLM_*` from the environment, False keeps it off. `llm_worker=False`
        # only queues the jobs, for a `zepkit worker` process to run. `inline=True` runs each
        # call on the calling event loop's thread instead of the backend's own thread: no hop
        # between threads (about a fifth less CPU a call), but the loop waits while a call runs;
        # for a process that does nothing else, such as each worker of `zepkit serve`.
        if llm is None and not read_only:
            llm = LLMExtractor.from_env()
        if llm and read_only:
            raise ConfigurationError("a read-only backend cannot run LLM extraction")
        mode, dense = resolve(retriever, embedder)
        check_fts5()
        check = functools.partial(check_file, path=path, writable=not read_only, verify=verify)
        if dense is not None and is_file_path(path) and os.path.exists(path):
            # The latest users' vectors are read meanwhile (the check below reads the whole file),
            # then the episodes without vectors are counted (a new file has none).
            dense.index.warm(
                functools.partial(open_connection, path, read_only=True),
                then=functools.partial(_tell_unembedded, model=dense.embedder.model_id, path=path),
            )
        try:
            conn = open_connection(path, read_only=read_only, check=check)
        except sqlite3.Error as exc:
            _stop_warmup(dense)
            raise BackendError(f"cannot open the local database {str(path)!r}: {exc}") from exc
        except BaseException:
            _stop_warmup(dense)
            raise
        self._checkpoints: Checkpointer | None = None
        try:
            if not read_only:
                migrate(conn)
                writekeys.prune(conn)
                if is_file_path(path):
                    self._checkpoints = Checkpointer(os.fspath(path), conn)
        except sqlite3.Error as exc:
            conn.close()
            _stop_warmup(dense)
            raise BackendError(f"cannot prepare the local database {str(path)!r}: {exc}") from exc
        except BaseException:
            conn.close()
            _stop_warmup(dense)
            raise
        self._engine = Engine(
            conn, extractor or RuleExtractor(), mode=mode, dense=dense, llm_jobs=bool(llm)
        )
        self.retriever = mode
        """The retriever in use after "auto" is resolved: "lexical", "dense" or "hybrid"."""
        self._capabilities = replace(CAPABILITIES, dense_vectors=dense is not None)
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="zepkit-local")
        self._inline = inline
        self._engine_lock = threading.Lock()
        """Held by each call in inline mode, and by the extraction worker's database work."""
        self._closed = False
        self._extraction = ExtractionWorker(llm, self._db) if llm else None
        if self._extraction is not None and llm_worker:
            self._extraction.start()

    @property
    def capabilities(self) -> Capabilities:
        """edges, nodes and episodes with rrf or mmr; auto without a reranker."""
        return self._capabilities

    async def ensure_user(self, user: UserProfile) -> bool:
        """See `Backend.ensure_user`; an existing user gets the profile fields that are set."""
        return await self._run(self._engine.ensure_user, user)

    async def ensure_thread(self, thread_id: str, user_id: str) -> bool:
        """See `Backend.ensure_thread`."""
        return await self._run(self._engine.ensure_thread, thread_id, user_id)

    async def ensure_graph(self, graph_id: str) -> bool:
        """See `Backend.ensure_graph`."""
        return await self._run(self._engine.ensure_graph, graph_id)

    async def add_messages(
        self,
        thread_id: str,
        messages: Sequence[Message],
        *,
        return_context: bool = False,
        user_id: str | None = None,
        idempotency_key: str | None = None,
    ) -> str | None:
        """See `Backend.add_messages`; committed when it returns, context read after the write."""
        if self._inline:
            context = await self._add_inline(
                thread_id, messages, return_context, user_id, idempotency_key
            )
        else:
            context = await self._run(
                self._engine.add_messages,
                thread_id,
                messages,
                return_context,
                user_id,
                idempotency_key,
            )
        if self._extraction is not None:
            self._extraction.wake()
        return context

    async def get_context(self, thread_id: str) -> str | None:
        """See `Backend.get_context`."""
        return await self._run(self._engine.get_context, thread_id)

    async def get_messages(self, thread_id: str, *, limit: int | None = None) -> list[Message]:
        """See `Backend.get_messages`."""
        return await self._run(self._engine.get_messages, thread_id, limit)

    async def update_message_metadata(
        self, thread_id: str, message_uuid: str, metadata: Mapping[str, Any]
    ) -> Message:
        """See `Backend.update_message_metadata`."""
        return await self._run(
            self._engine.update_message_metadata, thread_id, message_uuid, metadata
        )

    async def search(self, request: SearchRequest) -> SearchResults:
        """See `Backend.search`."""
        return await self._run(self._engine.search, request)

    async def add_data(
        self,
        data: str,
        *,
        type: DataType,
        user_id: str | None = None,
        graph_id: str | None = None,
        created_at: datetime | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> Episode:
        """See `Backend.add_data`; an unknown `graph_id` creates that shared graph."""
        call = functools.partial(
            self._engine.add_data,
            data,
            type=type,
            user_id=user_id,
            graph_id=graph_id,
            created_at=created_at,
            metadata=metadata,
        )
        return await self._run(call)

    async def delete_thread(self, thread_id: str) -> None:
        """See `Backend.delete_thread`; the memory derived from its messages goes too."""
        await self._run(self._engine.delete_thread, thread_id)

    async def delete_user(self, user_id: str, *, vacuum: bool = False) -> None:
        """See `Backend.delete_user`: one transaction removes the user's rows and merges the
        full-text indexes; `vacuum` then rewrites the file (time and space grow with its size)."""
        await self._run(self._beside_no_checkpoint, self._engine.delete_user, user_id, vacuum)

    async def vacuum(self) -> None:
        """Rewrite the file without its free pages and empty its write-ahead log, so nothing
        deleted stays on disk. `BackendUnavailableError` while another connection reads the file
        (run it again then); time and space grow with the file's size."""
        await self._run(self._beside_no_checkpoint, self._engine.vacuum)

    async def get_user(self, user_id: str) -> UserInfo:
        """See `Backend.get_user`."""
        return await self._run(self._engine.get_user, user_id)

    async def list_users(
        self, *, cursor: str | None = None, limit: int = DEFAULT_PAGE_SIZE
    ) -> Page[UserInfo]:
        """See `Backend.list_users`."""
        check_page(limit, cursor)
        return await self._run(self._engine.list_users, cursor, limit)

    async def list_threads(
        self, user_id: str, *, cursor: str | None = None, limit: int = DEFAULT_PAGE_SIZE
    ) -> Page[ThreadInfo]:
        """See `Backend.list_threads`."""
        check_page(limit, cursor)
        return await self._run(self._engine.list_threads, user_id, cursor, limit)

    async def list_messages(
        self, thread_id: str, *, cursor: str | None = None, limit: int = DEFAULT_PAGE_SIZE
    ) -> Page[Message]:
        """See `Backend.list_messages`."""
        check_page(limit, cursor)
        return await self._run(self._engine.list_messages, thread_id, cursor, limit)

    async def list_data(
        self, user_id: str, *, cursor: str | None = None, limit: int = DEFAULT_PAGE_SIZE
    ) -> Page[Episode]:
        """See `Backend.list_data`."""
        check_page(limit, cursor)
        return await self._run(self._engine.list_data, user_id, cursor, limit)

    async def list_facts(
        self, user_id: str, *, cursor: str | None = None, limit: int = DEFAULT_PAGE_SIZE
    ) -> Page[Fact]:
        """See `Backend.list_facts`: the statements extracted for the user, ended ones too."""
        check_page(limit, cursor)
        return await self._run(self._engine.list_facts, user_id, cursor, limit)

    async def embed_missing(
        self, *, batch_size: int = 256, progress: Callable[[int], None] | None = None
    ) -> int:
        """Give every episode stored without a vector of this backend's embedder one; how many.

        Episodes stored before the extra `embeddings` was installed, or under another embedder,
        are invisible to dense search until then (lexical search finds them). Runs a batch per
        call on the worker, so other calls interleave; ConfigurationError when lexical only.
        `progress` is called after each batch with the count so far.
        """
        if batch_size < 1:
            raise ValueError(f"batch_size must be positive, got {batch_size}")
        total, after = 0, 0
        while True:
            seen, stored = await self._run(self._engine.embed_missing, after, batch_size)
            total += stored
            if progress is not None:
                progress(total)
            if len(seen) < batch_size:
                return total
            after = seen[-1]

    async def preview_context(
        self, user: UserProfile, thread_id: str, messages: Sequence[Message]
    ) -> str | None:
        """The context `add_messages(thread_id, messages, return_context=True)` would return for
        this user's turn (after `ensure_user(user)` and `ensure_thread`), without storing
        anything: it runs on a private in-memory copy of the file (time and memory grow with
        the file's size). Works on a read-only backend too."""
        return await self._run(self._engine.preview_context, user, thread_id, messages)

    async def _read(self, query: Callable[[sqlite3.Connection], T]) -> T:
        """Run `query` on the worker in one read snapshot (for `zepkit.local.inspect`)."""
        return await self._run(self._engine.read, query)

    async def extract_pending(self) -> ExtractionRun:
        """Run LLM extraction now over every waiting message (not waiting for a thread to fill a
        batch or go idle; retries keep their backoff); what it did. For scripts, benchmarks and
        tests: the background worker does this by itself. ConfigurationError without `llm`."""
        if self._extraction is None:
            raise ConfigurationError("LLM extraction is off: pass llm= or set ZEPKIT_LLM_BASE_URL")
        if self._closed:
            raise BackendError("the local backend is closed")
        return await asyncio.to_thread(self._extraction.drain)

    async def extraction_stats(self) -> dict[str, Any]:
        """What LLM extraction did and cost in this database, as `zepkit stats` prints it."""
        return await self._run(self._engine.run, extraction_stats)

    async def retry_dead_extraction(self) -> int:
        """Put messages whose LLM extraction was set aside after repeated failures back in the
        queue; how many."""
        return await self._run(self._engine.run, _retry_dead)

    async def aclose(self) -> None:
        """Finish queued calls, close the connection and stop the workers. Safe to call twice.

        A model call still under way is not waited for: its messages go back to the queue."""
        if self._closed:
            return
        self._closed = True
        claim = self._extraction.stop() if self._extraction is not None else None
        try:
            if claim is not None:
                await self._call(self._engine.run, functools.partial(release, claim=claim))
            await self._call(self._close)
        finally:
            self._worker.shutdown(wait=False)

    async def _call(self, call: Callable[..., T], *args: Any) -> T:
        """Run one engine call on the worker thread, or inline here, one at a time."""
        try:
            if self._inline:
                with self._engine_lock:
                    return call(*args)
            return await asyncio.get_running_loop().run_in_executor(self._worker, call, *args)
        finally:
            self._after_call()

    def _after_call(self) -> None:
        """After an engine call: the checkpoint thread counts it (see `Checkpointer.nudge`)."""
        if self._checkpoints is not None:
            self._checkpoints.nudge()

    def _beside_no_checkpoint(self, call: Callable[..., T], *args: Any) -> T:
        """`call`, with no checkpoint of this backend's running beside it (a vacuum empties
        the log itself, and would find it busy)."""
        if self._checkpoints is None:
            return call(*args)
        return self._checkpoints.paused(functools.partial(call, *args))

    def _close(self) -> None:
        """Stop the checkpoint thread, then close the engine (its connection, the last, then
        empties the log into the file)."""
        if self._checkpoints is not None:
            self._checkpoints.close()
        self._engine.close()

    async def __aenter__(self) -> LocalBackend:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.aclose()

    def _db(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Run the extraction worker's database work on this backend's SQLite thread (inline:
        on the extraction thread, one call at a time with the loop's)."""
        if self._closed:
            raise BackendError("the local backend is closed")
        try:
            if self._inline:
                with self._engine_lock:
                    return self._engine.run(work)
            return self._worker.submit(self._engine.run, work).result()
        finally:
            self._after_call()

    async def _add_inline(
        self,
        thread_id: str,
        messages: Sequence[Message],
        return_context: bool,
        user_id: str | None,
        key: str | None,
    ) -> str | None:
        """`add_messages` on the loop's thread. While another process (a server's other worker)
        holds SQLite's write lock, the write waits on the event loop, so this process's other
        calls run meanwhile; in SQLite's busy handler the whole thread would sleep."""
        engine = self._engine
        prepared = await self._run(engine.prepare_messages, thread_id, messages)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + BUSY_TIMEOUT_MS / 1000
        pause = FIRST_PAUSE_S
        while True:
            if self._closed:
                raise BackendError("the local backend is closed")
            with _sqlite_errors(), self._engine_lock:
                if engine.try_write_lock():
                    try:
                        return engine.store_messages(
                            prepared, return_context, user_id, key, locked=True
                        )
                    finally:
                        self._after_call()
            if loop.time() >= deadline:
                raise BackendUnavailableError(
                    f"SQLite database is busy: its write lock was held for {BUSY_TIMEOUT_MS} ms"
                )
            await asyncio.sleep(pause)
            pause = min(2 * pause, LAST_PAUSE_S)

    async def _run(self, call: Callable[..., T], *args: Any) -> T:
        """One engine call of an open backend (`_call`), its SQLite errors translated."""
        if self._closed:
            raise BackendError("the local backend is closed")
        with _sqlite_errors():
            return await self._call(call, *args)


@contextmanager
def _sqlite_errors() -> Iterator[None]:
    """SQLite's errors as the backend's: busy or locked -> unavailable, others -> BackendError;
    an id with half a character (a lone surrogate: no UTF-8 form, so SQLite cannot take it) is
    the caller's error, a `ValueError` as `check_id` gives (texts are mended before this)."""
    try:
        yield
    except UnicodeEncodeError as exc:
        raise ValueError(f"a lone surrogate (half a character) cannot be stored: {exc}") from exc
    except sqlite3.OperationalError as exc:
        if "locked" in str(exc) or "busy" in str(exc):
            raise BackendUnavailableError(f"SQLite database is busy: {exc}") from exc
        if "readonly" in str(exc):
            raise BackendError(
                f"this memory cannot be written ({exc}): the backend was opened with "
                "read_only=True, or its file has since become read-only"
            ) from exc
        raise BackendError(f"SQLite error: {exc}") from exc
    except sqlite3.Error as exc:
        raise BackendError(f"SQLite error: {exc}") from exc


def _stop_warmup(dense: Dense | None) -> None:
    """Stop the vectors' warm-up of a backend that failed to open."""
    if dense is not None:
        dense.index.close()


def _tell_unembedded(conn: sqlite3.Connection, *, model: str, path: str | os.PathLike[str]) -> None:
    """Warn when dense search cannot see some stored episodes, and say how to fix it."""
    try:
        with passing_read(conn):
            missing = backfill.count_missing(conn, model)
    except sqlite3.Error as exc:  # a warning's count is not worth failing anything for
        logger.warning("zepkit.local: could not count episodes without vectors: %s", exc)
        return
    if missing:
        logger.warning(
            "zepkit.local: %d episodes in %s have no vector for the current embedder, so dense "
            "search misses them; run `zepkit embed --db PATH` or `await backend.embed_missing()`",
            missing,
            os.fspath(path),
        )


def _retry_dead(conn: sqlite3.Connection) -> int:
    with write_transaction(conn):
        return jobs.retry_dead(conn)
