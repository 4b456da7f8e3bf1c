"""`Crew(memory=ZepCrewMemory(...))`: CrewAI's own recall and save, served by zepkit.

CrewAI 1.10+ accepts only a `crewai.memory.Memory` (or a scope/slice of one) as crew memory, and
its `StorageBackend` protocol only ever sees query *vectors*. So this subclass replaces the
entry points the crew calls (`recall`, `remember`, `remember_many`, `extract_memories`, `reset`)
and hands zepkit the real query text; no embedder, analysis LLM or local vector store is built.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from crewai.memory.types import MemoryMatch, MemoryRecord
from crewai.memory.unified_memory import Memory

from zepkit.core import UnsupportedError
from zepkit.crewai._storage import ZepGraphStorage, ZepStorage


class ZepCrewMemory(Memory):
    """Crew memory on a `ZepStorage` (one user's thread and graph) or a `ZepGraphStorage`.

    Recall returns the composed context as one match; saves go to the user's (or the shared)
    graph as text, where the backend extracts facts itself, so no LLM runs on the crew's side.
    Record-level operations of the local store (forget, update, list_records, info, tree) do not
    apply: the graph is maintained by the memory backend.
    """

    def __init__(self, storage: ZepStorage | ZepGraphStorage, **options: Any) -> None:
        if not isinstance(storage, ZepStorage | ZepGraphStorage):
            raise TypeError(
                f"storage must be a ZepStorage or ZepGraphStorage, got {type(storage).__name__}"
            )
        # CrewAI types `storage` as its vector StorageBackend; these methods never reach it.
        super().__init__(storage=storage, **options)  # type: ignore[arg-type]

    def model_post_init(self, context: Any, /) -> None:
        """Skip the base setup (an embedder config and a LanceDB store); keep the storage where
        CrewAI keeps it. Only CrewAI >= 1.14 (a pydantic `Memory`) calls this."""
        self._storage = self.storage  # type: ignore[assignment]

    def __deepcopy__(self, memo: dict[int, Any] | None = None) -> ZepCrewMemory:
        """Copies of a crew share this memory: it is a handle on an external store."""
        return self

    @property
    def zep_storage(self) -> ZepStorage | ZepGraphStorage:
        """The zepkit storage behind this memory."""
        storage = self._storage
        assert isinstance(storage, ZepStorage | ZepGraphStorage)
        return storage

    @property
    def _is_read_only(self) -> bool:
        # `read_only` is a field since CrewAI 1.14; before, a private `_read_only`.
        return bool(getattr(self, "read_only", getattr(self, "_read_only", False)))

    def extract_memories(self, content: str) -> list[str]:
        """The content as is: the memory backend extracts facts from it, not a crew-side LLM."""
        return [content] if content.strip() else []

    def remember(
        self,
        content: str,
        scope: str | None = None,
        categories: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        importance: float | None = None,
        source: str | None = None,
        private: bool = False,
        agent_role: str | None = None,
        root_scope: str | None = None,
    ) -> MemoryRecord | None:
        """Store one item as text data; None when this memory is read-only."""
        if self._is_read_only:
            return None
        meta = {"agent": agent_role} if agent_role else {}
        self.zep_storage.save(content, {"type": "text", **meta})
        return MemoryRecord(
            content=content,
            scope=root_scope or _root_scope(self),
            categories=categories or [],
            metadata=metadata or {},
            importance=getattr(self, "default_importance", 0.5)
            if importance is None
            else importance,
            source=source,
            private=private,
        )

    def remember_many(
        self,
        contents: list[str],
        scope: str | None = None,
        categories: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        importance: float | None = None,
        source: str | None = None,
        private: bool = False,
        agent_role: str | None = None,
        root_scope: str | None = None,
    ) -> list[MemoryRecord]:
        """Store each item now (zepkit writes are quick and fail-soft, so no background pool)."""
        records = [
            self.remember(
                content,
                categories=categories,
                metadata=metadata,
                importance=importance,
                source=source,
                private=private,
                agent_role=agent_role,
                root_scope=root_scope,
            )
            for content in contents
        ]
        return [record for record in records if record is not None]

    def recall(
        self,
        query: str,
        scope: str | None = None,
        categories: list[str] | None = None,
        limit: int = 10,
        depth: Literal["shallow", "deep"] = "deep",
        source: str | None = None,
        include_private: bool = False,
    ) -> list[MemoryMatch]:
        """Search zepkit with the query text; the composed context comes back as one match."""
        if not isinstance(query, str) or not query.strip():
            return []
        found = self.zep_storage.search(query, limit=limit)
        now = datetime.now()
        return [
            MemoryMatch(
                record=MemoryRecord(
                    content=record["context"],
                    scope=_root_scope(self),
                    created_at=now,
                    last_accessed=now,
                ),
                score=float(record["score"]),
                match_reasons=["zep"],
            )
            for record in found
        ]

    def reset(self, scope: str | None = None) -> None:
        """Reset the user's thread (`ZepStorage.reset`); a shared graph is never reset here."""
        storage = self.zep_storage
        if not isinstance(storage, ZepStorage):
            raise UnsupportedError("a shared graph is not reset from a crew")
        storage.reset()

    def reset_all(self) -> None:
        """Same as `reset()`: zepkit never wipes more than the user's thread from a crew."""
        self.reset()


def _root_scope(memory: Memory) -> str:
    return getattr(memory, "root_scope", None) or "/"
