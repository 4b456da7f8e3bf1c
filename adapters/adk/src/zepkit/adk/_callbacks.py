"""`create_after_model_callback`: stores the model's final reply of each turn."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable

from google.adk.agents.callback_context import CallbackContext
from google.adk.models.llm_response import LlmResponse

from zepkit.adk._identity import content_text, has_tool_parts, resolve_identity
from zepkit.core import MemoryLoop
from zepkit.core.spi import as_memory

# Called like ADK calls it: callback(callback_context=..., llm_response=...), sync or async.
AfterModelCallback = Callable[..., Awaitable[LlmResponse | None] | LlmResponse | None]


def create_after_model_callback(
    memory: MemoryLoop | object, *, chain: AfterModelCallback | None = None
) -> Callable[..., Awaitable[LlmResponse | None]]:
    """An `after_model_callback` that persists the final assistant text once per invocation.

    Tool calls, tool results, empty and partial (streaming) responses are skipped. `chain` (sync
    or async, same keyword arguments) runs first; when it returns a replacement response, that
    replacement is what gets stored and returned.
    """
    loop = as_memory(memory)

    async def after_model_callback(
        callback_context: CallbackContext, llm_response: LlmResponse
    ) -> LlmResponse | None:
        replacement: LlmResponse | None = None
        if chain is not None:
            result = chain(callback_context=callback_context, llm_response=llm_response)
            replacement = await result if inspect.isawaitable(result) else result
        response = replacement or llm_response
        content = response.content
        if response.partial or has_tool_parts(content):
            return replacement
        try:
            identity = resolve_identity(
                callback_context.state, callback_context.user_id, callback_context.session.id
            )
        except Exception as exc:
            loop.failsoft.handle("adk reply identity", exc, user_id=callback_context.user_id)
            return replacement
        await loop.capture_reply(
            identity, content_text(content), turn_id=callback_context.invocation_id
        )
        return replacement

    return after_model_callback
