"""Search results per scope map into zepkit's models; targets resolve to the right graph."""

from __future__ import annotations

import pytest

from zepkit.core import MemoryLoop
from zepkit.core._backend import SearchRequest, UserProfile
from zepkit.core._errors import NotFoundError
from zepkit.core._models import Message
from zepkit.zep import ZepBackend
from zepkit.zep.testing import FakeZep


@pytest.fixture
async def seeded(zep: ZepBackend) -> ZepBackend:
    await zep.ensure_user(UserProfile("alice"))
    await zep.ensure_thread("t1", "alice")
    await zep.add_messages(
        "t1",
        [
            Message("user", "My greyhound Comet loves the beach.", name="Alice"),
            Message("assistant", "Comet sounds like a happy dog.", name="Assistant"),
        ],
    )
    return zep


async def test_observations_come_back_as_nodes(seeded: ZepBackend) -> None:
    results = await seeded.search(
        SearchRequest(query="greyhound beach", user_id="alice", scope="observations")
    )
    assert results.scope == "observations"
    assert results.nodes and not results.edges and not results.episodes
    assert results.nodes[0].name == "Observation"
    assert "greyhound" in results.nodes[0].summary


async def test_thread_summaries_come_back_as_episodes(seeded: ZepBackend) -> None:
    results = await seeded.search(
        SearchRequest(query="Comet beach", user_id="alice", scope="thread_summaries")
    )
    assert results.scope == "thread_summaries"
    (summary,) = results.episodes
    assert "beach" in summary.content and summary.thread_id == "t1"


async def test_episodes_carry_role_name_and_app_thread_id(seeded: ZepBackend) -> None:
    results = await seeded.search(
        SearchRequest(query="greyhound", user_id="alice", scope="episodes", reranker="mmr")
    )
    (episode,) = results.episodes
    assert (episode.role, episode.name, episode.thread_id) == ("user", "Alice", "t1")
    assert episode.source == "message" and episode.score is not None


async def test_nodes_and_edges(seeded: ZepBackend) -> None:
    nodes = await seeded.search(SearchRequest(query="Comet", user_id="alice", scope="nodes"))
    assert "Comet" in [node.name for node in nodes.nodes]
    edges = await seeded.search(SearchRequest(query="Comet", user_id="alice", limit=1))
    assert len(edges.edges) == 1 and "Comet" in edges.edges[0].fact


async def test_auto_returns_the_context_block(seeded: ZepBackend) -> None:
    results = await seeded.search(
        SearchRequest(query="beach", user_id="alice", scope="auto", reranker=None)
    )
    assert results.context is not None and "<FACTS>" in results.context
    assert not results.edges


async def test_unknown_user_is_not_found(zep: ZepBackend) -> None:
    with pytest.raises(NotFoundError, match="nobody"):
        await zep.search(SearchRequest(query="x", user_id="nobody"))


async def test_unknown_shared_graph_finds_nothing(fake: FakeZep, zep: ZepBackend) -> None:
    results = await zep.search(SearchRequest(query="x", graph_id="nowhere", scope="nodes"))
    assert results.is_empty() and results.scope == "nodes"
    assert fake.requests == []


async def test_shared_graph_gone_from_zep_finds_nothing(fake: FakeZep, zep: ZepBackend) -> None:
    await zep.ensure_graph("wiki")
    fake.graphs.clear()
    results = await zep.search(SearchRequest(query="x", graph_id="wiki"))
    assert results.is_empty()


async def test_add_data_to_unknown_shared_graph_is_not_found(zep: ZepBackend) -> None:
    with pytest.raises(NotFoundError, match="wiki"):
        await zep.add_data("x", type="text", graph_id="wiki")


async def test_thread_owned_elsewhere_is_checked_with_zep(fake: FakeZep, zep: ZepBackend) -> None:
    """A mapping written without its owner (another tool) is verified against Zep."""
    await zep.ensure_user(UserProfile("alice"))
    await zep.ensure_thread("t1", "alice")
    await zep.id_map.delete("thread_owner", "t1")
    assert await zep.ensure_thread("t1", "alice") is False
    assert await zep.id_map.get("thread_owner", "t1") == "alice"


async def test_loop_searches_several_scopes_on_zep(fake: FakeZep, seeded: ZepBackend) -> None:
    """One search of facts, entities and episodes: one Zep call per scope, each with the same
    ranking, merged into one result; the search tool's "all" is the same search."""
    memory = MemoryLoop(seeded)
    found = await memory.search("Comet beach", user_id="alice", scope="all", reranker="mmr")
    assert found.scopes == ("edges", "nodes", "episodes")
    assert found.edges and found.nodes and found.episodes
    assert found.hits()[0].kind == "edge"
    calls = fake.calls("POST", "*/search/*")
    assert sorted(c.path.rsplit("/", 1)[1] for c in calls) == ["edges", "episodes", "nodes"]
    assert {(c.json or {}).get("mmr_lambda") for c in calls} == {0.5}
    episode = next(hit for hit in found.hits() if hit.kind == "episode")
    assert (episode.role, episode.name) == ("user", "Alice")
    tool = memory.search_tool(offer_all=True)
    text = await tool.call({"query": "Comet beach", "scope": "all", "reranker": "mmr"}, "alice")
    assert text.startswith("Facts:\n- ") and "\n\nEntities:\n- " in text
    assert "\n\nEpisodes:\n- My greyhound Comet" in text


async def test_zep_only_scopes_combine_and_rules_hold_before_any_call(
    fake: FakeZep, seeded: ZepBackend
) -> None:
    memory = MemoryLoop(seeded)
    found = await memory.search(
        "greyhound", user_id="alice", scope=("observations", "thread_summaries")
    )
    assert found.nodes and found.nodes[0].name == "Observation" and found.episodes
    before = len(fake.requests)
    with pytest.raises(ValueError, match="needs center_node_uuid"):
        await memory.search(
            "Comet", user_id="alice", scope=("edges", "nodes"), reranker="node_distance"
        )
    with pytest.raises(ValueError, match="not valid for scope 'nodes'"):
        await memory.search("Comet", user_id="alice", scope="all", reranker="episode_mentions")
    assert len(fake.requests) == before
