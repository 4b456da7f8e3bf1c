"""`ZepContextProvider`: the memory loop on Agent Framework's `before_run` / `after_run` hooks."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from agent_framework import AgentSession, ContextProvider, SessionContext, SupportsAgentRun

from zepkit.agent_framework._identity import IdentityResolver, identity_state, run_identity
from zepkit.agent_framework._messages import final_reply, user_text
from zepkit.agent_framework._tool import wrap_search
from zepkit.core import Identity, MemoryLoop, SearchTool
from zepkit.core.spi import check_id, check_memory, fail_soft

DEFAULT_SOURCE_ID = "zepkit"


def _session_id(_: object, **hook: Any) -> dict[str, object]:
    """The ids a hook's failure is logged with: its session's id."""
    return {"session_id": hook["session"].session_id}


@dataclass(frozen=True)
class _Turn:
    """What `before_run` hands to `after_run` of the same run (through the run's context)."""

    identity: Identity
    turn_id: str


class ZepContextProvider(ContextProvider):
    """Long-term memory for an Agent Framework agent, safe to share between users.

    Each run: the user's input is saved once and the rendered memory block is appended to the
    run's instructions (it reaches every model call of the run, tool-loop calls included); the
    search tool, bound to the run's user, is added to the run's tools; after the run the final
    reply is saved. Memory failures are logged and the run goes on (the loop's `on_error`).

    Identity, per run, in this order: `resolver(session, context)` when given; else the identity
    bound to the session with `set_identity` (kept in `session.state`, so it survives session
    serialization); else the fixed `user_id`. The thread is the bound or fixed `thread_id`, else
    the session's id. A fixed `thread_id` suits a single conversation only.
    """

    def __init__(
        self,
        memory: MemoryLoop,
        *,
        user_id: str | None = None,
        thread_id: str | None = None,
        resolver: IdentityResolver | None = None,
        search_tool: bool | SearchTool = True,
        source_id: str = DEFAULT_SOURCE_ID,
    ) -> None:
        check_memory(memory)
        if resolver is not None and (user_id is not None or thread_id is not None):
            raise ValueError("give either resolver= or fixed user_id=/thread_id=, not both")
        if resolver is not None and not callable(resolver):
            raise TypeError(f"resolver must be callable, got {type(resolver)!r}")
        for value, field in ((user_id, "user_id"), (thread_id, "thread_id")):
            if value is not None:
                check_id(value, field)
        super().__init__(check_id(source_id, "source_id"))
        self.memory = memory
        self.user_id = user_id
        self.thread_id = thread_id
        self.resolver = resolver
        self._identity = run_identity(resolver, user_id, thread_id)
        self.search: SearchTool | None
        if isinstance(search_tool, SearchTool):
            self.search = search_tool
        elif search_tool is True:
            self.search = memory.search_tool()
        elif search_tool is False:
            self.search = None
        else:
            raise TypeError(f"search_tool must be a bool or a SearchTool, got {search_tool!r}")

    def set_identity(
        self,
        session: AgentSession,
        user_id: str,
        *,
        thread_id: str | None = None,
        first_name: str | None = None,
        last_name: str | None = None,
        email: str | None = None,
    ) -> None:
        """Bind `session` to a user (and optionally a thread other than the session's id).

        Stored as plain values in this provider's slice of `session.state`.
        """
        session.state[self.source_id] = identity_state(
            user_id, thread_id, first_name, last_name, email
        )

    async def resolve_identity(
        self, session: AgentSession, context: SessionContext, state: dict[str, Any]
    ) -> Identity | None:
        """The identity of this run (None: the resolver chose to run it without memory)."""
        return await self._identity.find((session, context, state))

    @fail_soft("agent_framework before_run", None, fields=_session_id)
    async def before_run(
        self,
        *,
        agent: SupportsAgentRun,
        session: AgentSession,
        context: SessionContext,
        state: dict[str, Any],
    ) -> None:
        """Save the user's input, add the memory block and the search tool. Never raises unless
        the loop's `on_error` says so."""
        identity = await self.resolve_identity(session, context, state)
        if identity is None:
            return
        text = user_text(context.input_messages)
        if text:
            turn = _Turn(identity, f"af-{uuid.uuid4().hex}")
            block = await self.memory.begin_turn(identity, text, turn_id=turn.turn_id)
            if block:
                context.extend_instructions(self.source_id, block)
            context.metadata[self.source_id] = turn
        if self.search is not None:
            context.extend_tools(self.source_id, [wrap_search(self.search, identity)])

    @fail_soft("agent_framework after_run", None, fields=_session_id)
    async def after_run(
        self,
        *,
        agent: SupportsAgentRun,
        session: AgentSession,
        context: SessionContext,
        state: dict[str, Any],
    ) -> None:
        """Save the run's final reply, once, when `before_run` saved its input. Never raises
        unless the loop's `on_error` says so."""
        turn = context.metadata.pop(self.source_id, None)
        if not isinstance(turn, _Turn) or context.response is None:
            return
        await self.memory.capture_reply(
            turn.identity,
            final_reply(context.response.messages),
            turn_id=turn.turn_id,
            name=getattr(agent, "name", None) or None,
        )
