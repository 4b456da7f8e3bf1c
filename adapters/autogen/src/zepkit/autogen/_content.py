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

from zepkit.core import DataType, Hit, SearchResults, UnsupportedError

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
    return [
        MemoryContent(content=hit.text, mime_type=text, metadata=_metadata(hit))
        for hit in results.hits()
    ]


_KINDS = {"edge": "fact", "node": "entity", "episode": "episode"}


def _metadata(hit: Hit) -> dict[str, Any]:
    found: dict[str, Any] = {"kind": _KINDS[hit.kind], "uuid": hit.uuid}
    if hit.score is not None:
        found["score"] = hit.score
    return found
