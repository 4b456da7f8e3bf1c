"""`ZepChatCompletionContext`: a model context that holds the memory block apart from the stored
history and saves each run's final reply."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from autogen_core.model_context import ChatCompletionContext, UnboundedChatCompletionContext
from autogen_core.models import AssistantMessage, LLMMessage, SystemMessage

if TYPE_CHECKING:
    from zepkit.autogen._memory import ZepMemory


class ZepChatCompletionContext(ChatCompletionContext):
    """Wraps the agent's real model context (`inner`, unbounded by default) for a `ZepMemory`.

    The model sees the run's memory block first, then whatever `inner` returns, so a buffered or
    token-limited `inner` can never trim the block away, and `save_state` never stores it. Each
    final assistant reply (text, not a tool call) is saved once per run.
    """

    def __init__(self, memory: ZepMemory, inner: ChatCompletionContext | None = None) -> None:
        super().__init__()
        self.memory = memory
        self.inner: ChatCompletionContext = inner or UnboundedChatCompletionContext()
        self.block = ""

    async def add_message(self, message: LLMMessage) -> None:
        await self.inner.add_message(message)
        if isinstance(message, AssistantMessage) and isinstance(message.content, str):
            await self.memory.capture_reply(message.content, name=message.source or None)

    async def get_messages(self) -> list[LLMMessage]:
        messages = list(await self.inner.get_messages())
        return [SystemMessage(content=self.block), *messages] if self.block else messages

    async def clear(self) -> None:
        await self.inner.clear()
        self.block = ""

    async def save_state(self) -> Mapping[str, Any]:
        return await self.inner.save_state()

    async def load_state(self, state: Mapping[str, Any]) -> None:
        await self.inner.load_state(state)
