"""Backends for testing how callers cope with failure and slowness."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from zepkit.core._backend import Backend, Capabilities, SearchRequest, UserProfile
from zepkit.core._errors import BackendError, BackendUnavailableError
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

ALL_OPERATIONS = frozenset(
    {
        "ensure_user",
        "ensure_thread",
        "ensure_graph",
        "add_messages",
        "get_context",
        "get_messages",
        "search",
        "add_data",
        "delete_thread",
        "delete_user",
        "get_user",
        "list_users",
        "list_threads",
        "list_messages",
        "list_data",
        "list_facts",
    }
)


class FailingBackend:
    """Wraps a real backend and makes the chosen operations fail (all of them by default).

    `calls` counts every attempted operation, so tests can check what was tried.
    """

    def __init__(
        self,
        inner: Backend,
        *,
        fail_on: frozenset[str] = ALL_OPERATIONS,
        error: BackendError | None = None,
        delay: float = 0.0,
    ) -> None:
        unknown = fail_on - ALL_OPERATIONS
        if unknown:
            raise ValueError(f"unknown operations {sorted(unknown)}")
        self.inner = inner
        self.fail_on = fail_on
        self.error = error or BackendUnavailableError("memory backend is down (simulated)")
        self.delay = delay
        self.calls: dict[str, int] = {}

    @property
    def capabilities(self) -> Capabilities:
        return self.inner.capabilities

    async def _gate(self, operation: str) -> None:
        self.calls[operation] = self.calls.get(operation, 0) + 1
        if self.delay:
            await asyncio.sleep(self.delay)
        if operation in self.fail_on:
            raise self.error

    async def ensure_user(self, user: UserProfile) -> bool:
        await self._gate("ensure_user")
        return await self.inner.ensure_user(user)

    async def ensure_thread(self, thread_id: str, user_id: str) -> bool:
        await self._gate("ensure_thread")
        return await self.inner.ensure_thread(thread_id, user_id)

    async def ensure_graph(self, graph_id: str) -> bool:
        await self._gate("ensure_graph")
        return await self.inner.ensure_graph(graph_id)

    async def add_messages(
        self,
        thread_id: str,
        messages: Sequence[Message],
        *,
        return_context: bool = False,
        user_id: str | None = None,
        idempotency_key: str | None = None,
    ) -> str | None:
        await self._gate("add_messages")
        return await self.inner.add_messages(
            thread_id,
            messages,
            return_context=return_context,
            user_id=user_id,
            idempotency_key=idempotency_key,
        )

    async def get_context(self, thread_id: str) -> str | None:
        await self._gate("get_context")
        return await self.inner.get_context(thread_id)

    async def get_messages(self, thread_id: str, *, limit: int | None = None) -> list[Message]:
        await self._gate("get_messages")
        return await self.inner.get_messages(thread_id, limit=limit)

    async def update_message_metadata(
        self, thread_id: str, message_uuid: str, metadata: Mapping[str, Any]
    ) -> Message:
        await self._gate("update_message_metadata")
        return await self.inner.update_message_metadata(thread_id, message_uuid, metadata)

    async def search(self, request: SearchRequest) -> SearchResults:
        await self._gate("search")
        return await self.inner.search(request)

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
        await self._gate("add_data")
        return await self.inner.add_data(
            data,
            type=type,
            user_id=user_id,
            graph_id=graph_id,
            created_at=created_at,
            metadata=metadata,
        )

    async def delete_thread(self, thread_id: str) -> None:
        await self._gate("delete_thread")
        await self.inner.delete_thread(thread_id)

    async def delete_user(self, user_id: str, *, vacuum: bool = False) -> None:
        await self._gate("delete_user")
        await self.inner.delete_user(user_id, vacuum=vacuum)

    async def get_user(self, user_id: str) -> UserInfo:
        await self._gate("get_user")
        return await self.inner.get_user(user_id)

    async def list_users(
        self, *, cursor: str | None = None, limit: int = DEFAULT_PAGE_SIZE
    ) -> Page[UserInfo]:
        await self._gate("list_users")
        return await self.inner.list_users(cursor=cursor, limit=limit)

    async def list_threads(
        self, user_id: str, *, cursor: str | None = None, limit: int = DEFAULT_PAGE_SIZE
    ) -> Page[ThreadInfo]:
        await self._gate("list_threads")
        return await self.inner.list_threads(user_id, cursor=cursor, limit=limit)

    async def list_messages(
        self, thread_id: str, *, cursor: str | None = None, limit: int = DEFAULT_PAGE_SIZE
    ) -> Page[Message]:
        await self._gate("list_messages")
        return await self.inner.list_messages(thread_id, cursor=cursor, limit=limit)

    async def list_data(
        self, user_id: str, *, cursor: str | None = None, limit: int = DEFAULT_PAGE_SIZE
    ) -> Page[Episode]:
        await self._gate("list_data")
        return await self.inner.list_data(user_id, cursor=cursor, limit=limit)

    async def list_facts(
        self, user_id: str, *, cursor: str | None = None, limit: int = DEFAULT_PAGE_SIZE
    ) -> Page[Fact]:
        await self._gate("list_facts")
        return await self.inner.list_facts(user_id, cursor=cursor, limit=limit)

    async def aclose(self) -> None:
        await self.inner.aclose()


class SlowBackend(FailingBackend):
    """Wraps a real backend and delays every operation by `delay` seconds, failing none."""

    def __init__(self, inner: Backend, *, delay: float) -> None:
        super().__init__(inner, fail_on=frozenset(), delay=delay)
