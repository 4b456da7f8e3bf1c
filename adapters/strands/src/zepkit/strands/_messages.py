"""Reading Strands messages: the user's words in, the final reply out."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import pydantic_core


def _text(message: Mapping[str, Any]) -> str:
    """A message's text blocks (images, documents and tool blocks are not text memory)."""
    blocks = message.get("content") or []
    texts = [block.get("text") for block in blocks if isinstance(block, Mapping)]
    return "\n".join(text for text in texts if isinstance(text, str) and text)


def user_text(messages: Iterable[Mapping[str, Any]] | None) -> str:
    """The text of the invocation's last user message ("" when there is none, e.g. an invocation
    that only returns tool results or answers an interrupt)."""
    for message in reversed(list(messages or [])):
        if message.get("role") == "user":
            return _text(message).strip()
    return ""


def reply_text(result: Any) -> str | None:
    """The reply to remember from an `AgentResult`: its structured output as JSON, else the
    final message's text; None for an invocation that did not finish its turn (an interrupt, a
    cancellation, a guardrail)."""
    if result is None or getattr(result, "stop_reason", None) not in ("end_turn", "stop_sequence"):
        return None
    structured = getattr(result, "structured_output", None)
    if structured is not None:
        return pydantic_core.to_json(structured).decode()
    return _text(result.message) or None
