"""`SearchParams`: one parser for `MemoryLoop.search` (strict: raises) and the search tool (soft:
a sentence), field by field; the pins; the query policy; `SearchResults.hits()`."""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any

import pytest

from zepkit.core import (
    Entity,
    Episode,
    Fact,
    Hit,
    Identity,
    MemoryLoop,
    SearchResults,
)
from zepkit.core._search_params import SearchParams, check_pins
from zepkit.core.spi import Capabilities, SearchRequest, check_search_options, format_results
from zepkit.local import LocalBackend
from zepkit.testing import FailingBackend

ZEP_LIKE = Capabilities(
    rerankers={
        "edges": frozenset({"rrf", "mmr", "node_distance", "episode_mentions"}),
        "nodes": frozenset({"rrf", "mmr", "node_distance"}),
        "episodes": frozenset({"rrf", "mmr"}),
        "auto": frozenset(),
    }
)
ALICE = Identity(user_id="alice", thread_id="a1")


def strict(**raw: Any) -> SearchParams:
    params = SearchParams.parse({"query": "tea", **raw}, ZEP_LIKE, strict=True)
    assert isinstance(params, SearchParams)
    return params


def soft(**raw: Any) -> SearchParams | str:
    return SearchParams.parse({"query": "tea", **raw}, ZEP_LIKE, strict=False)


def test_defaults_are_the_same_in_both_modes() -> None:
    expected = SearchParams(query="tea", scopes=("edges",), reranker="rrf", limit=10)
    assert strict() == expected
    assert soft() == expected
    assert strict(scope=None, limit=None) == expected  # None takes the default


@pytest.mark.parametrize(
    ("raw", "error", "match", "sentence"),
    [
        ({"query": 42}, TypeError, "query must be a string", "empty search query"),
        ({"query": "  "}, ValueError, "query must be a non-empty", "empty search query"),
        ({"scope": "galaxy"}, ValueError, "scope 'galaxy' is not supported", "not available"),
        ({"scope": ["edges", "auto"]}, ValueError, "cannot be combined", "cannot be combined"),
        ({"scope": []}, TypeError, "scope must be", "not available"),
        ({"reranker": "cross_encoder"}, ValueError, "not valid for scope", "use one of"),
        ({"scope": "all", "reranker": "episode_mentions"}, ValueError, "scope 'nodes'", "nodes"),
        ({"limit": "many"}, TypeError, "limit must be an integer", "whole number"),
        ({"limit": True}, TypeError, "limit must be an integer", "whole number"),
        ({"limit": float("nan")}, TypeError, "limit must be an integer", "whole number"),
        ({"reranker": "mmr", "mmr_lambda": 7}, ValueError, "between 0 and 1", "between 0 and 1"),
        ({"mmr_lambda": "high"}, ValueError, "mmr_lambda", "mmr_lambda"),
        ({"reranker": "node_distance"}, ValueError, "needs center_node_uuid", "needs center"),
        ({"center_node_uuid": " "}, ValueError, "center_node_uuid", "center_node_uuid"),
    ],
)
def test_each_rule_raises_when_strict_and_is_a_sentence_when_soft(
    raw: dict[str, Any], error: type[Exception], match: str, sentence: str
) -> None:
    with pytest.raises(error, match=match):
        strict(**raw)
    answer = soft(**raw)
    assert isinstance(answer, str) and answer.startswith("Error: ") and sentence in answer


def test_limit_out_of_range_raises_when_strict_and_is_clamped_when_soft() -> None:
    for limit, clamped in [(0, 1), (51, 50), (500, 50), (-3, 1), (7.9, 7)]:
        if isinstance(limit, int):
            with pytest.raises(ValueError, match="between 1 and 50"):
                strict(limit=limit)
        else:
            with pytest.raises(TypeError, match="integer"):
                strict(limit=limit)
        assert soft(limit=limit) == SearchParams(query="tea", limit=clamped)


def test_mmr_lambda_defaults_under_mmr_and_is_dropped_under_another_reranker() -> None:
    assert strict(reranker="mmr").mmr_lambda == 0.5
    assert soft(reranker="mmr") == strict(reranker="mmr")
    assert strict(reranker="mmr", mmr_lambda=0).mmr_lambda == 0.0
    assert strict(reranker="rrf", mmr_lambda=0.2).mmr_lambda is None


def test_center_node_uuid_goes_only_with_node_distance() -> None:
    assert strict(reranker="node_distance", center_node_uuid="n1").center_node_uuid == "n1"
    assert strict(reranker="rrf", center_node_uuid="n1").center_node_uuid is None


def test_reranker_none_means_the_backends_own_and_auto_takes_none() -> None:
    assert strict(reranker=None).reranker is None
    assert strict(scope="auto", reranker="mmr") == SearchParams(
        query="tea", scopes=("auto",), reranker=None
    )


def test_scopes_one_several_or_all_in_order_once_each() -> None:
    assert strict(scope="nodes").scopes == ("nodes",)
    assert strict(scope=("episodes", "edges", "episodes")).scopes == ("episodes", "edges")
    assert strict(scope="all").scopes == ("edges", "nodes", "episodes")
    assert soft(scope="all") == strict(scope="all")
    local = Capabilities(rerankers={"episodes": frozenset({"rrf"})})
    only = SearchParams.parse({"query": "x", "scope": "all"}, local, strict=True)
    assert isinstance(only, SearchParams) and only.scopes == ("episodes",)


def test_offered_narrows_what_a_model_may_choose() -> None:
    answer = SearchParams.parse(
        {"query": "x", "scope": "all"}, ZEP_LIKE, strict=False, offered=("edges", "nodes")
    )
    assert answer == "Error: scope 'all' is not available; choose one of ['edges', 'nodes']."


def test_requests_one_per_scope_on_the_target() -> None:
    params = strict(scope=("edges", "nodes"), reranker="mmr", limit=3)
    assert params.requests(graph_id="g") == [
        SearchRequest(query="tea", graph_id="g", scope=s, reranker="mmr", limit=3, mmr_lambda=0.5)
        for s in ("edges", "nodes")
    ]
    (auto,) = strict(scope="auto").requests(user_id="u")
    assert (auto.scope, auto.reranker, auto.user_id) == ("auto", None, "u")


@pytest.mark.parametrize(
    ("pins", "match"),
    [
        ({"limit": 0}, "^limit must be between 1 and 50, got 0"),
        ({"mmr_lambda": 2}, "^mmr_lambda"),
        ({"scope": "galaxy"}, "^scope 'galaxy' is not supported"),
        ({"reranker": "episode_mentions"}, "not valid for scope 'nodes'"),
        ({"center_node_uuid": 5}, "^center_node_uuid"),
        ({"query": "x"}, "cannot pin"),
    ],
)
def test_pins_are_checked_strictly(pins: dict[str, Any], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        check_pins(pins, ZEP_LIKE, ("edges", "nodes", "episodes", "auto", "all"))


def test_a_pin_valid_for_the_offered_scopes_passes() -> None:
    check_pins({"reranker": "episode_mentions"}, ZEP_LIKE, ("edges",))
    check_pins({"scope": None, "limit": None, "reranker": None}, ZEP_LIKE, ("edges",))


def test_an_adapters_fixed_options_are_checked_by_the_same_rules() -> None:
    check_search_options(ZEP_LIKE, scope="all", limit=5)
    check_search_options(ZEP_LIKE, scope="edges", reranker="episode_mentions")
    with pytest.raises(ValueError, match=r"^scope 'galaxy'"):
        check_search_options(ZEP_LIKE, scope="galaxy")
    with pytest.raises(ValueError, match=r"^limit must be between 1 and 50, got 51"):
        check_search_options(ZEP_LIKE, limit=51)
    with pytest.raises(ValueError, match="not valid for scope 'nodes'"):
        check_search_options(ZEP_LIKE, scope="all", reranker="episode_mentions")


# -- the query policy: clip to MAX_QUERY_CHARS, one INFO line, no content ---------------------


async def test_long_queries_are_clipped_alike_by_the_loop_and_the_tool(
    memory: MemoryLoop, caplog: pytest.LogCaptureFixture
) -> None:
    secret = "Pemberton-" + "q" * 500
    with caplog.at_level(logging.DEBUG, logger="zepkit"):
        params = strict(query=secret)
        assert params.query == secret[:400]
        await memory.search(secret, user_id="alice")
        request = memory.search_tool().request({"query": secret}, ALICE)
    assert isinstance(request, SearchRequest) and request.query == secret[:400]
    lines = [r for r in caplog.records if "cut" in r.getMessage()]
    assert [r.getMessage() for r in lines] == ["search query cut from 510 to 400 characters"] * 3
    assert {r.levelno for r in lines} == {logging.INFO}
    assert "Pemberton" not in caplog.text and "qqqq" not in caplog.text


def test_a_query_at_the_limit_is_kept_without_a_line(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG, logger="zepkit"):
        assert strict(query="q" * 400).query == "q" * 400
    assert not caplog.records


# -- hits --------------------------------------------------------------------------------------

WHEN = datetime(2025, 3, 1, tzinfo=UTC)
LATER = datetime(2025, 4, 1, tzinfo=UTC)


def test_hits_map_each_kind() -> None:
    results = SearchResults(
        scope="edges",
        edges=[
            Fact(uuid="e1", fact="Ada likes tea", created_at=LATER, valid_at=WHEN, score=0.9),
            Fact(uuid="e2", fact="Bo moved", created_at=LATER),
        ],
        nodes=[
            Entity(uuid="n1", name="Ada", summary="A mathematician.", created_at=WHEN, score=0.5),
            Entity(uuid="n2", name="Bo"),
        ],
        episodes=[
            Episode(uuid="p1", content="hi", role="user", name="Ada", created_at=WHEN, score=1.0)
        ],
    )
    assert results.hits() == [
        Hit("edge", "e1", "Ada likes tea", WHEN, 0.9),
        Hit("edge", "e2", "Bo moved", LATER, None),
        Hit("node", "n1", "Ada: A mathematician.", WHEN, 0.5, name="Ada"),
        Hit("node", "n2", "Bo", None, None, name="Bo"),
        Hit("episode", "p1", "hi", WHEN, 1.0, role="user", name="Ada"),
    ]
    assert SearchResults(scope="auto", context="block").hits() == []
    with pytest.raises(AttributeError):
        results.hits()[0].text = "changed"  # type: ignore[misc]


def test_format_results_heads_each_kind_when_several_scopes_were_searched() -> None:
    merged = SearchResults(
        scope="edges",
        scopes=("edges", "nodes", "episodes"),
        edges=[Fact(uuid="e1", fact="Ada likes tea")],
        episodes=[Episode(uuid="p1", content="hi <b>there</b>")],
    )
    assert (
        format_results(merged)
        == "Facts:\n- Ada likes tea\n\nEpisodes:\n- hi &lt;b&gt;there&lt;/b&gt;"
    )
    assert format_results(SearchResults(scopes=("edges", "nodes"))) == "No results found."


# -- several scopes in one search, on the local engine ----------------------------------------


async def test_loop_searches_several_scopes_at_once(memory: MemoryLoop) -> None:
    await memory.begin_turn(ALICE, "My brother Tobias plays the trombone in Vienna.")
    found = await memory.search("Tobias trombone", user_id="alice", scope="all")
    assert found.scopes == ("edges", "nodes", "episodes")
    assert found.edges and found.nodes and found.episodes
    assert {hit.kind for hit in found.hits()} == {"edge", "node", "episode"}
    two = await memory.search("Tobias", user_id="alice", scope=["nodes", "episodes"], limit=1)
    assert (len(two.edges), len(two.nodes), len(two.episodes)) == (0, 1, 1)
    single = await memory.search("Tobias", user_id="alice", scope=["nodes"])
    assert single.scope == "nodes" and single.scopes == ()
    with pytest.raises(ValueError, match="combined"):
        await memory.search("Tobias", user_id="alice", scope=["auto", "edges"])


async def test_the_tool_offers_all_when_asked(memory: MemoryLoop) -> None:
    await memory.begin_turn(ALICE, "My brother Tobias plays the trombone in Vienna.")
    plain = memory.search_tool()
    assert "all" not in plain.parameters["properties"]["scope"]["enum"]
    assert "not available" in await plain.call({"query": "Tobias", "scope": "all"}, ALICE)
    tool = memory.search_tool(offer_all=True)
    assert tool.parameters["properties"]["scope"]["enum"][-1] == "all"
    text = await tool.call({"query": "Tobias trombone", "scope": "all"}, ALICE)
    assert text.startswith("Facts:\n- ") and "\n\nEpisodes:\n- My brother Tobias" in text
    found = await tool.search({"query": "Tobias trombone", "scope": "all"}, ALICE)
    assert isinstance(found, SearchResults) and format_results(found) == text
    assert "several scopes" in str(tool.request({"query": "Tobias", "scope": "all"}, ALICE))
    pinned = memory.search_tool(scope="all")
    assert "scope" not in pinned.parameters["properties"]
    assert await pinned.call({"query": "Tobias trombone"}, ALICE) == text


async def test_a_failed_search_of_several_scopes_is_one_sentence_and_one_line(
    caplog: pytest.LogCaptureFixture,
) -> None:
    loop = MemoryLoop(FailingBackend(LocalBackend(":memory:")))
    with caplog.at_level(logging.WARNING, logger="zepkit"):
        answer = await loop.search_tool(scope="all").call({"query": "Tobias"}, ALICE)
        empty = await loop.search("Tobias", user_id="alice", scope="all")
    await loop.aclose()
    assert answer == "Memory search failed (BackendUnavailableError); continue without it."
    assert empty.is_empty() and empty.scopes == ("edges", "nodes", "episodes")
    tool_lines = [r.getMessage() for r in caplog.records if "search tool" in r.getMessage()]
    assert len(tool_lines) == 1 and "scope='edges+nodes+episodes'" in tool_lines[0]
    per_scope = [r.getMessage() for r in caplog.records if "zepkit search failed" in r.getMessage()]
    assert len(per_scope) == 3  # the loop reports each scope, and keeps what the others found
