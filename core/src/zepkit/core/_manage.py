"""Managing memory: reading pages of users, threads, messages, data and facts, and deleting a
thread or a user with everything of theirs. All strict: failures raise typed errors.

`Management` is a part of `MemoryLoop`; the loop forgets what it cached about what was deleted.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Mapping
from typing import TYPE_CHECKING, Any

from zepkit.core._backend import Backend
from zepkit.core._errors import NotFoundError
from zepkit.core._limits import DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE
from zepkit.core._models import Episode, Fact, Message, Page, ThreadInfo, UserInfo
from zepkit.core._outbox import OutboxItem
from zepkit.core._spool import Spool
from zepkit.core._validation import check_id, check_page
from zepkit.core._work import within


class Management:
    """The strict managing half of `MemoryLoop`: pages to read and deletions."""

    backend: Backend
    deadline: float | None
    _spool: Spool | None

    if TYPE_CHECKING:  # defined by `MemoryLoop`, which this class is a part of

        def _forget_thread(self, thread_id: str) -> None: ...
        def _forget_user(self, user_id: str, threads: set[str]) -> None: ...

    async def delete_thread(self, thread_id: str) -> None:
        """Delete one thread and its messages (strict: an unknown thread raises)."""
        check_id(thread_id, "thread_id")
        await within(self.deadline, self.backend.delete_thread(thread_id), "delete_thread")
        self._forget_thread(thread_id)

    async def delete_user(self, user_id: str, *, vacuum: bool = False) -> None:
        """Delete the user and everything of theirs: threads, messages, data, the facts and
        entities derived from them (strict: an unknown user raises `NotFoundError`). The user's
        writes waiting in the outbox are dropped first, and the loop forgets it provisioned the
        user. With `vacuum`, the local engine also rewrites its file so no deleted byte stays on
        disk (see `Backend.delete_user`). Not bound by `deadline`: it runs to the end."""
        check_id(user_id, "user_id")
        try:
            threads = {thread.thread_id async for thread in self._threads_of(user_id)}
        except NotFoundError:
            threads = set()  # unknown to the backend; its kept writes still go

        def theirs(item: OutboxItem) -> bool:
            payload = item.payload
            if item.kind == "data":
                return bool(payload.get("user_id") == user_id)
            identity = payload.get("identity") or {}
            return item.target in threads or identity.get("user_id") == user_id

        def delete() -> Awaitable[None]:
            return self.backend.delete_user(user_id, vacuum=vacuum)

        try:
            if self._spool is None:
                await delete()
            else:
                await self._spool.discard(theirs, delete)
        finally:
            self._forget_user(user_id, threads)

    async def _threads_of(self, user_id: str) -> AsyncIterator[ThreadInfo]:
        cursor: str | None = None
        while True:
            page = await self.list_threads(user_id, cursor=cursor, limit=MAX_PAGE_SIZE)
            for thread in page.items:
                yield thread
            if page.next_cursor is None:
                return
            cursor = page.next_cursor

    async def get_user(self, user_id: str) -> UserInfo:
        """The user's profile (strict: an unknown user raises `NotFoundError`)."""
        check_id(user_id, "user_id")
        return await within(self.deadline, self.backend.get_user(user_id), "get_user")

    async def list_users(
        self, *, cursor: str | None = None, limit: int = DEFAULT_PAGE_SIZE
    ) -> Page[UserInfo]:
        """One page of users in the order they were created (strict). Pass the page's
        `next_cursor` back as `cursor` for the next; it is None on the last page."""
        check_page(limit, cursor)
        work = self.backend.list_users(cursor=cursor, limit=limit)
        return await within(self.deadline, work, "list_users")

    async def list_threads(
        self, user_id: str, *, cursor: str | None = None, limit: int = DEFAULT_PAGE_SIZE
    ) -> Page[ThreadInfo]:
        """One page of the user's threads in the order they were created (strict: an unknown
        user raises `NotFoundError`)."""
        check_id(user_id, "user_id")
        check_page(limit, cursor)
        work = self.backend.list_threads(user_id, cursor=cursor, limit=limit)
        return await within(self.deadline, work, "list_threads")

    async def list_messages(
        self, thread_id: str, *, cursor: str | None = None, limit: int = DEFAULT_PAGE_SIZE
    ) -> Page[Message]:
        """One page of the thread's messages, oldest first (strict: an unknown thread raises
        `NotFoundError`; `get_messages` is the fail-soft read of the latest ones)."""
        check_id(thread_id, "thread_id")
        check_page(limit, cursor)
        work = self.backend.list_messages(thread_id, cursor=cursor, limit=limit)
        return await within(self.deadline, work, "list_messages")

    async def update_message_metadata(
        self, thread_id: str, message_uuid: str, metadata: Mapping[str, Any]
    ) -> Message:
        """Merge `metadata` onto a stored message of the thread, found by the `uuid` a read
        gave it (`list_messages`, `get_messages`), and return it as now stored: a key given None
        is removed, content and time never change (strict: an unknown thread or message raises
        `NotFoundError`, more than `MAX_METADATA_KEYS` keys in the end `ValueError`)."""
        check_id(thread_id, "thread_id")
        check_id(message_uuid, "message_uuid")
        if not isinstance(metadata, Mapping) or not all(isinstance(k, str) for k in metadata):
            raise TypeError("metadata must be a mapping with string keys")
        work = self.backend.update_message_metadata(thread_id, message_uuid, dict(metadata))
        return await within(self.deadline, work, "update_message_metadata")

    async def list_data(
        self, user_id: str, *, cursor: str | None = None, limit: int = DEFAULT_PAGE_SIZE
    ) -> Page[Episode]:
        """One page of what was added to the user's graph with `add_data`, oldest first, as
        episodes with their type (`source`), time and metadata (strict: an unknown user raises
        `NotFoundError`). On Zep a page may hold fewer than `limit`: Zep pages over the user's
        messages too."""
        check_id(user_id, "user_id")
        check_page(limit, cursor)
        work = self.backend.list_data(user_id, cursor=cursor, limit=limit)
        return await within(self.deadline, work, "list_data")

    async def list_facts(
        self, user_id: str, *, cursor: str | None = None, limit: int = DEFAULT_PAGE_SIZE
    ) -> Page[Fact]:
        """One page of the facts the backend derived for the user, oldest first, ended ones
        included (strict: an unknown user raises `NotFoundError`)."""
        check_id(user_id, "user_id")
        check_page(limit, cursor)
        work = self.backend.list_facts(user_id, cursor=cursor, limit=limit)
        return await within(self.deadline, work, "list_facts")
