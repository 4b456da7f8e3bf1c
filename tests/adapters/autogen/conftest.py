"""AutoGen tests run offline: runtime tracing off, and a scripted `ReplayChatCompletionClient`
(from autogen-ext) in place of a real model, offered through the `replay` fixture."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import Any

import pytest

os.environ.setdefault("AUTOGEN_DISABLE_RUNTIME_TRACING", "true")

from autogen_core import FunctionCall
from autogen_core.models import (
    CreateResult,
    LLMMessage,
    ModelFamily,
    ModelInfo,
    RequestUsage,
)
from autogen_ext.models.replay import ReplayChatCompletionClient


class Replay:
    """Scripting helpers: replay clients with function calling on, tool calls, and the text of
    what each model call received."""

    model_info = ModelInfo(
        vision=False,
        function_calling=True,
        json_output=False,
        family=ModelFamily.UNKNOWN,
        structured_output=False,
    )

    def client(self, *responses: str | CreateResult) -> ReplayChatCompletionClient:
        """Extend `client.chat_completions` to script the runs that follow."""
        return ReplayChatCompletionClient(list(responses), model_info=self.model_info)

    @staticmethod
    def tool_call(name: str, arguments: dict[str, Any], call_id: str = "call-0") -> CreateResult:
        """A model response that calls one tool."""
        return CreateResult(
            finish_reason="function_calls",
            content=[FunctionCall(id=call_id, name=name, arguments=json.dumps(arguments))],
            usage=RequestUsage(prompt_tokens=0, completion_tokens=0),
            cached=False,
        )

    def searches(self, queries: Sequence[str], tool: str = "search_memory") -> list[CreateResult]:
        """One search tool call per query, each its own model response."""
        return [self.tool_call(tool, {"query": q}, f"call-{i}") for i, q in enumerate(queries)]

    @staticmethod
    def as_text(messages: Sequence[LLMMessage]) -> str:
        """Everything one model call received, one `Type: content` line per message."""
        lines = []
        for message in messages:
            content = message.content
            if not isinstance(content, str):
                content = repr(content)
            lines.append(f"{type(message).__name__}: {content}")
        return "\n".join(lines)

    def inputs(self, client: ReplayChatCompletionClient, start: int = 0) -> list[str]:
        """The text of every model call from call number `start` on."""
        return [self.as_text(call["messages"]) for call in client.create_calls[start:]]

    @staticmethod
    def calls(client: ReplayChatCompletionClient, start: int = 0) -> list[list[LLMMessage]]:
        return [list(call["messages"]) for call in client.create_calls[start:]]


@pytest.fixture
def replay() -> Replay:
    return Replay()
