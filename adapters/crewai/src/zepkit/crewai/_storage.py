"""Storage objects a crew's code saves to and searches: one user's thread, or a shared graph.

They keep CrewAI's classic storage shape (`save(value, metadata)`, `search(query, limit=...,
score_threshold=...)`, records that carry their text under `"context"`) and run on the core's
blocking facade, because CrewAI calls them from synchronous code.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping, Sequence
from typing import Any, cast

from zepkit.core import (
    DataType,
    Identity,
    MemoryLoop,
    Message,
    NotFoundError,
    SearchResults,
)
from zepkit.core.spi import check_memory, compose_context, fail_soft, fixed_identity
from zepkit.crewai._identity import STAGE, hint, ids

Record = dict[str, Any]
"""One search result: `{"context": text, "score": float, "metadata": {...}}`."""

_RESERVED = ("type", "role", "name")


class ZepStorage:
    """One user's memory as seen from one thread: messages go to the thread, data to the
    user's graph, and a search combines the thread's context with facts matching the query.

    The user is `user_id` / `thread_id` with the optional profile fields, or a zepkit `Identity`;
    without one the loop's `on_error` hears of it once, here, and the storage stays empty."""

    def __init__(
        self,
        memory: MemoryLoop,
        *,
        user_id: str | None = None,
        thread_id: str | None = None,
        first_name: str | None = None,
        last_name: str | None = None,
        email: str | None = None,
        identity: Identity | None = None,
    ) -> None:
        self.memory = check_memory(memory)
        self.identity = fixed_identity(
            identity,
            self.memory.failsoft,
            STAGE,
            user_id=user_id,
            thread_id=thread_id,
            first_name=first_name,
            last_name=last_name,
            email=email,
            hint=hint("ZepStorage"),
        )

    @property
    def user_id(self) -> str | None:
        return self.identity.user_id if self.identity is not None else None

    @property
    def thread_id(self) -> str | None:
        return self.identity.thread_id if self.identity is not None else None

    def save(self, value: Any, metadata: Mapping[str, Any] | None = None) -> None:
        """Store `value`: `metadata["type"]` "message" (with "role", "name") adds it to the
        thread; "text" (the default) or "json" adds it to the user's graph as data."""
        kind, extra = _kind(metadata)
        text = _as_text(value, kind)
        if self.identity is None:
            return
        if kind == "message":
            message = _message(text, metadata or {}, extra, default_name=self.identity.display_name)
            self.memory.sync.run(self._save_message(message))
        else:
            self.memory.sync.run(self._save_data(text, kind, extra))

    async def _save_message(self, message: Message) -> None:
        identity = await self._provisioned()
        if identity is not None:
            await self.memory.add_messages(identity.thread_id, [message])

    async def _save_data(self, text: str, kind: DataType, extra: dict[str, Any]) -> None:
        identity = await self._provisioned()
        if identity is not None:
            await self.memory.add_data(
                text, type=kind, user_id=identity.user_id, metadata=extra or None
            )

    def search(self, query: str, limit: int = 5, score_threshold: float = 0.0) -> list[Record]:
        """The thread's context and the user's facts for `query`, fetched in parallel and
        composed into one record (none when memory has nothing)."""
        return self.memory.sync.run(
            self.asearch(query, limit=limit, score_threshold=score_threshold)
        )

    async def asearch(
        self, query: str, limit: int = 5, score_threshold: float = 0.0
    ) -> list[Record]:
        """Async twin of `search`."""
        query = _query(query)
        identity = await self._provisioned()
        if identity is None:
            return []
        user_id, thread_id = identity.user_id, identity.thread_id
        context, found = await asyncio.gather(
            self.memory.get_context(thread_id),
            self.memory.search(query, user_id=user_id, scope="edges", limit=limit),
        )
        facts = [
            fact
            for fact in _above(found.edges, score_threshold)
            if not context or fact.fact not in context
        ]
        text = _join([context, compose_context(facts, [])])
        metadata = {"user_id": user_id, "thread_id": thread_id, "facts": len(facts)}
        return [_record(text, metadata)] if text else []

    def reset(self) -> None:
        """Delete this thread and its messages, then recreate it empty. Nothing else (the
        user's graph, other threads) is touched."""
        self.memory.sync.run(self._reset())

    async def _reset(self) -> None:
        identity = self.identity
        if identity is None:
            return
        try:
            await self.memory.delete_thread(identity.thread_id)
        except NotFoundError:
            return
        # The loop remembers this thread as provisioned, so it is recreated here.
        await self.memory.ensure_thread(identity.thread_id, user_id=identity.user_id)

    @fail_soft("crewai storage", None, fields=ids)
    async def _provisioned(self) -> Identity | None:
        """The identity once its user and thread exist; None: no memory this time."""
        if self.identity is not None:
            await self.memory.provision(self.identity)
        return self.identity


class ZepGraphStorage:
    """A shared knowledge graph (documents, policies): data is added to the graph, and a search
    looks at its facts, entities and episodes in parallel and composes one context string."""

    def __init__(self, memory: MemoryLoop, *, graph_id: str) -> None:
        if not isinstance(graph_id, str) or not graph_id.strip():
            raise ValueError("graph_id must be a non-empty string")
        self.memory = memory
        self.graph_id = graph_id

    def save(self, value: Any, metadata: Mapping[str, Any] | None = None) -> None:
        """Add `value` to the graph as "text" (default), "json" or "message" data (a message is
        stored as `name: text`, the name defaulting to the role)."""
        kind, extra = _kind(metadata)
        text = _as_text(value, kind)
        if kind == "message":
            message = _message(text, metadata or {}, extra, default_name=None)
            text = f"{message.name or message.role}: {message.content}"
        self.memory.sync.add_data(text, type=kind, graph_id=self.graph_id, metadata=extra or None)

    def search(self, query: str, limit: int = 5, score_threshold: float = 0.0) -> list[Record]:
        """Facts, entities and episodes for `query`, composed into one record (none if empty)."""
        return self.memory.sync.run(
            self.asearch(query, limit=limit, score_threshold=score_threshold)
        )

    async def asearch(
        self, query: str, limit: int = 5, score_threshold: float = 0.0
    ) -> list[Record]:
        """Async twin of `search`."""
        results = await self.search_all(_query(query), limit=limit)
        text = compose_context(
            _above(results.edges, score_threshold),
            _above(results.nodes, score_threshold),
            _above(results.episodes, score_threshold),
        )
        return [_record(text, {"graph_id": self.graph_id})] if text else []

    async def search_all(self, query: str, *, limit: int = 5) -> SearchResults:
        """Edges, nodes and episodes of the graph, searched in parallel, in one result."""
        return await self.memory.search(query, graph_id=self.graph_id, scope="all", limit=limit)


def _kind(metadata: Mapping[str, Any] | None) -> tuple[DataType, dict[str, Any]]:
    meta = dict(metadata or {})
    kind = meta.get("type", "text")
    if kind not in ("message", "text", "json"):
        raise ValueError(f'metadata["type"] must be "message", "text" or "json", got {kind!r}')
    return cast(DataType, kind), {k: v for k, v in meta.items() if k not in _RESERVED}


def _as_text(value: Any, kind: str) -> str:
    if isinstance(value, str):
        return value
    if kind == "json":
        return json.dumps(value, default=str)
    return str(value)


def _message(
    text: str, metadata: Mapping[str, Any], extra: dict[str, Any], *, default_name: str | None
) -> Message:
    return Message(
        metadata.get("role", "user"),
        text,
        name=metadata.get("name", default_name),
        metadata=extra or None,
    )


def _query(query: str) -> str:
    """CrewAI queries are often whole task descriptions; the loop keeps their first 400
    characters and says so once."""
    if not isinstance(query, str):
        raise TypeError(f"query must be a string, got {type(query).__name__}")
    return query


def _above(items: Sequence[Any], threshold: float) -> list[Any]:
    return [i for i in items if i.score is None or i.score >= threshold]


def _join(parts: Sequence[str | None]) -> str:
    return "\n\n".join(p.strip("\n") for p in parts if p and p.strip())


def _record(text: str, metadata: dict[str, Any]) -> Record:
    return {"context": text, "score": 1.0, "metadata": metadata}
