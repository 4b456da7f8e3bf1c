"""`MemoryLoop`: the one memory loop every adapter drives.

Provisioning is strict (real failures raise typed errors). The data path (writes, context, search)
is fail-soft: a backend failure is handled by the `on_error` policy and a neutral value comes back.
Invalid arguments always raise a `ValueError` or `TypeError` naming the field.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import os
import uuid
from collections.abc import AsyncIterator, Awaitable, Sequence
from datetime import datetime
from os import PathLike, fspath
from typing import Any

from zepkit.core._backend import Backend, Capabilities, SearchRequest, UserProfile
from zepkit.core._errors import ConflictError, NotFoundError
from zepkit.core._failsoft import FailSoft, OnError
from zepkit.core._limits import (
    DEFAULT_CONTEXT_CHARS,
    DEFAULT_DEADLINE,
    DEFAULT_PAGE_SIZE,
    DEFAULT_SEARCH_LIMIT,
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
from zepkit.core._rendering import DEFAULT_TEMPLATE, check_template
from zepkit.core._search_tool import SearchTool
from zepkit.core._spool import TRANSIENT, Spool
from zepkit.core._statedir import zep_outbox_path
from zepkit.core._sync import Portal, SyncMemory
from zepkit.core._turn import ContextBuilder, TurnMachinery, check_budget
from zepkit.core._turns import Once
from zepkit.core._validation import (
    batches,
    check_id,
    check_limit,
    check_page,
    check_query,
    check_target,
)
from zepkit.core._work import chunk_off_loop, prepare_off_loop, within

logger = logging.getLogger("zepkit.core")


def _log_kept(cause: BaseException | None, what: str) -> None:
    if cause is None:
        logger.info("zepkit: %s queued in the outbox behind earlier writes", what)
    else:
        logger.warning(
            "zepkit: memory unavailable (%s); %s kept in the outbox for replay",
            type(cause).__name__,
            what,
        )


class MemoryLoop(TurnMachinery):
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
        check_budget(recall_budget)
        check_budget(deadline, "deadline")
        if max_context_chars is not None and max_context_chars < 1:
            raise ValueError(f"max_context_chars must be positive, got {max_context_chars}")
        super().__init__(cache_size)
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
        prepared = await prepare_off_loop(messages)
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
        scope: Scope = "edges",
        reranker: Reranker | None = "rrf",
        limit: int = DEFAULT_SEARCH_LIMIT,
        mmr_lambda: float | None = None,
        center_node_uuid: str | None = None,
    ) -> SearchResults:
        """Search a user's graph or a shared graph (exactly one); empty results on failure. A query
        longer than `MAX_QUERY_CHARS` is cut to it (one INFO line)."""
        query = check_query(query)
        check_target(user_id, graph_id)
        check_limit(limit)
        if not self.capabilities.supports(scope):
            raise ValueError(
                f"scope {scope!r} is not supported; supported: {list(self.capabilities.scopes)}"
            )
        if (
            scope != "auto"
            and reranker is not None
            and not self.capabilities.supports(scope, reranker)
        ):
            valid = sorted(self.capabilities.rerankers[scope])
            raise ValueError(
                f"reranker {reranker!r} is not valid for scope {scope!r}; valid: {valid}"
            )
        if mmr_lambda is not None and not 0 <= mmr_lambda <= 1:
            raise ValueError(f"mmr_lambda must be between 0 and 1, got {mmr_lambda}")
        request = SearchRequest(
            query=query,
            user_id=user_id,
            graph_id=graph_id,
            scope=scope,
            reranker=None if scope == "auto" else reranker,
            limit=limit,
            mmr_lambda=mmr_lambda,
            center_node_uuid=center_node_uuid,
        )
        try:
            return await self.run_search(request)
        except Exception as exc:
            self.failsoft.handle("search", exc, user_id=user_id, graph_id=graph_id, scope=scope)
            return SearchResults(scope=scope)

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
        chunks = await chunk_off_loop(data, type)
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
        self._forget_user_turns(user_id, threads)

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
        self._forget_thread_turns(thread_id)

    async def _ensure_graph_once(self, graph_id: str) -> None:
        await self._provisioned.run(("graph", graph_id), lambda: self.ensure_graph(graph_id))

    async def drain(self) -> None:
        """Wait until recalls that ran past their budget have finished (they still store the turn
        and leave the thread's next block). Call it from the event loop that ran the turns; bound
        it with `asyncio.timeout` if needed. Then the outbox is replayed once (every write that
        waits is delivered unless the backend is still unavailable)."""
        await self._late_recalls()
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

    def search_tool(self, *, graph_id: str | None = None, **pinned: Any) -> SearchTool:
        """The model-callable search tool over this loop (see `SearchTool`)."""
        return SearchTool(self, graph_id=graph_id, **pinned)
