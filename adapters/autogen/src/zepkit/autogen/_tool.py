"""The core's memory search tool as an AutoGen `FunctionTool` bound to one user."""

from __future__ import annotations

from typing import Any

from autogen_core.tools import FunctionTool, ParametersSchema, ToolSchema

from zepkit.core import Identity, MemoryLoop, SearchTool


class SearchFunctionTool(FunctionTool):
    """A `FunctionTool` that shows the model the core's own schema (enums, bounds, descriptions)
    instead of one AutoGen would derive from a Python signature; the core validates the values."""

    def __init__(self, search: SearchTool, identity: Identity | str | None) -> None:
        if search.graph_id is None and identity is None:
            raise ValueError("a search tool over user memory needs the user: pass an identity")

        async def search_memory(args: dict[str, Any]) -> str:
            return await search.call(args, identity)

        super().__init__(
            search.model_function(search_memory), description=search.description, name=search.name
        )
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


def search_tool(memory: MemoryLoop, identity: Identity | str | None, **pinned: Any) -> FunctionTool:
    """The memory search tool for AutoGen: the model sends the arguments, the user comes from
    `identity` (an `Identity` or a user id; None only with `graph_id=`, a shared graph). Other
    keyword arguments pin search parameters (see `MemoryLoop.search_tool`)."""
    return wrap_search(memory.search_tool(**pinned), identity)


def wrap_search(search: SearchTool, identity: Identity | str | None) -> FunctionTool:
    """Wrap a core `SearchTool` for AutoGen, bound to `identity`."""
    return SearchFunctionTool(search, identity)
