"""zepkit's own Zep path, `MemoryLoop.zep(base_url=...)` on the real zep-cloud 4.x SDK, against
the server: turns, replies, searches per scope and data, and memory that outlives a restart."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

from zepkit.core import Identity, MemoryLoop

ALICE = Identity(user_id="alice", thread_id="alice-chat-1", first_name="Alice")


async def _loop(server: Any) -> MemoryLoop:
    return MemoryLoop.zep(api_key=server.alpha_key, base_url=server.v4, on_error="raise")


async def test_turns_replies_and_recall(server: Any) -> None:
    loop = await _loop(server)
    try:
        await loop.provision(ALICE)
        assert await loop.begin_turn(ALICE, "I adopted a greyhound named Comet.") == ""
        assert await loop.capture_reply(ALICE, "Congratulations on adopting Comet!")
        later = Identity(user_id="alice", thread_id="alice-chat-2")
        await loop.provision(later)
        block = await loop.begin_turn(later, "What is my greyhound called?")
        assert "<ZEP_CONTEXT>" in block and "Comet" in block
        history = await loop.get_messages("alice-chat-1")
        assert [m.role for m in history] == ["user", "assistant"]
        assert history[1].content == "Congratulations on adopting Comet!"
    finally:
        await loop.aclose()


async def test_search_each_scope_and_add_data(server: Any) -> None:
    loop = await _loop(server)
    try:
        await loop.provision(ALICE)
        await loop.begin_turn(ALICE, "I work as a marine biologist in Halifax.")
        stored = await loop.add_data(
            '{"favourite_colour": "turquoise"}', type="json", user_id="alice"
        )
        assert stored and stored[0].uuid
        edges = await loop.search("marine biologist Halifax", user_id="alice", scope="edges")
        assert any("Halifax" in f.fact for f in edges.edges)
        episodes = await loop.search(
            "favourite colour turquoise", user_id="alice", scope="episodes"
        )
        assert any("turquoise" in e.content for e in episodes.episodes)
        nodes = await loop.search("Halifax", user_id="alice", scope="nodes", limit=5)
        assert nodes.nodes and len(nodes.nodes) <= 5
        auto = await loop.search(
            "Where does Alice work?", user_id="alice", scope="auto", reranker=None
        )
        assert auto.context is not None and "Halifax" in auto.context
    finally:
        await loop.aclose()


async def test_shared_graph_data_stays_in_its_graph(server: Any) -> None:
    loop = await _loop(server)
    try:
        await loop.provision(ALICE)
        await loop.add_data("Refunds take 14 days via the Finance team.", graph_id="handbook")
        shared = await loop.search("refunds Finance", graph_id="handbook")
        assert any("14 days" in f.fact for f in shared.edges)
        own = await loop.search("refunds Finance", user_id="alice")
        assert not own.edges
    finally:
        await loop.aclose()


async def test_memory_survives_a_restart(
    start: Callable[[], AbstractContextManager[Any]],
) -> None:
    with start() as running:
        loop = await _loop(running)
        await loop.provision(ALICE)
        await loop.begin_turn(ALICE, "My locker code is ZEBRA-7781.")
        await loop.aclose()
    with start() as running:
        loop = await _loop(running)  # a new client knows no UUIDs: it looks the user up again
        try:
            found = await loop.search("locker code ZEBRA", user_id="alice", scope="episodes")
            assert any("ZEBRA-7781" in e.content for e in found.episodes)
        finally:
            await loop.aclose()


async def test_a_users_new_name_reaches_the_server_from_another_process(server: Any) -> None:
    first, second = await _loop(server), await _loop(server)
    try:
        await first.ensure_user("alice", first_name="Alice", email="alice@example.com")
        # a second process knows nothing of alice: its create meets a conflict, and the
        # name it was given differs from the stored one, so it is sent
        assert await second.ensure_user("alice", first_name="Ali") is False
        stored = await first.get_user("alice")
        assert (stored.first_name, stored.email) == ("Ali", "alice@example.com")
    finally:
        await first.aclose()
        await second.aclose()
