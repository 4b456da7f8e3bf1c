"""`ZepMemory`: zepkit's memory loop on an Agno agent's pre-hook, instructions and post-hook.

The pre-hook stores the run's input and fetches the block in one round trip; the instructions
callable appends that block to the system message Agno builds once per run (so every model call
of the run, tool loops included, sees it, and it is never part of the stored conversation); the
post-hook, which a failed or paused run never reaches, stores the final reply.
"""

from __future__ import annotations

import inspect
import json
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from agno.agent import Agent
from agno.models.message import Message
from agno.run import RunContext
from agno.run.agent import RunInput, RunOutput
from agno.tools.function import Function
from agno.utils.agent import aexecute_instructions, execute_instructions
from pydantic import BaseModel

from zepkit.agno._identity import STAGE, IdentityResolver, run_identity
from zepkit.agno._tool import search_function
from zepkit.core import Identity, MemoryLoop, SearchTool
from zepkit.core.spi import search_tool_option

Instructions = str | list[str] | Callable[..., Any] | None
_MAX_PENDING = 1024  # blocks of runs not finished yet, or failed (they never reach the post-hook)


class ZepMemory:
    """Long-term memory for Agno agents: `ZepMemory(memory).attach(agent)`, then `agent.arun(...)`.

    Each run takes its user from `arun(user_id=...)` (or `Agent(user_id=...)`) and its thread from
    the run's `session_id`; `identity=` (a fixed `Identity`, or a sync or async function of the
    run's `RunContext`) replaces that. A run without a user runs without memory and says so
    through the loop's `on_error`. `search_tool=False` leaves the search tool out; `**pinned` (and
    `graph_id=`) go to `memory.search_tool(...)`. One instance serves every agent and user.
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
        self.tool: Function | None = None
        self.sync_tool: Function | None = None
        if self.search is not None:
            self.tool = search_function(self.search, self.resolver)
            self.sync_tool = search_function(self.search, self.resolver, sync=True)
        self._blocks: OrderedDict[str, str] = OrderedDict()

    def __repr__(self) -> str:
        backend = type(self.memory.backend).__name__
        return f"ZepMemory(backend={backend}, search_tool={self.search is not None})"

    def attach(self, agent: Agent, *, sync: bool = False) -> Agent:
        """Give `agent` this memory: the block goes after its instructions, the hooks go last in
        its pre- and post-hooks, the search tool joins its tools. Returns the agent.

        The hooks are async, for `arun` (Agno refuses async hooks in `run`); with `sync=True`
        they and the tool are blocking ones for `run` and `print_response`, through the loop's
        sync facade (they also work under `arun`, but hold its event loop while memory works).
        """
        if not isinstance(agent, Agent):
            raise TypeError(f"attach() takes an agno Agent, got {type(agent).__name__}")
        if agent.system_message is not None or not agent.build_context:
            raise ValueError(
                "the memory block goes into the system message Agno builds; an agent with its own "
                "system_message or build_context=False has none"
            )
        hooks = agent.pre_hooks or []
        if self.before_run in hooks or self.before_run_sync in hooks:
            raise ValueError("this ZepMemory is already attached to the agent")
        tool = self.sync_tool if sync else self.tool
        if tool is not None and callable(agent.tools):
            raise TypeError(
                "the agent's tools come from a factory: return ZepMemory.tool from it and "
                "attach with search_tool=False"
            )
        before = self.before_run_sync if sync else self.before_run
        after = self.after_run_sync if sync else self.after_run
        agent.instructions = self.instructions(agent.instructions)
        agent.pre_hooks = [*hooks, before]
        agent.post_hooks = [*(agent.post_hooks or []), after]
        if tool is not None:
            tools = agent.tools if isinstance(agent.tools, list) else []
            agent.tools = [*tools, tool]
        return agent

    def instructions(self, base: Instructions = None) -> Callable[..., Any]:
        """`base` (Agno's `instructions`: text, a list or a callable) followed by this run's
        memory block; what `attach` installs, for agents wired by hand."""
        if inspect.iscoroutinefunction(base):
            base_fn = base

            async def async_instructions(agent: Agent, run_context: RunContext) -> Any:
                found = await aexecute_instructions(base_fn, agent=agent, run_context=run_context)
                return self._with_block(found, run_context)

            return async_instructions

        def instructions(agent: Agent, run_context: RunContext) -> Any:
            found = base
            if callable(base):
                found = execute_instructions(base, agent=agent, run_context=run_context)
            return self._with_block(found, run_context)

        return instructions

    def _with_block(self, base: Any, run_context: RunContext) -> Any:
        # kept until the post-hook: a retried attempt (Agent(retries=...)) builds its messages again
        block = self._blocks.get(run_context.run_id, "")
        if not block:
            return base
        if isinstance(base, list):
            return [*base, block]
        return f"{base}\n\n{block}" if base else block

    async def before_run(self, run_input: RunInput, run_context: RunContext) -> None:
        """Agno pre-hook: store the run's input, keep its block for the system message."""
        identity = await self.resolver.resolve(run_context, self.memory.failsoft, STAGE)
        text = input_text(run_input)
        if identity is None or not text.strip():
            return
        block = await self.memory.begin_turn(identity, text, turn_id=run_context.run_id)
        self._keep(run_context.run_id, block)

    def before_run_sync(self, run_input: RunInput, run_context: RunContext) -> None:
        """`before_run` for `run()`: blocking, through the loop's sync facade."""
        identity = self.resolver.resolve_now(run_context, self.memory.failsoft, STAGE)
        text = input_text(run_input)
        if identity is None or not text.strip():
            return
        block = self.memory.sync.begin_turn(identity, text, turn_id=run_context.run_id)
        self._keep(run_context.run_id, block)

    def _keep(self, run_id: str, block: str) -> None:
        if block:
            self._blocks[run_id] = block
            while len(self._blocks) > _MAX_PENDING:
                self._blocks.popitem(last=False)

    async def after_run(self, run_output: RunOutput, run_context: RunContext) -> None:
        """Agno post-hook: store the run's final reply once."""
        self._blocks.pop(run_context.run_id, None)
        identity = await self.resolver.resolve(
            run_context, self.memory.failsoft, STAGE, report=False
        )
        if identity is not None:
            await self.memory.capture_reply(
                identity, output_text(run_output), **_reply(run_output, run_context)
            )

    def after_run_sync(self, run_output: RunOutput, run_context: RunContext) -> None:
        """`after_run` for `run()`: blocking, through the loop's sync facade."""
        self._blocks.pop(run_context.run_id, None)
        identity = self.resolver.resolve_now(run_context, self.memory.failsoft, STAGE, report=False)
        if identity is not None:
            self.memory.sync.capture_reply(
                identity, output_text(run_output), **_reply(run_output, run_context)
            )


def _reply(run_output: RunOutput, run_context: RunContext) -> dict[str, Any]:
    """How a run's reply is stored: once per run, under the agent's name."""
    return {"turn_id": run_context.run_id, "name": run_output.agent_name or None}


def input_text(run_input: RunInput) -> str:
    """The user's words in a run's input: text as is, the text of user messages, structured input
    as JSON; images and other media are not text memory."""
    content = run_input.input_content
    if isinstance(content, str):
        return content
    if isinstance(content, Message):
        content = [content]
    if isinstance(content, list):
        texts = [_user_text(item) for item in content]
        return "\n".join(text for text in texts if text)
    return run_input.input_content_string()


def _user_text(item: Any) -> str:
    if isinstance(item, Message):
        return item.get_content_string() if item.role == "user" else ""
    if isinstance(item, dict) and item.get("role") == "user":
        content = item.get("content")
        return content if isinstance(content, str) else ""
    return item if isinstance(item, str) else ""


def output_text(run_output: RunOutput) -> str | None:
    """A run's reply to remember: text as is, structured output as JSON."""
    content = run_output.content
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, BaseModel):
        return content.model_dump_json(exclude_none=True)
    return json.dumps(content, ensure_ascii=False, default=str)
