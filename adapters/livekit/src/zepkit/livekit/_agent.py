"""`ZepMemoryMixin` / `ZepMemoryAgent`: zepkit's memory loop on LiveKit's voice-agent hooks.

Form A rides on `Agent.on_user_turn_completed`: LiveKit calls it after the user stops speaking
and before the reply, with a temporary copy of the chat context, so the block added there reaches
that reply (and its tool follow-ups) and never the agent's stored history. The hook waits at most
the recall budget. Replies are stored from the session's `conversation_item_added` events.
"""

from __future__ import annotations

import asyncio
import enum
import logging
from collections import OrderedDict
from collections.abc import Awaitable
from typing import Any

from livekit.agents import Agent, AgentSession, ChatContext, ChatMessage, RunContext
from livekit.agents.voice.events import ConversationItemAddedEvent

from zepkit.core import ConfigurationError, Identity, MemoryLoop
from zepkit.core.spi import SEARCH_PARAMETERS, check_memory, fail_soft, search_tool_option
from zepkit.livekit._identity import NO_IDENTITY, STAGE, IdentitySource, session_resolver
from zepkit.livekit._tool import wrap_search

logger = logging.getLogger("zepkit.livekit")

DEFAULT_RECALL_BUDGET = 0.25
"""Seconds a turn waits for memory before replying with the thread's last block (voice latency)."""

CONTEXT_ITEM_PREFIX = "zepkit_context_"
"""Id prefix of the system item that carries a turn's block in LiveKit's per-turn chat context."""

_REMEMBERED_TURNS = 64
SEARCH_OPTIONS = frozenset(SEARCH_PARAMETERS) - {"query"} | {"graph_id"}


class _Unset(enum.Enum):
    """Marks `recall_budget` left to the loop (or the voice default)."""

    UNSET = "unset"


_UNSET = _Unset.UNSET


def _ids(_: object, identity: Identity) -> dict[str, str]:
    return {"user_id": identity.user_id, "thread_id": identity.thread_id}


class ZepMemoryMixin:
    """Memory for any `Agent` subclass: `class MyAgent(ZepMemoryMixin, Agent)`.

    Keyword arguments: `memory` (a `MemoryLoop`), `identity` (see `IdentitySource`),
    `search_tool=True` (add the core's search tool to the agent's tools), `recall_budget`
    (seconds, default 0.25; see below) and search pins (`graph_id`, `scope`, `reranker`, `limit`,
    `mmr_lambda`, `center_node_uuid`, see `MemoryLoop.search_tool`); everything else goes to
    `Agent.__init__`. Interrupted replies are not stored (the user heard only part of them).
    Subclasses that override `on_enter`, `on_exit` or `on_user_turn_completed` call `super()`.

    Recall budget: how long a reply may wait for memory, applied to this agent's turns only.
    Unset, it is the loop's `recall_budget` if the loop has one, else 250 ms; `None` waits as long
    as memory takes. Past the budget the turn goes on with the thread's last block and the late
    one serves the next turn.
    """

    def __init__(
        self,
        *,
        memory: MemoryLoop,
        identity: IdentitySource = None,
        search_tool: bool = True,
        recall_budget: float | _Unset | None = _UNSET,
        **kwargs: Any,
    ) -> None:
        check_memory(memory)
        self._identity = session_resolver(identity)
        if isinstance(recall_budget, _Unset):
            recall_budget = memory.recall_budget or DEFAULT_RECALL_BUDGET
        if recall_budget is not None and not recall_budget > 0:
            raise ValueError(f"recall_budget must be a positive number, got {recall_budget!r}")
        pinned = {key: kwargs.pop(key) for key in list(kwargs) if key in SEARCH_OPTIONS}
        search = search_tool_option(memory, search_tool, pinned)
        self.memory = memory
        self.identity_source = identity
        self.recall_budget: float | None = recall_budget
        self.search = search
        tools = list(kwargs.pop("tools", None) or [])
        if self.search is not None:
            tools.append(wrap_search(self.search, self._tool_identity))
        self._writes: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._hooked: OrderedDict[str, str] = OrderedDict()  # message id -> text, from the hook
        self._listening: AgentSession[Any] | None = None
        super().__init__(tools=tools, **kwargs)  # type: ignore[call-arg]  # the Agent after us

    # -- identity -------------------------------------------------------------------------------

    def resolve_identity(
        self, session: AgentSession[Any] | None, *, report: bool = False
    ) -> Identity | None:
        """The identity whose memory this turn uses; None (logged via the fail-soft policy when
        `report`) means the turn runs without memory."""
        if session is None:
            if isinstance(self.identity_source, Identity):
                return self.identity_source
            if report:
                self.memory.failsoft.handle(STAGE, ConfigurationError(NO_IDENTITY))
            return None
        return self._identity.resolve_now(session, self.memory.failsoft, STAGE, report=report)

    def _tool_identity(self, context: RunContext[Any]) -> Identity | None:
        return self.resolve_identity(context.session)

    def _session(self) -> AgentSession[Any] | None:
        try:
            return self.session  # type: ignore[attr-defined, no-any-return]
        except RuntimeError:  # not running in a session
            return None

    # -- LiveKit hooks --------------------------------------------------------------------------

    async def on_enter(self) -> None:
        """Listen to the session's conversation items and provision the user and thread early,
        so the first turn does not pay for it."""
        session = self._session()
        if session is None:
            return
        if self._listening is None:
            session.on("conversation_item_added", self._on_item_added)
            self._listening = session
        identity = self.resolve_identity(session)
        if identity is not None:
            self._spawn(self._provision(identity))

    async def on_exit(self) -> None:
        """Stop listening (a handoff makes another agent active)."""
        if self._listening is not None:
            self._listening.off("conversation_item_added", self._on_item_added)
            self._listening = None

    async def on_user_turn_completed(self, turn_ctx: ChatContext, new_message: ChatMessage) -> None:
        """Store the user's turn and add its block to this reply's context only."""
        text = new_message.text_content or ""
        if not text.strip():
            return
        identity = self.resolve_identity(self._session(), report=True)
        if identity is None:
            return
        self._remember_hooked(new_message.id, text)
        block = await self.memory.begin_turn(
            identity, text, turn_id=new_message.id, recall_budget=self.recall_budget
        )
        if block:
            turn_ctx.add_message(
                role="system", content=block, id=f"{CONTEXT_ITEM_PREFIX}{new_message.id}"
            )

    def _on_item_added(self, event: ConversationItemAddedEvent) -> None:
        """Store final spoken replies once (interrupted ones are skipped) and user turns that
        did not pass through `on_user_turn_completed` (text input, `generate_reply`)."""
        item = event.item
        if not isinstance(item, ChatMessage) or item.role not in ("user", "assistant"):
            return
        text = item.text_content
        if not text or not text.strip():
            return
        identity = self.resolve_identity(self._listening)
        if identity is None:
            return
        if item.role == "user":
            if self._was_hooked(item.id, text):
                return
            write: Awaitable[Any] = self.memory.begin_turn(identity, text, turn_id=item.id)
        else:
            write = self.memory.capture_reply(
                identity, text, turn_id=item.id, partial=item.interrupted
            )
        self._chain(write)

    # -- bookkeeping ----------------------------------------------------------------------------

    async def flush(self) -> None:
        """Wait for the memory writes this agent has started (e.g. in a job shutdown callback)."""
        while self._tasks:
            await asyncio.wait(set(self._tasks))

    def _remember_hooked(self, message_id: str, text: str) -> None:
        self._hooked[message_id] = text
        while len(self._hooked) > _REMEMBERED_TURNS:
            self._hooked.popitem(last=False)

    def _was_hooked(self, message_id: str, text: str) -> bool:
        """A user item the hook already stored: same id, or (a reused preemptive generation
        carries its own message id) the same text."""
        if self._hooked.pop(message_id, None) is not None:
            return True
        for key, hooked_text in self._hooked.items():
            if hooked_text == text:
                del self._hooked[key]
                return True
        return False

    def _chain(self, write: Awaitable[Any]) -> None:
        """Run writes one after another so the thread keeps the conversation's order."""
        previous = self._writes

        async def run() -> None:
            if previous is not None:
                await asyncio.wait({previous})
            await write

        self._writes = self._spawn(run())

    def _spawn(self, work: Awaitable[Any]) -> asyncio.Task[None]:
        async def guarded() -> None:
            try:
                await work
            except Exception as exc:  # begin_turn/capture_reply only raise with on_error="raise"
                logger.warning("zepkit livekit background write failed (%s)", type(exc).__name__)

        task = asyncio.ensure_future(guarded())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    @fail_soft("livekit provision", None, fields=_ids)
    async def _provision(self, identity: Identity) -> None:
        await self.memory.provision(identity)


class ZepMemoryAgent(ZepMemoryMixin, Agent):
    """A LiveKit `Agent` with zepkit memory: `ZepMemoryAgent(memory, instructions=...)`.

    Takes `Agent`'s keyword arguments plus `ZepMemoryMixin`'s (`identity`, `search_tool`,
    `recall_budget`, search pins).
    """

    def __init__(self, memory: MemoryLoop, **kwargs: Any) -> None:
        super().__init__(memory=memory, **kwargs)
