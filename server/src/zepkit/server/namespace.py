"""A project's slice of a backend that several projects share (one Zep account behind the
server): every user, thread and graph id reaches the store as `<project>:<id>` and comes back
without the prefix. Project names hold no `:`, so two projects' ids never meet."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

from zepkit.core import (
    DEFAULT_PAGE_SIZE,
    DataType,
    Episode,
    Fact,
    Message,
    Page,
    SearchResults,
    ThreadInfo,
    UnsupportedError,
    UserInfo,
)
from zepkit.core.spi import Backend, Capabilities, SearchRequest, UserProfile


class ProjectNamespace:
    """The backend `inner` as one project sees it. It does not own `inner`: `aclose` does not
    close it (whoever made it closes it)."""

    def __init__(self, inner: Backend, project: str) -> None:
        if ":" in project:
            raise ValueError(f"a project name holds no ':', got {project!r}")
        self.inner = inner
        self.prefix = f"{project}:"

    def _in(self, value: str) -> str:
        return self.prefix + value

    def _maybe(self, value: str | None) -> str | None:
        return None if value is None else self.prefix + value

    def _out(self, value: str) -> str:
        return value[len(self.prefix) :] if value.startswith(self.prefix) else value

    def _episode(self, episode: Episode) -> Episode:
        if episode.thread_id is None:
            return episode
        return episode.model_copy(update={"thread_id": self._out(episode.thread_id)})

    @property
    def capabilities(self) -> Capabilities:
        return self.inner.capabilities

    async def ensure_user(self, user: UserProfile) -> bool:
        return await self.inner.ensure_user(replace(user, user_id=self._in(user.user_id)))

    async def ensure_thread(self, thread_id: str, user_id: str) -> bool:
        return await self.inner.ensure_thread(self._in(thread_id), self._in(user_id))

    async def ensure_graph(self, graph_id: str) -> bool:
        return await self.inner.ensure_graph(self._in(graph_id))

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
            self._in(thread_id),
            messages,
            return_context=return_context,
            user_id=self._maybe(user_id),
            idempotency_key=idempotency_key,
        )

    async def get_context(self, thread_id: str) -> str | None:
        return await self.inner.get_context(self._in(thread_id))

    async def get_messages(self, thread_id: str, *, limit: int | None = None) -> list[Message]:
        return await self.inner.get_messages(self._in(thread_id), limit=limit)

    async def update_message_metadata(
        self, thread_id: str, message_uuid: str, metadata: Mapping[str, Any]
    ) -> Message:
        return await self.inner.update_message_metadata(self._in(thread_id), message_uuid, metadata)

    async def search(self, request: SearchRequest) -> SearchResults:
        scoped = replace(
            request, user_id=self._maybe(request.user_id), graph_id=self._maybe(request.graph_id)
        )
        results = await self.inner.search(scoped)
        if not any(e.thread_id for e in results.episodes):
            return results
        return results.model_copy(update={"episodes": [self._episode(e) for e in results.episodes]})

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
        episode = await self.inner.add_data(
            data,
            type=type,
            user_id=self._maybe(user_id),
            graph_id=self._maybe(graph_id),
            created_at=created_at,
            metadata=metadata,
        )
        return self._episode(episode)

    async def delete_thread(self, thread_id: str) -> None:
        await self.inner.delete_thread(self._in(thread_id))

    async def delete_user(self, user_id: str, *, vacuum: bool = False) -> None:
        await self.inner.delete_user(self._in(user_id), vacuum=vacuum)

    async def get_user(self, user_id: str) -> UserInfo:
        found = await self.inner.get_user(self._in(user_id))
        return found.model_copy(update={"user_id": self._out(found.user_id)})

    async def list_users(
        self, *, cursor: str | None = None, limit: int = DEFAULT_PAGE_SIZE
    ) -> Page[UserInfo]:
        """Refused: the store's listing holds every project's users (the server lists a
        project's users from its own registry)."""
        raise UnsupportedError("a project's users are listed from the server's registry")

    async def list_threads(
        self, user_id: str, *, cursor: str | None = None, limit: int = DEFAULT_PAGE_SIZE
    ) -> Page[ThreadInfo]:
        page = await self.inner.list_threads(self._in(user_id), cursor=cursor, limit=limit)
        items = [
            t.model_copy(update={"thread_id": self._out(t.thread_id), "user_id": user_id})
            for t in page.items
        ]
        return Page[ThreadInfo](items=items, next_cursor=page.next_cursor)

    async def list_messages(
        self, thread_id: str, *, cursor: str | None = None, limit: int = DEFAULT_PAGE_SIZE
    ) -> Page[Message]:
        return await self.inner.list_messages(self._in(thread_id), cursor=cursor, limit=limit)

    async def list_data(
        self, user_id: str, *, cursor: str | None = None, limit: int = DEFAULT_PAGE_SIZE
    ) -> Page[Episode]:
        page = await self.inner.list_data(self._in(user_id), cursor=cursor, limit=limit)
        items = [self._episode(e) for e in page.items]
        return Page[Episode](items=items, next_cursor=page.next_cursor)

    async def list_facts(
        self, user_id: str, *, cursor: str | None = None, limit: int = DEFAULT_PAGE_SIZE
    ) -> Page[Fact]:
        return await self.inner.list_facts(self._in(user_id), cursor=cursor, limit=limit)

    async def aclose(self) -> None:
        """Nothing of its own to release."""
