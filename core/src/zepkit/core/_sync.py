"""The loop's blocking API: `SyncMemory`, run through a `Portal`, inside or outside a running
event loop.

All blocking calls of one `MemoryLoop` share one private event loop on a daemon thread, so
resources bound to a loop (connection pools) stay on one loop and never see "event loop is closed".
Each twin repeats its coroutine's signature, so type checkers see blocking callers too.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Coroutine, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from zepkit.core._limits import DEFAULT_PAGE_SIZE, DEFAULT_SEARCH_LIMIT
from zepkit.core._models import (
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
from zepkit.core._outbox import OutboxStatus
from zepkit.core._turn import Default

if TYPE_CHECKING:
    from zepkit.core._loop import MemoryLoop

T = TypeVar("T")


class Portal:
    """A private event loop on a background thread, started on first use."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run `coro` to completion on the portal's loop and return its result (or raise)."""
        loop = self._start()
        if threading.current_thread() is self._thread:
            coro.close()
            raise RuntimeError("a blocking zepkit call cannot run on zepkit's own event loop")
        return asyncio.run_coroutine_threadsafe(coro, loop).result()

    async def arun(self, coro: Coroutine[Any, Any, T]) -> T:
        """Await `coro` run on the portal's loop, from any event loop, without blocking it."""
        loop = self._start()
        if threading.current_thread() is self._thread:
            return await coro
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, loop))

    def _start(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                thread = threading.Thread(target=loop.run_forever, name="zepkit-sync", daemon=True)
                thread.start()
                self._loop, self._thread = loop, thread
            return self._loop

    def close(self) -> None:
        """Stop the background loop; a later call starts a fresh one."""
        with self._lock:
            loop, thread = self._loop, self._thread
            self._loop = self._thread = None
        if loop is None or thread is None:
            return
        loop.call_soon_threadsafe(loop.stop)
        if threading.current_thread() is not thread:
            thread.join(timeout=5)
            loop.close()


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

    def ensure_user(
        self,
        user_id: str,
        *,
        first_name: str | None = None,
        last_name: str | None = None,
        email: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> bool:
        return self.run(
            self._loop.ensure_user(
                user_id, first_name=first_name, last_name=last_name, email=email, metadata=metadata
            )
        )

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

    def search(
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
        return self.run(
            self._loop.search(
                query,
                user_id=user_id,
                graph_id=graph_id,
                scope=scope,
                reranker=reranker,
                limit=limit,
                mmr_lambda=mmr_lambda,
                center_node_uuid=center_node_uuid,
            )
        )

    def add_data(
        self,
        data: str,
        *,
        type: DataType = "text",
        user_id: str | None = None,
        graph_id: str | None = None,
        created_at: datetime | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> list[Episode]:
        return self.run(
            self._loop.add_data(
                data,
                type=type,
                user_id=user_id,
                graph_id=graph_id,
                created_at=created_at,
                metadata=metadata,
            )
        )

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

    def update_message_metadata(
        self, thread_id: str, message_uuid: str, metadata: Mapping[str, Any]
    ) -> Message:
        return self.run(self._loop.update_message_metadata(thread_id, message_uuid, metadata))

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
        recall_budget: float | Default | None = Default.LOOP,
    ) -> str:
        return self.run(
            self._loop.begin_turn(
                identity, user_message, turn_id=turn_id, recall_budget=recall_budget
            )
        )

    def capture_reply(
        self,
        identity: Identity,
        text: str | None,
        *,
        turn_id: str | None = None,
        is_tool_call: bool = False,
        partial: bool = False,
        name: str | None = None,
    ) -> bool:
        return self.run(
            self._loop.capture_reply(
                identity,
                text,
                turn_id=turn_id,
                is_tool_call=is_tool_call,
                partial=partial,
                name=name,
            )
        )

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
