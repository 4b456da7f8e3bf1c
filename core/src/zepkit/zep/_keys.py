"""Idempotency keys, so Zep drops a repeated write instead of storing it twice.

A message write's key comes from the caller (the loop makes one per write and the outbox keeps it
for replays) and never from state held in memory: after a restart, "Hello" said again is a new
write with a new key. The SDK reuses one key across its own retries of a call."""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from zepkit.core._models import Message


def derive_key(operation: str, *parts: Any) -> str:
    """A stable hex key for `operation` over JSON-encodable `parts`."""
    payload = json.dumps([operation, *parts], ensure_ascii=False, sort_keys=True, default=str)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def _time(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def messages_key(thread_uuid: str, messages: Sequence[Message], write_key: str | None) -> str:
    """The key of one `add_messages` call: the caller's `write_key` (the same for every replay of
    one write) over the thread and the batch; without one, a fresh key, so only the SDK's own
    retries of this call share it."""
    return derive_key(
        "thread.add_messages",
        thread_uuid,
        write_key if write_key is not None else uuid.uuid4().hex,
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
