"""What the server reads about a user beyond search: their threads (and so which thread ids are
theirs), their profile and an export of their memory, through the core's listings."""

from __future__ import annotations

import io
from collections.abc import AsyncIterator

from zepkit.core import (
    MAX_PAGE_SIZE,
    MemoryLoop,
    NotFoundError,
    ThreadInfo,
    UserInfo,
    export_memory,
)


async def threads_of(memory: MemoryLoop, user_id: str) -> AsyncIterator[ThreadInfo]:
    """Every thread of the user, oldest first; none for a user memory does not know yet."""
    cursor: str | None = None
    while True:
        try:
            page = await memory.list_threads(user_id, cursor=cursor, limit=MAX_PAGE_SIZE)
        except NotFoundError:
            return
        for thread in page.items:
            yield thread
        if page.next_cursor is None:
            return
        cursor = page.next_cursor


async def owns_thread(memory: MemoryLoop, user_id: str, thread_id: str) -> bool:
    """Whether the thread is the user's: a thread id alone never opens another user's thread."""
    async for thread in threads_of(memory, user_id):
        if thread.thread_id == thread_id:
            return True
    return False


async def latest_thread(memory: MemoryLoop, user_id: str) -> str | None:
    """The user's most recently created thread, if any."""
    last = None
    async for thread in threads_of(memory, user_id):
        last = thread.thread_id
    return last


async def profile(memory: MemoryLoop, user_id: str) -> UserInfo | None:
    """The user's stored profile; None for a user memory does not know yet."""
    try:
        return await memory.get_user(user_id)
    except NotFoundError:
        return None


async def export_lines(memory: MemoryLoop, user_id: str) -> str:
    """The user's memory in the core's JSON Lines export format (empty past the header for a
    user memory does not know yet)."""
    out = io.StringIO()
    try:
        await export_memory(memory, out, user_ids=[user_id])
    except NotFoundError:
        out = io.StringIO()
        await export_memory(memory, out, user_ids=[])
    return out.getvalue()
