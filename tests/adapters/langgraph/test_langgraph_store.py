"""`ZepStore`: every operation through `batch` and `abatch`, the namespace rule, search routing."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from langgraph.store.base import GetOp, Item, ListNamespacesOp, PutOp, SearchItem, SearchOp
from langgraph.store.memory import InMemoryStore

from zepkit.core import MemoryLoop
from zepkit.langgraph import StoreTarget, ZepStore, default_namespace_target

ANA = ("users", "ana", "notes")


@pytest.fixture
async def memory() -> AsyncIterator[MemoryLoop]:
    loop = MemoryLoop.local(":memory:")
    yield loop
    await loop.aclose()


def test_namespace_rule() -> None:
    assert default_namespace_target(("users", "ana")) == StoreTarget(user_id="ana")
    assert default_namespace_target(ANA) == StoreTarget(user_id="ana")
    assert default_namespace_target(("docs", "hr")) == StoreTarget(graph_id="docs")
    assert default_namespace_target(("users",)) is None
    assert default_namespace_target(()) is None
    with pytest.raises(ValueError, match="exactly one"):
        StoreTarget()


@pytest.mark.parametrize("mode", ["batch", "abatch"])
async def test_every_op_in_one_batch(memory: MemoryLoop, mode: str) -> None:
    delegate = InMemoryStore()
    store = ZepStore(memory, delegate=delegate)
    writes: list[Any] = [
        PutOp(ANA, "pet", {"text": "Ana's parrot Kiwi speaks Portuguese"}),
        PutOp(ANA, "food", {"text": "Ana is allergic to peanuts"}),
        PutOp(("docs", "hr"), "leave", {"text": "Parental leave lasts sixteen weeks"}),
        PutOp(ANA, "hidden", {"text": "parrot cage cleaning schedule"}, index=False),
    ]
    reads: list[Any] = [
        GetOp(ANA, "pet"),
        SearchOp(("users", "ana"), query="parrot"),
        SearchOp(("users", "ana"), filter={"text": "Ana is allergic to peanuts"}),
        SearchOp(("docs",), query="parental leave"),
        ListNamespacesOp(),
        PutOp(ANA, "food", None),
    ]
    run = store.batch if mode == "batch" else None
    batches = []
    for ops in (writes, reads, [GetOp(ANA, "food")]):
        batches.append(run(ops) if run else await store.abatch(ops))
    assert batches[0] == [None] * 4
    results = batches[1]
    assert isinstance(results[0], Item) and results[0].value["text"].startswith("Ana's parrot")
    parrot = results[1]
    assert [(i.namespace, i.key) for i in parrot] == [(ANA, "pet")]  # not the index=False item
    assert isinstance(parrot[0], SearchItem) and parrot[0].score is not None
    assert [i.key for i in results[2]] == ["food"]  # no query: the delegate's filter search
    assert [(i.namespace, i.key) for i in results[3]] == [(("docs", "hr"), "leave")]
    assert set(results[4]) == {ANA, ("docs", "hr")}
    assert results[5] is None
    assert batches[2] == [None]  # deleted in the delegate
    # the puts reached memory: Ana's graph and the shared graph, not each other
    ana = await memory.search("parrot", user_id="ana", scope="episodes")
    assert any("Kiwi" in e.content for e in ana.episodes)
    assert not any("cage" in e.content for e in ana.episodes)
    docs = await memory.search("leave", graph_id="docs", scope="episodes")
    assert [e.content for e in docs.episodes] == ['{"text": "Parental leave lasts sixteen weeks"}']


async def test_search_routing_and_deletes(memory: MemoryLoop) -> None:
    store = ZepStore(memory)
    await store.aput(ANA, "pet", {"text": "Ana's parrot Kiwi"})
    store.put(("users", "ana", "todo"), "vet", {"text": "take the parrot to the vet"})
    store.put(("users", "bob"), "pet", {"text": "Bob's parrot Rio"})
    hits = await store.asearch(("users", "ana"), query="parrot")
    assert {i.key for i in hits} == {"pet", "vet"}
    assert [i.key for i in store.search(ANA, query="parrot")] == ["pet"]  # prefix honoured
    assert len(store.search(("users", "ana"), query="parrot", limit=1)) == 1
    paged = store.search(("users", "ana"), query="parrot", offset=1)
    assert [i.key for i in paged] == [hits[1].key]
    store.put(ANA, "pet", {"text": "Ana's cat Miso"})  # the current value comes back
    assert [i.value["text"] for i in store.search(ANA, query="parrot")] == ["Ana's cat Miso"]
    store.delete(ANA, "pet")
    assert store.search(ANA, query="parrot") == []  # deleted items never come back
    # ("users",) names no graph: the delegate answers (InMemoryStore without an index)
    assert {i.key for i in store.search(("users",), query="parrot")} == {"vet", "pet"}


async def test_fact_scope_returns_learned_facts(memory: MemoryLoop) -> None:
    store = ZepStore(memory, scope="edges")
    await store.aput(("users", "ana"), "pet", {"text": "Ana's parrot Kiwi speaks Portuguese"})
    hits = await store.asearch(("users", "ana"), query="parrot Kiwi")
    assert hits and all(i.namespace == ("users", "ana") for i in hits)
    assert any("Kiwi" in i.value["fact"] for i in hits)
    with pytest.raises(ValueError, match="scope"):
        ZepStore(memory, scope="auto")


async def test_memory_failure_does_not_break_the_store() -> None:
    from zepkit.local import LocalBackend
    from zepkit.testing import FailingBackend

    failing = MemoryLoop(FailingBackend(LocalBackend(":memory:")))
    store = ZepStore(failing)
    await store.aput(ANA, "pet", {"text": "parrot"})
    assert (await store.aget(ANA, "pet")) is not None
    assert await store.asearch(ANA, query="parrot") == []
    await failing.aclose()
