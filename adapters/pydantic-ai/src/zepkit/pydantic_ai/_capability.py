"""`ZepMemory`: zepkit's memory loop as one Pydantic AI capability.

Context goes in as dynamic instructions (resolved before every model request, never stored in
the message history), the run's prompt is persisted once through the core's per-turn cache keyed
by the run id, the final output is captured in `after_run` (which a failed run never reaches), and
the core's search tool comes as a toolset.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import pydantic_core
from pydantic_ai import DeferredToolRequests, RunContext
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.messages import TextContent
from pydantic_ai.run import AgentRunResult
from pydantic_ai.toolsets import AbstractToolset

from zepkit.core import Identity, MemoryLoop, SearchTool
from zepkit.core.spi import search_tool_option
from zepkit.pydantic_ai._identity import IdentityResolver, run_identity
from zepkit.pydantic_ai._tool import STAGE, search_toolset


class ZepMemory(AbstractCapability[Any]):
    """Long-term memory for a Pydantic AI agent: `Agent(..., capabilities=[ZepMemory(memory)])`.

    `identity`: where each run's user and thread come from. By default the run's `deps` must be a
    `ZepDeps` (or an `Identity`); pass a callable `deps -> Identity | None` for your own deps type,
    or a fixed `Identity` for a single-user agent. A run without an identity gets no memory.
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
        self.resolver = run_identity(identity)
        self.search: SearchTool | None = search_tool_option(memory, search_tool, pinned)
        self.memory = memory
        self._toolset = search_toolset(self.search, self.resolver) if self.search else None

    async def _identity(self, ctx: RunContext[Any]) -> Identity | None:
        return await self.resolver.resolve(ctx.deps, self.memory.failsoft, STAGE, report=False)

    def __repr__(self) -> str:
        backend = type(self.memory.backend).__name__
        return f"ZepMemory(backend={backend}, search_tool={self.search is not None})"

    def get_instructions(self) -> Callable[[RunContext[Any]], Awaitable[str | None]]:
        return self._context_block

    def get_toolset(self) -> AbstractToolset[Any] | None:
        return self._toolset

    async def before_run(self, ctx: RunContext[Any]) -> None:
        """Say once per run, through the loop's `on_error`, when it has no identity (and so no
        memory)."""
        await self.resolver.resolve(ctx.deps, self.memory.failsoft, STAGE)

    async def _context_block(self, ctx: RunContext[Any]) -> str | None:
        """Evaluated before every model request; the core persists the prompt once per run id."""
        identity = await self._identity(ctx)
        if identity is None:
            return None
        block = await self.memory.begin_turn(identity, prompt_text(ctx.prompt), turn_id=ctx.run_id)
        return block or None

    async def after_run(
        self, ctx: RunContext[Any], *, result: AgentRunResult[Any]
    ) -> AgentRunResult[Any]:
        identity = await self._identity(ctx)
        if identity is not None:
            await self.memory.capture_reply(
                identity, output_text(result.output), turn_id=ctx.run_id
            )
        return result


def prompt_text(prompt: str | Sequence[Any] | None) -> str:
    """The text of a run's prompt; images, audio and other media parts are not text memory."""
    if prompt is None:
        return ""
    if isinstance(prompt, str):
        return prompt
    texts = [
        part if isinstance(part, str) else part.content
        for part in prompt
        if isinstance(part, str | TextContent)
    ]
    return "\n".join(text for text in texts if text)


def output_text(output: Any) -> str | None:
    """A run's output as the reply to remember: text as is, structured output as JSON; deferred
    tool requests are not a reply."""
    if output is None or isinstance(output, DeferredToolRequests):
        return None
    if isinstance(output, str):
        return output
    return pydantic_core.to_json(output).decode()
