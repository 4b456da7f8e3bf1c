"""The core's memory search tool as an AutoGen `FunctionTool` bound to one user."""

from __future__ import annotations

from typing import Any

from autogen_core.tools import FunctionTool, ParametersSchema, ToolSchema

from zepkit.core import Identity, SearchTool


class SearchFunctionTool(FunctionTool):
    """A `FunctionTool` that shows the model the core's own schema (enums, bounds, descriptions)
    instead of one AutoGen would derive from a Python signature; the core validates the values."""

    def __init__(self, search: SearchTool, identity: Identity | str | None) -> None:
        if search.graph_id is None and identity is None:
            raise ValueError("a search tool over user memory needs the user: pass an identity")

        # Every parameter the core knows, typed Any: values reach the core unchanged, and a bad
        # one comes back to the model as a sentence instead of a validation error.
        async def search_memory(
            query: Any = None,
            scope: Any = None,
            reranker: Any = None,
            limit: Any = None,
            mmr_lambda: Any = None,
            center_node_uuid: Any = None,
        ) -> str:
            sent = {
                "query": query,
                "scope": scope,
                "reranker": reranker,
                "limit": limit,
                "mmr_lambda": mmr_lambda,
                "center_node_uuid": center_node_uuid,
            }
            return await search.call(
                {key: value for key, value in sent.items() if value is not None}, identity
            )

        super().__init__(search_memory, description=search.description, name=search.name)
        self.search = search
        self.identity = identity

    @property
    def schema(self) -> ToolSchema:
        parameters = self.search.parameters
        return ToolSchema(
            name=self.name,
            description=self.description,
            parameters=ParametersSchema(
                type="object",
                properties=parameters["properties"],
                required=parameters["required"],
                additionalProperties=False,
            ),
            strict=False,
        )


def search_function_tool(search: SearchTool, identity: Identity | str | None) -> FunctionTool:
    """Wrap `search` for AutoGen: the model sends the arguments, the user comes from `identity`
    (an `Identity` or a user id; None only for a tool fixed to a shared graph)."""
    return SearchFunctionTool(search, identity)
