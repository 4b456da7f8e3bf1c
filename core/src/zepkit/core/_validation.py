"""Input checks and the splitting that keeps every write within the limits, never dropping text."""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence

from zepkit.core._jsonchunks import split_json
from zepkit.core._limits import (
    MAX_ID_CHARS,
    MAX_MESSAGE_CHARS,
    MAX_PAGE_SIZE,
    MAX_QUERY_CHARS,
)
from zepkit.core._models import Message
from zepkit.core._splitting import split_text
from zepkit.core._unicode import is_well_formed, well_formed

logger = logging.getLogger("zepkit.core")

__all__ = [
    "batches",
    "check_id",
    "check_page",
    "check_target",
    "chunk_data",
    "clip_query",
    "prepare_messages",
    "split_text",
]


def check_id(value: object, field: str) -> str:
    """Return `value` when it is a usable id, else raise a `ValueError` naming the field."""
    if not isinstance(value, str):
        raise TypeError(f"{field} must be a string, got {type(value).__name__}")
    if not value.strip():
        raise ValueError(f"{field} must be a non-empty string")
    if len(value) > MAX_ID_CHARS:
        raise ValueError(f"{field} is {len(value)} characters; at most {MAX_ID_CHARS} are allowed")
    if not is_well_formed(value):
        raise ValueError(f"{field} holds a lone surrogate (half a character)")
    return value


def check_target(user_id: str | None, graph_id: str | None) -> tuple[str | None, str | None]:
    """Exactly one of `user_id` / `graph_id` names where data goes or where a search looks."""
    if (user_id is None) == (graph_id is None):
        raise ValueError("pass exactly one of user_id or graph_id")
    if user_id is not None:
        check_id(user_id, "user_id")
    if graph_id is not None:
        check_id(graph_id, "graph_id")
    return user_id, graph_id


def check_page(limit: object, cursor: object) -> int:
    """A listing's page size (1 to `MAX_PAGE_SIZE`) and cursor (a string from an earlier page)."""
    if isinstance(limit, bool) or not isinstance(limit, int):
        raise TypeError(f"limit must be an integer, got {type(limit).__name__}")
    if not 1 <= limit <= MAX_PAGE_SIZE:
        raise ValueError(f"limit must be between 1 and {MAX_PAGE_SIZE}, got {limit}")
    if cursor is not None and (not isinstance(cursor, str) or not cursor):
        raise ValueError(f"cursor must be a next_cursor from an earlier page, got {cursor!r}")
    return limit


def clip_query(query: str) -> str:
    """The one policy for long queries, everywhere: keep the first `MAX_QUERY_CHARS` characters
    and say so once (INFO: searching with a long task description is normal, not a fault)."""
    if len(query) <= MAX_QUERY_CHARS:
        return query
    logger.info("search query cut from %d to %d characters", len(query), MAX_QUERY_CHARS)
    return query[:MAX_QUERY_CHARS]


def prepare_messages(messages: Sequence[Message]) -> list[Message]:
    """Validate, drop empty messages and split oversized ones (same role, name, time, metadata)."""
    prepared: list[Message] = []
    for index, message in enumerate(messages):
        if not isinstance(message, Message):
            raise TypeError(
                f"messages[{index}] must be a zepkit.core.Message, got {type(message).__name__}"
            )
        if not message.content.strip():
            continue
        for piece in split_text(message.content, MAX_MESSAGE_CHARS):
            prepared.append(message if piece == message.content else _with(message, piece))
    return prepared


def _with(message: Message, content: str) -> Message:
    return message.model_copy(update={"content": content})


def batches(items: Sequence[Message], size: int) -> Iterator[Sequence[Message]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def chunk_data(data: str, data_type: str, max_chars: int) -> list[str]:
    """Chunk graph data to the per-item limit; JSON is split into smaller valid JSON documents.
    A lone surrogate becomes U+FFFD (see `zepkit.core._unicode`)."""
    data = well_formed(data)
    if len(data) <= max_chars:
        return [data]
    if data_type == "json":
        return split_json(data, max_chars)
    return split_text(data, max_chars)
