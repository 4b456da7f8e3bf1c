"""Splitting a JSON document into smaller valid JSON documents that each fit a size limit.

Every chunk keeps the path of keys that leads to its part (`{"order": {"items": [...]}}`), so a
part still says what it is. The work is linear in the input times its depth, the chunks add
little beyond the input (each path at most once per chunk), and what cannot be chunked within
that (nesting deeper than `MAX_JSON_DEPTH`, keys along one path longer than half a chunk) is
refused with a `ValueError` rather than looped on or blown up.
"""

from __future__ import annotations

import json
from typing import Any

from zepkit.core._splitting import split_text

MAX_JSON_DEPTH = 64
"""Deepest nesting zepkit chunks. Real documents stay far below; deeper ones are refused."""

_LIST = None  # a path step into a list (a string step is a key of an object)


def parse_json(data: str) -> Any:
    """`json.loads`, with nesting too deep for the parser or for chunking as a `ValueError`."""
    try:
        value = json.loads(data)
    except RecursionError:
        raise ValueError(
            f"data is JSON nested too deeply; at most {MAX_JSON_DEPTH} levels are supported"
        ) from None
    except ValueError as exc:
        raise ValueError(f"data is not valid JSON: {exc}") from None
    depth = _depth(value)
    if depth > MAX_JSON_DEPTH:
        raise ValueError(
            f"data is JSON nested {depth} levels deep; at most {MAX_JSON_DEPTH} are supported"
        )
    return value


def split_json(data: str, max_chars: int) -> list[str]:
    """`data` (a JSON document) as JSON documents of at most `max_chars` characters each."""
    if len(data) <= max_chars:
        return [data]
    chunks: list[str] = []
    _split(parse_json(data), (), max_chars, chunks)
    return chunks


def _encode(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _depth(value: Any) -> int:
    """How deeply containers nest in `value` (a scalar is 0), without recursion."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            stack.extend((child, level + 1) for child in item.values())
        elif isinstance(item, list):
            stack.extend((child, level + 1) for child in item)
        else:
            continue
        deepest = max(deepest, level + 1)
    return deepest


def _wrap(path: tuple[str | None, ...], inner: str) -> str:
    """The encoded `inner` placed at `path` inside the objects and lists that lead to it."""
    for step in reversed(path):
        inner = f"[{inner}]" if step is _LIST else f"{{{_encode(step)}: {inner}}}"
    return inner


def _split(value: Any, path: tuple[str | None, ...], max_chars: int, out: list[str]) -> None:
    overhead = len(_wrap(path, ""))
    room = max_chars - overhead
    if overhead > max_chars // 2:
        raise ValueError(
            f"the JSON keys leading to one value take {overhead} characters; a chunk of "
            f"{max_chars} characters cannot hold them and their content"
        )
    encoded = _encode(value)
    if len(encoded) <= room:
        out.append(_wrap(path, encoded))
    elif isinstance(value, dict):
        entries = [(f"{_encode(k)}: {_encode(v)}", (*path, k), v) for k, v in value.items()]
        _pack(entries, "{", "}", room, path, max_chars, out)
    elif isinstance(value, list):
        entries = [(_encode(v), (*path, _LIST), v) for v in value]
        _pack(entries, "[", "]", room, path, max_chars, out)
    elif isinstance(value, str):
        out.extend(_wrap(path, _encode(piece)) for piece in _split_string(value, room))
    else:  # a number too long for a chunk
        raise ValueError(f"a JSON value of {len(encoded)} characters cannot be chunked")


def _pack(
    entries: list[tuple[str, tuple[str | None, ...], Any]],
    open_: str,
    close: str,
    room: int,
    path: tuple[str | None, ...],
    max_chars: int,
    out: list[str],
) -> None:
    """Group consecutive entries into containers that fit; an entry too big alone is split."""
    group: list[str] = []
    size = 2

    def flush() -> None:
        nonlocal group, size
        if group:
            out.append(_wrap(path, open_ + ", ".join(group) + close))
        group, size = [], 2

    for text, inner_path, inner in entries:
        cost = len(text) + (2 if group else 0)
        if size + cost <= room:
            group.append(text)
            size += cost
            continue
        flush()
        if len(text) + 2 <= room:
            group, size = [text], 2 + len(text)
        else:
            _split(inner, inner_path, max_chars, out)
    flush()


def _split_string(text: str, room: int) -> list[str]:
    """Pieces of `text` whose JSON encoding (quotes included) fits in `room` characters."""
    pieces: list[str] = []
    for piece in split_text(text, room - 2):
        if len(_encode(piece)) <= room:
            pieces.append(piece)
            continue
        start, cost = 0, 2  # escapes make this piece too long: cut by encoded length
        for index, char in enumerate(piece):
            width = _width(char)
            if cost + width > room:
                pieces.append(piece[start:index])
                start, cost = index, 2
            cost += width
        pieces.append(piece[start:])
    return pieces


def _width(char: str) -> int:
    """Characters `char` takes inside a JSON string (ensure_ascii=False)."""
    if char in '"\\\b\f\n\r\t':
        return 2
    if char < " " or "\ud800" <= char <= "\udfff":
        return 6
    return 1
