"""The core's memory search tool as an Agent Framework `FunctionTool`, bound to one identity."""

from __future__ import annotations

from typing import Any

from agent_framework import FunctionTool

from zepkit.core import Identity, SearchTool


def search_function_tool(search: SearchTool, identity: Identity) -> FunctionTool:
    """Wrap `search` for one run: the model sends the arguments, the user comes from `identity`.

    A tool is built per run rather than shared, so concurrent runs of different users cannot
    reach each other's memory through it.
    """

    async def search_memory(**arguments: Any) -> str:
        return await search.call(arguments, identity)

    return FunctionTool(
        name=search.name,
        description=search.description,
        func=search_memory,
        input_model=search.parameters,
    )
