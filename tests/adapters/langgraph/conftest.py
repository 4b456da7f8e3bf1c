"""Offline doubles for the LangGraph adapter tests: a scripted chat model that records what it
receives, and harnesses running real LangGraph / LangChain agents for the adapter contract."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Literal

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatResult
from pydantic import Field

from zepkit.core import MemoryLoop

os.environ.setdefault("LANGSMITH_TRACING", "false")
os.environ.setdefault("LANGCHAIN_TRACING_V2", "false")

TOOL_NAME = "search_memory"


class ScriptedChatModel(GenericFakeChatModel):
    """Answers with the given messages in order and records each call's full input as text."""

    inputs: list[str] = Field(default_factory=list)

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ScriptedChatModel:
        return self

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> ChatResult:
        self.inputs.append("\n".join(f"{m.type}: {m.text}" for m in messages))
        return super()._generate(messages, *args, **kwargs)


def scripted(reply: str, tool_queries: Sequence[str] = ()) -> ScriptedChatModel:
    """A model that calls the memory search tool once per query, then answers `reply`."""
    steps = [
        AIMessage(
            content="",
            tool_calls=[{"name": TOOL_NAME, "args": {"query": query}, "id": f"call-{n}"}],
        )
        for n, query in enumerate(tool_queries)
    ]
    return ScriptedChatModel(messages=iter([*steps, AIMessage(content=reply)]), inputs=[])


Mode = Literal["async", "sync"]


@pytest.fixture
def make_model() -> Callable[..., ScriptedChatModel]:
    return scripted


@pytest.fixture
def memory_factory() -> Iterator[Callable[[], MemoryLoop]]:
    loops: list[MemoryLoop] = []

    def make() -> MemoryLoop:
        loops.append(MemoryLoop.local(":memory:"))
        return loops[-1]

    yield make
    for loop in loops:
        loop.sync.close()
