"""`ZepGraphSearchTool` (Form B): the core's memory search as an ADK tool."""

from __future__ import annotations

from typing import Any

from google.adk.tools.base_tool import BaseTool
from google.adk.tools.tool_context import ToolContext
from google.genai import types

from zepkit.adk._identity import resolve_identity
from zepkit.core import MemoryLoop
from zepkit.core.spi import as_memory


class ZepGraphSearchTool(BaseTool):
    """Lets the model search memory: the session's user graph, or the shared graph `graph_id`.

    Keyword arguments pin search parameters (`scope="nodes"`, `limit=5`, ...): pinned ones leave
    the schema the model sees. The user always comes from the session, never from the model.
    """

    def __init__(
        self, memory: MemoryLoop | object, *, graph_id: str | None = None, **pinned: Any
    ) -> None:
        self.memory = as_memory(memory)
        self.search = self.memory.search_tool(graph_id=graph_id, **pinned)
        super().__init__(name=self.search.name, description=self.search.description)

    def _get_declaration(self) -> types.FunctionDeclaration:
        return types.FunctionDeclaration(
            name=self.name,
            description=self.description,
            parameters_json_schema=self.search.parameters,
        )

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        """Run the search for the session's user; failures come back as a sentence."""
        try:
            identity = resolve_identity(
                tool_context.state, tool_context.user_id, tool_context.session.id
            )
        except Exception as exc:
            self.memory.failsoft.handle("adk search identity", exc, user_id=tool_context.user_id)
            return {"result": "Memory search has no user for this conversation."}
        return {"result": await self.search.call(args, identity)}
