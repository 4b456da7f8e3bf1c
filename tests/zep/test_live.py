"""The backend contract against real Zep Cloud. Runs only with ZEP_API_KEY set (`-m live`).

Ids get a per-run prefix so runs never collide with each other or with real data. Zep extracts
memory asynchronously, so the recall tests may need Zep to have caught up.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator, Sequence
from datetime import datetime
from typing import Any

import pytest

from zepkit.core._backend import Capabilities, SearchRequest, UserProfile
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
from zepkit.testing import BackendContract
from zepkit.zep import ZepBackend

pytestmark = [
    pytest.mark.live,
    pytest.mark.skipif(not os.environ.get("ZEP_API_KEY"), reason="ZEP_API_KEY is not set"),
]


class Prefixed:
    """Delegates to a `ZepBackend` with every app id prefixed for this run."""

    def __init__(self, inner: ZepBackend, prefix: str) -> None:
        self.inner, self.prefix = inner, prefix

    def _id(self, value: str | None) -> str | None:
        return None if value is None else self.prefix + value

    @property
    def capabilities(self) -> Capabilities:
        return self.inner.capabilities

    async def ensure_user(self, user: UserProfile) -> bool:
        return await self.inner.ensure_user(
            UserProfile(self.prefix + user.user_id, user.first_name, user.last_name, user.email)
        )

    async def ensure_thread(self, thread_id: str, user_id: str) -> bool:
        return await self.inner.ensure_thread(self.prefix + thread_id, self.prefix + user_id)

    async def ensure_graph(self, graph_id: str) -> bool:
        return await self.inner.ensure_graph(self.prefix + graph_id)

    async def add_messages(
        self,
        thread_id: str,
        messages: Sequence[Message],
        *,
        return_context: bool = False,
        user_id: str | None = None,
        idempotency_key: str | None = None,
    ) -> str | None:
        return await self.inner.add_messages(
            self.prefix + thread_id,
            messages,
            return_context=return_context,
            user_id=None if user_id is None else self.prefix + user_id,
            idempotency_key=idempotency_key,
        )

    async def get_context(self, thread_id: str) -> str | None:
        return await self.inner.get_context(self.prefix + thread_id)

    async def get_messages(self, thread_id: str, *, limit: int | None = None) -> list[Message]:
        return await self.inner.get_messages(self.prefix + thread_id, limit=limit)

    async def search(self, request: SearchRequest) -> SearchResults:
        return await self.inner.search(
            SearchRequest(
                query=request.query,
                user_id=self._id(request.user_id),
                graph_id=self._id(request.graph_id),
                scope=request.scope,
                reranker=request.reranker,
                limit=request.limit,
                mmr_lambda=request.mmr_lambda,
                center_node_uuid=request.center_node_uuid,
            )
        )

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
        return await self.inner.add_data(
            data,
            type=type,
            user_id=self._id(user_id),
            graph_id=self._id(graph_id),
            created_at=created_at,
            metadata=metadata,
        )

    async def delete_thread(self, thread_id: str) -> None:
        await self.inner.delete_thread(self.prefix + thread_id)

    async def delete_user(self, user_id: str, *, vacuum: bool = False) -> None:
        await self.inner.delete_user(self.prefix + user_id, vacuum=vacuum)

    def _unprefixed(self, value: str) -> str:
        return value.removeprefix(self.prefix)

    async def get_user(self, user_id: str) -> UserInfo:
        user = await self.inner.get_user(self.prefix + user_id)
        return user.model_copy(update={"user_id": user_id})

    async def list_users(self, *, cursor: str | None = None, limit: int = 50) -> Page[UserInfo]:
        # Only this run's users: the project may hold others, so a page can come back short.
        page = await self.inner.list_users(cursor=cursor, limit=limit)
        mine = [
            u.model_copy(update={"user_id": self._unprefixed(u.user_id)})
            for u in page.items
            if u.user_id.startswith(self.prefix)
        ]
        return Page[UserInfo](items=mine, next_cursor=page.next_cursor)

    async def list_threads(
        self, user_id: str, *, cursor: str | None = None, limit: int = 50
    ) -> Page[ThreadInfo]:
        page = await self.inner.list_threads(self.prefix + user_id, cursor=cursor, limit=limit)
        threads = [
            ThreadInfo(
                thread_id=self._unprefixed(t.thread_id), user_id=user_id, created_at=t.created_at
            )
            for t in page.items
        ]
        return Page[ThreadInfo](items=threads, next_cursor=page.next_cursor)

    async def list_messages(
        self, thread_id: str, *, cursor: str | None = None, limit: int = 50
    ) -> Page[Message]:
        return await self.inner.list_messages(self.prefix + thread_id, cursor=cursor, limit=limit)

    async def list_data(
        self, user_id: str, *, cursor: str | None = None, limit: int = 50
    ) -> Page[Episode]:
        return await self.inner.list_data(self.prefix + user_id, cursor=cursor, limit=limit)

    async def list_facts(
        self, user_id: str, *, cursor: str | None = None, limit: int = 50
    ) -> Page[Fact]:
        return await self.inner.list_facts(self.prefix + user_id, cursor=cursor, limit=limit)

    async def aclose(self) -> None:
        await self.inner.aclose()


class TestZepCloud(BackendContract):
    @pytest.fixture
    async def backend(self) -> AsyncIterator[Prefixed]:
        inner = ZepBackend.from_api_key(base_url=os.environ.get("ZEP_BASE_URL"))
        backend = Prefixed(inner, f"zepkit-test-{uuid.uuid4().hex[:10]}-")
        yield backend
        for user_id in list(inner._users):
            if user_id.startswith(backend.prefix):
                await inner.client.user.delete(inner._users[user_id].uuid)
        await inner.aclose()
