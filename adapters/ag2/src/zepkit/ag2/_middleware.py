"""`ZepMemoryMiddleware`: the memory turn on AG2's middleware chain.

AG2 builds one middleware instance per turn, so the instance is the turn: its id keys the core's
once-per-turn cache. The block goes into `context.prompt` for the turn's model calls and comes out
when the turn ends. (A dynamic prompt would not do: AG2 evaluates those only when a conversation's
prompt is empty, so a continued conversation would keep its first turn's block.) Every memory call
runs on the core's sync facade in a worker thread: all of the loop's I/O stays on its one private
event loop, however many event loops the app's runs use, and the agent's loop never blocks.
"""

from __future__ import annotations

import uuid
from typing import Any

from ag2.context import ConversationContext
from ag2.events import BaseEvent, ModelRequest, ModelResponse, TextInput
from ag2.middleware import AgentTurn, BaseMiddleware

from zepkit.ag2._identity import RunIdentity
from zepkit.core import MemoryLoop


class _ContextBlock(str):
    """The turn's block in `context.prompt`, told apart from equal text by identity."""

    __slots__ = ()


class ZepMemoryMiddleware(BaseMiddleware):
    """Persist the user's message once, give every model call of the turn the context block, and
    persist the final reply once. Register with
    `ag2.Middleware(ZepMemoryMiddleware, memory=memory, user_id=None, thread_id=None)`, or use
    `zep_memory_plugin`, which also adds the search tool."""

    def __init__(
        self,
        event: BaseEvent,
        context: ConversationContext,
        *,
        memory: MemoryLoop,
        user_id: str | None = None,
        thread_id: str | None = None,
    ) -> None:
        super().__init__(event, context)
        self.memory = memory
        self.identity = RunIdentity(user_id, thread_id)
        self.turn_id = f"ag2-turn-{uuid.uuid4()}"

    async def on_turn(
        self, call_next: AgentTurn, event: BaseEvent, context: ConversationContext
    ) -> ModelResponse:
        identity = await self.identity.resolve(context, self.memory.failsoft, "ag2 memory")
        text = request_text(event)
        if identity is None or not text:  # no user, or a resumed turn with no new message
            return await call_next(event, context)
        block = await self.memory.sync.arun(
            self.memory.begin_turn(identity, text, turn_id=self.turn_id)
        )
        fragment = _ContextBlock(block) if block else None
        if fragment is not None:
            context.prompt.append(fragment)
        try:
            response = await call_next(event, context)
        finally:
            if fragment is not None:
                context.prompt[:] = [part for part in context.prompt if part is not fragment]
        await self.memory.sync.arun(
            self.memory.capture_reply(
                identity,
                response.content,
                turn_id=self.turn_id,
                is_tool_call=bool(response.tool_calls.calls),
            )
        )
        return response


def request_text(event: Any) -> str:
    """The text a user turn sends; images, files and data parts are not text memory."""
    if not isinstance(event, ModelRequest):
        return ""
    texts = [part.content for part in event.parts if isinstance(part, TextInput)]
    return "\n".join(text for text in texts if text.strip())
