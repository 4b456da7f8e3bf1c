"""The model-callable memory search tool (Form B), defined once for every adapter.

Adapters only wrap `SearchTool` into their framework's tool type: `name`, `description`,
`parameters` (a JSON schema) and `call(args, identity) -> str`. Parameters pinned at construction
leave the schema; pinned to None they are hidden and not sent. The target (the turn's user or a
fixed shared graph) is never a model parameter. The tool never raises at the model: bad arguments
and failures come back as a sentence it can act on.
"""

from __future__ import annotations

import inspect
import logging
import math
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

from zepkit.core._backend import Capabilities, SearchRequest
from zepkit.core._escaping import (
    LAYOUT_TAGS,
    defuse_role_lines,
    escape_all_tags,
    escape_tags,
    one_line,
)
from zepkit.core._limits import (
    DEFAULT_MMR_LAMBDA,
    DEFAULT_SEARCH_LIMIT,
    MAX_QUERY_CHARS,
    MAX_SEARCH_LIMIT,
)
from zepkit.core._models import SCOPES, Identity, SearchResults
from zepkit.core._validation import clip_query

if TYPE_CHECKING:
    from zepkit.core._loop import MemoryLoop

logger = logging.getLogger("zepkit.core")

PARAMETERS = ("query", "scope", "reranker", "limit", "mmr_lambda", "center_node_uuid")
_PINNABLE = frozenset(PARAMETERS) - {"query"}
NO_RESULTS = "No results found."

DEFAULT_NAME = "search_memory"
DEFAULT_DESCRIPTION = (
    "Search the long-term memory for specific facts, entities or past messages that the "
    "context you already have does not cover. Pass a short query (at most 400 characters)."
)

_SCOPE_HELP = {
    "edges": "facts and relationships",
    "nodes": "entities (people, places, things) with summaries",
    "episodes": "raw past messages and documents",
    "observations": "observations derived from the data",
    "thread_summaries": "summaries of past conversations",
    "auto": "a ready-made context block",
}


class SearchTool:
    """Memory search for a model: schema, pinning, validation and result formatting."""

    def __init__(
        self,
        loop: MemoryLoop,
        *,
        graph_id: str | None = None,
        name: str = DEFAULT_NAME,
        description: str = DEFAULT_DESCRIPTION,
        **pinned: Any,
    ) -> None:
        for key in ("user_id", "thread_id"):
            if key in pinned:
                raise ValueError(
                    f"{key} cannot be pinned: the user comes from each turn's identity "
                    "(use graph_id= for a shared graph)"
                )
        unknown = set(pinned) - _PINNABLE
        if unknown:
            raise ValueError(
                f"cannot pin {sorted(unknown)}; pinnable parameters: {sorted(_PINNABLE)}"
            )
        if graph_id is not None and not graph_id.strip():
            raise ValueError("graph_id must be a non-empty string")
        self._loop = loop
        self.loop = loop
        self.graph_id = graph_id
        self.name = name
        self.description = description
        self.pinned: dict[str, Any] = dict(pinned)
        caps = loop.capabilities
        self._scopes = _offered_scopes(caps, self.pinned)
        self._check_pins(caps)
        self.parameters: dict[str, Any] = self._schema(caps)

    @property
    def visible_parameters(self) -> tuple[str, ...]:
        return tuple(self.parameters["properties"])

    async def call(
        self, args: Mapping[str, Any] | None, identity: Identity | str | None = None
    ) -> str:
        """Run a search for the model and return text for it; never raises (fail-soft).

        `identity` is the turn's `Identity` or just the user id; it is ignored for a tool fixed
        to a shared graph."""
        request = self.request(args, identity)
        if isinstance(request, str):
            return request
        user_id = request.user_id
        try:
            results = await self._loop.run_search(request)
        except Exception as exc:
            self._loop.failsoft.handle(
                "search tool", exc, user_id=user_id, graph_id=self.graph_id, scope=request.scope
            )
            return f"Memory search failed ({type(exc).__name__}); continue without it."
        return format_results(results)

    def request(
        self, args: Mapping[str, Any] | None, identity: Identity | str | None = None
    ) -> SearchRequest | str:
        """The search the model's arguments ask for, validated and pinned, or the sentence that
        tells the model what is wrong (what `call` sends, for callers that want the results as
        data as well as text: run it with `loop.run_search` and format with `format_results`)."""
        parsed = self._parse(args or {})
        if isinstance(parsed, str):
            return parsed
        user_id = None
        if self.graph_id is None:
            user_id = identity.user_id if isinstance(identity, Identity) else identity
            if not isinstance(user_id, str) or not user_id.strip():
                return "Error: memory search has no user for this conversation."
        return SearchRequest(user_id=user_id, graph_id=self.graph_id, **parsed)

    def call_sync(
        self, args: Mapping[str, Any] | None, identity: Identity | str | None = None
    ) -> str:
        """Blocking twin of `call`, usable inside or outside a running event loop."""
        return self._loop.sync.run(self.call(args, identity))

    def model_function(
        self, call: Callable[..., Any], *, leading: Sequence[inspect.Parameter] = ()
    ) -> Callable[..., Any]:
        """A function whose signature lists the parameters the model sees, for frameworks that
        build a tool from a signature (AutoGen, AG2). Each is optional and typed `Any`, so values
        reach the core as sent and a bad one comes back as a sentence, not a validation error.

        Calling it calls `call(*leading_values, args)`, `args` holding only what the model sent;
        `leading` parameters (e.g. a framework's run context) come first. An async `call` gives
        an async function.
        """
        names = [parameter.name for parameter in leading]
        parameters = [
            *leading,
            *(
                inspect.Parameter(
                    name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None, annotation=Any
                )
                for name in self.visible_parameters
            ),
        ]
        signature = inspect.Signature(parameters, return_annotation=str)

        def split(
            args: tuple[Any, ...], kwargs: dict[str, Any]
        ) -> tuple[list[Any], dict[str, Any]]:
            bound = signature.bind(*args, **kwargs).arguments
            given = {k: v for k, v in bound.items() if k not in names and v is not None}
            return [bound.get(name) for name in names], given

        function: Callable[..., Any]
        if inspect.iscoroutinefunction(call):

            async def async_function(*args: Any, **kwargs: Any) -> Any:
                lead, given = split(args, kwargs)
                return await call(*lead, given)

            function = async_function
        else:

            def sync_function(*args: Any, **kwargs: Any) -> Any:
                lead, given = split(args, kwargs)
                return call(*lead, given)

            function = sync_function
        cast(Any, function).__signature__ = signature
        function.__annotations__ = {p.name: p.annotation for p in parameters} | {"return": str}
        function.__name__ = function.__qualname__ = self.name
        function.__doc__ = self.description
        return function

    def _parse(self, args: Mapping[str, Any]) -> dict[str, Any] | str:
        if not isinstance(args, Mapping):
            return "Error: the search arguments must be an object with a `query` field."
        unknown = set(args) - set(self.visible_parameters)
        if unknown - set(self.pinned):
            return (
                f"Error: unknown parameter(s) {sorted(unknown - set(self.pinned))}; "
                f"valid: {list(self.visible_parameters)}."
            )
        values = {**{k: v for k, v in args.items() if k not in self.pinned}, **self.pinned}
        query = values.get("query")
        if not isinstance(query, str) or not query.strip():
            return "Error: empty search query. Put the words to look for in `query`."
        query = clip_query(query)
        scope = values.get("scope") or "edges"
        if scope not in self._scopes:
            return f"Error: scope {scope!r} is not available; choose one of {list(self._scopes)}."
        caps = self._loop.capabilities
        valid = sorted(caps.rerankers[scope])
        if scope == "auto":
            return {"query": query, "scope": "auto", "reranker": None}
        reranker = values.get("reranker", "rrf")
        if reranker is not None and reranker not in valid:
            return (
                f"Error: reranker {reranker!r} cannot be used with scope {scope!r}; "
                f"use one of {valid}."
            )
        if reranker == "node_distance" and not values.get("center_node_uuid"):
            return "Error: reranker 'node_distance' needs center_node_uuid."
        limit = values.get("limit", DEFAULT_SEARCH_LIMIT)
        if limit is not None:
            if (
                isinstance(limit, bool)
                or not isinstance(limit, int | float)
                or not math.isfinite(limit)
            ):
                return f"Error: limit must be a whole number between 1 and {MAX_SEARCH_LIMIT}."
            limit = min(max(int(limit), 1), MAX_SEARCH_LIMIT)
        mmr_lambda = values.get("mmr_lambda")
        if reranker == "mmr" and mmr_lambda is None and "mmr_lambda" not in self.pinned:
            mmr_lambda = DEFAULT_MMR_LAMBDA
        if mmr_lambda is not None and not (
            isinstance(mmr_lambda, int | float) and 0 <= mmr_lambda <= 1
        ):
            return "Error: mmr_lambda must be a number between 0 and 1."
        return {
            "query": query,
            "scope": scope,
            "reranker": reranker,
            "limit": limit if limit is not None else DEFAULT_SEARCH_LIMIT,
            "mmr_lambda": None if reranker != "mmr" else mmr_lambda,
            "center_node_uuid": values.get("center_node_uuid"),
        }

    def _check_pins(self, caps: Capabilities) -> None:
        """A pinned value the backend cannot honour is a programming error: fail at construction."""
        pins = self.pinned
        if "scope" in pins and pins["scope"] is not None and pins["scope"] not in self._scopes:
            raise ValueError(
                f"scope {pins['scope']!r} is not supported here; supported: {list(caps.scopes)}"
            )
        reranker = pins.get("reranker")
        if reranker is not None:
            scopes = [pins["scope"]] if pins.get("scope") else list(self._scopes)
            bad = [s for s in scopes if s != "auto" and reranker not in caps.rerankers[s]]
            if bad:
                raise ValueError(
                    f"reranker {reranker!r} is not valid for scope {bad[0]!r}; "
                    f"valid: {sorted(caps.rerankers[bad[0]])}"
                )
        limit = pins.get("limit")
        if limit is not None and (
            isinstance(limit, bool)
            or not isinstance(limit, int)
            or not 1 <= limit <= MAX_SEARCH_LIMIT
        ):
            raise ValueError(
                f"pinned limit must be between 1 and {MAX_SEARCH_LIMIT}, got {limit!r}"
            )
        lam = pins.get("mmr_lambda")
        if lam is not None and not (isinstance(lam, int | float) and 0 <= lam <= 1):
            raise ValueError(f"pinned mmr_lambda must be between 0 and 1, got {lam!r}")

    def _schema(self, caps: Capabilities) -> dict[str, Any]:
        rerankers = sorted(
            {r for s in self._scopes if s != "auto" for r in caps.rerankers[s]}
            - ({"node_distance"} if "center_node_uuid" not in self.pinned else set())
        )
        props: dict[str, Any] = {
            "query": {
                "type": "string",
                "description": "What to look for, in a few words.",
                "maxLength": MAX_QUERY_CHARS,
            },
            "scope": {
                "type": "string",
                "enum": list(self._scopes),
                "default": "edges",
                "description": "What to search: "
                + "; ".join(f"{s}: {_SCOPE_HELP[s]}" for s in self._scopes),
            },
            "reranker": {
                "type": "string",
                "enum": rerankers,
                "default": "rrf",
                "description": "How to order results (mmr favours variety).",
            },
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_SEARCH_LIMIT,
                "default": DEFAULT_SEARCH_LIMIT,
                "description": "How many results to return.",
            },
            "mmr_lambda": {
                "type": "number",
                "minimum": 0,
                "maximum": 1,
                "description": "Only with reranker mmr: 1 favours relevance, 0 favours variety.",
            },
            "center_node_uuid": {
                "type": "string",
                "description": "Only with reranker node_distance: the entity to rank around.",
            },
        }
        if "reranker" in self.pinned:  # a fixed reranker decides which knobs make sense
            rerankers = [self.pinned["reranker"]] if self.pinned["reranker"] else []
        if "mmr" not in rerankers:
            props.pop("mmr_lambda")
        if "node_distance" not in rerankers:
            props.pop("center_node_uuid")
        if not rerankers:
            props.pop("reranker")
        if len(self._scopes) <= 1:
            props.pop("scope")
        for key in self.pinned:
            props.pop(key, None)
        return {"type": "object", "properties": props, "required": ["query"]}


def _offered_scopes(caps: Capabilities, pinned: Mapping[str, Any]) -> tuple[str, ...]:
    scopes = tuple(s for s in SCOPES if s in caps.rerankers)
    if pinned.get("scope") is not None:
        return tuple(s for s in scopes if s == pinned["scope"])
    return scopes


def format_results(results: SearchResults) -> str:
    """Results as the model reads them: one `- ` line per item, per scope, stored text carrying
    no markup (tags neutralised, line breaks collapsed)."""
    if results.scope == "auto":
        context = (results.context or "").strip()
        context = escape_all_tags(escape_tags(context, {"ZEP_CONTEXT"}), keep_structure=True)
        return defuse_role_lines(context) or NO_RESULTS
    items = [edge.fact for edge in results.edges]
    items += [
        f"{node.name}: {node.summary}" if node.summary else node.name for node in results.nodes
    ]
    items += [episode.content for episode in results.episodes]
    lines = [f"- {escape_all_tags(escape_tags(one_line(item), LAYOUT_TAGS))}" for item in items]
    return "\n".join(lines) if lines else NO_RESULTS
