"""The core's memory search tool as a Strands tool (Form B)."""

from __future__ import annotations

from typing import Any

from strands import Agent
from strands.tools import PythonAgentTool
from strands.types.tools import ToolResult, ToolResultContent, ToolSpec, ToolUse

from zepkit.core import SearchTool
from zepkit.core.spi import IdentityResolver
from zepkit.strands._identity import STAGE, Run


def search_agent_tool(search: SearchTool, resolver: IdentityResolver[Run]) -> PythonAgentTool:
    """One tool with the core's name, description and schema. The user comes from the invocation
    (its state or the agent's), never from the model."""

    async def search_memory(tool_use: ToolUse, **invocation_state: Any) -> ToolResult:
        agent = invocation_state.get("agent")  # Strands puts the running agent there
        identity = None
        if isinstance(agent, Agent):
            run: Run = (agent, invocation_state)
            identity = await resolver.resolve(run, search.loop.failsoft, STAGE, report=False)
        text = await search.call(tool_use.get("input") or {}, identity)
        content: list[ToolResultContent] = [{"text": text}]
        return {"toolUseId": tool_use["toolUseId"], "status": "success", "content": content}

    spec: ToolSpec = {
        "name": search.name,
        "description": search.description,
        "inputSchema": {"json": search.parameters},
    }
    return PythonAgentTool(search.name, spec, search_memory)
