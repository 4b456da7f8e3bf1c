"""`Crew(memory=ZepCrewMemory(...))`: CrewAI's own recall and save go to zepkit, with the real
query text, and the next crew run's LLM input carries what the first one saved."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from crewai import Crew

from zepkit.core import MemoryLoop, UnsupportedError
from zepkit.crewai import ZepCrewMemory, ZepGraphStorage, ZepStorage


class RecordingStorage(ZepStorage):
    """A `ZepStorage` that remembers the queries it was asked."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.queries: list[str] = []

    def search(self, query: str, limit: int = 5, score_threshold: float = 0.0) -> list[Any]:
        self.queries.append(query)
        return super().search(query, limit=limit, score_threshold=score_threshold)


@pytest.fixture
def memory() -> Iterator[MemoryLoop]:
    loop = MemoryLoop.local(":memory:")
    yield loop
    loop.sync.close()


def test_crew_recall_and_save_go_to_zepkit(
    memory: MemoryLoop, crew_factory: Any, script_factory: Any, react: Any
) -> None:
    _, final = react
    storage = RecordingStorage(memory, user_id="kai", thread_id="kai-1")
    crew_memory = ZepCrewMemory(storage)

    first = script_factory([final("Kai's cat Miso only eats salmon pate.")])
    crew, _ = crew_factory(first, "Note what Kai's cat Miso eats.", memory=crew_memory)
    assert isinstance(crew, Crew)
    crew.kickoff()
    assert storage.queries == ["Note what Kai's cat Miso eats."], "recall gets the real text"
    saved = memory.sync.search("Miso salmon", user_id="kai", scope="episodes")
    assert any("salmon pate" in e.content for e in saved.episodes)

    second = script_factory([final("Salmon pate.")])
    crew, _ = crew_factory(second, "What does Miso the cat eat?", memory=crew_memory)
    crew.kickoff()
    assert storage.queries[-1] == "What does Miso the cat eat?"
    assert "salmon pate" in second.inputs[0]


def test_recall_returns_matches_and_remember_returns_records(memory: MemoryLoop) -> None:
    crew_memory = ZepCrewMemory(ZepStorage(memory, user_id="kai", thread_id="kai-1"))
    record = crew_memory.remember("Kai is training for the Berlin marathon.")
    assert record is not None and record.content.startswith("Kai is training")
    matches = crew_memory.recall("Berlin marathon training", limit=5)
    assert len(matches) == 1 and "Berlin marathon" in matches[0].record.content
    assert matches[0].format().startswith("- (score=")
    assert crew_memory.recall("   ") == []
    assert crew_memory.extract_memories("Result: done") == ["Result: done"]
    assert crew_memory.remember_many(["a fact", "another fact"], agent_role="Coach")


def test_read_only_memory_saves_nothing(memory: MemoryLoop) -> None:
    crew_memory = ZepCrewMemory(
        ZepStorage(memory, user_id="kai", thread_id="kai-1"), read_only=True
    )
    assert crew_memory.remember("Kai likes figs.") is None
    assert memory.sync.search("figs", user_id="kai", scope="episodes").is_empty()


def test_reset_is_scoped_to_the_thread(memory: MemoryLoop) -> None:
    storage = ZepStorage(memory, user_id="kai", thread_id="kai-1")
    storage.save("Hello there.", {"type": "message"})
    ZepCrewMemory(storage).reset()
    assert memory.sync.get_messages("kai-1") == []
    shared = ZepCrewMemory(ZepGraphStorage(memory, graph_id="docs"))
    with pytest.raises(UnsupportedError):
        shared.reset()


def test_only_zepkit_storage_is_accepted() -> None:
    with pytest.raises(TypeError, match="ZepStorage"):
        ZepCrewMemory("lancedb")  # type: ignore[arg-type]
