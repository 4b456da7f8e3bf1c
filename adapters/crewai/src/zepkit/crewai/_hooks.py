"""Form A for CrewAI: LLM-call hooks that put the memory block into every model call.

CrewAI's global before/after LLM-call hooks see the executor's live message list. Before each
call the task input is persisted (once per task execution) and the block replaces any earlier one
in the system message; after each call a final answer is captured (once per task execution).
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Sequence
from typing import Any

from crewai.agents.parser import AgentFinish, OutputParserError, parse
from crewai.hooks import (
    LLMCallHookContext,
    register_after_llm_call_hook,
    register_before_llm_call_hook,
    unregister_after_llm_call_hook,
    unregister_before_llm_call_hook,
)

from zepkit.core import Identity, MemoryLoop
from zepkit.core.spi import check_memory, fail_soft_sync, fixed_identity, strip_rendered_block
from zepkit.crewai._identity import STAGE, hint, ids

SEPARATOR = "\n\n"


class ZepMemoryHooks:
    """The hooks `enable_zep_memory` registered; `disable()` removes exactly these two. Without
    an identity (None) they do nothing."""

    def __init__(
        self, memory: MemoryLoop, identity: Identity | None, agents: Sequence[Any] | None = None
    ) -> None:
        self.memory = check_memory(memory)
        self.identity = identity
        self.agents = list(agents) if agents is not None else None
        self._lock = threading.Lock()
        self._enabled = False
        self._loose_turns: dict[int, tuple[object, str]] = {}
        self._runs = itertools.count(1)

    @property
    def enabled(self) -> bool:
        return self._enabled

    def enable(self) -> ZepMemoryHooks:
        """Register both hooks (global in CrewAI: register before `kickoff()`)."""
        with self._lock:
            if not self._enabled:
                register_before_llm_call_hook(self.before_llm_call)
                register_after_llm_call_hook(self.after_llm_call)
                self._enabled = True
        return self

    def disable(self) -> None:
        """Unregister this handle's hooks only; other hooks, and other handles, stay."""
        with self._lock:
            if self._enabled:
                unregister_before_llm_call_hook(self.before_llm_call)
                unregister_after_llm_call_hook(self.after_llm_call)
                self._enabled = False

    @fail_soft_sync("crewai before_llm_call", None, fields=ids)
    def before_llm_call(self, context: LLMCallHookContext) -> None:
        """Persist the task input once and place this turn's block in the system message."""
        identity = self.identity
        if identity is None or not self._applies(context):
            return
        text = _task_input(context)
        if not text:
            return
        block = self.memory.sync.begin_turn(identity, text, turn_id=self._turn_id(context))
        place_block(context.messages, block, self.memory.template)

    @fail_soft_sync("crewai after_llm_call", None, fields=ids)
    def after_llm_call(self, context: LLMCallHookContext) -> None:
        """Capture the final answer of the task execution (tool calls are skipped)."""
        identity = self.identity
        if identity is None or not self._applies(context):
            return
        answer = final_answer(context)
        if answer:
            self.memory.sync.capture_reply(
                identity,
                answer,
                turn_id=self._turn_id(context),
                name=getattr(context.agent, "role", None),
            )

    def _applies(self, context: LLMCallHookContext) -> bool:
        if self.agents is None:
            return True
        agent = context.agent
        role = getattr(agent, "role", None)
        return any(a is agent or (isinstance(a, str) and a == role) for a in self.agents)

    def _turn_id(self, context: LLMCallHookContext) -> str:
        """One task execution is one turn: the task's id and its start time. Without a task
        (`Agent.kickoff`), the head of the message list marks the run."""
        task = context.task
        if task is not None:
            started = getattr(task, "start_time", None)
            return f"crewai-task-{task.id}-{started.isoformat() if started else ''}"
        head = context.messages[0] if context.messages else None
        with self._lock:
            held = self._loose_turns.get(id(head))
            if held is None or held[0] is not head:
                held = (head, f"crewai-run-{next(self._runs)}")
                self._loose_turns[id(head)] = held  # holding `head` keeps its id unique
                while len(self._loose_turns) > 256:
                    self._loose_turns.pop(next(iter(self._loose_turns)))
        return held[1]


def enable_zep_memory(
    memory: MemoryLoop,
    *,
    user_id: str | None = None,
    thread_id: str | None = None,
    agents: Sequence[Any] | None = None,
    first_name: str | None = None,
    last_name: str | None = None,
    email: str | None = None,
    identity: Identity | None = None,
) -> ZepMemoryHooks:
    """Give every LLM call of `agents` (Agent objects or roles; all agents when None) the user's
    memory block, persist each task input and final answer; call before `kickoff()`. The user is
    `user_id` / `thread_id` with the optional profile fields, or a zepkit `Identity`; without one
    the loop's `on_error` hears of it once, here, and the hooks do nothing."""
    found = fixed_identity(
        identity,
        check_memory(memory).failsoft,
        STAGE,
        user_id=user_id,
        thread_id=thread_id,
        first_name=first_name,
        last_name=last_name,
        email=email,
        hint=hint("enable_zep_memory"),
    )
    return ZepMemoryHooks(memory, found, agents).enable()


def place_block(messages: list[Any], block: str, template: str) -> None:
    """Put `block` at the end of the system message (or the first message), replacing any block
    rendered earlier with the same template. Mutates the message in place, as CrewAI requires."""
    target = next((m for m in messages if m.get("role") == "system"), None)
    if target is None and messages:
        target = messages[0]
    if target is None or not isinstance(target.get("content"), str):
        return
    content = strip_rendered_block(target["content"], template)
    target["content"] = f"{content}{SEPARATOR}{block}" if block else content


def final_answer(context: LLMCallHookContext) -> str | None:
    """The final answer in an LLM response, or None for a tool call or an unparsable reply."""
    text = context.response
    if not isinstance(text, str) or not text.strip():
        return None
    try:
        parsed = parse(text)
    except OutputParserError:
        # With native function calling a plain text response is the answer; in the ReAct text
        # protocol it is a format error the executor retries.
        return text if _native_tools(context) else None
    return str(parsed.output) if isinstance(parsed, AgentFinish) else None


def _native_tools(context: LLMCallHookContext) -> bool:
    executor = context.executor
    state = getattr(executor, "state", None)
    return bool(getattr(state, "use_native_tools", getattr(executor, "use_native_tools", False)))


def _task_input(context: LLMCallHookContext) -> str | None:
    """What the agent was asked: the task's description, else the first user message."""
    description = getattr(context.task, "description", None)
    if isinstance(description, str) and description.strip():
        return description
    for message in context.messages:
        content = message.get("content")
        if message.get("role") == "user" and isinstance(content, str) and content.strip():
            return content
    return None
