"""What every tool answers with: text for the model beside the same answer as data, each
data shape with its output schema, refusals as one sentence, and the tools' hints."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from mcp_types import CallToolResult, TextContent, Tool, ToolAnnotations
from pydantic import BaseModel, ConfigDict

from zepkit.core import Message, ThreadInfo


class _Out(BaseModel):
    """An answer's data; attribute docstrings become the output schema's descriptions."""

    model_config = ConfigDict(use_attribute_docstrings=True)


class ContextOut(_Out):
    block: str
    """The rendered block, as adapters inject it; empty when memory has nothing."""
    chars: int
    query: str | None = None
    thread_id: str | None = None


class ThreadsOut(_Out):
    threads: list[ThreadInfo]
    next_cursor: str | None = None


class MessagesOut(_Out):
    thread_id: str
    messages: list[Message]


class AddOut(_Out):
    saved: bool
    """Stored in memory now."""
    queued: bool
    """Kept in the durable outbox because memory was unavailable; delivered when it is back."""
    episode_uuids: list[str]
    chars: int


class ForgetOut(_Out):
    dry_run: bool
    deleted: bool
    target: Literal["thread", "everything"]
    thread_id: str | None = None
    threads: int = 0
    messages: int = 0
    confirm: str | None = None
    """The code to pass back as `confirm` to delete for real (dry runs only)."""


Handler = Callable[[str, Mapping[str, Any]], Awaitable[CallToolResult]]


@dataclass(frozen=True)
class Spec:
    tool: Tool
    handler: Handler
    writes: bool


def ok(text: str, data: BaseModel) -> CallToolResult:
    return CallToolResult(
        content=[TextContent(type="text", text=text)],
        structured_content=data.model_dump(mode="json"),
    )


def refuse(sentence: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=sentence)], is_error=True)


def schema(properties: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": list(required),
        "additionalProperties": False,
    }


def output(model: type[BaseModel]) -> dict[str, Any]:
    return model.model_json_schema(mode="serialization")


def hints(
    *, read_only: bool, destructive: bool = False, idempotent: bool = True
) -> ToolAnnotations:
    # Closed world: the tools reach only this user's memory.
    return ToolAnnotations(
        read_only_hint=read_only,
        destructive_hint=destructive,
        idempotent_hint=idempotent,
        open_world_hint=False,
    )


def no_thread(thread_id: str) -> str:
    return (
        f"There is no thread {thread_id!r} in this user's memory; memory_list_threads lists "
        "the ones there are."
    )
