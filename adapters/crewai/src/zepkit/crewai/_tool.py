"""`ZepSearchTool`: the core's memory search tool as a CrewAI `BaseTool`.

The model sets the query, or the query and the scope (one of the backend's scopes, or "all" for
facts, entities and episodes at once); everything else is fixed when the tool is built. The
target (a user's graph or a shared graph) never comes from the model.
"""

from __future__ import annotations

import asyncio
from typing import Any, Literal

from crewai.tools import BaseTool
from pydantic import BaseModel, Field, PrivateAttr, create_model

from zepkit.core import Identity, MemoryLoop, SearchTool
from zepkit.core.spi import NO_RESULTS

ModelSets = Literal["query", "query_and_scope"]
ALL = "all"
_ALL_SCOPES = {"edges": "Facts", "nodes": "Entities", "episodes": "Episodes"}


class ZepSearchTool(BaseTool):
    """Memory search for a CrewAI agent, over one user's graph or one shared graph."""

    name: str = "search_memory"
    description: str = ""
    _memory: MemoryLoop = PrivateAttr()
    _search: SearchTool = PrivateAttr()
    _identity: Identity | None = PrivateAttr(default=None)
    _scope: str = PrivateAttr(default="edges")
    _scopes: tuple[str, ...] = PrivateAttr(default=())
    _visible: frozenset[str] = PrivateAttr(default=frozenset({"query"}))

    def __init__(
        self,
        memory: MemoryLoop,
        *,
        user_id: str | None = None,
        thread_id: str | None = None,
        graph_id: str | None = None,
        model_sets: ModelSets = "query",
        scope: str = "edges",
        limit: int = 10,
        **options: Any,
    ) -> None:
        """`user_id` (with the run's `thread_id`, if known) or `graph_id` names the graph;
        `model_sets` says what the model may choose; `scope` is the fixed or default scope."""
        if (user_id is None) == (graph_id is None):
            raise ValueError("give exactly one of user_id (a user's graph) or graph_id")
        if model_sets not in ("query", "query_and_scope"):
            raise ValueError(f"model_sets must be 'query' or 'query_and_scope', got {model_sets!r}")
        search = memory.search_tool(graph_id=graph_id, limit=limit)
        scope_schema = search.parameters["properties"].get("scope", {})
        scopes = tuple(scope_schema.get("enum", ["edges"]))
        if any(s in scopes for s in _ALL_SCOPES):
            scopes = (*scopes, ALL)
        if scope not in scopes:
            raise ValueError(f"scope {scope!r} is not available; choose one of {list(scopes)}")
        options.setdefault("description", _description(search, scope_schema, model_sets))
        super().__init__(args_schema=_args_schema(model_sets, scopes, scope), **options)
        self._memory = memory
        self._search = search
        self._scope = scope
        self._scopes = scopes
        self._visible = frozenset(self.args_schema.model_fields)
        if user_id is not None:
            self._identity = Identity(user_id=user_id, thread_id=thread_id or user_id)

    def _run(self, query: str = "", scope: str | None = None, **extra: Any) -> str:
        return self._memory.sync.run(self._from_model(query, scope, extra))

    async def _arun(self, query: str = "", scope: str | None = None, **extra: Any) -> str:
        return await self._from_model(query, scope, extra)

    async def _from_model(self, query: str, scope: str | None, extra: dict[str, Any]) -> str:
        unknown = sorted({*extra, *(["scope"] if scope is not None else [])} - self._visible)
        if unknown:
            return f"Error: unknown parameter(s) {unknown}; valid: {sorted(self._visible)}."
        return await self.acall(query, scope)

    async def acall(self, query: str, scope: str | None = None) -> str:
        """Run the search for the model; never raises, always returns text for it."""
        scope = scope or self._scope
        if scope not in self._scopes:
            return f"Error: scope {scope!r} is not available; choose one of {list(self._scopes)}."
        if scope != ALL:
            return await self._search.call({"query": query, "scope": scope}, self._identity)
        scopes = [s for s in _ALL_SCOPES if s in self._scopes]
        found = await asyncio.gather(
            *(self._search.call({"query": query, "scope": s}, self._identity) for s in scopes)
        )
        if any(text.startswith("Error") for text in found):
            return next(text for text in found if text.startswith("Error"))
        parts = [f"{_ALL_SCOPES[s]}:\n{text}" for s, text in zip(scopes, found, strict=True)]
        kept = [part for part, text in zip(parts, found, strict=True) if text != NO_RESULTS]
        return "\n\n".join(kept) if kept else NO_RESULTS


def _args_schema(model_sets: ModelSets, scopes: tuple[str, ...], scope: str) -> type[BaseModel]:
    query = (str, Field(..., description="What to look for, in a few words."))
    if model_sets == "query":
        return create_model("ZepSearchQuery", query=query)
    scope_type = Literal[scopes]  # type: ignore[valid-type]
    return create_model(
        "ZepSearchQueryAndScope",
        query=query,
        scope=(scope_type, Field(default=scope, description="What to search.")),
    )


def _description(search: SearchTool, scope_schema: dict[str, Any], model_sets: ModelSets) -> str:
    if model_sets == "query" or not scope_schema:
        return search.description
    scopes = scope_schema.get("description", "What to search")
    return f"{search.description} {scopes}; all: facts, entities and raw episodes together."
