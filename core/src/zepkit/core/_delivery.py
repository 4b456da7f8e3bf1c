"""How a write reaches memory: within its deadline, in batches, after provisioning, or kept in
the outbox when the backend cannot take it (or earlier writes to the same target still wait), and
replayed later with its original idempotency key.

`Delivery` is a part of `MemoryLoop`; the turn and the loop's public writes go through it.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from zepkit.core._backend import Backend
from zepkit.core._errors import ConflictError, NotFoundError
from zepkit.core._limits import MAX_MESSAGES_PER_CALL, WRITE_CHARS_PER_SECOND
from zepkit.core._models import DataType, Episode, Identity, Message
from zepkit.core._outbox import Outbox, OutboxItem, OutboxStatus
from zepkit.core._spool import TRANSIENT, Spool
from zepkit.core._turns import Once
from zepkit.core._validation import batches
from zepkit.core._work import within

logger = logging.getLogger("zepkit.core")


def _log_kept(cause: BaseException | None, what: str) -> None:
    """One line saying a write waits in the outbox, and why."""
    if cause is None:
        logger.info("zepkit: %s queued in the outbox behind earlier writes", what)
    else:
        logger.warning(
            "zepkit: memory unavailable (%s); %s kept in the outbox for replay",
            type(cause).__name__,
            what,
        )


class Delivery:
    """The write path under `MemoryLoop`: deliver now, or keep for replay."""

    backend: Backend
    deadline: float | None
    outbox: Outbox | None
    _spool: Spool | None
    _provisioned: Once[tuple[str, ...], bool]

    if TYPE_CHECKING:  # defined by `MemoryLoop`, which this class is a part of

        async def provision(self, identity: Identity) -> None: ...
        async def ensure_user(self, user_id: str) -> bool: ...
        async def _ensure_graph_once(self, graph_id: str) -> None: ...
        def _forget_thread(self, thread_id: str) -> None: ...

    async def _add_prepared(
        self,
        thread_id: str,
        prepared: Sequence[Message],
        return_context: bool,
        user_id: str | None = None,
        key: str | None = None,
    ) -> str | None:
        if not prepared:
            return await self.backend.get_context(thread_id) if return_context else None
        chunks = list(batches(prepared, MAX_MESSAGES_PER_CALL))
        context = None
        for index, chunk in enumerate(chunks):
            last = index == len(chunks) - 1
            context = await self.backend.add_messages(
                thread_id,
                chunk,
                return_context=return_context and last,
                user_id=user_id,
                idempotency_key=None if key is None else f"{key}:{index}",
            )
        return context

    async def _write(
        self,
        thread_id: str,
        identity: Identity | None,
        prepared: Sequence[Message],
        return_context: bool,
    ) -> tuple[bool, str | None]:
        """Deliver one write within the deadline, or keep it in the outbox when the backend
        cannot take it or earlier writes to the thread still wait there (they go first):
        (delivered now, context). Every write gets a fresh idempotency key, kept for replays."""
        key = uuid.uuid4().hex
        spool = self._spool
        if spool is not None and prepared:
            spool.start()
            if spool.pending_for(thread_id):
                await self._keep_messages(thread_id, identity, prepared, key, None)
                return False, None
        work = self._deliver_messages(thread_id, identity, prepared, return_context, key)
        try:
            deadline = self._write_deadline(sum(len(m.content) for m in prepared))
            return True, await within(deadline, work, "write")
        except TRANSIENT as exc:
            if spool is None or not prepared:
                raise
            await self._keep_messages(thread_id, identity, prepared, key, exc)
            return False, None

    async def _deliver_messages(
        self,
        thread_id: str,
        identity: Identity | None,
        prepared: Sequence[Message],
        return_context: bool,
        key: str | None,
    ) -> str | None:
        if identity is None:
            return await self._add_prepared(thread_id, prepared, return_context, None, key)
        return await self._persist(identity, prepared, return_context, key)

    async def _keep_messages(
        self,
        thread_id: str,
        identity: Identity | None,
        prepared: Sequence[Message],
        key: str,
        cause: BaseException | None,
    ) -> None:
        assert self._spool is not None
        payload = {
            "thread_id": thread_id,
            "identity": identity.model_dump(mode="json") if identity is not None else None,
            "messages": [message.model_dump(mode="json") for message in prepared],
        }
        try:
            await self._spool.keep("messages", thread_id, key, payload)
        except Exception as exc:
            raise exc from cause  # the outbox could not keep it either: lost, said so
        _log_kept(cause, f"{len(prepared)} messages for thread_id={thread_id!r}")

    def _write_deadline(self, chars: int) -> float | None:
        """The deadline for writing `chars` characters: `deadline` plus a second per
        `WRITE_CHARS_PER_SECOND` (None: no limit)."""
        return None if self.deadline is None else self.deadline + chars / WRITE_CHARS_PER_SECOND

    async def _replay_item(self, item: OutboxItem) -> None:
        """Deliver one kept write with its original idempotency key."""
        payload = item.payload
        if item.kind == "messages":
            raw = payload["identity"]
            identity = Identity.model_validate(raw) if raw is not None else None
            prepared = [Message.model_validate(m) for m in payload["messages"]]
            work = self._deliver_messages(payload["thread_id"], identity, prepared, False, item.key)
            chars = sum(len(m.content) for m in prepared)
            await within(self._write_deadline(chars), work, "outbox replay")
        elif item.kind == "data":
            created = payload["created_at"]
            data = self._deliver_data(
                payload["data"],
                type=payload["type"],
                user_id=payload["user_id"],
                graph_id=payload["graph_id"],
                created_at=datetime.fromisoformat(created) if created else None,
                metadata=payload["metadata"],
            )
            await within(self._write_deadline(len(payload["data"])), data, "outbox replay")
        else:
            raise ValueError(f"unknown outbox item kind {item.kind!r}")

    async def _persist(
        self,
        identity: Identity,
        prepared: Sequence[Message],
        return_context: bool,
        key: str | None = None,
    ) -> str | None:
        """Write the identity's messages, checking ownership at the write itself: this process's
        provisioning cache may be stale when another one deleted or re-created the thread."""
        await self.provision(identity)
        try:
            return await self._add_prepared(
                identity.thread_id, prepared, return_context, identity.user_id, key
            )
        except NotFoundError:  # deleted elsewhere: provision it again, once
            self._forget_thread(identity.thread_id)
            await self.provision(identity)
            return await self._add_prepared(
                identity.thread_id, prepared, return_context, identity.user_id, key
            )
        except ConflictError:  # the id now belongs to another user: check again next time
            self._forget_thread(identity.thread_id)
            raise

    async def _deliver_data(
        self,
        chunk: str,
        *,
        type: DataType,
        user_id: str | None,
        graph_id: str | None,
        created_at: datetime | None,
        metadata: dict[str, Any] | None,
    ) -> Episode:
        if graph_id is not None:
            await self._ensure_graph_once(graph_id)
        if user_id is not None:
            await self._provisioned.run(("user", user_id), lambda: self.ensure_user(user_id))
        return await self.backend.add_data(
            chunk,
            type=type,
            user_id=user_id,
            graph_id=graph_id,
            created_at=created_at,
            metadata=metadata,
        )

    async def _keep_data(
        self,
        target: str,
        chunks: Sequence[str],
        fields: dict[str, Any],
        cause: BaseException | None,
    ) -> None:
        assert self._spool is not None
        created = fields["created_at"]
        for chunk in chunks:
            payload = {
                **fields,
                "data": chunk,
                "created_at": created.isoformat() if created is not None else None,
            }
            try:
                await self._spool.keep("data", target, uuid.uuid4().hex, payload)
            except Exception as exc:
                raise exc from cause
        _log_kept(cause, f"{len(chunks)} data items for {target}")

    async def replay_outbox(self, *, failed: bool = False) -> int:
        """Deliver the writes waiting in the outbox now, in order; how many were delivered.
        With `failed`, writes set aside as refused for good are tried again too."""
        if self._spool is None:
            return 0
        if failed:
            await asyncio.to_thread(self._spool.outbox.retry_failed)
        return await self._spool.replay()

    async def outbox_status(self) -> OutboxStatus | None:
        """What waits in the outbox (None without one)."""
        if self.outbox is None:
            return None
        return await asyncio.to_thread(self.outbox.status)
