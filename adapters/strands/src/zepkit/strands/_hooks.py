"""`ZepMemory`: zepkit's memory loop as a Strands `HookProvider`.

Before an invocation the user's message is persisted and the memory block is appended to the
agent's system prompt, which Strands reads for every model call of the invocation (tool loops
included) and never stores in the conversation; after the invocation the prompt is put back and
the final reply stored. A Strands agent runs one invocation at a time, so the swap is its own.
"""

from __future__ import annotations

import uuid
import weakref
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from strands import Agent
from strands.hooks import AfterInvocationEvent, BeforeInvocationEvent, HookProvider, HookRegistry
from strands.tools import PythonAgentTool
from strands.types.content import SystemContentBlock

from zepkit.core import Identity, MemoryLoop, SearchTool
from zepkit.core.spi import fail_soft, search_tool_option
from zepkit.strands._identity import STAGE, IdentityResolver, run_identity
from zepkit.strands._messages import reply_text, user_text
from zepkit.strands._tool import search_agent_tool

_SystemPrompt = str | list[SystemContentBlock] | None


@dataclass(frozen=True)
class _Turn:
    """What `before_invocation` hands to `after_invocation` of the same agent."""

    identity: Identity
    turn_id: str
    prompt: _SystemPrompt
    swapped: bool


class ZepMemory(HookProvider):
    """Long-term memory for Strands agents: `Agent(..., hooks=[zep], tools=zep.tools)`.

    One instance serves every agent and user. `identity`: where each invocation's user and thread
    come from. By default `user_id` and `thread_id` are read from the invocation state
    (`agent(prompt, invocation_state={...})`), then from the agent's state
    (`Agent(state={...})`); pass a function `(agent, invocation_state) -> Identity | None` (sync or
    async) or a fixed `Identity` instead. An invocation without an identity runs without memory
    and says so once. `search_tool=False` leaves the search tool out; `**pinned` (and
    `graph_id=`) go to `memory.search_tool(...)`.
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
        self.tools: list[PythonAgentTool] = (
            [search_agent_tool(self.search, self.resolver)] if self.search else []
        )
        self._turns: weakref.WeakKeyDictionary[Agent, _Turn] = weakref.WeakKeyDictionary()

    def __repr__(self) -> str:
        backend = type(self.memory.backend).__name__
        return f"ZepMemory(backend={backend}, search_tool={self.search is not None})"

    def register_hooks(self, registry: HookRegistry, **kwargs: Any) -> None:
        registry.add_callback(BeforeInvocationEvent, self.before_invocation)
        registry.add_callback(AfterInvocationEvent, self.after_invocation)

    async def resolve_identity(
        self, agent: Agent, invocation_state: Mapping[str, Any], *, report: bool = True
    ) -> Identity | None:
        """The invocation's identity; None (reported through `on_error`) when there is none."""
        return await self.resolver.resolve(
            (agent, invocation_state), self.memory.failsoft, STAGE, report=report
        )

    @fail_soft("strands before_invocation", None)
    async def before_invocation(self, event: BeforeInvocationEvent) -> None:
        """Persist the user's message and append the memory block to the system prompt. Never
        raises unless the loop's `on_error` says so."""
        agent = event.agent
        stale = self._turns.pop(agent, None)
        if stale is not None and stale.swapped:  # an invocation that never reached its end
            agent.system_prompt = stale.prompt
        identity = await self.resolve_identity(agent, event.invocation_state)
        text = user_text(event.messages)
        if identity is None or not text:
            return
        turn_id = f"strands-{uuid.uuid4().hex}"
        block = await self.memory.begin_turn(identity, text, turn_id=turn_id)
        prompt = _system_prompt(agent)
        self._turns[agent] = _Turn(identity, turn_id, prompt, swapped=bool(block))
        if block:
            agent.system_prompt = _with_block(prompt, block)

    @fail_soft("strands after_invocation", None)
    async def after_invocation(self, event: AfterInvocationEvent) -> None:
        """Put the system prompt back and store the final reply, once, when the invocation's
        input was stored. Never raises unless the loop's `on_error` says so."""
        agent = event.agent
        turn = self._turns.pop(agent, None)
        if turn is None:
            return
        if turn.swapped:
            agent.system_prompt = turn.prompt
        await self.memory.capture_reply(
            turn.identity,
            reply_text(event.result),
            turn_id=turn.turn_id,
            name=getattr(agent, "name", None) or None,
        )


def _system_prompt(agent: Agent) -> _SystemPrompt:
    """The agent's system prompt as set: its content blocks, so cache points survive the swap
    (public as `system_prompt_content` since strands-agents 1.40, the same field before), else
    the string."""
    content = getattr(
        agent, "system_prompt_content", getattr(agent, "_system_prompt_content", None)
    )
    return list(content) if content else agent.system_prompt


def _with_block(prompt: _SystemPrompt, block: str) -> _SystemPrompt:
    if isinstance(prompt, list):
        return [*prompt, {"text": block}]
    return f"{prompt}\n\n{block}" if prompt else block
