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
from collections.abc import Sequence
from datetime import datetime
from os import PathLike, fspath
from typing import Any, Literal

from zepkit.core._backend import Backend, Capabilities, SearchRequest, UserProfile
from zepkit.core._failsoft import FailSoft, OnError
from zepkit.core._limits import (
    DEFAULT_CONTEXT_CHARS,
    DEFAULT_DEADLINE,
    DEFAULT_SEARCH_LIMIT,
)
from zepkit.core._manage import Management
from zepkit.core._models import (
    DATA_TYPES,
    DataType,
    Episode,
    Identity,
    Message,
    Reranker,
    Scope,
    SearchResults,
)
from zepkit.core._outbox import Outbox
from zepkit.core._rendering import DEFAULT_TEMPLATE, check_template
from zepkit.core._search_params import SearchParams, merge_results
from zepkit.core._search_tool import SearchTool
from zepkit.core._spool import TRANSIENT, Spool
from zepkit.core._statedir import local_outbox_path, zep_outbox_path
from zepkit.core._sync import Portal, SyncMemory
from zepkit.core._turn import ContextBuilder, TurnMachinery, check_budget
from zepkit.core._turns import Once
from zepkit.core._validation import (
    check_id,
    check_target,
)
from zepkit.core._work import chunk_off_loop, prepare_off_loop, within

logger = logging.getLogger("zepkit.core")


class MemoryLoop(TurnMachinery, Management):
    """Identity, provisioning, the per-turn round trip, reply capture, rendering and search.

    This module holds construction, provisioning, the public writes and the reads; its parts live
    beside it: the turn (`TurnMachinery`, `_turn.py`), the write path to the backend or the outbox
    (`Delivery`, `_delivery.py`) and managing memory (`Management`, `_manage.py`)."""

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
        failsoft, template = _checked_settings(
            on_error, template, max_context_chars, recall_budget, deadline
        )
        super().__init__(cache_size)
        self.backend = backend
        self.failsoft = failsoft
        self.template = template
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
        The loop's own options (`on_error`, `outbox`, ...) configure the loop; the rest
        (`retriever`, `embedder`, `extractor`, `read_only`, `verify`, `llm`, `llm_worker`,
        `inline`) go to `zepkit.local.LocalBackend`, as `zep()` passes its own on. Writes the
        file cannot take (locked by another process) wait in `PATH.outbox`, a file made only
        when needed, unless `outbox=` says otherwise."""
        from zepkit.local import LocalBackend

        backend_options = _backend_options(cls, options, LocalBackend, "path")
        _check_settings_in(cls, options)  # before the file is opened, not after
        backend = LocalBackend(path, **backend_options)
        name = fspath(path)
        if (
            "outbox" not in options
            and name not in ("", ":memory:")
            and not name.startswith("file:")
        ):
            options["outbox"] = local_outbox_path(name)
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

        backend_options = _backend_options(cls, options, ZepBackend.create, "api_key")
        _check_settings_in(cls, options)  # before a client is made, not after
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
        """Create the user unless it exists; True when this call created it. On an existing
        user, the profile fields given replace the stored ones (the others stay)."""
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
        """Ensure the identity's user and thread exist, once per process (cached) for each
        profile: a turn that brings the user's new name sends it."""

        async def work() -> bool:
            await self.ensure_user(
                identity.user_id,
                first_name=identity.first_name,
                last_name=identity.last_name,
                email=identity.email,
            )
            return await self.ensure_thread(identity.thread_id, user_id=identity.user_id)

        await self._provisioned.run(provision_key(identity), work)

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

    def _forget_user(self, user_id: str, threads: set[str]) -> None:
        """A later turn of this user provisions everything again and starts with no block."""
        self._provisioned.forget_where(
            lambda key: (
                (key[0] != "graph" and key[1] == user_id)
                or (key[0] == "thread" and key[2] in threads)
            )
        )
        self._forget_user_turns(user_id, threads)

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

    def search_tool(self, *, graph_id: str | None = None, **pinned: Any) -> SearchTool:
        """The model-callable search tool over this loop (see `SearchTool`)."""
        return SearchTool(self, graph_id=graph_id, **pinned)


def _checked_settings(
    on_error: OnError,
    template: str,
    max_context_chars: int | None,
    recall_budget: float | None,
    deadline: float | None,
) -> tuple[FailSoft, str]:
    """Raise for a bad loop setting; else the failure policy and the template to keep."""
    check_budget(recall_budget)
    check_budget(deadline, "deadline")
    if max_context_chars is not None and max_context_chars < 1:
        raise ValueError(f"max_context_chars must be positive, got {max_context_chars}")
    return FailSoft(on_error), check_template(template)


def _check_settings_in(loop: type[MemoryLoop], options: dict[str, Any]) -> None:
    """`_checked_settings` over a constructor's loop options (defaults for those not given), so
    `local()` and `zep()` refuse a bad one before they open a backend that would be left open."""
    parameters = inspect.signature(loop).parameters
    names = ("on_error", "template", "max_context_chars", "recall_budget", "deadline")
    _checked_settings(*(options.get(name, parameters[name].default) for name in names))


def _backend_options(
    loop: type[MemoryLoop], options: dict[str, Any], backend: Any, positional: str
) -> dict[str, Any]:
    """Take the options that are not `loop`'s own out of `options`, for `backend` (a class or
    factory whose first parameter, `positional`, the caller passes itself). Raises TypeError
    naming an option that neither takes, with what each does take."""
    own = inspect.signature(loop).parameters.keys() - {"backend"}
    theirs = inspect.signature(backend).parameters.keys() - {positional}
    unknown = sorted(options.keys() - own - theirs)
    if unknown:
        raise TypeError(
            f"unknown option{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))}: "
            f"the loop takes {', '.join(sorted(own))}; the backend takes "
            f"{', '.join(sorted(theirs))}"
        )
    return {key: options.pop(key) for key in list(options) if key not in own}


def provision_key(identity: Identity) -> tuple[str, ...]:
    """What `MemoryLoop.provision` caches: the thread, its user and the profile fields given."""
    profile = (identity.first_name, identity.last_name, identity.email)
    return ("thread", identity.user_id, identity.thread_id, *(value or "" for value in profile))
