"""`ZepSearchTool`: the core's memory search tool as a CrewAI `BaseTool`.

The model sets the query, or the query and the scope (one of the backend's scopes, or "all" for
facts, entities and episodes at once); everything else is fixed when the tool is built. The
target (a user's graph or a shared graph) never comes from the model.
"""

from __future__ import annotations

from typing import Any, Literal

from crewai.tools import BaseTool
from pydantic import BaseModel, Field, PrivateAttr, create_model

from zepkit.core import Identity, MemoryLoop, SearchTool

ModelSets = Literal["query", "query_and_scope"]


class ZepSearchTool(BaseTool):
    """Memory search for a CrewAI agent, over one user's graph or one shared graph."""

    name: str = "search_memory"
    description: str = ""
    _memory: MemoryLoop = PrivateAttr()
    _search: SearchTool = PrivateAttr()
    _identity: Identity | None = PrivateAttr(default=None)
    _scope: str = PrivateAttr(default="edges")

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
        fixed: dict[str, Any] = {"graph_id": graph_id, "limit": limit, "reranker": "rrf"}
        search = memory.search_tool(scope=scope, **fixed)  # checks `scope`
        if model_sets == "query_and_scope":
            search = memory.search_tool(offer_all=True, **fixed)
        options.setdefault("description", _description(search))
        super().__init__(args_schema=_args_schema(search, scope), **options)
        self._memory = memory
        self._search = search
        self._scope = scope
        if user_id is not None:
            self._identity = Identity(user_id=user_id, thread_id=thread_id or user_id)

    def _run(self, query: str = "", **extra: Any) -> str:
        return self._memory.sync.run(self._arun(query, **extra))

    async def _arun(self, query: str = "", **extra: Any) -> str:
        if "scope" in self._search.visible_parameters:
            extra["scope"] = extra.get("scope") or self._scope
        return await self._search.call({"query": query, **extra}, self._identity)

    async def acall(self, query: str, scope: str | None = None) -> str:
        """Run the search for the model; never raises, always returns text for it."""
        return await self._arun(query, **({"scope": scope} if scope else {}))


def _args_schema(search: SearchTool, scope: str) -> type[BaseModel]:
    """The core tool's parameters as the pydantic model CrewAI wants; the core validates."""
    props = search.parameters["properties"]
    query = (str, Field(..., description=props["query"]["description"]))
    if "scope" not in props:
        return create_model("ZepSearchQuery", query=query)
    scope_type = Literal[tuple(props["scope"]["enum"])]  # type: ignore[valid-type]
    return create_model(
        "ZepSearchQueryAndScope",
        query=query,
        scope=(scope_type, Field(default=scope, description=props["scope"]["description"])),
    )


def _description(search: SearchTool) -> str:
    scope = search.parameters["properties"].get("scope")
    return f"{search.description} {scope['description']}." if scope else search.description
