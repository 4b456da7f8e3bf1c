"""`ZepMemoryService`: an ADK memory service on zepkit, so `load_memory` and `preload_memory`
read the same memory the context tool writes."""

from __future__ import annotations

import asyncio
from collections import Counter
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from google.adk.memory.base_memory_service import BaseMemoryService, SearchMemoryResponse
from google.adk.memory.memory_entry import MemoryEntry
from google.genai import types

from zepkit.adk._identity import content_text, has_tool_parts, resolve_identity
from zepkit.core import Identity, MemoryLoop, Message, Scope, SearchResults
from zepkit.core.spi import as_memory, check_search_options, fail_soft

if TYPE_CHECKING:
    from google.adk.events.event import Event
    from google.adk.sessions.session import Session

EVENT_ID_KEY = "adk_event_id"


def _session_fields(_: object, session: Session) -> dict[str, object]:
    return {"user_id": session.user_id, "session_id": session.id, "events": len(session.events)}


class ZepMemoryService(BaseMemoryService):
    """ADK's `BaseMemoryService` on a zepkit `MemoryLoop` (or a `zep_cloud.AsyncZep` client).

    `add_session_to_memory` stores a session's user and final assistant texts in the thread the
    context tool uses (same identity rules); what the thread already holds is never stored
    again. `search_memory` searches the user's graph (`scope`, `limit`) and returns one
    `MemoryEntry` per result. ADK's `app_name` is not part of the memory: use one loop per app.
    Note that search is by ADK's `user_id`, which ADK passes; a `zep_user_id` state key that
    differs from it is not visible there.
    """

    def __init__(
        self, memory: MemoryLoop | object, *, scope: Scope = "edges", limit: int = 10
    ) -> None:
        self.memory = as_memory(memory)
        check_search_options(self.memory.capabilities, scope=scope, limit=limit)
        self.scope: Scope = scope
        self.limit = limit
        self._ingest_lock = asyncio.Lock()

    @fail_soft("adk add_session_to_memory", None, fields=_session_fields)
    async def add_session_to_memory(self, session: Session) -> None:
        """Store the session's new messages; calling it again for the same session adds nothing."""
        identity = resolve_identity(session.state, session.user_id, session.id)
        async with self._ingest_lock:
            await self._ingest(identity, session.events)

    async def _ingest(self, identity: Identity, events: list[Event]) -> None:
        await self.memory.provision(identity)
        # Strict read: if it failed and we went on, everything would be stored a second time.
        stored = await self.memory.backend.get_messages(identity.thread_id, limit=None)
        seen_ids = {m.metadata.get(EVENT_ID_KEY) for m in stored if m.metadata}
        # Messages written by the context tool and reply callback carry no event id: match them
        # by role and text, each stored message standing for at most one event.
        unmatched = Counter(
            (m.role, m.content) for m in stored if not (m.metadata or {}).get(EVENT_ID_KEY)
        )
        new: list[Message] = []
        for event in events:
            message = self._message(identity, event)
            if message is None or event.id in seen_ids:
                continue
            key = (message.role, message.content)
            if unmatched[key] > 0:
                unmatched[key] -= 1
                continue
            new.append(message)
        if new:
            await self.memory.add_messages(identity.thread_id, new)

    def _message(self, identity: Identity, event: Event) -> Message | None:
        """The message an event stands for, or None for tool traffic, partial and empty events."""
        if event.partial or has_tool_parts(event.content):
            return None
        text = content_text(event.content)
        if not text.strip():
            return None
        user = event.author == "user"
        return Message(
            "user" if user else "assistant",
            text,
            name=identity.display_name if user else self.memory.assistant_name,
            created_at=datetime.fromtimestamp(event.timestamp, tz=UTC),
            metadata={EVENT_ID_KEY: event.id} if event.id else None,
        )

    async def search_memory(
        self, *, app_name: str, user_id: str, query: str
    ) -> SearchMemoryResponse:
        """Search the user's memory; an empty response when there is nothing or memory fails."""
        query = query.strip()
        if not query or not user_id.strip():
            return SearchMemoryResponse()
        results = await self.memory.search(
            query, user_id=user_id, scope=self.scope, limit=self.limit
        )
        return SearchMemoryResponse(memories=_entries(results))


def _entries(results: SearchResults) -> list[MemoryEntry]:
    """One `MemoryEntry` per fact, entity or episode (one for an `auto` context block)."""
    entries = [
        _entry(
            hit.text,
            id=hit.uuid,
            when=hit.when,
            author=(hit.name or hit.role) if hit.kind == "episode" else None,
            role="user" if hit.role in (None, "user") else "model",
            score=hit.score,
        )
        for hit in results.hits()
    ]
    if results.context and results.context.strip():
        entries.append(_entry(results.context, id=None, when=None))
    return entries


def _entry(
    text: str,
    *,
    id: str | None,
    when: datetime | None,
    author: str | None = None,
    role: str = "user",
    score: float | None = None,
) -> MemoryEntry:
    return MemoryEntry(
        content=types.Content(role=role, parts=[types.Part(text=text)]),
        id=id,
        author=author,
        timestamp=when.isoformat() if when else None,
        custom_metadata={"score": score} if score is not None else {},
    )
