"""Checks of tool arguments that answer in a sentence for the model instead of raising: the
schema tells a client what to send, but a model sends what it likes."""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any


class BadArgument(ValueError):
    """A tool argument the model got wrong; the message is the sentence it reads."""


def text(
    args: Mapping[str, Any], name: str, *, required: bool = False, max_chars: int | None = None
) -> str | None:
    value = args.get(name)
    if value is None:
        if required:
            raise BadArgument(f"`{name}` is required: give it as a non-empty string.")
        return None
    if not isinstance(value, str):
        raise BadArgument(f"`{name}` must be a string, not {_kind(value)}.")
    if required and not value.strip():
        raise BadArgument(f"`{name}` is empty: give it as a non-empty string.")
    if max_chars is not None and len(value) > max_chars:
        raise BadArgument(f"`{name}` has {len(value):,} characters; at most {max_chars:,}.")
    return value


def whole(args: Mapping[str, Any], name: str, low: int, high: int, default: int) -> int:
    """A whole number in [low, high]; 3.0 counts as 3, "3" does not."""
    value = args.get(name, default)
    if value is None:
        return default
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or value != int(value)
    ):
        raise BadArgument(f"`{name}` must be a whole number from {low} to {high}.")
    if not low <= value <= high:
        raise BadArgument(f"`{name}` must be from {low} to {high}, not {int(value)}.")
    return int(value)


def flag(args: Mapping[str, Any], name: str) -> bool:
    value = args.get(name, False)
    if value is None:
        return False
    if not isinstance(value, bool):
        raise BadArgument(f"`{name}` must be true or false, not {_kind(value)}.")
    return value


def choice(args: Mapping[str, Any], name: str, options: tuple[str, ...], default: str) -> str:
    value = args.get(name, default)
    if value is None:
        return default
    if value not in options:
        raise BadArgument(f"`{name}` must be one of {', '.join(options)}; got {value!r}.")
    return str(value)


def moment(args: Mapping[str, Any], name: str) -> datetime | None:
    """An ISO 8601 time; one without a zone is taken as UTC, and the future is refused."""
    value = text(args, name)
    if value is None or not value.strip():
        return None
    try:
        parsed = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        raise BadArgument(
            f"`{name}` must be an ISO 8601 date or time such as 2024-05-01 or "
            f"2024-05-01T14:30:00Z; got {value!r}."
        ) from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    if parsed > datetime.now(UTC):
        raise BadArgument(f"`{name}` is in the future ({value}); give when it happened.")
    return parsed


def no_unknown(args: Mapping[str, Any], known: set[str]) -> None:
    unknown = sorted(set(args) - known)
    if unknown:
        listed = ", ".join(sorted(known)) or "none"
        raise BadArgument(f"unknown argument(s) {', '.join(unknown)}; this tool takes: {listed}.")


def _kind(value: object) -> str:
    return {
        bool: "a boolean",
        int: "a number",
        float: "a number",
        list: "a list",
        dict: "an object",
    }.get(type(value), type(value).__name__)
