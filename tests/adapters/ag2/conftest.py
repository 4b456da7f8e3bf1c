"""AG2 tests run offline on scripted `TestConfig` models; `track` records the prompt each model
call was actually sent, on every AG2 1.x release (only newer ones record it in `TrackingConfig`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest
from ag2.context import ConversationContext
from ag2.events import BaseEvent, ModelResponse
from ag2.testing import TestConfig, TrackingConfig


class PromptTracking(TrackingConfig):
    """A `TrackingConfig` over a scripted `TestConfig` that keeps each call's prompt."""

    def __init__(self, *turns: Any) -> None:
        super().__init__(TestConfig(*turns))
        self.prompts: list[tuple[str, ...]] = []

    def create(self) -> Any:
        return _Recording(super().create(), self.prompts)


class _Recording:
    """Wraps the scripted client: the prompt is read at the moment of the call, as a provider
    client would read it."""

    def __init__(self, client: Any, prompts: list[tuple[str, ...]]) -> None:
        self.client = client
        self.prompts = prompts

    async def __call__(
        self, messages: Sequence[BaseEvent], context: ConversationContext, **kwargs: Any
    ) -> ModelResponse:
        self.prompts.append(tuple(context.prompt))
        response: ModelResponse = await self.client(messages, context=context, **kwargs)
        return response


@pytest.fixture
def track() -> Callable[..., PromptTracking]:
    """`track(*turns)`: a scripted model that records the prompt of every call."""
    return PromptTracking
