"""The turn: what adapters call around each model call. `begin_turn` persists the user's message
and returns the rendered block within the recall budget (a late recall still lands for the next
turn), a custom context builder runs beside persistence, and `capture_reply` stores the reply once.

`TurnMachinery` is a part of `MemoryLoop`, over `Delivery`; it holds the per-turn caches.
"""

from __future__ import annotations

import asyncio
import enum
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeAlias, cast

from zepkit.core._delivery import Delivery
from zepkit.core._failsoft import FailSoft
from zepkit.core._models import Identity, Message
from zepkit.core._rendering import is_rendered_block, render_context, strip_rendered_block
from zepkit.core._turns import LRU, Once
from zepkit.core._work import prepare_off_loop, within

if TYPE_CHECKING:
    from zepkit.core._loop import MemoryLoop

logger = logging.getLogger("zepkit.core")


class Default(enum.Enum):
    """Marks an argument left to the loop's own setting."""

    LOOP = "loop"


def check_turn(identity: object, text: object, field: str, *, optional: bool = False) -> None:
    """Invalid turn arguments are the caller's bug: raise, never absorb them as memory trouble."""
    if not isinstance(identity, Identity):
        raise TypeError(f"identity must be a zepkit.core.Identity, got {type(identity).__name__}")
    if not isinstance(text, str) and not (optional and text is None):
        raise TypeError(f"{field} must be a string, got {type(text).__name__}")


def check_budget(budget: float | None, name: str = "recall_budget") -> None:
    """A budget is a positive number of seconds, or None (no limit)."""
    if budget is not None and (
        isinstance(budget, bool) or not isinstance(budget, int | float) or not budget > 0
    ):
        raise ValueError(f"{name} must be a positive number of seconds, got {budget!r}")


@dataclass(frozen=True)
class ContextInput:
    """What a custom context builder receives for one turn."""

    loop: MemoryLoop
    identity: Identity
    user_message: str


ContextBuilder: TypeAlias = Callable[[ContextInput], Awaitable[str | None]]


class TurnMachinery(Delivery):
    """The turn half of `MemoryLoop`: begin_turn, the recall budget, late recalls, the context
    builder, reply capture and the caches that make a turn happen once."""

    failsoft: FailSoft
    template: str
    max_context_chars: int | None
    context_builder: ContextBuilder | None
    recall_budget: float | None
    deadline: float | None
    assistant_name: str

    def __init__(self, cache_size: int) -> None:
        self._turns: Once[tuple[str, str, str], str] = Once(cache_size)
        self._replies: LRU[tuple[str, str, str], bool] = LRU(cache_size)
        self._last_blocks: LRU[tuple[str, str], str] = LRU(cache_size)
        self._pending: set[asyncio.Task[Any]] = set()

    def is_block(self, text: object) -> bool:
        """Whether `text` is a block this loop rendered (its template)."""
        return is_rendered_block(text, self.template)

    def strip_block(self, text: str) -> str:
        """`text` with any block this loop rendered removed (to replace it, not stack another)."""
        return strip_rendered_block(text, self.template)

    def render(self, context: str | None) -> str:
        """Wrap raw context in this loop's template and budget; `""` when there is none."""
        return render_context(context, template=self.template, max_chars=self.max_context_chars)

    async def begin_turn(
        self,
        identity: Identity,
        user_message: str,
        *,
        turn_id: str | None = None,
        recall_budget: float | Default | None = Default.LOOP,
    ) -> str:
        """Persist the user's message and return the rendered block for the model ("" if none).

        With a `turn_id` (the framework's invocation or run id), repeated calls in one turn persist
        once and return the same block. `recall_budget` overrides the loop's for this call (None:
        wait as long as memory takes). Memory failures never raise unless `on_error` says so;
        invalid arguments do (`TypeError` / `ValueError`), as they are the caller's bug.
        """
        budget = self.recall_budget if isinstance(recall_budget, Default) else recall_budget
        check_budget(budget)
        check_turn(identity, user_message, "user_message")
        try:
            if turn_id is None:
                return await self._turn(identity, user_message, budget)
            key = (identity.user_id, identity.thread_id, turn_id)
            return await self._turns.run(key, lambda: self._turn(identity, user_message, budget))
        except Exception as exc:
            self.failsoft.handle(
                "begin_turn",
                exc,
                user_id=identity.user_id,
                thread_id=identity.thread_id,
                chars=len(user_message),
            )
            return ""

    async def _turn(self, identity: Identity, user_message: str, budget: float | None) -> str:
        if self.context_builder is not None:
            return await self._built_turn(identity, user_message)
        message = Message("user", user_message, name=identity.display_name)
        recall = self._persist_and_recall(identity, message)
        if budget is None:
            return await recall
        return await self._within_budget(identity, recall, budget)

    async def _persist_and_recall(self, identity: Identity, message: Message) -> str:
        # provisioning runs inside the budget: a first turn must not wait longer
        prepared = await prepare_off_loop([message])
        delivered, context = await self._write(identity.thread_id, identity, prepared, True)
        if not delivered:  # kept in the outbox: the last block still serves this turn
            return self._last_blocks.get((identity.user_id, identity.thread_id)) or ""
        block = self.render(context)
        self._last_blocks.set((identity.user_id, identity.thread_id), block)
        return block

    async def _within_budget(
        self, identity: Identity, recall: Awaitable[str], budget: float
    ) -> str:
        """Wait at most `budget` seconds; past it, use the thread's last good block and let the
        late result land in that slot for the next turn."""
        task = asyncio.ensure_future(recall)
        done, _ = await asyncio.wait({task}, timeout=budget)
        if task in done:
            return task.result()
        self._pending.add(task)
        task.add_done_callback(self._late_recall_done(identity))
        logger.info(
            "recall over its %.0f ms budget for user_id=%r thread_id=%r; using the last block",
            budget * 1000,
            identity.user_id,
            identity.thread_id,
        )
        return self._last_blocks.get((identity.user_id, identity.thread_id)) or ""

    def _late_recall_done(self, identity: Identity) -> Callable[[asyncio.Task[Any]], None]:
        def done(task: asyncio.Task[Any]) -> None:
            self._pending.discard(task)
            if task.cancelled():
                return
            exc = task.exception()
            if exc is not None:
                try:
                    self.failsoft.handle(
                        "late recall",
                        exc,
                        user_id=identity.user_id,
                        thread_id=identity.thread_id,
                    )
                except Exception:
                    logger.exception("late recall failure for thread_id=%r", identity.thread_id)

        return done

    async def _built_turn(self, identity: Identity, user_message: str) -> str:
        """Custom context: persistence and the builder run concurrently, each fail-soft alone."""
        assert self.context_builder is not None
        message = Message("user", user_message, name=identity.display_name)
        prepared = await prepare_off_loop([message])
        persist = self._write(identity.thread_id, identity, prepared, False)
        built = within(
            self.deadline,
            self.context_builder(ContextInput(cast("MemoryLoop", self), identity, user_message)),
            "context_builder",
        )
        stored, context = await asyncio.gather(persist, built, return_exceptions=True)
        if isinstance(stored, BaseException):
            self.failsoft.handle(
                "add_messages", stored, user_id=identity.user_id, thread_id=identity.thread_id
            )
        if isinstance(context, BaseException):
            self.failsoft.handle(
                "context_builder", context, user_id=identity.user_id, thread_id=identity.thread_id
            )
            return ""
        return self.render(context)

    async def capture_reply(
        self,
        identity: Identity,
        text: str | None,
        *,
        turn_id: str | None = None,
        is_tool_call: bool = False,
        partial: bool = False,
        name: str | None = None,
    ) -> bool:
        """Persist the assistant's final reply, once per turn. Tool calls, partial (streaming)
        chunks and empty text (or None) are skipped. True when the reply was stored (or kept in
        the outbox). Memory failures never raise unless `on_error` says so; text of another type
        is a `TypeError`."""
        check_turn(identity, text, "text", optional=True)
        if is_tool_call or partial or text is None or not text.strip():
            return False
        key = (identity.user_id, identity.thread_id, turn_id) if turn_id is not None else None
        if key is not None:
            _, first = self._replies.setdefault(key, True)
            if not first:
                return False
        try:
            message = Message("assistant", text, name=name or self.assistant_name)
            prepared = await prepare_off_loop([message])
            await self._write(identity.thread_id, identity, prepared, False)
            return True  # delivered, or kept in the outbox
        except Exception as exc:
            if key is not None:
                self._replies.pop(key)
            self.failsoft.handle(
                "capture_reply",
                exc,
                user_id=identity.user_id,
                thread_id=identity.thread_id,
                chars=len(text),
            )
            return False

    async def _late_recalls(self) -> None:
        """Wait until recalls that ran past their budget have finished."""
        if self._pending:
            await asyncio.wait(set(self._pending))

    def _forget_thread_turns(self, thread_id: str) -> None:
        """A later turn on this thread starts with no block."""
        self._last_blocks.discard_where(lambda key: key[1] == thread_id)

    def _forget_user_turns(self, user_id: str, threads: set[str]) -> None:
        """A later turn of this user (or on these threads) starts afresh: no block, no turn."""
        self._last_blocks.discard_where(lambda key: key[0] == user_id or key[1] in threads)
        self._turns.forget_where(lambda key: key[0] == user_id)
        self._replies.discard_where(lambda key: key[0] == user_id)
