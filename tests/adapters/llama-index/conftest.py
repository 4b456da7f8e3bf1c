"""LlamaIndex tests run offline: the only model is `ScriptedLLM`, a function-calling LLM that
answers from a script and records what each call received; no embedding model is ever built."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import pytest
from llama_index.core import Settings
from llama_index.core.base.llms.types import (
    ChatMessage,
    ChatResponse,
    CompletionResponse,
    LLMMetadata,
    MessageRole,
)
from llama_index.core.llms.function_calling import FunctionCallingLLM
from llama_index.core.llms.llm import ToolSelection
from pydantic import Field

CALLS = "scripted_tool_calls"


@dataclass
class Call:
    """A scripted tool call: the model asks for `name` with `args`."""

    name: str
    args: dict[str, Any]


def model_input(messages: Sequence[ChatMessage]) -> str:
    """Everything one model call carries, as text: every message's role and content."""
    return "\n".join(f"{m.role.value}: {m.content or ''}" for m in messages)


class ScriptedLLM(FunctionCallingLLM):
    """Answers with the next step of `script` (text, a `Call` or an exception)."""

    script: list[Any] = Field(default_factory=list)
    inputs: list[str] = Field(default_factory=list)

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(is_function_calling_model=True, is_chat_model=True)

    def _next(self, messages: Sequence[ChatMessage]) -> ChatResponse:
        self.inputs.append(model_input(messages))
        step = self.script.pop(0)
        if isinstance(step, BaseException):
            raise step
        if isinstance(step, Call):
            call = {"name": step.name, "args": step.args}
            message = ChatMessage(role=MessageRole.ASSISTANT, additional_kwargs={CALLS: [call]})
            return ChatResponse(message=message)
        return ChatResponse(
            message=ChatMessage(role=MessageRole.ASSISTANT, content=step), delta=step
        )

    def chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponse:
        return self._next(messages)

    async def achat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponse:
        return self._next(messages)

    def stream_chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> Iterator[ChatResponse]:
        yield self._next(messages)

    async def astream_chat(  # type: ignore[override]
        self, messages: Sequence[ChatMessage], **kwargs: Any
    ) -> AsyncIterator[ChatResponse]:
        response = self._next(messages)

        async def stream() -> AsyncIterator[ChatResponse]:
            yield response

        return stream()

    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        raise NotImplementedError("the scripted model only chats")

    def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> Any:
        raise NotImplementedError("the scripted model only chats")

    async def acomplete(
        self, prompt: str, formatted: bool = False, **kwargs: Any
    ) -> CompletionResponse:
        raise NotImplementedError("the scripted model only chats")

    async def astream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> Any:
        raise NotImplementedError("the scripted model only chats")

    def _prepare_chat_with_tools(
        self,
        tools: Sequence[Any],
        user_msg: str | ChatMessage | None = None,
        chat_history: list[ChatMessage] | None = None,
        verbose: bool = False,
        allow_parallel_tool_calls: bool = False,
        **kwargs: Any,
    ) -> dict[str, Any]:
        messages = list(chat_history or [])
        if isinstance(user_msg, str):
            messages.append(ChatMessage(role=MessageRole.USER, content=user_msg))
        elif user_msg is not None:
            messages.append(user_msg)
        return {"messages": messages, "tools_seen": [tool.metadata.name for tool in tools]}

    def get_tool_calls_from_response(
        self, response: ChatResponse, error_on_no_tool_call: bool = True, **kwargs: Any
    ) -> list[ToolSelection]:
        calls = response.message.additional_kwargs.get(CALLS, [])
        return [
            ToolSelection(tool_id=f"call-{i}", tool_name=call["name"], tool_kwargs=call["args"])
            for i, call in enumerate(calls)
        ]


@pytest.fixture(autouse=True)
def _no_default_models() -> Iterator[None]:
    """LlamaIndex's defaults (OpenAI) would need the network: disabled, they resolve to its
    offline mocks, so nothing a test builds can reach a provider."""
    Settings.llm = None  # type: ignore[assignment]
    Settings.embed_model = None  # type: ignore[assignment]
    yield


@pytest.fixture
def scripted() -> type[ScriptedLLM]:
    return ScriptedLLM


@pytest.fixture
def call() -> type[Call]:
    return Call
