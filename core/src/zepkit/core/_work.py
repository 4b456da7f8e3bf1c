"""How the loop bounds and places its work: a deadline on each memory call, and large inputs
prepared on a worker thread so a huge message never stalls the app's other coroutines."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Sequence
from typing import TypeVar

from zepkit.core._errors import BackendUnavailableError
from zepkit.core._jsonchunks import parse_json
from zepkit.core._limits import MAX_DATA_CHARS
from zepkit.core._models import Message
from zepkit.core._validation import chunk_data, prepare_messages

T = TypeVar("T")

INLINE_CHARS = 100_000
"""Text up to this size is split on the event loop; more is split on a worker thread, so a huge
message never stalls the other coroutines of the app."""


async def within(seconds: float | None, work: Awaitable[T], what: str) -> T:
    """Await `work` for at most `seconds` (None: no limit); past it, cancel the work and raise
    `BackendUnavailableError`, a transient failure like any outage."""
    if seconds is None:
        return await work
    try:
        async with asyncio.timeout(seconds):
            return await work
    except TimeoutError as exc:
        raise BackendUnavailableError(
            f"memory did not answer within {seconds:g} s ({what})"
        ) from exc


async def prepare_off_loop(messages: Sequence[Message]) -> list[Message]:
    """`prepare_messages`, off the event loop when the messages are large."""
    size = sum(len(m.content) for m in messages if isinstance(m, Message))
    if size <= INLINE_CHARS:
        return prepare_messages(messages)
    return await asyncio.to_thread(prepare_messages, messages)


def _chunk_now(data: str, data_type: str) -> list[str]:
    if data_type == "json":
        parse_json(data)  # invalid or too deeply nested JSON is the caller's error
    return chunk_data(data, data_type, MAX_DATA_CHARS)


async def chunk_off_loop(data: str, data_type: str) -> list[str]:
    """Graph data chunked to the per-item limit, off the event loop when it is large."""
    if len(data) <= INLINE_CHARS:
        return _chunk_now(data, data_type)
    return await asyncio.to_thread(_chunk_now, data, data_type)
