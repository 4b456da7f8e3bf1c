"""`MemoryLoop`: the one memory loop every adapter drives.

Provisioning is strict (real failures raise typed errors). The data path (writes, context, search)
is fail-soft: a backend failure is handled by the `on_error` policy and a neutral value comes back.
Invalid arguments always raise a `ValueError` or `TypeError` naming the field.
"""

from __future__ import annotations

import asyncio
import enum
import inspect
import logging
import os
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from os import PathLike, fspath
from typing import Any, Literal, TypeAlias, TypeVar

from zepkit.core._backend import Backend, Capabilities, SearchRequest, UserProfile
from zepkit.core._errors import BackendUnavailableError, ConflictError, NotFoundError
from zepkit.core._failsoft import FailSoft, OnError
from zepkit.core._jsonchunks import parse_json
from zepkit.core._limits import (
    DEFAULT_CONTEXT_CHARS,
    DEFAULT_DEADLINE,
    DEFAULT_PAGE_SIZE,
    DEFAULT_SEARCH_LIMIT,
    MAX_DATA_CHARS,
    MAX_MESSAGES_PER_CALL,
    MAX_PAGE_SIZE,
    WRITE_CHARS_PER_SECOND,
)
from zepkit.core._models import (
    DATA_TYPES,
    DataType,
    Episode,
    Fact,
    Identity,
    Message,
    Page,
    Reranker,
    Scope,
    SearchResults,
    ThreadInfo,
    UserInfo,
)
from zepkit.core._outbox import Outbox, OutboxItem, OutboxStatus
from zepkit.core._rendering import (
    DEFAULT_TEMPLATE,
    check_template,
    is_rendered_block,
    render_context,
    strip_rendered_block,
)
from zepkit.core._search_params import SearchParams, merge_results
from zepkit.core._search_tool import SearchTool
from zepkit.core._spool import TRANSIENT, Spool
from zepkit.core._statedir import zep_outbox_path
from zepkit.core._sync import Portal
from zepkit.core._turns import LRU, Once
from zepkit.core._validation import (
    batches,
    check_id,
    check_page,
    check_target,
    chunk_data,
    prepare_messages,
)

logger = logging.getLogger("zepkit.core")

T = TypeVar("T")


class _Default(enum.Enum):
    """Marks an argument left to the loop's own setting."""

    LOOP = "loop"


INLINE_CHARS = 100_000
"""Text up to this size is split on the event loop; more is split on a worker thread, so a huge
message never stalls the other coroutines of the app."""


async def _prepare(messages: Sequence[Message]) -> list[Message]:
    """`prepare_messages`, off the event loop when the messages are large."""
    size = sum(len(m.content) for m in messages if isinstance(m, Message))
    if size <= INLINE_CHARS:
        return prepare_messages(messages)
    return await asyncio.to_thread(prepare_messages, messages)


def _chunk_now(data: str, data_type: str) -> list[str]:
    if data_type == "json":
        parse_json(data)  # invalid or too deeply nested JSON is the caller's error
    return chunk_data(data, data_type, MAX_DATA_CHARS)


async def _chunk(data: str, data_type: str) -> list[str]:
    """Graph data chunked to the per-item limit, off the event loop when it is large."""
    if len(data) <= INLINE_CHARS:
        return _chunk_now(data, data_type)
    return await asyncio.to_thread(_chunk_now, data, data_type)


def _log_kept(cause: BaseException | None, what: str) -> None:
    if cause is None:
        logger.info("zepkit: %s queued in the outbox behind earlier writes", what)
    else:
        logger.warning(
            "zepkit: memory unavailable (%s); %s kept in the outbox for replay",
            type(cause).__name__,
            what,
        )


def _check_turn(identity: object, text: object, field: str, *, optional: bool = False) -> None:
    """Invalid turn arguments are the caller's bug: raise, never absorb them as memory trouble."""
    if not isinstance(identity, Identity):
        raise TypeError(f"identity must be a zepkit.core.Identity, got {type(identity).__name__}")
    if not isinstance(text, str) and not (optional and text is None):
        raise TypeError(f"{field} must be a string, got {type(text).__name__}")


def _check_budget(budget: float | None, name: str = "recall_budget") -> None:
    if budget is not None and (
        isinstance(budget, bool) or not isinstance(budget, int | float) or not budget > 0
    ):
        raise ValueError(f"{name} must be a positive number of seconds, got {budget!r}")


async def within(seconds: float | None, work: Awaitable[T], what: str) -> T:
    """Await `work` for at most `seconds` (None: no limit); past it, cancel the work and raise
    `BackendUnavailableError`, a transient failure like any outage."""
    if seconds is None:
        return await work
    try:
        async with asyncio.timeout(seconds):
            return await work
    except TimeoutError as exc:
        raise BackendUnavailableError(
            f"memory did not answer within {seconds:g} s ({what})"
        ) from exc


@dataclass(frozen=True)
class ContextInput:
    """What a custom context builder receives for one turn."""

    loop: MemoryLoop
    identity: Identity
    user_message: str


ContextBuilder: TypeAlias = Callable[[ContextInput], Awaitable[str | None]]


class MemoryLoop:
    """Identity, provisioning, the per-turn round trip, reply capture, rendering and search."""

    def __init__(
        self,
        backend: Backend,
        *,
        on_error: OnError = "log",
        template: str = DEFAULT_TEMPLATE,
        max_context_chars: int | None = DEFAULT_CONTEXT_CHARS,
        context_builder: ContextBuilder | None = None,
        recall_budget: float | None = None,
        deadline: float | None = DEFAULT_DEADLINE,
        outbox: Outbox | str | PathLike[str] | None = None,
        assistant_name: str = "Assistant",
        cache_size: int = 1024,
    ) -> None:
        if not isinstance(backend, Backend):
            raise TypeError(f"backend must implement zepkit.core.Backend, got {type(backend)!r}")
        _check_budget(recall_budget)
        _check_budget(deadline, "deadline")
        if max_context_chars is not None and max_context_chars < 1:
            raise ValueError(f"max_context_chars must be positive, got {max_context_chars}")
        self.backend = backend
        self.failsoft = FailSoft(on_error)
        self.template = check_template(template)
        self.max_context_chars = max_context_chars
        self.context_builder = context_builder
        self.recall_budget = recall_budget
        self.deadline = deadline
        """Seconds one memory operation may take in total; None waits as long as it takes."""
        self.assistant_name = assistant_name
        self._provisioned: Once[tuple[str, ...], bool] = Once(cache_size)
        self._turns: Once[tuple[str, str, str], str] = Once(cache_size)
        self._replies: LRU[tuple[str, str, str], bool] = LRU(cache_size)
        self._last_blocks: LRU[tuple[str, str], str] = LRU(cache_size)
        self._pending: set[asyncio.Task[Any]] = set()
        self._portal = Portal()
        self._sync: SyncMemory | None = None
        if outbox is not None and not isinstance(outbox, Outbox):
            outbox = Outbox(outbox)
        self.outbox = outbox
        """Where writes the backend cannot take wait to be replayed (None: they are lost)."""
        self._spool = Spool(outbox, self._replay_item) if outbox is not None else None

    # -- construction -------------------------------------------------------------------------

    @classmethod
    def local(cls, path: str | PathLike[str] = ":memory:", **options: Any) -> MemoryLoop:
        """A loop on the embedded local engine: one SQLite file, or `":memory:"` for tests.
        Writes the file cannot take (locked by another process) wait in `PATH.outbox`, a file
        made only when needed, unless `outbox=` says otherwise."""
        from zepkit.local import LocalBackend

        backend = LocalBackend(path)
        name = fspath(path)
        if (
            "outbox" not in options
            and name not in ("", ":memory:")
            and not name.startswith("file:")
        ):
            options["outbox"] = name + ".outbox"
        return cls(backend, **options)

    @classmethod
    def zep(cls, api_key: str | None = None, **options: Any) -> MemoryLoop:
        """A loop on Zep Cloud (API v4). Reads `ZEP_API_KEY` when no key is given. The loop's own
        options (`on_error`, `outbox`, ...) configure the loop; the rest (`client`, `base_url`,
        `id_map`, `timeout`, `max_retries`) go to `zepkit.zep.ZepBackend.create`, so a new Zep
        option is declared in one place.

        Writes made while Zep is unreachable wait in an outbox: by default a file per project in
        zepkit's state folder (see `zepkit.core._statedir`), made only when needed; `outbox=None`
        turns it off. With `client=` there is no default (the project is unknown)."""
        from zepkit.zep import ZepBackend

        loop_options = inspect.signature(cls).parameters.keys() - {"backend"}
        backend_options = {
            key: options.pop(key) for key in list(options) if key not in loop_options
        }
        backend = ZepBackend.create(api_key, **backend_options)
        key = api_key or os.environ.get("ZEP_API_KEY")
        if "outbox" not in options and "client" not in backend_options and key:
            options["outbox"] = zep_outbox_path(key, backend_options.get("base_url"))
        return cls(backend, **options)

    @property
    def capabilities(self) -> Capabilities:
        return self.backend.capabilities

    @property
    def sync(self) -> SyncMemory:
        """Blocking twins of every operation, safe inside or outside a running event loop."""
        if self._sync is None:
            self._sync = SyncMemory(self)
        return self._sync

    async def aclose(self) -> None:
        """Wait for late recalls (they still store their turn), replay the outbox once, then
        close the outbox, the backend and the sync facade's loop."""
        await self._close()
        self._portal.close()

    async def _close(self) -> None:
        await self.drain()
        if self._spool is not None:
            await self._spool.close()
        await self.backend.aclose()

    async def __aenter__(self) -> MemoryLoop:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    # -- provisioning (strict) ----------------------------------------------------------------

    async def ensure_user(
        self,
        user_id: str,
        *,
        first_name: str | None = None,
        last_name: str | None = None,
        email: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> bool:
        """Create the user unless it exists; True when this call created it."""
        check_id(user_id, "user_id")
        profile = UserProfile(user_id, first_name, last_name, email, metadata)
        return await within(self.deadline, self.backend.ensure_user(profile), "ensure_user")

    async def ensure_thread(self, thread_id: str, *, user_id: str) -> bool:
        """Create the thread for the user unless it exists; True when this call created it."""
        check_id(thread_id, "thread_id")
        check_id(user_id, "user_id")
        return await within(
            self.deadline, self.backend.ensure_thread(thread_id, user_id), "ensure_thread"
        )

    async def ensure_graph(self, graph_id: str) -> bool:
        """Create a shared graph unless it exists; True when this call created it."""
        check_id(graph_id, "graph_id")
        return await within(self.deadline, self.backend.ensure_graph(graph_id), "ensure_graph")

    async def provision(self, identity: Identity) -> None:
        """Ensure the identity's user and thread exist, once per process (cached)."""

        async def work() -> bool:
            await self.ensure_user(
                identity.user_id,
                first_name=identity.first_name,
                last_name=identity.last_name,
                email=identity.email,
            )
            return await self.ensure_thread(identity.thread_id, user_id=identity.user_id)

        await self._provisioned.run(("thread", identity.user_id, identity.thread_id), work)

    # -- data path (fail-soft) ----------------------------------------------------------------

    async def add_messages(
        self, thread_id: str, messages: Sequence[Message], *, return_context: bool = False
    ) -> str | None:
        """Persist messages (split to size, sent in batches of 30); with `return_context`, the
        thread's context comes back from the same call. Backend failures are fail-soft."""
        check_id(thread_id, "thread_id")
        prepared = await _prepare(messages)
        try:
            _, context = await self._write(thread_id, None, prepared, return_context)
            return context
        except Exception as exc:
            self.failsoft.handle("add_messages", exc, thread_id=thread_id, messages=len(prepared))
            return None

    async def _add_prepared(
        self,
        thread_id: str,
        prepared: Sequence[Message],
        return_context: bool,
        user_id: str | None = None,
        key: str | None = None,
    ) -> str | None:
        if not prepared:
            return await self.backend.get_context(thread_id) if return_context else None
        chunks = list(batches(prepared, MAX_MESSAGES_PER_CALL))
        context = None
        for index, chunk in enumerate(chunks):
            last = index == len(chunks) - 1
            context = await self.backend.add_messages(
                thread_id,
                chunk,
                return_context=return_context and last,
                user_id=user_id,
                idempotency_key=None if key is None else f"{key}:{index}",
            )
        return context

    async def _write(
        self,
        thread_id: str,
        identity: Identity | None,
        prepared: Sequence[Message],
        return_context: bool,
    ) -> tuple[bool, str | None]:
        """Deliver one write within the deadline, or keep it in the outbox when the backend
        cannot take it or earlier writes to the thread still wait there (they go first):
        (delivered now, context). Every write gets a fresh idempotency key, kept for replays."""
        key = uuid.uuid4().hex
        spool = self._spool
        if spool is not None and prepared:
            spool.start()
            if spool.pending_for(thread_id):
                await self._keep_messages(thread_id, identity, prepared, key, None)
                return False, None
        work = self._deliver_messages(thread_id, identity, prepared, return_context, key)
        try:
            deadline = self._write_deadline(sum(len(m.content) for m in prepared))
            return True, await within(deadline, work, "write")
        except TRANSIENT as exc:
            if spool is None or not prepared:
                raise
            await self._keep_messages(thread_id, identity, prepared, key, exc)
            return False, None

    async def _deliver_messages(
        self,
        thread_id: str,
        identity: Identity | None,
        prepared: Sequence[Message],
        return_context: bool,
        key: str | None,
    ) -> str | None:
        if identity is None:
            return await self._add_prepared(thread_id, prepared, return_context, None, key)
        return await self._persist(identity, prepared, return_context, key)

    async def _keep_messages(
        self,
        thread_id: str,
        identity: Identity | None,
        prepared: Sequence[Message],
        key: str,
        cause: BaseException | None,
    ) -> None:
        assert self._spool is not None
        payload = {
            "thread_id": thread_id,
            "identity": identity.model_dump(mode="json") if identity is not None else None,
            "messages": [message.model_dump(mode="json") for message in prepared],
        }
        try:
            await self._spool.keep("messages", thread_id, key, payload)
        except Exception as exc:
            raise exc from cause  # the outbox could not keep it either: lost, said so
        _log_kept(cause, f"{len(prepared)} messages for thread_id={thread_id!r}")

    def _write_deadline(self, chars: int) -> float | None:
        """The deadline for writing `chars` characters: `deadline` plus a second per
        `WRITE_CHARS_PER_SECOND` (None: no limit)."""
        return None if self.deadline is None else self.deadline + chars / WRITE_CHARS_PER_SECOND

    async def _replay_item(self, item: OutboxItem) -> None:
        """Deliver one kept write with its original idempotency key."""
        payload = item.payload
        if item.kind == "messages":
            raw = payload["identity"]
            identity = Identity.model_validate(raw) if raw is not None else None
            prepared = [Message.model_validate(m) for m in payload["messages"]]
            work = self._deliver_messages(payload["thread_id"], identity, prepared, False, item.key)
            chars = sum(len(m.content) for m in prepared)
            await within(self._write_deadline(chars), work, "outbox replay")
        elif item.kind == "data":
            created = payload["created_at"]
            data = self._deliver_data(
                payload["data"],
                type=payload["type"],
                user_id=payload["user_id"],
                graph_id=payload["graph_id"],
                created_at=datetime.fromisoformat(created) if created else None,
                metadata=payload["metadata"],
            )
            await within(self._write_deadline(len(payload["data"])), data, "outbox replay")
        else:
            raise ValueError(f"unknown outbox item kind {item.kind!r}")

    async def _persist(
        self,
        identity: Identity,
        prepared: Sequence[Message],
        return_context: bool,
        key: str | None = None,
    ) -> str | None:
        """Write the identity's messages, checking ownership at the write itself: this process's
        provisioning cache may be stale when another one deleted or re-created the thread."""
        await self.provision(identity)
        try:
            return await self._add_prepared(
                identity.thread_id, prepared, return_context, identity.user_id, key
            )
        except NotFoundError:  # deleted elsewhere: provision it again, once
            self._forget_thread(identity.thread_id)
            await self.provision(identity)
            return await self._add_prepared(
                identity.thread_id, prepared, return_context, identity.user_id, key
            )
        except ConflictError:  # the id now belongs to another user: check again next time
            self._forget_thread(identity.thread_id)
            raise

    async def get_context(self, thread_id: str) -> str | None:
        """The thread's context (unrendered) without writing anything; None when there is none."""
        check_id(thread_id, "thread_id")
        try:
            return await within(self.deadline, self.backend.get_context(thread_id), "get_context")
        except Exception as exc:
            self.failsoft.handle("get_context", exc, thread_id=thread_id)
            return None

    async def get_messages(self, thread_id: str, *, limit: int | None = None) -> list[Message]:
        """The thread's stored messages, oldest first (the last `limit` when given)."""
        check_id(thread_id, "thread_id")
        if limit is not None and (
            isinstance(limit, bool) or not isinstance(limit, int) or limit < 1
        ):
            raise ValueError(f"limit must be a positive integer, got {limit!r}")
        try:
            work = self.backend.get_messages(thread_id, limit=limit)
            return await within(self.deadline, work, "get_messages")
        except Exception as exc:
            self.failsoft.handle("get_messages", exc, thread_id=thread_id)
            return []

    async def search(
        self,
        query: str,
        *,
        user_id: str | None = None,
        graph_id: str | None = None,
        scope: Scope | Sequence[Scope] | Literal["all"] = "edges",
        reranker: Reranker | None = "rrf",
        limit: int = DEFAULT_SEARCH_LIMIT,
        mmr_lambda: float | None = None,
        center_node_uuid: str | None = None,
    ) -> SearchResults:
        """Search a user's graph or a shared graph (exactly one); empty results on failure.

        `scope` is one scope, several (`("edges", "nodes")`, searched in parallel, each scope's
        results in its own list, `limit` per scope) or "all" (facts, entities and episodes). A
        query longer than `MAX_QUERY_CHARS` is cut to it (one INFO line). The rules are
        `SearchParams`'s, the search tool's too: mmr_lambda defaults to 0.5 under mmr,
        node_distance needs center_node_uuid."""
        check_target(user_id, graph_id)
        raw = {
            "query": query,
            "scope": scope,
            "reranker": reranker,
            "limit": limit,
            "mmr_lambda": mmr_lambda,
            "center_node_uuid": center_node_uuid,
        }
        params = SearchParams.parse(raw, self.capabilities, strict=True)
        assert not isinstance(params, str)  # strict parsing raises instead

        async def one(request: SearchRequest) -> SearchResults:
            try:
                return await self.run_search(request)
            except Exception as exc:
                self.failsoft.handle(
                    "search", exc, user_id=user_id, graph_id=graph_id, scope=request.scope
                )
                return SearchResults(scope=request.scope)

        requests = params.requests(user_id=user_id, graph_id=graph_id)
        return merge_results(await asyncio.gather(*(one(r) for r in requests)))

    async def run_search(self, request: SearchRequest) -> SearchResults:
        """Send a validated request to the backend as is (strict: failures raise). Bounded by
        the deadline and, when the loop has one, the recall budget: the model waits on it."""
        return await within(self.search_deadline, self._search(request), "search")

    @property
    def search_deadline(self) -> float | None:
        """Seconds a search (and the search tool) may take: the shorter of `deadline` and
        `recall_budget`."""
        limits = [x for x in (self.deadline, self.recall_budget) if x is not None]
        return min(limits) if limits else None

    async def _search(self, request: SearchRequest) -> SearchResults:
        if request.graph_id is not None:
            await self._ensure_graph_once(request.graph_id)
        return await self.backend.search(request)

    async def add_data(
        self,
        data: str,
        *,
        type: DataType = "text",
        user_id: str | None = None,
        graph_id: str | None = None,
        created_at: datetime | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> list[Episode]:
        """Add text, JSON or a message line to a user's graph or a shared graph (either is created
        on first use). Data over the per-item limit is chunked, never cut. Returns the stored
        episodes ([] on failure)."""
        check_target(user_id, graph_id)
        if type not in DATA_TYPES:
            raise ValueError(f"type must be one of {list(DATA_TYPES)}, got {type!r}")
        if not isinstance(data, str):
            raise TypeError(f"data must be a string, got {data.__class__.__name__}")
        if not data.strip():
            raise ValueError("data must be a non-empty string")
        chunks = await _chunk(data, type)
        if len(chunks) > 1:
            logger.info("data of %d characters stored as %d chunks", len(data), len(chunks))
        stored: list[Episode] = []
        fields: dict[str, Any] = {
            "type": type,
            "user_id": user_id,
            "graph_id": graph_id,
            "created_at": created_at,
            "metadata": metadata,
        }
        target = f"user:{user_id}" if user_id is not None else f"graph:{graph_id}"
        spool = self._spool
        try:
            for index, chunk in enumerate(chunks):  # a deadline per item: several calls
                if spool is not None:
                    spool.start()
                    if spool.pending_for(target):  # earlier data still waits: queue behind it
                        await self._keep_data(target, chunks[index:], fields, None)
                        break
                work = self._deliver_data(chunk, **fields)
                try:
                    deadline = self._write_deadline(len(chunk))
                    stored.append(await within(deadline, work, "add_data"))
                except TRANSIENT as exc:
                    if spool is None:
                        raise
                    await self._keep_data(target, chunks[index:], fields, exc)
                    break
        except Exception as exc:
            self.failsoft.handle(
                "add_data", exc, user_id=user_id, graph_id=graph_id, chars=len(data)
            )
        return stored

    async def _deliver_data(
        self,
        chunk: str,
        *,
        type: DataType,
        user_id: str | None,
        graph_id: str | None,
        created_at: datetime | None,
        metadata: dict[str, Any] | None,
    ) -> Episode:
        if graph_id is not None:
            await self._ensure_graph_once(graph_id)
        if user_id is not None:
            await self._provisioned.run(("user", user_id), lambda: self.ensure_user(user_id))
        return await self.backend.add_data(
            chunk,
            type=type,
            user_id=user_id,
            graph_id=graph_id,
            created_at=created_at,
            metadata=metadata,
        )

    async def _keep_data(
        self,
        target: str,
        chunks: Sequence[str],
        fields: dict[str, Any],
        cause: BaseException | None,
    ) -> None:
        assert self._spool is not None
        created = fields["created_at"]
        for chunk in chunks:
            payload = {
                **fields,
                "data": chunk,
                "created_at": created.isoformat() if created is not None else None,
            }
            try:
                await self._spool.keep("data", target, uuid.uuid4().hex, payload)
            except Exception as exc:
                raise exc from cause
        _log_kept(cause, f"{len(chunks)} data items for {target}")

    async def delete_thread(self, thread_id: str) -> None:
        """Delete one thread and its messages (strict: an unknown thread raises)."""
        check_id(thread_id, "thread_id")
        await within(self.deadline, self.backend.delete_thread(thread_id), "delete_thread")
        self._forget_thread(thread_id)

    # -- managing memory (strict) -------------------------------------------------------------

    async def delete_user(self, user_id: str, *, vacuum: bool = False) -> None:
        """Delete the user and everything of theirs: threads, messages, data, the facts and
        entities derived from them (strict: an unknown user raises `NotFoundError`). The user's
        writes waiting in the outbox are dropped first, and the loop forgets it provisioned the
        user. With `vacuum`, the local engine also rewrites its file so no deleted byte stays on
        disk (see `Backend.delete_user`). Not bound by `deadline`: it runs to the end."""
        check_id(user_id, "user_id")
        try:
            threads = {thread.thread_id async for thread in self._threads_of(user_id)}
        except NotFoundError:
            threads = set()  # unknown to the backend; its kept writes still go

        def theirs(item: OutboxItem) -> bool:
            payload = item.payload
            if item.kind == "data":
                return bool(payload.get("user_id") == user_id)
            identity = payload.get("identity") or {}
            return item.target in threads or identity.get("user_id") == user_id

        def delete() -> Awaitable[None]:
            return self.backend.delete_user(user_id, vacuum=vacuum)

        try:
            if self._spool is None:
                await delete()
            else:
                await self._spool.discard(theirs, delete)
        finally:
            self._forget_user(user_id, threads)

    async def _threads_of(self, user_id: str) -> AsyncIterator[ThreadInfo]:
        cursor: str | None = None
        while True:
            page = await self.list_threads(user_id, cursor=cursor, limit=MAX_PAGE_SIZE)
            for thread in page.items:
                yield thread
            if page.next_cursor is None:
                return
            cursor = page.next_cursor

    def _forget_user(self, user_id: str, threads: set[str]) -> None:
        """A later turn of this user provisions everything again and starts with no block."""
        self._provisioned.forget_where(
            lambda key: (
                (key[0] != "graph" and key[1] == user_id)
                or (key[0] == "thread" and key[2] in threads)
            )
        )
        self._last_blocks.discard_where(lambda key: key[0] == user_id or key[1] in threads)
        self._turns.forget_where(lambda key: key[0] == user_id)
        self._replies.discard_where(lambda key: key[0] == user_id)

    async def get_user(self, user_id: str) -> UserInfo:
        """The user's profile (strict: an unknown user raises `NotFoundError`)."""
        check_id(user_id, "user_id")
        return await within(self.deadline, self.backend.get_user(user_id), "get_user")

    async def list_users(
        self, *, cursor: str | None = None, limit: int = DEFAULT_PAGE_SIZE
    ) -> Page[UserInfo]:
        """One page of users in the order they were created (strict). Pass the page's
        `next_cursor` back as `cursor` for the next; it is None on the last page."""
        check_page(limit, cursor)
        work = self.backend.list_users(cursor=cursor, limit=limit)
        return await within(self.deadline, work, "list_users")

    async def list_threads(
        self, user_id: str, *, cursor: str | None = None, limit: int = DEFAULT_PAGE_SIZE
    ) -> Page[ThreadInfo]:
        """One page of the user's threads in the order they were created (strict: an unknown
        user raises `NotFoundError`)."""
        check_id(user_id, "user_id")
        check_page(limit, cursor)
        work = self.backend.list_threads(user_id, cursor=cursor, limit=limit)
        return await within(self.deadline, work, "list_threads")

    async def list_messages(
        self, thread_id: str, *, cursor: str | None = None, limit: int = DEFAULT_PAGE_SIZE
    ) -> Page[Message]:
        """One page of the thread's messages, oldest first (strict: an unknown thread raises
        `NotFoundError`; `get_messages` is the fail-soft read of the latest ones)."""
        check_id(thread_id, "thread_id")
        check_page(limit, cursor)
        work = self.backend.list_messages(thread_id, cursor=cursor, limit=limit)
        return await within(self.deadline, work, "list_messages")

    async def list_data(
        self, user_id: str, *, cursor: str | None = None, limit: int = DEFAULT_PAGE_SIZE
    ) -> Page[Episode]:
        """One page of what was added to the user's graph with `add_data`, oldest first, as
        episodes with their type (`source`), time and metadata (strict: an unknown user raises
        `NotFoundError`). On Zep a page may hold fewer than `limit`: Zep pages over the user's
        messages too."""
        check_id(user_id, "user_id")
        check_page(limit, cursor)
        work = self.backend.list_data(user_id, cursor=cursor, limit=limit)
        return await within(self.deadline, work, "list_data")

    async def list_facts(
        self, user_id: str, *, cursor: str | None = None, limit: int = DEFAULT_PAGE_SIZE
    ) -> Page[Fact]:
        """One page of the facts the backend derived for the user, oldest first, ended ones
        included (strict: an unknown user raises `NotFoundError`)."""
        check_id(user_id, "user_id")
        check_page(limit, cursor)
        work = self.backend.list_facts(user_id, cursor=cursor, limit=limit)
        return await within(self.deadline, work, "list_facts")

    def _forget_thread(self, thread_id: str) -> None:
        """A later turn on this id provisions the thread again and starts with no block."""
        self._provisioned.forget_where(lambda key: key[0] == "thread" and key[2] == thread_id)
        self._last_blocks.discard_where(lambda key: key[1] == thread_id)

    async def _ensure_graph_once(self, graph_id: str) -> None:
        await self._provisioned.run(("graph", graph_id), lambda: self.ensure_graph(graph_id))

    # -- the turn (what adapters call) ---------------------------------------------------------

    def is_block(self, text: object) -> bool:
        """Whether `text` is a block this loop rendered (its template)."""
        return is_rendered_block(text, self.template)

    def strip_block(self, text: str) -> str:
        """`text` with any block this loop rendered removed (to replace it, not stack another)."""
        return strip_rendered_block(text, self.template)

    def render(self, context: str | None) -> str:
        """Wrap raw context in this loop's template and budget; `""` when there is none."""
        return render_context(context, template=self.template, max_chars=self.max_context_chars)

    async def begin_turn(
        self,
        identity: Identity,
        user_message: str,
        *,
        turn_id: str | None = None,
        recall_budget: float | _Default | None = _Default.LOOP,
    ) -> str:
        """Persist the user's message and return the rendered block for the model ("" if none).

        With a `turn_id` (the framework's invocation or run id), repeated calls in one turn persist
        once and return the same block. `recall_budget` overrides the loop's for this call (None:
        wait as long as memory takes). Memory failures never raise unless `on_error` says so;
        invalid arguments do (`TypeError` / `ValueError`), as they are the caller's bug.
        """
        budget = self.recall_budget if isinstance(recall_budget, _Default) else recall_budget
        _check_budget(budget)
        _check_turn(identity, user_message, "user_message")
        try:
            if turn_id is None:
                return await self._turn(identity, user_message, budget)
            key = (identity.user_id, identity.thread_id, turn_id)
            return await self._turns.run(key, lambda: self._turn(identity, user_message, budget))
        except Exception as exc:
            self.failsoft.handle(
                "begin_turn",
                exc,
                user_id=identity.user_id,
                thread_id=identity.thread_id,
                chars=len(user_message),
            )
            return ""

    async def drain(self) -> None:
        """Wait until recalls that ran past their budget have finished (they still store the turn
        and leave the thread's next block). Call it from the event loop that ran the turns; bound
        it with `asyncio.timeout` if needed. Then the outbox is replayed once (every write that
        waits is delivered unless the backend is still unavailable)."""
        if self._pending:
            await asyncio.wait(set(self._pending))
        if self._spool is not None:
            await self._spool.replay()

    async def replay_outbox(self, *, failed: bool = False) -> int:
        """Deliver the writes waiting in the outbox now, in order; how many were delivered.
        With `failed`, writes set aside as refused for good are tried again too."""
        if self._spool is None:
            return 0
        if failed:
            await asyncio.to_thread(self._spool.outbox.retry_failed)
        return await self._spool.replay()

    async def outbox_status(self) -> OutboxStatus | None:
        """What waits in the outbox (None without one)."""
        if self.outbox is None:
            return None
        return await asyncio.to_thread(self.outbox.status)

    async def _turn(self, identity: Identity, user_message: str, budget: float | None) -> str:
        if self.context_builder is not None:
            return await self._built_turn(identity, user_message)
        message = Message("user", user_message, name=identity.display_name)
        recall = self._persist_and_recall(identity, message)
        if budget is None:
            return await recall
        return await self._within_budget(identity, recall, budget)

    async def _persist_and_recall(self, identity: Identity, message: Message) -> str:
        # provisioning runs inside the budget: a first turn must not wait longer
        prepared = await _prepare([message])
        delivered, context = await self._write(identity.thread_id, identity, prepared, True)
        if not delivered:  # kept in the outbox: the last block still serves this turn
            return self._last_blocks.get((identity.user_id, identity.thread_id)) or ""
        block = self.render(context)
        self._last_blocks.set((identity.user_id, identity.thread_id), block)
        return block

    async def _within_budget(
        self, identity: Identity, recall: Awaitable[str], budget: float
    ) -> str:
        """Wait at most `budget` seconds; past it, use the thread's last good block and let the
        late result land in that slot for the next turn."""
        task = asyncio.ensure_future(recall)
        done, _ = await asyncio.wait({task}, timeout=budget)
        if task in done:
            return task.result()
        self._pending.add(task)
        task.add_done_callback(self._late_recall_done(identity))
        logger.info(
            "recall over its %.0f ms budget for user_id=%r thread_id=%r; using the last block",
            budget * 1000,
            identity.user_id,
            identity.thread_id,
        )
        return self._last_blocks.get((identity.user_id, identity.thread_id)) or ""

    def _late_recall_done(self, identity: Identity) -> Callable[[asyncio.Task[Any]], None]:
        def done(task: asyncio.Task[Any]) -> None:
            self._pending.discard(task)
            if task.cancelled():
                return
            exc = task.exception()
            if exc is not None:
                try:
                    self.failsoft.handle(
                        "late recall",
                        exc,
                        user_id=identity.user_id,
                        thread_id=identity.thread_id,
                    )
                except Exception:
                    logger.exception("late recall failure for thread_id=%r", identity.thread_id)

        return done

    async def _built_turn(self, identity: Identity, user_message: str) -> str:
        """Custom context: persistence and the builder run concurrently, each fail-soft alone."""
        assert self.context_builder is not None
        message = Message("user", user_message, name=identity.display_name)
        persist = self._write(identity.thread_id, identity, await _prepare([message]), False)
        built = within(
            self.deadline,
            self.context_builder(ContextInput(self, identity, user_message)),
            "context_builder",
        )
        stored, context = await asyncio.gather(persist, built, return_exceptions=True)
        if isinstance(stored, BaseException):
            self.failsoft.handle(
                "add_messages", stored, user_id=identity.user_id, thread_id=identity.thread_id
            )
        if isinstance(context, BaseException):
            self.failsoft.handle(
                "context_builder", context, user_id=identity.user_id, thread_id=identity.thread_id
            )
            return ""
        return self.render(context)

    async def capture_reply(
        self,
        identity: Identity,
        text: str | None,
        *,
        turn_id: str | None = None,
        is_tool_call: bool = False,
        partial: bool = False,
        name: str | None = None,
    ) -> bool:
        """Persist the assistant's final reply, once per turn. Tool calls, partial (streaming)
        chunks and empty text (or None) are skipped. True when the reply was stored (or kept in
        the outbox). Memory failures never raise unless `on_error` says so; text of another type
        is a `TypeError`."""
        _check_turn(identity, text, "text", optional=True)
        if is_tool_call or partial or text is None or not text.strip():
            return False
        key = (identity.user_id, identity.thread_id, turn_id) if turn_id is not None else None
        if key is not None:
            _, first = self._replies.setdefault(key, True)
            if not first:
                return False
        try:
            message = Message("assistant", text, name=name or self.assistant_name)
            await self._write(identity.thread_id, identity, await _prepare([message]), False)
            return True  # delivered, or kept in the outbox
        except Exception as exc:
            if key is not None:
                self._replies.pop(key)
            self.failsoft.handle(
                "capture_reply",
                exc,
                user_id=identity.user_id,
                thread_id=identity.thread_id,
                chars=len(text),
            )
            return False

    def search_tool(self, *, graph_id: str | None = None, **pinned: Any) -> SearchTool:
        """The model-callable search tool over this loop (see `SearchTool`)."""
        return SearchTool(self, graph_id=graph_id, **pinned)


class SyncMemory:
    """Blocking twins of `MemoryLoop`'s operations (for CrewAI, scripts, notebooks)."""

    def __init__(self, loop: MemoryLoop) -> None:
        self._loop = loop

    def run(self, coro: Awaitable[T]) -> T:
        """Run any zepkit coroutine to completion from blocking code."""
        return self._loop._portal.run(_as_coroutine(coro))

    async def arun(self, coro: Awaitable[T]) -> T:
        """Await a zepkit coroutine on the facade's private loop from any event loop.

        For adapters whose framework mixes blocking and async calls (tools run synchronously
        inside a running loop, repeated `asyncio.run`): routing every call through here keeps a
        backend's loop-bound resources (an HTTP connection pool) on one event loop."""
        return await self._loop._portal.arun(_as_coroutine(coro))

    def ensure_user(self, user_id: str, **profile: Any) -> bool:
        return self.run(self._loop.ensure_user(user_id, **profile))

    def ensure_thread(self, thread_id: str, *, user_id: str) -> bool:
        return self.run(self._loop.ensure_thread(thread_id, user_id=user_id))

    def ensure_graph(self, graph_id: str) -> bool:
        return self.run(self._loop.ensure_graph(graph_id))

    def provision(self, identity: Identity) -> None:
        self.run(self._loop.provision(identity))

    def add_messages(
        self, thread_id: str, messages: Sequence[Message], *, return_context: bool = False
    ) -> str | None:
        return self.run(self._loop.add_messages(thread_id, messages, return_context=return_context))

    def get_context(self, thread_id: str) -> str | None:
        return self.run(self._loop.get_context(thread_id))

    def get_messages(self, thread_id: str, *, limit: int | None = None) -> list[Message]:
        return self.run(self._loop.get_messages(thread_id, limit=limit))

    def search(self, query: str, **options: Any) -> SearchResults:
        return self.run(self._loop.search(query, **options))

    def add_data(self, data: str, **options: Any) -> list[Episode]:
        return self.run(self._loop.add_data(data, **options))

    def delete_thread(self, thread_id: str) -> None:
        self.run(self._loop.delete_thread(thread_id))

    def delete_user(self, user_id: str, *, vacuum: bool = False) -> None:
        self.run(self._loop.delete_user(user_id, vacuum=vacuum))

    def get_user(self, user_id: str) -> UserInfo:
        return self.run(self._loop.get_user(user_id))

    def list_users(
        self, *, cursor: str | None = None, limit: int = DEFAULT_PAGE_SIZE
    ) -> Page[UserInfo]:
        return self.run(self._loop.list_users(cursor=cursor, limit=limit))

    def list_threads(
        self, user_id: str, *, cursor: str | None = None, limit: int = DEFAULT_PAGE_SIZE
    ) -> Page[ThreadInfo]:
        return self.run(self._loop.list_threads(user_id, cursor=cursor, limit=limit))

    def list_messages(
        self, thread_id: str, *, cursor: str | None = None, limit: int = DEFAULT_PAGE_SIZE
    ) -> Page[Message]:
        return self.run(self._loop.list_messages(thread_id, cursor=cursor, limit=limit))

    def list_data(
        self, user_id: str, *, cursor: str | None = None, limit: int = DEFAULT_PAGE_SIZE
    ) -> Page[Episode]:
        return self.run(self._loop.list_data(user_id, cursor=cursor, limit=limit))

    def list_facts(
        self, user_id: str, *, cursor: str | None = None, limit: int = DEFAULT_PAGE_SIZE
    ) -> Page[Fact]:
        return self.run(self._loop.list_facts(user_id, cursor=cursor, limit=limit))

    def begin_turn(
        self,
        identity: Identity,
        user_message: str,
        *,
        turn_id: str | None = None,
        recall_budget: float | _Default | None = _Default.LOOP,
    ) -> str:
        return self.run(
            self._loop.begin_turn(
                identity, user_message, turn_id=turn_id, recall_budget=recall_budget
            )
        )

    def capture_reply(self, identity: Identity, text: str | None, **options: Any) -> bool:
        return self.run(self._loop.capture_reply(identity, text, **options))

    def drain(self) -> None:
        self.run(self._loop.drain())

    def replay_outbox(self, *, failed: bool = False) -> int:
        return self.run(self._loop.replay_outbox(failed=failed))

    def outbox_status(self) -> OutboxStatus | None:
        return self.run(self._loop.outbox_status())

    def close(self) -> None:
        """Close the loop (backend included) from blocking code."""
        loop = self._loop
        self.run(loop._close())  # late recalls and the outbox first
        loop._portal.close()


async def _as_coroutine(awaitable: Awaitable[T]) -> T:
    return await awaitable
