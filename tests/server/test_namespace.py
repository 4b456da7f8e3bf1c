"""A project's namespace on a shared backend (the local engine here, as a store two projects
share): ids are stored prefixed, come back bare, and one project never reaches the other's."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from zepkit.core import Message, UnsupportedError
from zepkit.core.spi import Backend, SearchRequest, UserProfile
from zepkit.local import LocalBackend
from zepkit.server.namespace import ProjectNamespace


@pytest.fixture
async def store() -> AsyncIterator[LocalBackend]:
    backend = LocalBackend(":memory:", retriever="lexical")
    yield backend
    await backend.aclose()


async def test_ids_are_stored_prefixed_and_returned_bare(store: LocalBackend) -> None:
    shop = ProjectNamespace(store, "shop")
    assert isinstance(shop, Backend)
    await shop.ensure_user(UserProfile("alice", first_name="Alice"))
    await shop.ensure_thread("chat", "alice")
    await shop.add_messages("chat", [Message("user", "My heron is called Wade.")], user_id="alice")
    assert (await store.get_user("shop:alice")).first_name == "Alice"
    assert [m.content for m in await store.get_messages("shop:chat")] == [
        "My heron is called Wade."
    ]
    assert (await shop.get_user("alice")).user_id == "alice"
    found = await shop.search(SearchRequest("heron Wade", user_id="alice", scope="episodes"))
    assert [e.thread_id for e in found.episodes] == ["chat"]
    threads = await shop.list_threads("alice")
    assert [(t.thread_id, t.user_id) for t in threads.items] == [("chat", "alice")]
    episode = await shop.add_data("Wade eats fish.", type="text", user_id="alice")
    assert episode.thread_id is None
    assert [e.content for e in (await shop.list_data("alice")).items] == ["Wade eats fish."]
    await shop.ensure_graph("handbook")
    await shop.add_data("Refunds take 14 days.", type="text", graph_id="handbook")
    shared = await store.search(SearchRequest("refunds", graph_id="shop:handbook"))
    assert shared.edges


async def test_two_projects_on_one_store_never_meet(store: LocalBackend) -> None:
    shop, support = ProjectNamespace(store, "shop"), ProjectNamespace(store, "support")
    for project, said in ((shop, "My locker code is QX-7781."), (support, "I sail on Sundays.")):
        await project.ensure_user(UserProfile("alice"))
        await project.ensure_thread("chat", "alice")
        await project.add_messages("chat", [Message("user", said)], user_id="alice")
    assert [m.content for m in await support.get_messages("chat")] == ["I sail on Sundays."]
    for scope in ("edges", "episodes", "nodes"):
        found = await support.search(SearchRequest("locker code", user_id="alice", scope=scope))  # type: ignore[arg-type]
        assert "QX-7781" not in found.model_dump_json()
    await shop.delete_user("alice")
    assert [m.content for m in await support.get_messages("chat")] == ["I sail on Sundays."]
    with pytest.raises(UnsupportedError):
        await shop.list_users()  # the store's listing holds every project's users


def test_a_project_name_with_a_colon_is_refused(store: LocalBackend) -> None:
    with pytest.raises(ValueError, match="no ':'"):
        ProjectNamespace(store, "shop:eu")
