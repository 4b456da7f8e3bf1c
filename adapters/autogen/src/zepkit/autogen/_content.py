"""Translating between AutoGen's messages and memory contents and zepkit's text and results."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from autogen_core.memory import MemoryContent, MemoryMimeType
from autogen_core.models import (
    AssistantMessage,
    FunctionExecutionResultMessage,
    LLMMessage,
    UserMessage,
)

from zepkit.core import DataType, SearchResults, UnsupportedError

TEXT_TYPES = frozenset({MemoryMimeType.TEXT.value, MemoryMimeType.MARKDOWN.value})


def newest_user_text(messages: Sequence[LLMMessage]) -> str:
    """The text of the newest user message that the agent has not answered yet ("" when the agent
    spoke last, e.g. a run started without a new task)."""
    for message in reversed(messages):
        if isinstance(message, AssistantMessage | FunctionExecutionResultMessage):
            return ""
        if isinstance(message, UserMessage):
            text = message_text(message.content)
            if text:
                return text
    return ""


def message_text(content: Any) -> str:
    """A message's text: the string itself, or the text parts of a multimodal list."""
    if isinstance(content, str):
        return content.strip()
    if isinstance(content, list):
        return "\n".join(part.strip() for part in content if isinstance(part, str) and part.strip())
    return ""


def mime_of(content: MemoryContent) -> str:
    mime = content.mime_type
    return mime.value if isinstance(mime, MemoryMimeType) else str(mime)


def as_data(content: MemoryContent) -> tuple[str, DataType]:
    """A memory content item as graph data: dicts and JSON text as "json", text and markdown as
    "text". Images and bytes are not memory zepkit can store."""
    value, mime = content.content, mime_of(content)
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False, default=str), "json"
    if isinstance(value, str) and mime == MemoryMimeType.JSON.value:
        return value, "json"
    if isinstance(value, str) and (mime in TEXT_TYPES or mime.startswith("text/")):
        return value, "text"
    raise UnsupportedError(f"zepkit stores text and JSON memory, not {mime} content")


def as_contents(results: SearchResults) -> list[MemoryContent]:
    """Search results as AutoGen memory contents, one per fact, entity or episode (or the whole
    block for scope "auto"), with the kind and id in the metadata."""
    text = MemoryMimeType.TEXT
    if results.scope == "auto":
        block = (results.context or "").strip()
        if not block:
            return []
        return [MemoryContent(content=block, mime_type=text, metadata={"kind": "context"})]
    contents = [
        MemoryContent(
            content=fact.fact, mime_type=text, metadata=_metadata("fact", fact.uuid, fact.score)
        )
        for fact in results.edges
    ]
    contents += [
        MemoryContent(
            content=f"{node.name}: {node.summary}" if node.summary else node.name,
            mime_type=text,
            metadata=_metadata("entity", node.uuid, node.score),
        )
        for node in results.nodes
    ]
    contents += [
        MemoryContent(
            content=episode.content,
            mime_type=text,
            metadata=_metadata("episode", episode.uuid, episode.score),
        )
        for episode in results.episodes
    ]
    return contents


def _metadata(kind: str, uuid: str, score: float | None) -> dict[str, Any]:
    found: dict[str, Any] = {"kind": kind, "uuid": uuid}
    if score is not None:
        found["score"] = score
    return found
