"""How values are stored: datetimes as exact ISO text, metadata as JSON text."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from zepkit.core._unicode import well_formed


def now() -> datetime:
    """The current time, timezone-aware in UTC, the default for every created_at."""
    return datetime.now(UTC)


def encode_time(value: datetime) -> str:
    """ISO text that decodes to an equal datetime, naive or aware, offset kept."""
    return value.isoformat()


def decode_time(value: str) -> datetime:
    """The datetime `encode_time` stored."""
    return datetime.fromisoformat(value)


def timestamp(value: str) -> float:
    """Seconds since the epoch for stored ISO text, reading a naive time as UTC (for recency)."""
    moment = datetime.fromisoformat(value)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


def encode_metadata(value: dict[str, Any] | None) -> str | None:
    """JSON text for metadata; ValueError when it holds something JSON cannot represent. A lone
    surrogate in it becomes U+FFFD (`zepkit.core._unicode`): SQLite takes only UTF-8."""
    if value is None:
        return None
    try:
        return well_formed(json.dumps(value, ensure_ascii=False))
    except (TypeError, ValueError) as exc:
        raise ValueError(f"metadata must be JSON-serialisable: {exc}") from exc


def decode_metadata(value: str | None) -> dict[str, Any] | None:
    """The metadata dict `encode_metadata` stored."""
    if value is None:
        return None
    decoded: dict[str, Any] = json.loads(value)
    return decoded
