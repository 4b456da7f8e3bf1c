"""`ZepStorage` and `ZepGraphStorage`: save routing, composed search records, scoped reset."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest

from zepkit.core import MemoryLoop
from zepkit.crewai import ZepGraphStorage, ZepStorage
from zepkit.local import LocalBackend
from zepkit.testing import FailingBackend


@pytest.fixture
def memory() -> Iterator[MemoryLoop]:
    loop = MemoryLoop.local(":memory:")
    yield loop
    loop.sync.close()


def test_messages_go_to_the_thread_and_data_to_the_users_graph(memory: MemoryLoop) -> None:
    storage = ZepStorage(memory, user_id="ana", thread_id="ana-1", first_name="Ana")
    storage.save("I adopted a greyhound called Pixel.", {"type": "message", "role": "user"})
    storage.save("Noted!", {"type": "message", "role": "assistant", "name": "Helper"})
    storage.save("Ana's greyhound Pixel is allergic to chicken.", {"type": "text"})
    storage.save({"pet": "Pixel", "vet": "Dr Okafor"}, {"type": "json"})

    stored = memory.sync.get_messages("ana-1")
    assert [(m.role, m.content, m.name) for m in stored] == [
        ("user", "I adopted a greyhound called Pixel.", "Ana"),
        ("assistant", "Noted!", "Helper"),
    ]
    found = memory.sync.search("Pixel chicken allergic", user_id="ana", scope="episodes")
    assert any("allergic to chicken" in e.content for e in found.episodes)
    json_found = memory.sync.search("Okafor", user_id="ana", scope="episodes")
    assert any('"vet": "Dr Okafor"' in e.content for e in json_found.episodes)


def test_search_returns_one_record_with_the_composed_context(memory: MemoryLoop) -> None:
    storage = ZepStorage(memory, user_id="ana", thread_id="ana-1")
    storage.save("My greyhound Pixel is allergic to chicken.", {"type": "message"})
    records = storage.search("Pixel allergic chicken", limit=5)
    assert len(records) == 1
    assert "allergic to chicken" in records[0]["context"]
    assert records[0]["metadata"]["user_id"] == "ana"
    assert storage.search("zeppelin quasar", limit=5) == []


def test_search_sees_facts_of_other_threads_of_the_same_user_only(memory: MemoryLoop) -> None:
    ZepStorage(memory, user_id="ana", thread_id="ana-1").save(
        "My greyhound Pixel is allergic to chicken.", {"type": "message"}
    )
    ZepStorage(memory, user_id="bo", thread_id="bo-1").save(
        "My parrot Kiwi sings opera.", {"type": "message"}
    )
    later = ZepStorage(memory, user_id="ana", thread_id="ana-2").search("Pixel allergic")
    assert later and "chicken" in later[0]["context"]
    assert ZepStorage(memory, user_id="bo", thread_id="bo-2").search("Pixel allergic") == []


def test_reset_clears_only_this_thread(memory: MemoryLoop) -> None:
    mine = ZepStorage(memory, user_id="ana", thread_id="ana-1")
    other = ZepStorage(memory, user_id="ana", thread_id="ana-2")
    mine.save("Thread one message.", {"type": "message"})
    other.save("Thread two message.", {"type": "message"})
    mine.save("Ana prefers aisle seats.", {"type": "text"})

    mine.reset()

    assert memory.sync.get_messages("ana-1") == []
    assert [m.content for m in memory.sync.get_messages("ana-2")] == ["Thread two message."]
    graph = memory.sync.search("aisle seats", user_id="ana", scope="episodes")
    assert graph.episodes, "the user's graph is not touched by a thread reset"
    mine.save("After the reset.", {"type": "message"})
    assert [m.content for m in memory.sync.get_messages("ana-1")] == ["After the reset."]


def test_bad_type_is_a_programming_error(memory: MemoryLoop) -> None:
    storage = ZepStorage(memory, user_id="ana", thread_id="ana-1")
    with pytest.raises(ValueError, match="type"):
        storage.save("x", {"type": "picture"})


def test_failing_backend_is_fail_soft(caplog: pytest.LogCaptureFixture) -> None:
    memory = MemoryLoop(FailingBackend(LocalBackend(":memory:")))
    storage = ZepStorage(memory, user_id="ana", thread_id="ana-1")
    with caplog.at_level(logging.WARNING, logger="zepkit"):
        storage.save("My PIN is 4242.", {"type": "message"})
        assert storage.search("PIN") == []
    assert caplog.records
    assert all("4242" not in r.getMessage() for r in caplog.records)
    memory.sync.close()


def test_graph_storage_composes_facts_entities_and_episodes(memory: MemoryLoop) -> None:
    graph = ZepGraphStorage(memory, graph_id="handbook")
    graph.save("Refunds are issued within 14 days by the Billing Team.", {"type": "text"})
    graph.save({"policy": "returns", "window_days": 30}, {"type": "json"})
    graph.save("Is shipping free?", {"type": "message", "role": "user", "name": "Customer"})

    records = graph.search("refunds Billing Team", limit=5)
    assert len(records) == 1
    text = records[0]["context"]
    assert "<EPISODES>" in text and "14 days" in text
    assert records[0]["metadata"] == {"graph_id": "handbook"}
    shipped = memory.sync.search("shipping", graph_id="handbook", scope="episodes")
    assert any(e.content.startswith("Customer: Is shipping free?") for e in shipped.episodes)
    assert memory.sync.search("refunds", user_id="nobody-yet", scope="episodes").is_empty()


def test_graph_storage_needs_a_graph_id(memory: MemoryLoop) -> None:
    with pytest.raises(ValueError, match="graph_id"):
        ZepGraphStorage(memory, graph_id=" ")
