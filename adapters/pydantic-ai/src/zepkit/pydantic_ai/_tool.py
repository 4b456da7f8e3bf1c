"""The core's memory search tool as a Pydantic AI toolset (Form B)."""

from __future__ import annotations

from typing import Any

from pydantic_ai import RunContext, Tool
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.toolsets import AbstractToolset, FunctionToolset

from zepkit.core import SearchTool
from zepkit.core.spi import IdentityResolver

STAGE = "pydantic-ai identity"


def search_toolset(search: SearchTool, resolver: IdentityResolver[Any]) -> AbstractToolset[Any]:
    """One tool with the core's name, description and schema. The user comes from the run's deps,
    never from the model; a run without a user does not see a user-graph search at all."""

    async def search_memory(ctx: RunContext[Any], **args: Any) -> str:
        identity = await resolver.resolve(ctx.deps, search.loop.failsoft, STAGE, report=False)
        return await search.call(args, identity)

    tool: Tool[Any] = Tool.from_schema(
        search_memory,
        name=search.name,
        description=search.description,
        json_schema=search.parameters,
        takes_ctx=True,
    )
    toolset: FunctionToolset[Any] = FunctionToolset([tool])
    if search.graph_id is not None:  # a shared graph needs no user
        return toolset

    def has_user(ctx: RunContext[Any], _tool: ToolDefinition) -> bool:
        return resolver.resolve_now(ctx.deps, search.loop.failsoft, STAGE, report=False) is not None

    return toolset.filtered(has_user)
