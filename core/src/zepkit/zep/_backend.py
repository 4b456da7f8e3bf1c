"""`ZepBackend`: zepkit's `Backend` on Zep Cloud (API v4) through the zep-cloud SDK.

Apps keep their own ids. Users are created with `user_id=<app id>` and found again with
`user.lookup`; v4 threads and shared graphs have no developer id, so their Zep UUIDs (and each
thread's owner) live in an `IdMap`. Use `SqliteIdMap` when threads must outlive the process.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import uuid as uuid_module
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from zep_cloud.client import AsyncZep
from zep_cloud.core.request_options import RequestOptions
from zep_cloud.graph.client import AsyncGraphClient
from zep_cloud.graph.episode.client import AsyncEpisodeClient
from zep_cloud.thread.client import AsyncThreadClient
from zep_cloud.types import Thread, User
from zep_cloud.user.client import AsyncUserClient

from zepkit.core._backend import Capabilities, SearchRequest, UserProfile
from zepkit.core._errors import (
    BackendError,
    BackendUnavailableError,
    ConfigurationError,
    ConflictError,
    NotFoundError,
    RateLimitError,
)
from zepkit.core._limits import DEFAULT_PAGE_SIZE, MAX_RETRY_AFTER, MAX_SEARCH_LIMIT
from zepkit.core._models import (
    DataType,
    Episode,
    Fact,
    Message,
    Page,
    SearchResults,
    ThreadInfo,
    UserInfo,
    merged_metadata,
)
from zepkit.core._validation import check_page
from zepkit.zep._convert import (
    data_episode,
    from_iso,
    from_zep_message,
    to_add_message,
    to_fact,
    to_iso,
)
from zepkit.zep._errors import zep_errors
from zepkit.zep._idmap import IdMap, InMemoryIdMap
from zepkit.zep._keys import derive_key, episode_key, messages_key
from zepkit.zep._locks import KeyedLocks
from zepkit.zep._search import ZEP_CAPABILITIES, check_request, run_search

T = TypeVar("T")

THREAD = "thread"
THREAD_OWNER = "thread_owner"
THREAD_EPOCH = "thread_epoch"
THREAD_GONE = "thread_gone"  # a deleted thread's last owner, so delete_user finds its epoch
GRAPH = "graph"

_CACHE_SIZE = 10_000
_OMIT: Any = ...  # the SDK's "leave this field out of the body" sentinel
DEFAULT_REQUEST_TIMEOUT = 10.0
"""Seconds one HTTP request to Zep may take when zepkit makes the client (the SDK's own default
is 60); the loop's `deadline` bounds a whole operation, retries included."""


def _or_omit(value: Any) -> Any:
    return _OMIT if value is None else value


def _remember(cache: dict[str, T], key: str, value: T) -> None:
    """Insert into a bounded cache, dropping the oldest entry when full."""
    cache.pop(key, None)
    cache[key] = value
    if len(cache) > _CACHE_SIZE:
        del cache[next(iter(cache))]


_PROFILE_FIELDS = ("first_name", "last_name", "email", "metadata")


def _profile_fields(user: UserProfile | User) -> dict[str, Any]:
    """A user's profile fields, as a caller gave them or as Zep returned them."""
    return {field: getattr(user, field) for field in _PROFILE_FIELDS}


def _user_info(user: User, user_id: str) -> UserInfo:
    return UserInfo(
        user_id=user_id,
        first_name=user.first_name,
        last_name=user.last_name,
        email=user.email,
        metadata=user.metadata,
        created_at=from_iso(user.created_at),
    )


@dataclass(frozen=True)
class ZepUser:
    """A provisioned user: Zep's UUID for it and the UUID of its graph."""

    uuid: str
    graph_uuid: str


class ZepBackend:
    """The memory backend on Zep Cloud API v4. A client passed in is never closed by zepkit.

    With `client_factory` (what `from_api_key` uses) the backend owns its clients and makes one
    per event loop, because an HTTP connection pool must not cross loops: adapters and the sync
    facade may drive one backend from several loops. A single client passed in is used as is.
    """

    def __init__(
        self,
        client: AsyncZep,
        *,
        id_map: IdMap | None = None,
        owns_client: bool = False,
        max_retries: int | None = None,
        client_factory: Callable[[], AsyncZep] | None = None,
    ) -> None:
        if max_retries is not None and max_retries < 0:
            raise ValueError(f"max_retries must be >= 0, got {max_retries}")
        self.client = client
        self.id_map: IdMap = id_map if id_map is not None else InMemoryIdMap()
        self.owns_client = owns_client or client_factory is not None
        self._factory = client_factory
        self._loop_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, AsyncZep] = (
            weakref.WeakKeyDictionary()
        )
        self._first_free = True
        self._options: RequestOptions | None = (
            RequestOptions(max_retries=max_retries) if max_retries is not None else None
        )
        self._create_retries = 2 if max_retries is None else max_retries
        self._users: dict[str, ZepUser] = {}
        self._user_fields: dict[str, dict[str, Any]] = {}  # the profile Zep last returned
        self._thread_ids: dict[str, str] = {}  # thread UUID -> app thread id, for results
        self._locks = KeyedLocks()
        self._closed = False

    @classmethod
    def create(
        cls,
        api_key: str | None = None,
        *,
        client: AsyncZep | None = None,
        base_url: str | None = None,
        id_map: IdMap | None = None,
        timeout: float | None = None,
        max_retries: int | None = None,
    ) -> ZepBackend:
        """A backend on the caller's `client` (used as is, never closed by zepkit), or on its own
        client from the key (`from_api_key`); `id_map` (in memory by default) keeps app thread
        and graph ids -> Zep UUIDs."""
        if client is not None:
            if api_key is not None or base_url is not None or timeout is not None:
                raise ValueError("pass either client= or api_key/base_url/timeout, not both")
            return cls(client, id_map=id_map, max_retries=max_retries)
        return cls.from_api_key(
            api_key, base_url=base_url, timeout=timeout, id_map=id_map, max_retries=max_retries
        )

    @classmethod
    def from_api_key(
        cls,
        api_key: str | None = None,
        *,
        base_url: str | None = None,
        timeout: float | None = None,
        id_map: IdMap | None = None,
        max_retries: int | None = None,
    ) -> ZepBackend:
        """A backend on its own client (closed by `aclose`); the key defaults to `ZEP_API_KEY`.
        `timeout` is per HTTP request (default `DEFAULT_REQUEST_TIMEOUT`, 10 s)."""
        key = api_key if api_key is not None else os.environ.get("ZEP_API_KEY")
        if not key or not key.strip():
            raise ConfigurationError(
                "no Zep API key: set it in the environment (export ZEP_API_KEY=...) "
                "or pass api_key=..."
            )

        seconds = DEFAULT_REQUEST_TIMEOUT if timeout is None else timeout

        def make_client() -> AsyncZep:
            return AsyncZep(
                api_key=key, base_url=base_url, timeout=seconds, max_retries=max_retries
            )

        return cls(
            make_client(), id_map=id_map, max_retries=max_retries, client_factory=make_client
        )

    def _client(self) -> AsyncZep:
        """The client for the running event loop (the one client when there is no factory)."""
        if self._factory is None:
            return self.client
        loop = asyncio.get_running_loop()
        client = self._loop_clients.get(loop)
        if client is None:  # the first loop takes the first client; every later loop a new one
            client = self.client if self._first_free else self._factory()
            self._first_free = False
            self._loop_clients[loop] = client
        return client

    @property
    def _user_api(self) -> AsyncUserClient:
        api: AsyncUserClient = self._client().user
        return api

    @property
    def _thread_api(self) -> AsyncThreadClient:
        api: AsyncThreadClient = self._client().thread
        return api

    @property
    def _graph_api(self) -> AsyncGraphClient:
        api: AsyncGraphClient = self._client().graph
        return api

    @property
    def _episode_api(self) -> AsyncEpisodeClient:
        api: AsyncEpisodeClient = self._graph_api.episode
        return api

    @property
    def capabilities(self) -> Capabilities:
        return ZEP_CAPABILITIES

    # -- provisioning -------------------------------------------------------------------------

    async def ensure_user(self, user: UserProfile) -> bool:
        """Create the Zep user whose `user_id` is the app's id; on a conflict, look it up. An
        existing user's profile fields given here and different in Zep are updated."""
        async with self._locks.hold(("user", user.user_id)):
            if user.user_id in self._users:
                await self._update_fields(user)
                return False
            # One key per call, reused across retries: a replayed create must not say "created".
            key = str(uuid_module.uuid4())
            try:
                created = await self._retry_transient(
                    "user.create",
                    lambda: self._user_api.create(
                        user_id=user.user_id,
                        first_name=_or_omit(user.first_name),
                        last_name=_or_omit(user.last_name),
                        email=_or_omit(user.email),
                        metadata=_or_omit(user.metadata),
                        idempotency_key=key,
                        request_options=RequestOptions(max_retries=0),
                    ),
                    user_id=user.user_id,
                )
            except ConflictError:
                await self._user(user.user_id)
                await self._update_fields(user)
                return False
            self._remember_user(user.user_id, created, "user.create")
            return True

    async def _update_fields(self, user: UserProfile) -> None:
        """Send Zep the profile fields given that differ from what it last told (one PATCH of
        those fields only; none when nothing changed, so a known user costs no call)."""
        known = self._user_fields.get(user.user_id)
        changed = {
            field: value
            for field, value in _profile_fields(user).items()
            if value is not None and (known is None or known.get(field) != value)
        }
        if not changed:
            return
        zep_user = await self._user(user.user_id)
        with zep_errors("user.update", user_id=user.user_id):
            updated = await self._user_api.update(
                zep_user.uuid, **changed, request_options=self._options
            )
        self._remember_user(user.user_id, updated, "user.update")

    async def ensure_thread(self, thread_id: str, user_id: str) -> bool:
        """Create a Zep thread for the user and map the app's thread id to it."""
        async with self._locks.hold(("thread", thread_id)):
            known = await self.id_map.get(THREAD, thread_id)
            if known is not None:
                await self._check_owner(thread_id, known, user_id)
                _remember(self._thread_ids, known, thread_id)
                return False
            owner = await self._user(user_id)
            epoch = await self.id_map.get(THREAD_EPOCH, thread_id) or "0"
            with zep_errors("thread.create", thread_id=thread_id, user_id=user_id):
                thread = await self._thread_api.create(
                    user_uuid=owner.uuid,
                    idempotency_key=derive_key("thread.create", owner.uuid, thread_id, epoch),
                    request_options=self._options,
                )
            if not thread.uuid_:
                raise BackendError(f"Zep thread.create (thread_id={thread_id!r}): no uuid returned")
            await self.id_map.set(THREAD_OWNER, thread_id, user_id)
            await self.id_map.set(THREAD, thread_id, thread.uuid_)
            await self.id_map.delete(THREAD_GONE, thread_id)
            _remember(self._thread_ids, thread.uuid_, thread_id)
            return True

    async def ensure_graph(self, graph_id: str) -> bool:
        """Create a shared graph named after the app's id unless the id map knows it."""
        async with self._locks.hold(("graph", graph_id)):
            if await self.id_map.get(GRAPH, graph_id) is not None:
                return False
            with zep_errors("graph.create", graph_id=graph_id):
                graph = await self._graph_api.create(
                    name=graph_id,
                    idempotency_key=derive_key("graph.create", graph_id),
                    request_options=self._options,
                )
            if not graph.uuid_:
                raise BackendError(f"Zep graph.create (graph_id={graph_id!r}): no uuid returned")
            await self.id_map.set(GRAPH, graph_id, graph.uuid_)
            return True

    async def _check_owner(self, thread_id: str, thread_uuid: str, user_id: str) -> None:
        owner = await self.id_map.get(THREAD_OWNER, thread_id)
        if owner is None:  # mapped by someone else without an owner: ask Zep
            with zep_errors("thread.get", thread_id=thread_id):
                thread = await self._thread_api.get(thread_uuid, request_options=self._options)
            if thread.user_uuid == (await self._user(user_id)).uuid:
                await self.id_map.set(THREAD_OWNER, thread_id, user_id)
                return
        elif owner == user_id:
            return
        raise ConflictError(
            f"thread_id={thread_id!r} belongs to another user, not user_id={user_id!r}"
        )

    async def _user(self, user_id: str) -> ZepUser:
        """The user's Zep UUIDs (cached); `NotFoundError` when Zep has no such user."""
        cached = self._users.get(user_id)
        if cached is not None:
            return cached
        with zep_errors("user.lookup", user_id=user_id):
            found = await self._user_api.lookup(user_id=user_id, request_options=self._options)
        return self._remember_user(user_id, found, "user.lookup")

    def _remember_user(self, user_id: str, user: User, operation: str) -> ZepUser:
        if not user.uuid_:
            raise BackendError(f"Zep {operation} (user_id={user_id!r}): no uuid returned")
        zep_user = ZepUser(uuid=user.uuid_, graph_uuid=user.graph_uuid or user.uuid_)
        _remember(self._users, user_id, zep_user)
        _remember(self._user_fields, user_id, _profile_fields(user))
        return zep_user

    async def _thread_uuid(self, thread_id: str) -> str:
        found = await self.id_map.get(THREAD, thread_id)
        if found is None:
            raise NotFoundError(f"unknown thread_id={thread_id!r}: call ensure_thread first")
        _remember(self._thread_ids, found, thread_id)
        return found

    async def _retry_transient(
        self, operation: str, call: Callable[[], Awaitable[T]], **ids: object
    ) -> T:
        """Run a create sent without SDK retries (the SDK would also retry the 409 we expect,
        with seconds of backoff), retrying only outages and rate limits here."""
        attempt = 0
        while True:
            try:
                with zep_errors(operation, **ids):
                    return await call()
            except (BackendUnavailableError, RateLimitError) as exc:
                wait = getattr(exc, "retry_after", None)
                if attempt >= self._create_retries or (wait is not None and wait > MAX_RETRY_AFTER):
                    raise  # out of attempts, or told to come back later than is worth waiting
                backoff = wait if wait is not None else 0.5 * 2**attempt
                await asyncio.sleep(min(backoff, MAX_RETRY_AFTER))
                attempt += 1

    # -- messages and context -----------------------------------------------------------------

    async def add_messages(
        self,
        thread_id: str,
        messages: Sequence[Message],
        *,
        return_context: bool = False,
        user_id: str | None = None,
        idempotency_key: str | None = None,
    ) -> str | None:
        """Store one batch (the core sends at most 30) under the caller's idempotency key.
        With `user_id`, the id map must still name that user as the thread's owner."""
        thread_uuid = await self._thread_uuid(thread_id)
        if user_id is not None:
            await self._check_owner(thread_id, thread_uuid, user_id)
        key = messages_key(thread_uuid, messages, idempotency_key)
        try:
            with zep_errors("thread.add_messages", thread_id=thread_id, messages=len(messages)):
                result = await self._thread_api.add_messages(
                    thread_uuid,
                    messages=[to_add_message(message) for message in messages],
                    return_context=return_context,
                    idempotency_key=key,
                    request_options=self._options,
                )
        except NotFoundError:
            # deleted on Zep by another process: drop the stale mapping, so the next
            # ensure_thread creates a fresh thread instead of failing on this one forever
            async with self._locks.hold(("thread", thread_id)):
                if await self.id_map.get(THREAD, thread_id) == thread_uuid:
                    await self._forget_thread(thread_id, thread_uuid)
            raise
        if not return_context:
            return None
        return result.context if result.context and result.context.strip() else None

    async def get_context(self, thread_id: str) -> str | None:
        thread_uuid = await self._thread_uuid(thread_id)
        with zep_errors("thread.get_context", thread_id=thread_id):
            response = await self._thread_api.get_context(
                thread_uuid, request_options=self._options
            )
        context = response.context
        return context if context and context.strip() else None

    async def update_message_metadata(
        self, thread_id: str, message_uuid: str, metadata: Mapping[str, Any]
    ) -> Message:
        """Zep's `thread.message.update`, which merges; the message is read first so that too
        many keys is the caller's `ValueError` here too, not a request Zep rejects."""
        thread_uuid = await self._thread_uuid(thread_id)
        ids = {"thread_id": thread_id, "message_uuid": message_uuid}
        with zep_errors("thread.message.get", **ids):
            stored = await self._thread_api.message.get(
                thread_uuid, message_uuid, request_options=self._options
            )
        merged_metadata(stored.metadata, metadata)
        with zep_errors("thread.message.update", **ids):
            updated = await self._thread_api.message.update(
                thread_uuid, message_uuid, metadata=dict(metadata), request_options=self._options
            )
        message = from_zep_message(updated)
        if message is None:
            raise BackendError(f"Zep thread.message.update: a {updated.role!r} message")
        return message

    async def get_messages(self, thread_id: str, *, limit: int | None = None) -> list[Message]:
        """Oldest first; with `limit`, the newest `limit` read newest-first and turned around."""
        thread_uuid = await self._thread_uuid(thread_id)
        found: list[Message] = []
        with zep_errors("thread.list_messages", thread_id=thread_id):
            pager = await self._thread_api.list_messages(
                thread_uuid,
                page_size=None if limit is None else min(limit, MAX_SEARCH_LIMIT),
                order_by="created_at",
                order="asc" if limit is None else "desc",
                request_options=self._options,
            )
            async for item in pager:
                message = from_zep_message(item)
                if message is not None:
                    found.append(message)
                if limit is not None and len(found) >= limit:
                    break
        return found if limit is None else found[::-1]

    async def delete_thread(self, thread_id: str) -> None:
        """Delete the Zep thread and forget its mapping (also when Zep no longer had it)."""
        async with self._locks.hold(("thread", thread_id)):
            thread_uuid = await self._thread_uuid(thread_id)
            try:
                with zep_errors("thread.delete", thread_id=thread_id):
                    await self._thread_api.delete(
                        thread_uuid,
                        idempotency_key=derive_key("thread.delete", thread_uuid),
                        request_options=self._options,
                    )
            finally:
                await self._forget_thread(thread_id, thread_uuid)

    async def _forget_thread(self, thread_id: str, thread_uuid: str) -> None:
        # A new epoch gives a re-created thread a fresh create key, so Zep cannot replay the
        # answer that named the deleted thread.
        epoch = int(await self.id_map.get(THREAD_EPOCH, thread_id) or "0") + 1
        await self.id_map.set(THREAD_EPOCH, thread_id, str(epoch))
        owner = await self.id_map.get(THREAD_OWNER, thread_id)
        if owner is not None:
            await self.id_map.set(THREAD_GONE, thread_id, owner)
        await self.id_map.delete(THREAD, thread_id)
        await self.id_map.delete(THREAD_OWNER, thread_id)
        self._thread_ids.pop(thread_uuid, None)

    # -- graphs -------------------------------------------------------------------------------

    async def search(self, request: SearchRequest) -> SearchResults:
        """Search the user's graph or a shared graph; an unknown shared graph finds nothing."""
        check_request(request)
        if (request.user_id is None) == (request.graph_id is None):
            raise ValueError("a search names exactly one of user_id or graph_id")
        ids = {"scope": request.scope, "user_id": request.user_id, "graph_id": request.graph_id}
        if request.user_id is not None:
            target = (await self._user(request.user_id)).graph_uuid
        else:
            assert request.graph_id is not None
            shared = await self.id_map.get(GRAPH, request.graph_id)
            if shared is None:
                return SearchResults(scope=request.scope)
            target = shared
        try:
            with zep_errors("graph.search", **ids):
                return await run_search(
                    self._graph_api, target, request, self._thread_ids, self._options
                )
        except NotFoundError:
            if request.graph_id is None:
                raise
            return SearchResults(scope=request.scope)

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
        """Add one episode (the core chunks to 10,000 characters) to a user or shared graph."""
        if (user_id is None) == (graph_id is None):
            raise ValueError("add_data names exactly one of user_id or graph_id")
        if user_id is not None:
            target = (await self._user(user_id)).graph_uuid
        else:
            assert graph_id is not None
            shared = await self.id_map.get(GRAPH, graph_id)
            if shared is None:
                raise NotFoundError(f"unknown graph_id={graph_id!r}: call ensure_graph first")
            target = shared
        key = episode_key(target, data, type, created_at, metadata)
        with zep_errors("graph.episode.add", user_id=user_id, graph_id=graph_id, chars=len(data)):
            result = await self._episode_api.add(
                target,
                data=data,
                type=type,
                reference_time=_or_omit(to_iso(created_at)),
                metadata=_or_omit(metadata),
                idempotency_key=key,
                request_options=self._options,
            )
        episode = result.episode
        if episode is None or not episode.uuid_:
            raise BackendError(
                f"Zep graph.episode.add (user_id={user_id!r} graph_id={graph_id!r}): "
                "no episode returned"
            )
        return Episode(
            uuid=episode.uuid_,
            content=episode.content if episode.content is not None else data,
            source=type,
            created_at=from_iso(episode.reference_time) or from_iso(episode.created_at),
            metadata=episode.metadata if episode.metadata is not None else metadata,
        )

    # -- managing users and threads ------------------------------------------------------------

    async def delete_user(self, user_id: str, *, vacuum: bool = False) -> None:
        """Delete the Zep user (Zep then removes its threads, messages and graph) and forget every
        id kept for it here. `vacuum` has no meaning on Zep: its storage is Zep's to erase."""
        async with self._locks.hold(("user", user_id)):
            owner = await self._user(user_id)
            threads = [thread async for thread in self._all_threads(owner.uuid)]
            try:
                with zep_errors("user.delete", user_id=user_id):
                    await self._user_api.delete(
                        owner.uuid,
                        idempotency_key=derive_key("user.delete", owner.uuid),
                        request_options=self._options,
                    )
            finally:
                self._users.pop(user_id, None)  # gone, or unknown to Zep already
                self._user_fields.pop(user_id, None)
            for thread in threads:
                thread_uuid = thread.uuid_ or ""
                thread_id = self._thread_ids.pop(thread_uuid, None)
                if thread_id is None:
                    thread_id = await self.id_map.find(THREAD, thread_uuid)
                if thread_id is not None:
                    await self._forget_ids(thread_id)
            # threads of theirs deleted earlier left an epoch: those ids go too
            while (gone := await self.id_map.find(THREAD_GONE, user_id)) is not None:
                await self._forget_ids(gone)

    async def _forget_ids(self, thread_id: str) -> None:
        for kind in (THREAD, THREAD_OWNER, THREAD_EPOCH, THREAD_GONE):
            await self.id_map.delete(kind, thread_id)

    async def get_user(self, user_id: str) -> UserInfo:
        """The Zep user whose `user_id` is the app's id."""
        with zep_errors("user.lookup", user_id=user_id):
            found = await self._user_api.lookup(user_id=user_id, request_options=self._options)
        self._remember_user(user_id, found, "user.lookup")
        return _user_info(found, user_id)

    async def list_users(
        self, *, cursor: str | None = None, limit: int = DEFAULT_PAGE_SIZE
    ) -> Page[UserInfo]:
        """Users oldest first. Zep users made without an app id (`user_id`) are not zepkit's and
        are left out, so a page may hold fewer than `limit`."""
        check_page(limit, cursor)
        with zep_errors("user.list"):
            pager = await self._user_api.list(
                page_size=limit,
                cursor=cursor,
                order_by="created_at",
                order="asc",
                request_options=self._options,
            )
        users = [_user_info(user, user.user_id) for user in pager.items or () if user.user_id]
        return Page[UserInfo](items=users, next_cursor=pager.response.next_cursor or None)

    async def list_threads(
        self, user_id: str, *, cursor: str | None = None, limit: int = DEFAULT_PAGE_SIZE
    ) -> Page[ThreadInfo]:
        """The user's threads oldest first, under their app ids. A thread made outside zepkit
        (none in the id map) is listed under its Zep UUID, which is then mapped to it."""
        check_page(limit, cursor)
        owner = await self._user(user_id)
        with zep_errors("thread.list", user_id=user_id):
            pager = await self._thread_api.list(
                page_size=limit,
                cursor=cursor,
                order_by="created_at",
                order="asc",
                user_uuid=owner.uuid,
                request_options=self._options,
            )
        threads = []
        for thread in pager.items or ():
            if not thread.uuid_:
                raise BackendError(f"Zep thread.list (user_id={user_id!r}): thread without uuid")
            thread_id = await self._app_thread_id(thread.uuid_, user_id)
            created = from_iso(thread.created_at)
            threads.append(ThreadInfo(thread_id=thread_id, user_id=user_id, created_at=created))
        return Page[ThreadInfo](items=threads, next_cursor=pager.response.next_cursor or None)

    async def list_messages(
        self, thread_id: str, *, cursor: str | None = None, limit: int = DEFAULT_PAGE_SIZE
    ) -> Page[Message]:
        """The thread's messages oldest first, a page at a time (Zep's own cursor)."""
        check_page(limit, cursor)
        thread_uuid = await self._thread_uuid(thread_id)
        with zep_errors("thread.list_messages", thread_id=thread_id):
            pager = await self._thread_api.list_messages(
                thread_uuid,
                page_size=limit,
                cursor=cursor,
                order_by="created_at",
                order="asc",
                request_options=self._options,
            )
        messages = [m for m in map(from_zep_message, pager.items or ()) if m is not None]
        return Page[Message](items=messages, next_cursor=pager.response.next_cursor or None)

    async def list_data(
        self, user_id: str, *, cursor: str | None = None, limit: int = DEFAULT_PAGE_SIZE
    ) -> Page[Episode]:
        """The episodes of the user's graph that came from no thread, oldest first. Zep lists
        message episodes too; those are skipped, so a page may hold fewer than `limit`."""
        check_page(limit, cursor)
        graph = (await self._user(user_id)).graph_uuid
        with zep_errors("graph.episode.list", user_id=user_id):
            pager = await self._episode_api.list(
                graph,
                page_size=limit,
                cursor=cursor,
                order_by="created_at",
                order="asc",
                request_options=self._options,
            )
        items = [data_episode(episode) for episode in pager.items or () if not episode.thread_uuid]
        return Page[Episode](items=items, next_cursor=pager.response.next_cursor or None)

    async def list_facts(
        self, user_id: str, *, cursor: str | None = None, limit: int = DEFAULT_PAGE_SIZE
    ) -> Page[Fact]:
        """The edges of the user's graph, oldest first (Zep's `graph.edge.list`)."""
        check_page(limit, cursor)
        graph = (await self._user(user_id)).graph_uuid
        with zep_errors("graph.edge.list", user_id=user_id):
            pager = await self._graph_api.edge.list(
                graph,
                page_size=limit,
                cursor=cursor,
                order_by="created_at",
                order="asc",
                request_options=self._options,
            )
        facts = [fact for fact in map(to_fact, pager.items or ()) if fact is not None]
        return Page[Fact](items=facts, next_cursor=pager.response.next_cursor or None)

    async def _all_threads(self, user_uuid: str) -> AsyncIterator[Thread]:
        with zep_errors("thread.list"):
            pager = await self._thread_api.list(
                user_uuid=user_uuid, page_size=100, request_options=self._options
            )
            async for thread in pager:
                yield thread

    async def _app_thread_id(self, thread_uuid: str, user_id: str) -> str:
        known = self._thread_ids.get(thread_uuid) or await self.id_map.find(THREAD, thread_uuid)
        if known is None:
            known = thread_uuid
            if await self.id_map.get(THREAD, known) is None:
                await self.id_map.set(THREAD_OWNER, known, user_id)
                await self.id_map.set(THREAD, known, thread_uuid)
        _remember(self._thread_ids, thread_uuid, known)
        return known

    # -- lifecycle ----------------------------------------------------------------------------

    async def aclose(self) -> None:
        """Close the client only when this backend created or was handed ownership of it."""
        if self._closed:
            return
        self._closed = True
        if self.owns_client:
            # The SDK has no close(); its httpx client is the resource to release. Clients of
            # loops that are gone were dropped with their loop (their pools died with it).
            clients = {id(c): c for c in (self.client, *self._loop_clients.values())}
            for client in clients.values():
                with contextlib.suppress(Exception):
                    await client._client_wrapper.httpx_client.httpx_client.aclose()
