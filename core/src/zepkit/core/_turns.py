"""Per-turn bookkeeping shared by every adapter.

A framework hook may fire several times in one turn (a tool loop calls the model again): the user
message is persisted once and the same block is re-injected. The state lives in bounded LRU maps
guarded by a thread lock and resolved through `concurrent.futures.Future`s, so it works across
event loops (the async API and the sync facade may run on different loops).
"""

from __future__ import annotations

import asyncio
import threading
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable
from concurrent.futures import Future
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class LRU(Generic[K, V]):
    """A small thread-safe mapping that forgets the least recently used key past `size`."""

    def __init__(self, size: int) -> None:
        if size < 1:
            raise ValueError(f"cache size must be at least 1, got {size}")
        self._size = size
        self._items: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        with self._lock:
            value = self._items.get(key)
            if value is not None:
                self._items.move_to_end(key)
            return value

    def set(self, key: K, value: V) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self._size:
                self._items.popitem(last=False)

    def setdefault(self, key: K, value: V) -> tuple[V, bool]:
        """Return the stored value and whether `value` was the one stored now."""
        with self._lock:
            existing = self._items.get(key)
            if existing is not None:
                self._items.move_to_end(key)
                return existing, False
        self.set(key, value)
        return value, True

    def pop(self, key: K) -> None:
        with self._lock:
            self._items.pop(key, None)

    def discard_where(self, match: Callable[[K], bool]) -> None:
        """Forget every key for which `match` is true."""
        with self._lock:
            for key in [key for key in self._items if match(key)]:
                del self._items[key]

    def __contains__(self, key: object) -> bool:
        with self._lock:
            return key in self._items

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)


class Once(Generic[K, V]):
    """Run a coroutine once per key; concurrent and later callers with that key share its result.

    A failed run is forgotten, so the next caller tries again.
    """

    def __init__(self, size: int) -> None:
        self._results: LRU[K, Future[V]] = LRU(size)
        self._lock = threading.Lock()

    def forget_where(self, match: Callable[[K], bool]) -> None:
        """Forget finished results whose key matches, so the next run does the work again."""
        self._results.discard_where(match)

    def done(self, key: K) -> bool:
        future = self._results.get(key)
        return future is not None and future.done() and future.exception() is None

    async def run(self, key: K, work: Callable[[], Awaitable[V]]) -> V:
        with self._lock:
            future, mine = self._results.setdefault(key, Future())
        if not mine:
            return await asyncio.wrap_future(future)
        try:
            value = await work()
        except BaseException as exc:
            self._results.pop(key)
            future.set_exception(exc)
            future.exception()  # mark retrieved so an unawaited failure is not reported twice
            raise
        future.set_result(value)
        return value
