"""`ZepContextTool` (Form A): saves the user's message and puts memory into the instructions."""

from __future__ import annotations

from typing import Any

from google.adk.models.llm_request import LlmRequest
from google.adk.tools.base_tool import BaseTool
from google.adk.tools.tool_context import ToolContext

from zepkit.adk._identity import content_text, resolve_identity
from zepkit.core import MemoryLoop
from zepkit.core.spi import as_memory

DESCRIPTION = "Adds the user's long-term memory to the instructions (never called by the model)."


class ZepContextTool(BaseTool):
    """A tool the model never sees: before every model call it persists the turn's user message
    (once per invocation) and appends the rendered memory block to the system instruction.

    Identity is resolved per call from the session, so one instance serves every user.
    """

    def __init__(self, memory: MemoryLoop | object, *, name: str = "zep_context") -> None:
        super().__init__(name=name, description=DESCRIPTION)
        self.memory = as_memory(memory)

    async def process_llm_request(
        self, *, tool_context: ToolContext, llm_request: LlmRequest
    ) -> None:
        # No super() call: that would advertise this tool to the model.
        text = content_text(tool_context.user_content)
        if not text.strip():
            return
        session = tool_context.session
        try:
            identity = resolve_identity(tool_context.state, tool_context.user_id, session.id)
        except Exception as exc:
            self.memory.failsoft.handle(
                "adk context identity", exc, user_id=tool_context.user_id, session_id=session.id
            )
            return
        block = await self.memory.begin_turn(identity, text, turn_id=tool_context.invocation_id)
        if block:
            llm_request.append_instructions([block])

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        """Never offered to the model; answers a stray call with a sentence instead of failing."""
        return {"error": f"{self.name} is not callable; memory is already in the instructions."}
