"""The uuids of a thread's messages, the same in an add's answer, in every listing and for a get.

A message's uuid is the one its backend keeps (`Message.uuid`: the local engine's is its
episode's, Zep's its own); a backend that keeps none gets one derived from the message's place
in its thread, which never changes (a thread's messages are only ever added to). An add reads
its messages back after the write to answer with those uuids, one add of a thread at a time in
this process; another process's add to the same thread in between is told apart by content.
"""

from __future__ import annotations

import asyncio
import uuid
import weakref
from collections.abc import Sequence

from zepkit.core import Message
from zepkit.core.spi import Backend

_adding: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()


def message_uuid(thread_uuid: str, index: int, message: Message) -> str:
    """The uuid the wire shows for the thread's `index`-th message (0 for its first)."""
    if message.uuid:
        return message.uuid
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"{thread_uuid}:message:{index}"))


async def add_messages(
    backend: Backend,
    thread_uuid: str,
    messages: Sequence[Message],
    *,
    return_context: bool,
    user_id: str,
    idempotency_key: str | None,
) -> tuple[str | None, list[str]]:
    """`backend.add_messages`, and the uuids of the messages as stored (a replayed add, stored
    once, answers the first one's)."""
    lock = _adding.setdefault(thread_uuid, asyncio.Lock())
    async with lock:
        context = await backend.add_messages(
            thread_uuid,
            messages,
            return_context=return_context,
            user_id=user_id,
            idempotency_key=idempotency_key,
        )
        if not messages:
            return context, []
        latest = await backend.get_messages(thread_uuid, limit=len(messages))
        if _same(latest, messages) and all(m.uuid for m in latest):
            return context, [m.uuid for m in latest if m.uuid]
        stored = await backend.get_messages(thread_uuid)
    start = _last_run(stored, messages)
    if start is None:  # stored otherwise than sent: most likely the newest ones
        start = max(len(stored) - len(messages), 0)
    found = [
        message_uuid(thread_uuid, start + offset, message)
        for offset, message in enumerate(stored[start : start + len(messages)])
    ]
    # fewer stored than sent: the rest are answered with uuids no read will show
    return context, found + [str(uuid.uuid4()) for _ in messages[len(found) :]]


def _same(stored: Sequence[Message], sent: Sequence[Message]) -> bool:
    return len(stored) == len(sent) and all(
        a.role == b.role and a.content == b.content for a, b in zip(stored, sent, strict=True)
    )


def _last_run(stored: Sequence[Message], sent: Sequence[Message]) -> int | None:
    """Where the last run of `stored` holding `sent` in order starts; None when none does."""
    for start in range(len(stored) - len(sent), -1, -1):
        if _same(stored[start : start + len(sent)], sent):
            return start
    return None
