"""Agno tests run offline: telemetry off, and the only model is `ScriptedModel`, which answers
from a script and records what each model call received."""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

os.environ["AGNO_TELEMETRY"] = "false"

from agno.models.base import Model
from agno.models.message import Message
from agno.models.response import ModelResponse


@dataclass
class Call:
    """A scripted tool call: the model asks for `name` with `args`."""

    name: str
    args: dict[str, Any]


def model_input(messages: list[Message]) -> str:
    """Everything one model call carries, as text: every message's role and content."""
    lines = []
    for message in messages:
        calls = [call["function"]["name"] for call in message.tool_calls or []]
        suffix = f" (calls {', '.join(calls)})" if calls else ""
        lines.append(f"{message.role}: {message.get_content_string()}{suffix}")
    return "\n".join(lines)


@dataclass
class ScriptedModel(Model):
    """A model that answers with the next step of `script` (text, a `Call` or an exception)."""

    id: str = "scripted"
    name: str = "ScriptedModel"
    provider: str = "zepkit-tests"
    script: list[Any] = field(default_factory=list)
    inputs: list[str] = field(default_factory=list)

    def _next(self, messages: list[Message]) -> ModelResponse:
        self.inputs.append(model_input(messages))
        step = self.script.pop(0)
        if isinstance(step, BaseException):
            raise step
        if isinstance(step, Call):
            call = {
                "id": f"call-{len(self.inputs)}",
                "type": "function",
                "function": {"name": step.name, "arguments": json.dumps(step.args)},
            }
            return ModelResponse(role="assistant", tool_calls=[call])
        return ModelResponse(role="assistant", content=step)

    def invoke(self, messages: list[Message], **kwargs: Any) -> ModelResponse:  # type: ignore[override]
        return self._next(messages)

    async def ainvoke(self, messages: list[Message], **kwargs: Any) -> ModelResponse:  # type: ignore[override]
        return self._next(messages)

    def invoke_stream(self, messages: list[Message], **kwargs: Any) -> Iterator[ModelResponse]:  # type: ignore[override]
        yield self._next(messages)

    async def ainvoke_stream(  # type: ignore[override]
        self, messages: list[Message], **kwargs: Any
    ) -> AsyncIterator[ModelResponse]:
        yield self._next(messages)

    def _parse_provider_response(self, response: Any, **kwargs: Any) -> ModelResponse:
        return response  # type: ignore[no-any-return]

    def _parse_provider_response_delta(self, response: Any) -> ModelResponse:
        return response  # type: ignore[no-any-return]


@pytest.fixture
def scripted() -> type[ScriptedModel]:
    return ScriptedModel


@pytest.fixture
def call() -> type[Call]:
    return Call
