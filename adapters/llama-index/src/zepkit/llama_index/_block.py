"""`ZepMemoryBlock`: zepkit's memory loop as a LlamaIndex memory block (Form A).

`Memory.aget` asks its blocks for content before every model call of an agent run and renders it
into a system message it builds for that call (never into the stored chat history). The block
stores the turn's user message and returns the context block (one round trip, once per turn), and
when the history shows the run's final reply, stores that once.
"""

from __future__ import annotations

import uuid
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from llama_index.core.base.llms.types import ChatMessage
from llama_index.core.memory import BaseMemoryBlock, Memory
from pydantic import ConfigDict, PrivateAttr

from zepkit.core import Identity, MemoryLoop
from zepkit.core.spi import IdentityResolver as Resolver
from zepkit.core.spi import check_memory
from zepkit.llama_index._identity import STAGE, IdentityResolver, block_identity
from zepkit.llama_index._turns import Turn, is_new_turn, read_history

DEFAULT_NAME = "zep_memory"
_MAX_SESSIONS = 1024  # turn bookkeeping kept per session id (a block may serve many sessions)


@dataclass
class _Session:
    turn: Turn
    turn_id: str


class ZepMemoryBlock(BaseMemoryBlock[str]):
    """The user's long-term memory as a block of a LlamaIndex `Memory`.

    `user_id` (or `identity=`: a fixed `Identity`, or a function of the `Memory`'s session id)
    says whose memory it is; the thread is `thread_id`, else the `Memory`'s `session_id`. Priority
    0: LlamaIndex never truncates it (the loop's `max_context_chars` bounds it). Messages that
    LlamaIndex archives from the short-term history are not taken: every turn is stored as it
    happens.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    memory: MemoryLoop
    _resolver: Resolver[str | None] = PrivateAttr()
    _sessions: OrderedDict[str | None, _Session] = PrivateAttr(default_factory=OrderedDict)

    def __init__(
        self,
        memory: MemoryLoop,
        *,
        user_id: str | None = None,
        thread_id: str | None = None,
        identity: Identity | IdentityResolver | None = None,
        name: str = DEFAULT_NAME,
        **options: Any,
    ) -> None:
        resolver = block_identity(identity, user_id, thread_id)
        fields: dict[str, Any] = {"priority": 0, "accept_short_term_memory": False, **options}
        fields.update(memory=check_memory(memory), name=name)
        super().__init__(**fields)
        self._resolver = resolver

    async def resolve_identity(self, session_id: str | None) -> Identity | None:
        """The identity of the `Memory` with this session id (None: no memory; not reported)."""
        return await self._resolver.resolve(session_id, self.memory.failsoft, STAGE, report=False)

    async def _aget(self, messages: list[ChatMessage] | None = None, **block_kwargs: Any) -> str:
        session_id = block_kwargs.get("session_id")
        seen = read_history(messages or [])
        if seen is None:
            return ""
        session = self._sessions.get(session_id)
        new_turn = session is None or is_new_turn(session.turn, seen)
        if session is None or new_turn:
            session = _Session(Turn(seen.index, seen.text), f"llama-{uuid.uuid4().hex}")
            self._sessions[session_id] = session
            while len(self._sessions) > _MAX_SESSIONS:
                self._sessions.popitem(last=False)
        session.turn.index = seen.index
        self._sessions.move_to_end(session_id)
        identity = await self._resolver.resolve(
            session_id, self.memory.failsoft, STAGE, report=new_turn
        )
        if identity is None or not seen.text.strip():
            return ""
        block = await self.memory.begin_turn(identity, seen.text, turn_id=session.turn_id)
        if seen.reply is not None and not session.turn.replied:
            session.turn.replied = True
            await self.memory.capture_reply(identity, seen.reply, turn_id=session.turn_id)
        return block

    async def _aput(self, messages: list[ChatMessage]) -> None:
        """Archived short-term messages: already stored turn by turn, nothing to do."""


def zep_memory(
    memory: MemoryLoop,
    *,
    user_id: str | None = None,
    thread_id: str | None = None,
    identity: Identity | IdentityResolver | None = None,
    session_id: str | None = None,
    **memory_options: Any,
) -> Memory:
    """A LlamaIndex `Memory` with a `ZepMemoryBlock`, for one user's conversation: pass it to
    `agent.run(..., memory=...)`. Its `session_id` defaults to `thread_id`; `memory_options` go to
    `Memory.from_defaults` (e.g. `token_limit`, `insert_method`)."""
    block = ZepMemoryBlock(memory, user_id=user_id, thread_id=thread_id, identity=identity)
    session = session_id or thread_id
    if session is not None:
        memory_options["session_id"] = session
    blocks = [*memory_options.pop("memory_blocks", []), block]
    return Memory.from_defaults(memory_blocks=blocks, **memory_options)
