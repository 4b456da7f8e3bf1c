"""The contract between the memory loop and a storage engine (Zep Cloud, the local engine, ...).

The loop validates, splits and batches before it calls a backend, so a backend can rely on:
ids are non-blank, at most `MAX_MESSAGES_PER_CALL` messages per call, each with non-empty content of
at most `MAX_MESSAGE_CHARS` characters, data of at most `MAX_DATA_CHARS` characters, and a scope and
reranker its `capabilities` list. The loop never branches on which backend it holds, only on these
flags.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

from zepkit.core._limits import DEFAULT_PAGE_SIZE
from zepkit.core._models import (
    DataType,
    Episode,
    Fact,
    Message,
    Page,
    Reranker,
    Scope,
    SearchResults,
    ThreadInfo,
    UserInfo,
)
from zepkit.core._unicode import well_formed


@dataclass(frozen=True)
class Capabilities:
    """What a backend can do. `rerankers` maps each supported scope to the rerankers it accepts."""

    rerankers: Mapping[str, frozenset[str]]
    dense_vectors: bool = False

    @property
    def scopes(self) -> tuple[str, ...]:
        return tuple(self.rerankers)

    def supports(self, scope: str, reranker: str | None = None) -> bool:
        if scope not in self.rerankers:
            return False
        return reranker is None or reranker in self.rerankers[scope]


@dataclass(frozen=True)
class UserProfile:
    """A user as provisioned: the app's id plus optional profile fields."""

    user_id: str
    first_name: str | None = None
    last_name: str | None = None
    email: str | None = None
    metadata: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        for name in ("first_name", "last_name", "email"):  # half an emoji would fail the write
            value = getattr(self, name)
            if isinstance(value, str):
                object.__setattr__(self, name, well_formed(value))


@dataclass(frozen=True)
class SearchRequest:
    """One validated search: exactly one of `user_id` / `graph_id` is set."""

    query: str
    user_id: str | None = None
    graph_id: str | None = None
    scope: Scope = "edges"
    reranker: Reranker | None = "rrf"
    limit: int = 10
    mmr_lambda: float | None = None
    center_node_uuid: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # A lone surrogate (half an emoji) has no UTF-8 form: no index or embedder takes it.
        if isinstance(self.query, str):
            object.__setattr__(self, "query", well_formed(self.query))


@runtime_checkable
class Backend(Protocol):
    """An async memory store. Every method may raise a `zepkit.core._errors.BackendError`."""

    @property
    def capabilities(self) -> Capabilities: ...

    async def ensure_user(self, user: UserProfile) -> bool:
        """Create the user unless it exists; True when created. Idempotent and race-safe. On an
        existing user, the profile fields given (not None) replace the stored ones."""
        ...

    async def ensure_thread(self, thread_id: str, user_id: str) -> bool:
        """Create the thread for an existing user; True when created.

        Raises `NotFoundError` for an unknown user and `ConflictError` when the thread belongs to
        another user.
        """
        ...

    async def ensure_graph(self, graph_id: str) -> bool:
        """Create a shared graph unless it exists; True when created."""
        ...

    async def add_messages(
        self,
        thread_id: str,
        messages: Sequence[Message],
        *,
        return_context: bool = False,
        user_id: str | None = None,
        idempotency_key: str | None = None,
    ) -> str | None:
        """Store messages in order; with `return_context`, the thread's context in the same call.

        With `user_id`, ownership is checked where the write happens (another process may have
        deleted the thread and given its id to someone else): `ConflictError` when the thread
        belongs to another user, `NotFoundError` when it no longer exists. A write repeated with
        the same `idempotency_key` (a replay from the outbox) is stored once.
        """
        ...

    async def get_context(self, thread_id: str) -> str | None:
        """The context for the thread's latest messages, or None when there is nothing relevant."""
        ...

    async def get_messages(self, thread_id: str, *, limit: int | None = None) -> list[Message]:
        """The thread's messages, oldest first; with `limit`, only the most recent `limit`."""
        ...

    async def update_message_metadata(
        self, thread_id: str, message_uuid: str, metadata: Mapping[str, Any]
    ) -> Message:
        """Merge `metadata` onto one of the thread's messages (a key given None is removed; the
        content, role and time never change) and return the message as now stored.
        `NotFoundError` for an unknown thread or a uuid that is none of its messages';
        `ValueError` when more than `MAX_METADATA_KEYS` keys would remain."""
        ...

    async def search(self, request: SearchRequest) -> SearchResults: ...

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
        """Add one item (at most `MAX_DATA_CHARS`) to a user's graph or a shared graph."""
        ...

    async def delete_thread(self, thread_id: str) -> None:
        """Delete a thread and its messages (the user's derived memory may keep what it learned)."""
        ...

    async def delete_user(self, user_id: str, *, vacuum: bool = False) -> None:
        """Delete the user and everything of theirs: threads, messages, data and what was derived
        from them (facts, entities, vectors), and any ids kept for them. `NotFoundError` for an
        unknown user. With `vacuum`, a store that keeps freed space on disk also erases it (the
        local engine rewrites its file); a hosted store ignores it."""
        ...

    async def get_user(self, user_id: str) -> UserInfo:
        """The user's profile; `NotFoundError` for an unknown user."""
        ...

    async def list_users(
        self, *, cursor: str | None = None, limit: int = DEFAULT_PAGE_SIZE
    ) -> Page[UserInfo]:
        """Users in the order they were created, `limit` per page."""
        ...

    async def list_threads(
        self, user_id: str, *, cursor: str | None = None, limit: int = DEFAULT_PAGE_SIZE
    ) -> Page[ThreadInfo]:
        """The user's threads in the order they were created; `NotFoundError` for an unknown
        user."""
        ...

    async def list_messages(
        self, thread_id: str, *, cursor: str | None = None, limit: int = DEFAULT_PAGE_SIZE
    ) -> Page[Message]:
        """The thread's messages oldest first, `limit` per page; `NotFoundError` for an unknown
        thread."""
        ...

    async def list_data(
        self, user_id: str, *, cursor: str | None = None, limit: int = DEFAULT_PAGE_SIZE
    ) -> Page[Episode]:
        """The items added to the user's graph with `add_data` (not thread messages), oldest
        first, each with its type (`source`), time and metadata; `NotFoundError` for an unknown
        user. A page may hold fewer than `limit` where the store pages over messages too."""
        ...

    async def list_facts(
        self, user_id: str, *, cursor: str | None = None, limit: int = DEFAULT_PAGE_SIZE
    ) -> Page[Fact]:
        """The facts the store derived for the user, oldest first, each with the span of time it
        held (read-only: another store derives its own); `NotFoundError` for an unknown user."""
        ...

    async def aclose(self) -> None:
        """Release what the backend opened. Safe to call twice."""
        ...
