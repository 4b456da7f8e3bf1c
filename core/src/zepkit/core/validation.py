"""Input checks and the splitting that keeps every write within the limits, never dropping text."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from typing import Any

from zepkit.core.limits import MAX_ID_CHARS, MAX_MESSAGE_CHARS, MAX_QUERY_CHARS, MAX_SEARCH_LIMIT
from zepkit.core.models import Message

_BREAKS = (re.compile(r"\n\s*\n"), re.compile(r"\n"), re.compile(r"(?<=[.!?。！？])\s+"))


def check_id(value: object, field: str) -> str:
    """Return `value` when it is a usable id, else raise a `ValueError` naming the field."""
    if not isinstance(value, str):
        raise TypeError(f"{field} must be a string, got {type(value).__name__}")
    if not value.strip():
        raise ValueError(f"{field} must be a non-empty string")
    if len(value) > MAX_ID_CHARS:
        raise ValueError(f"{field} is {len(value)} characters; at most {MAX_ID_CHARS} are allowed")
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


def check_limit(limit: object) -> int:
    if isinstance(limit, bool) or not isinstance(limit, int):
        raise TypeError(f"limit must be an integer, got {type(limit).__name__}")
    if not 1 <= limit <= MAX_SEARCH_LIMIT:
        raise ValueError(f"limit must be between 1 and {MAX_SEARCH_LIMIT}, got {limit}")
    return limit


def check_query(query: object) -> str:
    if not isinstance(query, str):
        raise TypeError(f"query must be a string, got {type(query).__name__}")
    if not query.strip():
        raise ValueError("query must be a non-empty string")
    if len(query) > MAX_QUERY_CHARS:
        raise ValueError(f"query is {len(query)} characters; at most {MAX_QUERY_CHARS} are allowed")
    return query


def split_text(text: str, max_chars: int) -> list[str]:
    """Split text into pieces of at most `max_chars`, preferring paragraph, line, sentence and
    word boundaries. Joining the pieces loses nothing but the whitespace at the cuts."""
    if len(text) <= max_chars:
        return [text]
    pieces: list[str] = []
    rest = text
    while len(rest) > max_chars:
        cut = _best_cut(rest, max_chars)
        head, rest = rest[:cut].rstrip(), rest[cut:].lstrip()
        if head:
            pieces.append(head)
    if rest:
        pieces.append(rest)
    return pieces


def _best_cut(text: str, max_chars: int) -> int:
    window = text[: max_chars + 1]
    for pattern in _BREAKS:
        ends = [m.end() for m in pattern.finditer(window) if m.start() > max_chars // 2]
        ends = [end for end in ends if end <= max_chars] or [
            m.start() for m in pattern.finditer(window) if max_chars // 2 < m.start() <= max_chars
        ]
        if ends:
            return ends[-1]
    space = window.rfind(" ", max_chars // 2, max_chars)
    return space if space > 0 else max_chars


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
    """Chunk graph data to the per-item limit; JSON is split into smaller valid JSON documents."""
    if len(data) <= max_chars:
        return [data]
    if data_type == "json":
        return [
            json.dumps(part, ensure_ascii=False)
            for part in _split_json(json.loads(data), max_chars)
        ]
    return split_text(data, max_chars)


def _split_json(value: Any, max_chars: int) -> list[Any]:
    """Split a JSON list into sub-lists and an object into sub-objects that each fit."""
    if len(json.dumps(value, ensure_ascii=False)) <= max_chars:
        return [value]
    if isinstance(value, list) and len(value) > 1:
        middle = len(value) // 2
        return _split_json(value[:middle], max_chars) + _split_json(value[middle:], max_chars)
    if isinstance(value, dict) and len(value) > 1:
        keys = list(value)
        middle = len(keys) // 2
        first = {k: value[k] for k in keys[:middle]}
        second = {k: value[k] for k in keys[middle:]}
        return _split_json(first, max_chars) + _split_json(second, max_chars)
    if isinstance(value, dict):  # one key whose value is too big: split the value, keep the key
        ((key, inner),) = value.items()
        return [{key: part} for part in _split_json(inner, max_chars - len(json.dumps(key)) - 4)]
    if isinstance(value, list):
        return _split_json(value[0], max_chars)
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    budget = max_chars - 2
    while True:  # escaping can lengthen a piece, so shrink until every encoded piece fits
        parts = split_text(text, budget)
        if all(len(json.dumps(part, ensure_ascii=False)) <= max_chars for part in parts):
            return list(parts)
        budget = max(1, budget * 3 // 4)
