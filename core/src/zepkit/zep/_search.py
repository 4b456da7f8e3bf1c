"""Graph search per scope on Zep v4: the reranker rules, the SDK call per scope and the mapping of
its results into `SearchResults`.

`SearchResults` has `edges`, `nodes`, `episodes` and `context` only, so observations come back in
`nodes` (as `Entity(name, summary)`) and thread summaries in `episodes` (as
`Episode(content=summary)`); `results.scope` says which scope was asked.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from zep_cloud.graph.client import AsyncGraphClient
from zep_cloud.types import (
    EdgeSearchFilters,
    EpisodeSearchFilters,
    NodeSearchFilters,
    SearchFilters,
    ThreadSummarySearchFilters,
)

from zepkit.core._backend import Capabilities, SearchRequest
from zepkit.core._errors import UnsupportedError
from zepkit.core._limits import DEFAULT_MMR_LAMBDA
from zepkit.core._models import SearchResults
from zepkit.zep._convert import (
    observation_to_entity,
    summary_to_episode,
    to_entity,
    to_episode,
    to_fact,
)

ZEP_CAPABILITIES = Capabilities(
    rerankers={
        "edges": frozenset({"rrf", "mmr", "node_distance", "episode_mentions", "cross_encoder"}),
        "nodes": frozenset({"rrf", "mmr", "node_distance", "cross_encoder"}),
        "episodes": frozenset({"rrf", "mmr"}),
        "observations": frozenset({"rrf", "mmr", "cross_encoder"}),
        "thread_summaries": frozenset({"rrf", "mmr", "cross_encoder"}),
        "auto": frozenset(),
    }
)
"""What Zep v4 accepts per scope; a pair outside it would be a 400, so it is refused locally."""

_OMIT: Any = ...  # the SDK's "leave this field out of the body" sentinel

_FILTER_TYPES: Mapping[str, type[Any]] = {
    "edges": EdgeSearchFilters,
    "nodes": NodeSearchFilters,
    "episodes": EpisodeSearchFilters,
    "thread_summaries": ThreadSummarySearchFilters,
    "auto": SearchFilters,
}
_EXTRA_KEYS = frozenset({"filters", "bfs_origin_node_uuids", "max_characters"})


def check_request(request: SearchRequest) -> None:
    """Raise `UnsupportedError` for a scope, reranker or extra that Zep would reject."""
    scope, reranker = request.scope, request.reranker
    if not ZEP_CAPABILITIES.supports(scope):
        raise UnsupportedError(f"Zep has no search scope {scope!r}")
    if reranker is not None and not ZEP_CAPABILITIES.supports(scope, reranker):
        valid = sorted(ZEP_CAPABILITIES.rerankers[scope]) or "none"
        raise UnsupportedError(
            f"Zep does not accept reranker {reranker!r} for scope {scope!r}; valid: {valid}"
        )
    if reranker == "node_distance" and not request.center_node_uuid:
        raise UnsupportedError("reranker 'node_distance' needs center_node_uuid")
    unknown = set(request.extra) - _EXTRA_KEYS
    if unknown:
        raise UnsupportedError(
            f"unsupported search options {sorted(unknown)}; Zep takes {sorted(_EXTRA_KEYS)}"
        )
    if "filters" in request.extra and scope not in _FILTER_TYPES:
        raise UnsupportedError(f"Zep accepts no filters for scope {scope!r}")


def _filters(request: SearchRequest) -> Any:
    raw = request.extra.get("filters")
    if raw is None:
        return _OMIT
    model = _FILTER_TYPES[request.scope]
    return raw if isinstance(raw, model) else model.model_validate(raw)


def _ranking(request: SearchRequest) -> dict[str, Any]:
    """The ranking fields of one scoped search; fields left unset are not sent."""
    options: dict[str, Any] = {"query": request.query, "page_size": request.limit}
    if request.reranker is not None:
        options["reranker"] = request.reranker
    if request.reranker == "mmr":
        options["mmr_lambda"] = (
            request.mmr_lambda if request.mmr_lambda is not None else DEFAULT_MMR_LAMBDA
        )
    if request.center_node_uuid is not None:
        options["center_node_uuid"] = request.center_node_uuid
    if request.extra.get("bfs_origin_node_uuids") is not None:
        options["bfs_origin_node_uuids"] = list(request.extra["bfs_origin_node_uuids"])
    filters = _filters(request) if request.scope != "observations" else _OMIT
    if filters is not _OMIT:
        options["filters"] = filters
    return options


async def run_search(
    graph: AsyncGraphClient,
    target_uuid: str,
    request: SearchRequest,
    thread_ids: Mapping[str, str],
    request_options: Any,
) -> SearchResults:
    """One search on `target_uuid` (a user's or a shared graph) through the scope's SDK call."""
    scope, limit = request.scope, request.limit
    if scope == "auto":
        extra: dict[str, Any] = {}
        if request.extra.get("max_characters") is not None:
            extra["max_characters"] = int(request.extra["max_characters"])
        filters = _filters(request)
        if filters is not _OMIT:
            extra["filters"] = filters
        response = await graph.get_context(
            target_uuid, query=request.query, request_options=request_options, **extra
        )
        return SearchResults(scope="auto", context=response.context or None)
    options = _ranking(request)
    if scope == "edges":
        edges = await graph.search_edges(target_uuid, request_options=request_options, **options)
        facts = [fact for edge in edges.items or [] if (fact := to_fact(edge)) is not None]
        return SearchResults(scope=scope, edges=facts[:limit])
    if scope == "nodes":
        nodes = await graph.search_nodes(target_uuid, request_options=request_options, **options)
        return SearchResults(scope=scope, nodes=[to_entity(n) for n in nodes.items or []][:limit])
    if scope == "observations":
        found = await graph.search_observations(
            target_uuid, request_options=request_options, **options
        )
        entities = [observation_to_entity(o) for o in found.items or []]
        return SearchResults(scope=scope, nodes=entities[:limit])
    if scope == "episodes":
        episodes = await graph.search_episodes(
            target_uuid, request_options=request_options, **options
        )
        items = [e for ep in episodes.items or [] if (e := to_episode(ep, thread_ids)) is not None]
        return SearchResults(scope=scope, episodes=items[:limit])
    summaries = await graph.search_thread_summaries(
        target_uuid, request_options=request_options, **options
    )
    items = [
        e for s in summaries.items or [] if (e := summary_to_episode(s, thread_ids)) is not None
    ]
    return SearchResults(scope=scope, episodes=items[:limit])
