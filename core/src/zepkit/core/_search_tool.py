"""The model-callable memory search tool (Form B), defined once for every adapter.

Adapters only wrap `SearchTool` into their framework's tool type: `name`, `description`,
`parameters` (a JSON schema) and `call(args, identity) -> str`. Parameters pinned at construction
leave the schema; pinned to None they are hidden and not sent. The target (the turn's user or a
fixed shared graph) is never a model parameter. The tool never raises at the model: bad arguments
and failures come back as a sentence it can act on.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
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
    DEFAULT_SEARCH_LIMIT,
    MAX_QUERY_CHARS,
    MAX_SEARCH_LIMIT,
)
from zepkit.core._models import Hit, Identity, SearchResults
from zepkit.core._search_params import (
    ALL,
    SearchParams,
    check_pins,
    merge_results,
    offered_scopes,
)

if TYPE_CHECKING:
    from zepkit.core._loop import MemoryLoop

logger = logging.getLogger("zepkit.core")

PARAMETERS = ("query", "scope", "reranker", "limit", "mmr_lambda", "center_node_uuid")
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
    ALL: "facts, entities and raw messages together",
}


class SearchTool:
    """Memory search for a model: schema, pinning, validation and result formatting.

    With `offer_all=True` the model may also choose scope "all": facts, entities and episodes in
    one search (pinning `scope="all"` fixes it)."""

    def __init__(
        self,
        loop: MemoryLoop,
        *,
        graph_id: str | None = None,
        name: str = DEFAULT_NAME,
        description: str = DEFAULT_DESCRIPTION,
        offer_all: bool = False,
        **pinned: Any,
    ) -> None:
        for key in ("user_id", "thread_id"):
            if key in pinned:
                raise ValueError(
                    f"{key} cannot be pinned: the user comes from each turn's identity "
                    "(use graph_id= for a shared graph)"
                )
        if graph_id is not None and not graph_id.strip():
            raise ValueError("graph_id must be a non-empty string")
        self.loop = loop
        self.graph_id = graph_id
        self.name = name
        self.description = description
        self.pinned: dict[str, Any] = dict(pinned)
        caps = loop.capabilities
        self._scopes = offered_scopes(caps, pinned.get("scope"), offer_all=offer_all)
        check_pins(self.pinned, caps, self._scopes)
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
        requests = self.requests(args, identity)
        if isinstance(requests, str):
            return requests
        try:
            results = await self._run(requests)
        except Exception as exc:
            self.loop.failsoft.handle(
                "search tool",
                exc,
                user_id=requests[0].user_id,
                graph_id=self.graph_id,
                scope="+".join(r.scope for r in requests),
            )
            return f"Memory search failed ({type(exc).__name__}); continue without it."
        return format_results(results)

    async def search(
        self, args: Mapping[str, Any] | None, identity: Identity | str | None = None
    ) -> SearchResults | str:
        """What `call` finds, as data: the results, or the sentence telling the model what is
        wrong with its arguments. A backend failure raises (`call` turns it into a sentence)."""
        requests = self.requests(args, identity)
        return requests if isinstance(requests, str) else await self._run(requests)

    async def _run(self, requests: Sequence[SearchRequest]) -> SearchResults:
        return merge_results(await asyncio.gather(*(self.loop.run_search(r) for r in requests)))

    def requests(
        self, args: Mapping[str, Any] | None, identity: Identity | str | None = None
    ) -> list[SearchRequest] | str:
        """The backend requests the model's arguments ask for (one per scope), validated and
        pinned, or the sentence that tells the model what is wrong."""
        params = self._parse(args or {})
        if isinstance(params, str):
            return params
        user_id = None
        if self.graph_id is None:
            user_id = identity.user_id if isinstance(identity, Identity) else identity
            if not isinstance(user_id, str) or not user_id.strip():
                return "Error: memory search has no user for this conversation."
        return params.requests(user_id=user_id, graph_id=self.graph_id)

    def request(
        self, args: Mapping[str, Any] | None, identity: Identity | str | None = None
    ) -> SearchRequest | str:
        """The one backend request of a single-scope search (see `requests`; a search of
        several scopes comes back as a sentence here: use `requests` or `search`)."""
        requests = self.requests(args, identity)
        if isinstance(requests, str):
            return requests
        if len(requests) > 1:
            return "Error: this search covers several scopes; choose one scope."
        return requests[0]

    def call_sync(
        self, args: Mapping[str, Any] | None, identity: Identity | str | None = None
    ) -> str:
        """Blocking twin of `call`, usable inside or outside a running event loop."""
        return self.loop.sync.run(self.call(args, identity))

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

    def _parse(self, args: Mapping[str, Any]) -> SearchParams | str:
        if not isinstance(args, Mapping):
            return "Error: the search arguments must be an object with a `query` field."
        unknown = set(args) - set(self.visible_parameters) - set(self.pinned)
        if unknown:
            return (
                f"Error: unknown parameter(s) {sorted(unknown)}; "
                f"valid: {list(self.visible_parameters)}."
            )
        values = {**{k: v for k, v in args.items() if k not in self.pinned}, **self.pinned}
        caps = self.loop.capabilities
        return SearchParams.parse(values, caps, strict=False, offered=self._scopes)

    def _schema(self, caps: Capabilities) -> dict[str, Any]:
        rerankers = sorted(
            {r for s in self._scopes if s not in ("auto", ALL) for r in caps.rerankers[s]}
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


_HEADINGS = {"edge": "Facts", "node": "Entities", "episode": "Episodes"}


def format_results(results: SearchResults) -> str:
    """Results as the model reads them: one `- ` line per item (under a heading per kind when
    several scopes were searched), stored text carrying no markup (tags neutralised, line breaks
    collapsed)."""
    if results.scope == "auto" and len(results.scopes) <= 1:
        context = (results.context or "").strip()
        context = escape_all_tags(escape_tags(context, {"ZEP_CONTEXT"}), keep_structure=True)
        return defuse_role_lines(context) or NO_RESULTS
    hits = results.hits()
    if len(results.scopes) <= 1:
        return "\n".join(_line(hit) for hit in hits) or NO_RESULTS
    parts = [
        f"{heading}:\n" + "\n".join(_line(hit) for hit in hits if hit.kind == kind)
        for kind, heading in _HEADINGS.items()
        if any(hit.kind == kind for hit in hits)
    ]
    return "\n\n".join(parts) or NO_RESULTS


def _line(hit: Hit) -> str:
    return f"- {escape_all_tags(escape_tags(one_line(hit.text), LAYOUT_TAGS))}"
