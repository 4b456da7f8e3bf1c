"""The core's memory search tool as an Agents SDK `FunctionTool` (Form B)."""

from __future__ import annotations

import json
from typing import Any

from agents import FunctionTool, RunContextWrapper
from agents.tool_context import ToolContext

from zepkit.core import SearchTool
from zepkit.core.spi import IdentityResolver
from zepkit.openai_agents._identity import STAGE


def wrap_search(search: SearchTool, resolver: IdentityResolver[Any]) -> FunctionTool:
    """One tool with the core's name, description and schema. The user comes from the run's
    context, never from the model; a run without a user does not see a user-graph search."""

    async def invoke(ctx: ToolContext[Any], arguments: str) -> str:
        try:
            parsed = json.loads(arguments or "{}")
        except ValueError:
            return "Error: the tool arguments are not valid JSON."
        if not isinstance(parsed, dict):
            return "Error: the tool arguments must be a JSON object."
        identity = await resolver.resolve(ctx.context, search.loop.failsoft, STAGE, report=False)
        return await search.call(parsed, identity)

    async def has_user(ctx: RunContextWrapper[Any], _agent: Any) -> bool:
        found = await resolver.resolve(ctx.context, search.loop.failsoft, STAGE, report=False)
        return found is not None

    return FunctionTool(
        name=search.name,
        description=search.description,
        params_json_schema=search.parameters,
        on_invoke_tool=invoke,
        strict_json_schema=False,  # optional parameters stay optional
        is_enabled=True if search.graph_id is not None else has_user,  # a shared graph needs none
    )
