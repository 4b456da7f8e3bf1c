from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from zepkit.core import Entity, Episode, Fact, Identity, MemoryLoop, SearchResults, SearchTool
from zepkit.core.spi import NO_RESULTS, SearchRequest, format_results
from zepkit.local import LocalBackend
from zepkit.testing import FailingBackend

ALICE = Identity(user_id="alice", thread_id="a1")
BOB = Identity(user_id="bob", thread_id="b1")


@pytest.fixture
async def seeded() -> AsyncIterator[MemoryLoop]:
    loop = MemoryLoop.local(":memory:")
    await loop.begin_turn(ALICE, "My brother Tobias plays the trombone in Vienna.")
    await loop.begin_turn(BOB, "I have never been to Vienna.")
    yield loop
    await loop.aclose()


def test_schema_exposes_what_the_backend_supports(memory: MemoryLoop) -> None:
    tool = memory.search_tool()
    schema = tool.parameters
    assert schema["required"] == ["query"]
    assert schema["properties"]["query"]["maxLength"] == 400
    assert schema["properties"]["scope"]["enum"] == list(memory.capabilities.scopes)
    assert set(schema["properties"]["reranker"]["enum"]) == {"rrf", "mmr"}
    assert "center_node_uuid" not in schema["properties"]  # node_distance is not offered here
    assert "user_id" not in schema["properties"] and "graph_id" not in schema["properties"]
    assert tool.name == "search_memory" and tool.description


def test_pinned_parameters_leave_the_schema(memory: MemoryLoop) -> None:
    tool = memory.search_tool(scope="nodes", limit=3, reranker=None)
    assert tool.visible_parameters == ("query",)
    assert tool.pinned == {"scope": "nodes", "limit": 3, "reranker": None}


@pytest.mark.parametrize(
    ("pins", "message"),
    [
        ({"user_id": "alice"}, "user_id cannot be pinned"),
        ({"query": "x"}, "cannot pin"),
        ({"scope": "observations"}, "not supported"),
        ({"scope": "episodes", "reranker": "node_distance"}, "not valid for scope"),
        ({"limit": 99}, "between 1 and 50"),
        ({"mmr_lambda": 2}, "between 0 and 1"),
    ],
)
def test_invalid_pins_fail_at_construction(
    memory: MemoryLoop, pins: dict[str, Any], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        SearchTool(memory, **pins)


async def test_call_searches_the_turns_user_only(seeded: MemoryLoop) -> None:
    tool = seeded.search_tool()
    found = await tool.call({"query": "Tobias trombone"}, ALICE)
    assert found.startswith("- ") and "Tobias" in found
    assert "Tobias" not in await tool.call({"query": "Tobias trombone"}, BOB)


async def test_scopes_format_per_scope(seeded: MemoryLoop) -> None:
    tool = seeded.search_tool()
    nodes = await tool.call({"query": "Tobias", "scope": "nodes"}, ALICE)
    assert any(line.startswith("- Tobias") for line in nodes.splitlines())
    episodes = await tool.call({"query": "trombone", "scope": "episodes"}, ALICE)
    assert "- My brother Tobias plays the trombone in Vienna." in episodes.splitlines()
    auto = await tool.call({"query": "What does Tobias play?", "scope": "auto"}, ALICE)
    assert "<FACTS>" in auto


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({}, "empty search query"),
        ({"query": "   "}, "empty search query"),
        ({"query": 42}, "empty search query"),
        ({"query": "x", "scope": "galaxy"}, "scope 'galaxy' is not available"),
        (
            {"query": "x", "scope": "episodes", "reranker": "cross_encoder"},
            "use one of ['mmr', 'rrf']",
        ),
        ({"query": "x", "limit": "many"}, "limit must be a whole number"),
        ({"query": "x", "reranker": "mmr", "mmr_lambda": 7}, "mmr_lambda"),
        ({"query": "x", "user_id": "bob"}, "unknown parameter"),
    ],
)
async def test_bad_arguments_come_back_as_sentences(
    seeded: MemoryLoop, args: dict[str, Any], expected: str
) -> None:
    answer = await seeded.search_tool().call(args, ALICE)
    assert answer.startswith("Error") and expected in answer


async def test_limit_is_clamped_and_long_queries_cut(seeded: MemoryLoop) -> None:
    tool = seeded.search_tool()
    assert "Tobias" in await tool.call({"query": "Tobias " + "x" * 600, "limit": 500}, ALICE)
    assert "Tobias" in await tool.call({"query": "Tobias", "limit": -3}, ALICE)


async def test_no_results_and_no_user(seeded: MemoryLoop) -> None:
    tool = seeded.search_tool()
    assert await tool.call({"query": "submarine"}, ALICE) == NO_RESULTS
    assert "no user" in await tool.call({"query": "Tobias"}, None)


async def test_request_is_what_call_runs_so_results_can_be_had_as_data(
    seeded: MemoryLoop,
) -> None:
    tool = seeded.search_tool(reranker=None)
    request = tool.request({"query": "Tobias", "scope": "edges", "limit": 3}, ALICE)
    assert isinstance(request, SearchRequest)
    assert (request.user_id, request.scope, request.reranker, request.limit) == (
        "alice",
        "edges",
        None,
        3,
    )
    results = await seeded.run_search(request)
    assert format_results(results) == await tool.call({"query": "Tobias", "limit": 3}, ALICE)
    assert "Tobias" in format_results(results)
    assert tool.request({"query": ""}, ALICE) == await tool.call({"query": ""}, ALICE)
    assert "no user" in str(tool.request({"query": "Tobias"}, None))


async def test_shared_graph_target_is_fixed(seeded: MemoryLoop) -> None:
    await seeded.add_data("The office closes at 6pm on Fridays.", graph_id="office")
    tool = seeded.search_tool(graph_id="office")
    assert "6pm" in await tool.call({"query": "office closes Friday"}, None)
    assert "Tobias" not in await tool.call({"query": "Tobias"}, ALICE)


async def test_failures_become_a_sentence_never_an_exception() -> None:
    loop = MemoryLoop(FailingBackend(LocalBackend(":memory:")))
    answer = await loop.search_tool().call({"query": "anything"}, ALICE)
    assert answer.startswith("Memory search failed (BackendUnavailableError)")
    assert (await loop.search_tool().call("not a mapping", ALICE)).startswith("Error")  # type: ignore[arg-type]
    await loop.aclose()


def test_call_sync_from_blocking_code(memory: MemoryLoop) -> None:
    memory.sync.begin_turn(ALICE, "Remember that Quentin owns a red canoe.")
    assert "Quentin" in memory.search_tool().call_sync({"query": "Quentin canoe"}, ALICE)


def test_format_results_per_scope() -> None:
    assert format_results(SearchResults(scope="edges")) == NO_RESULTS
    assert (
        format_results(SearchResults(scope="edges", edges=[Fact(uuid="1", fact="A likes B")]))
        == "- A likes B"
    )
    nodes = [Entity(uuid="1", name="Ada", summary="A mathematician."), Entity(uuid="2", name="Bo")]
    assert (
        format_results(SearchResults(scope="nodes", nodes=nodes)) == "- Ada: A mathematician.\n- Bo"
    )
    episodes = [Episode(uuid="1", content="hello there")]
    assert format_results(SearchResults(scope="episodes", episodes=episodes)) == "- hello there"
    assert format_results(SearchResults(scope="auto", context="  block  ")) == "block"
    assert format_results(SearchResults(scope="auto")) == NO_RESULTS


async def test_call_accepts_a_plain_user_id(seeded: MemoryLoop) -> None:
    tool = seeded.search_tool()
    assert "Tobias" in await tool.call({"query": "Tobias"}, "alice")
    assert "Tobias" not in await tool.call({"query": "Tobias"}, "bob")
    assert "no user" in await tool.call({"query": "Tobias"}, "  ")


async def test_model_function_has_the_visible_signature_and_passes_only_what_was_sent(
    seeded: MemoryLoop,
) -> None:
    import inspect

    search = seeded.search_tool(limit=3)
    seen: list[tuple[object, dict[str, Any]]] = []

    def blocking(run: object, args: dict[str, Any]) -> str:
        seen.append((run, args))
        return "ok"

    run_param = inspect.Parameter("run", inspect.Parameter.POSITIONAL_OR_KEYWORD)
    function = search.model_function(blocking, leading=[run_param])
    assert list(inspect.signature(function).parameters) == ["run", *search.visible_parameters]
    assert "limit" not in inspect.signature(function).parameters  # pinned: not the model's
    assert function.__name__ == search.name
    assert function.__doc__ == search.description
    assert function("ctx", query="Tobias", scope=None) == "ok"
    assert seen == [("ctx", {"query": "Tobias"})]

    async def searching(args: dict[str, Any]) -> str:
        return await search.call(args, ALICE)

    async_function = search.model_function(searching)
    assert inspect.iscoroutinefunction(async_function)
    assert "Tobias" in await async_function(query="Tobias trombone")
