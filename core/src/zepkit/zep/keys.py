"""Idempotency keys derived from what is written, so Zep drops a retried write instead of storing
it twice (the SDK reuses one key across its own retries; these keys also cover the caller's)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from zepkit.core.models import Message


def derive_key(operation: str, *parts: Any) -> str:
    """A stable hex key for `operation` over JSON-encodable `parts`."""
    payload = json.dumps([operation, *parts], ensure_ascii=False, sort_keys=True, default=str)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def _time(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def messages_key(thread_uuid: str, messages: Sequence[Message], previous: str | None) -> str:
    """The key of one `add_messages` call.

    `previous` is the key of the last call that succeeded on this thread, so a retried call (same
    predecessor, same messages) repeats its key while a message said again later ("yes", "thanks")
    gets a new one and is stored.
    """
    return derive_key(
        "thread.add_messages",
        thread_uuid,
        previous,
        [[m.role, m.name, m.content, _time(m.created_at), m.metadata] for m in messages],
    )


def episode_key(
    graph_uuid: str,
    data: str,
    data_type: str,
    created_at: datetime | None,
    metadata: dict[str, Any] | None,
) -> str:
    """The key of one `graph.episode.add` call: identical data is one episode."""
    return derive_key("graph.episode.add", graph_uuid, data_type, data, _time(created_at), metadata)
