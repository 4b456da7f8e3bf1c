"""Reading Agents SDK run items: the user's words in, the final output out."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import pydantic_core


def user_text(items: Iterable[Any]) -> str:
    """The text of the run's last user message ("" when there is none): with history passed as
    input (`result.to_input_list() + [...]`), the last user message is this run's."""
    for item in reversed(list(items)):
        if isinstance(item, Mapping) and item.get("role") == "user":
            return _text(item.get("content")).strip()
    return ""


def _text(content: Any) -> str:
    """A message's text: a plain string, or its text parts (images and files are not memory)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts = [part.get("text") for part in content if isinstance(part, Mapping)]
    return "\n".join(part for part in parts if isinstance(part, str) and part)


def output_text(output: Any) -> str | None:
    """A run's final output as the reply to remember: text as is, structured output as JSON."""
    if output is None or isinstance(output, str):
        return output
    return pydantic_core.to_json(output).decode()
