"""`ZepMemory`: zepkit's memory loop on the OpenAI Agents SDK's own hooks.

The memory block goes in through dynamic instructions, which the SDK resolves before every model
call of a run (tool loops and handoffs included) and never stores in the conversation; the run's
input is persisted once, keyed by the run's context wrapper; the final output is stored by the
agent's `on_end` hook, which fires once per run.
"""

from __future__ import annotations

import inspect
import uuid
import weakref
from collections.abc import Awaitable, Callable
from typing import Any, TypeAlias

from agents import Agent, AgentHooks, FunctionTool, RunContextWrapper

from zepkit.core import Identity, MemoryLoop, SearchTool
from zepkit.core.spi import fail_soft, search_tool_option
from zepkit.openai_agents._identity import STAGE, IdentityResolver, run_identity
from zepkit.openai_agents._messages import output_text, user_text
from zepkit.openai_agents._tool import wrap_search

Instructions: TypeAlias = (
    str | Callable[[RunContextWrapper[Any], Agent[Any]], str | Awaitable[str]] | None
)
"""What `Agent(instructions=...)` takes: a string, a sync or async function of the run, or None."""


class ZepMemory(AgentHooks[Any]):
    """Long-term memory for OpenAI Agents SDK agents, one instance for every user and agent.

    `attach(agent)` returns a copy of the agent with the memory block added to its instructions,
    the search tool added to its tools and this object as its hooks; or wire the pieces yourself:
    `Agent(instructions=zep.instructions("..."), tools=[*zep.tools], hooks=zep)`.

    `identity`: where each run's user and thread come from. By default the run's context
    (`Runner.run(..., context=...)`) must have `user_id` and `thread_id` (a zepkit `Identity`, a
    dict or your own context object); pass a function `context -> Identity | None` (sync or async)
    or a fixed `Identity` instead. A run without an identity runs without memory and says so once.
    `search_tool=False` leaves the search tool out; `**pinned` (and `graph_id=`) go to
    `memory.search_tool(...)`.
    """

    def __init__(
        self,
        memory: MemoryLoop,
        *,
        identity: Identity | IdentityResolver | None = None,
        search_tool: bool = True,
        **pinned: Any,
    ) -> None:
        self.search: SearchTool | None = search_tool_option(memory, search_tool, pinned)
        self.memory = memory
        self.resolver = run_identity(identity)
        self.tools: list[FunctionTool] = (
            [wrap_search(self.search, self.resolver)] if self.search else []
        )
        # One turn id per run: the SDK hands every instructions call of a run the same wrapper.
        self._turns: weakref.WeakKeyDictionary[RunContextWrapper[Any], str] = (
            weakref.WeakKeyDictionary()
        )

    def __repr__(self) -> str:
        backend = type(self.memory.backend).__name__
        return f"ZepMemory(backend={backend}, search_tool={self.search is not None})"

    def attach(self, agent: Agent[Any]) -> Agent[Any]:
        """A copy of `agent` with memory: its instructions plus the memory block, its tools plus
        the search tool, and these hooks (an agent with hooks of its own is refused: combine them
        in one `AgentHooks` that calls this one)."""
        if agent.hooks is self:
            return agent
        if agent.hooks is not None:
            raise ValueError(
                f"agent {agent.name!r} already has hooks; wire ZepMemory in by hand "
                "(instructions=zep.instructions(...), tools=zep.tools, and call its on_end)"
            )
        tools = [*agent.tools, *(tool for tool in self.tools if tool not in agent.tools)]
        return agent.clone(
            instructions=self.instructions(agent.instructions), hooks=self, tools=tools
        )

    def instructions(
        self, base: Instructions = None
    ) -> Callable[[RunContextWrapper[Any], Agent[Any]], Awaitable[str]]:
        """Dynamic instructions for `Agent(instructions=...)`: `base` (a string or the app's own
        function) followed by the run's memory block."""

        async def with_memory(ctx: RunContextWrapper[Any], agent: Agent[Any]) -> str:
            text = base(ctx, agent) if callable(base) else base
            if inspect.isawaitable(text):
                text = await text
            block = await self.context_block(ctx)
            return "\n\n".join(part for part in (text, block) if part)

        return with_memory

    async def context_block(self, ctx: RunContextWrapper[Any]) -> str:
        """The run's memory block ("" when there is none); the first call of a run persists the
        user's message, later calls of the same run reuse the block."""
        first = ctx not in self._turns
        turn_id = self._turns.setdefault(ctx, f"oa-{uuid.uuid4().hex}")
        identity = await self.resolver.resolve(
            ctx.context, self.memory.failsoft, STAGE, report=first
        )
        if identity is None:
            return ""
        text = user_text(ctx.turn_input)
        if not text:
            return ""
        return await self.memory.begin_turn(identity, text, turn_id=turn_id)

    @fail_soft("openai_agents on_end", None)
    async def on_end(self, context: RunContextWrapper[Any], agent: Agent[Any], output: Any) -> None:
        """Store the run's final output (fires once per run, never for tool-call steps). Never
        raises unless the loop's `on_error` says so."""
        identity = await self.resolver.resolve(
            context.context, self.memory.failsoft, STAGE, report=False
        )
        if identity is not None:
            await self.memory.capture_reply(identity, output_text(output), name=agent.name)
