"""Turning an ingested text into statements (facts) and the entity names they mention.

The `Extractor` protocol is the plug-in point (an LLM-backed extractor can replace the default);
`RuleExtractor` is the default, needs no model and is deterministic.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from zepkit.core.models import DataType
from zepkit.local.text import has_words, proper_nouns, sentences


@dataclass(frozen=True)
class ExtractedStatement:
    """One fact to store: its text as it will be shown, and the entity names it mentions."""

    text: str
    entities: tuple[str, ...] = ()


@runtime_checkable
class Extractor(Protocol):
    """Finds the statements in one message or data item; must be pure and thread-safe."""

    def extract(
        self, text: str, *, speaker: str | None, source: DataType
    ) -> Sequence[ExtractedStatement]:
        """The statements of `text` said by `speaker` (None for data); `source` says its kind."""
        ...


class RuleExtractor:
    """The default extractor: `"<speaker>: <sentence>"` statements, proper-noun runs as entities."""

    # JSON is flattened to `key.path: value` leaves first, so facts never carry braces and quotes.

    def extract(
        self, text: str, *, speaker: str | None, source: DataType
    ) -> Sequence[ExtractedStatement]:
        """See `Extractor.extract`."""
        if source == "json":
            return [
                self._statement(f"{path}: {sentence}" if path else sentence, sentence)
                for path, value in json_leaves(json.loads(text))
                for sentence in sentences(value)
            ]
        prefix = f"{speaker}: " if speaker else ""
        return [self._statement(prefix + sentence, sentence) for sentence in sentences(text)]

    @staticmethod
    def _statement(text: str, sentence: str) -> ExtractedStatement:
        return ExtractedStatement(text=text, entities=tuple(proper_nouns(sentence)))


def json_leaves(value: Any, path: str = "") -> Iterator[tuple[str, str]]:
    """The scalar leaves of a parsed JSON value as (dotted key path, text); list items share it."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from json_leaves(item, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list):
        for item in value:
            yield from json_leaves(item, path)
    elif value is not None:
        text = value if isinstance(value, str) else json.dumps(value)
        if has_words(text):
            yield path, text
