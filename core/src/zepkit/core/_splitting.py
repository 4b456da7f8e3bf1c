"""Splitting long text at the best boundary (paragraph, line, sentence, word) so nothing is cut."""

from __future__ import annotations

import re

_BREAKS = (re.compile(r"\n\s*\n"), re.compile(r"\n"), re.compile(r"(?<=[.!?。！？])\s+"))


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
