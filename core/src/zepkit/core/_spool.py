"""Keeping writes the backend could not take in the outbox, and replaying them in order.

A replay pass goes through the kept writes oldest first and stops at the first one that fails for
a transient reason (the backend is still down), so nothing overtakes an earlier write. A write the
backend refuses for good (the thread now belongs to someone else, invalid data) is set aside as
failed, logged, and shown by `zepkit outbox status`. While writes wait, a background task replays
them with backoff; `MemoryLoop.drain()` and `aclose()` run a pass too.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from zepkit.core._errors import AuthenticationError, BackendUnavailableError, RateLimitError
from zepkit.core._outbox import Outbox, OutboxItem

logger = logging.getLogger("zepkit.core")

TRANSIENT = (BackendUnavailableError, RateLimitError)
"""Failures worth keeping a write for: the backend may take it later."""

_WAIT = (*TRANSIENT, AuthenticationError)  # in a replay, also "not now": a key may be fixed
_FIRST_BACKOFF = 0.5
_MAX_BACKOFF = 30.0

T = TypeVar("T")
Deliver = Callable[[OutboxItem], Awaitable[Any]]


def describe(exc: BaseException) -> str:
    """An error for the outbox's record: its type and zepkit's message (ids, never content)."""
    return f"{type(exc).__name__}: {exc}"


class Spool:
    """The loop's side of an `Outbox`: keep, replay (once or in the background), close."""

    def __init__(self, outbox: Outbox, deliver: Deliver) -> None:
        self.outbox = outbox
        self._deliver = deliver
        self._tasks: set[asyncio.Task[None]] = set()
        self._locks: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = (
            weakref.WeakKeyDictionary()
        )
        self._started = False
        self._closed = False

    def pending_for(self, target: str) -> bool:
        """Whether earlier writes to `target` wait (a new one must queue behind them)."""
        return self.outbox.has_pending(target)

    def start(self) -> None:
        """On first use: replay what a previous run left in the outbox, in the background."""
        if not self._started:
            self._started = True
            if self.outbox.has_pending():
                self.kick()

    async def keep(self, kind: str, target: str, key: str, payload: dict[str, Any]) -> None:
        """Commit one write to the outbox (it is acknowledged then) and schedule its replay."""
        await asyncio.to_thread(self.outbox.put, kind, target, key, payload)
        self.kick()

    def _lock(self) -> asyncio.Lock:
        return self._locks.setdefault(asyncio.get_running_loop(), asyncio.Lock())

    async def discard(
        self, match: Callable[[OutboxItem], bool], then: Callable[[], Awaitable[T]]
    ) -> T:
        """Drop the kept writes `match` picks, then run `then`, with no replay pass of this
        event loop in between (one under way finishes first): what is dropped stays dropped."""
        async with self._lock():
            await asyncio.to_thread(self.outbox.discard, match)
            return await then()

    async def replay(self) -> int:
        """One pass over the waiting writes, oldest first; how many were delivered."""
        delivered = 0
        async with self._lock():
            await asyncio.to_thread(self.outbox.refresh)
            while items := await asyncio.to_thread(self.outbox.pending, 100):
                for item in items:
                    try:
                        await self._deliver(item)
                    except _WAIT as exc:
                        await asyncio.to_thread(
                            self.outbox.record_failure, item, describe(exc), permanent=False
                        )
                        return delivered
                    except Exception as exc:
                        logger.error(
                            "zepkit outbox: write %d for %s refused for good (%s); set aside",
                            item.seq,
                            item.target,
                            describe(exc),
                        )
                        await asyncio.to_thread(
                            self.outbox.record_failure, item, describe(exc), permanent=True
                        )
                        continue
                    await asyncio.to_thread(self.outbox.remove, item)
                    delivered += 1
        if delivered:
            logger.info("zepkit outbox: %d kept writes delivered", delivered)
        return delivered

    def kick(self) -> None:
        """Make sure a background replay runs on this event loop while writes wait."""
        if self._closed:
            return
        loop = asyncio.get_running_loop()
        if any(task.get_loop() is loop and not task.done() for task in self._tasks):
            return
        task = loop.create_task(self._background())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _background(self) -> None:
        delay = _FIRST_BACKOFF
        while not self._closed:
            try:
                await self.replay()
            except Exception:  # the outbox file itself failed: say so, try again later
                logger.exception("zepkit outbox: replay failed")
            if not self.outbox.has_pending():
                return
            await asyncio.sleep(delay)
            delay = min(delay * 2, _MAX_BACKOFF)

    async def close(self) -> None:
        """Stop background replays on this event loop and close the outbox file."""
        self._closed = True
        loop = asyncio.get_running_loop()
        mine = [task for task in self._tasks if task.get_loop() is loop]
        for task in mine:
            task.cancel()
        await asyncio.gather(*mine, return_exceptions=True)
        await asyncio.to_thread(self.outbox.close)
