"""The adapter contract on a real `Crew.kickoff()` with one agent, one task and a scripted LLM."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from zepkit.core import MemoryLoop
from zepkit.crewai import ZepSearchTool, enable_zep_memory
from zepkit.testing import AdapterContract, AdapterHarness, TurnResult


class CrewHarness:
    """Runs one crew per turn: the scripted model calls `search_memory` once per query, then
    answers; Form A hooks are enabled for the run and disabled after it."""

    supports_tools = True
    surfaces_errors = False  # CrewAI's hook dispatch swallows what a hook raises (fail-open)

    def __init__(
        self,
        memory: MemoryLoop,
        crew_factory: Callable[..., Any],
        script_factory: Callable[[list[str]], Any],
        react: tuple[Callable[[str, dict[str, Any]], str], Callable[[str], str]],
    ) -> None:
        self.memory = memory
        self.crew_factory = crew_factory
        self.script_factory = script_factory
        self.action, self.final = react

    async def run_turn(
        self,
        *,
        user_id: str,
        thread_id: str,
        text: str,
        reply: str,
        tool_queries: Sequence[str] = (),
    ) -> TurnResult:
        # CrewAI is synchronous and runs its own event loops: keep it off the test's loop.
        return await asyncio.to_thread(
            self._run, user_id, thread_id, text, reply, list(tool_queries)
        )

    def _run(
        self, user_id: str, thread_id: str, text: str, reply: str, queries: list[str]
    ) -> TurnResult:
        tool = ZepSearchTool(self.memory, user_id=user_id, thread_id=thread_id)
        steps = [self.action(tool.name, {"query": q}) for q in queries] + [self.final(reply)]
        script = self.script_factory(steps)
        crew, agent = self.crew_factory(script, text, tools=[tool])
        hooks = enable_zep_memory(self.memory, user_id=user_id, thread_id=thread_id, agents=[agent])
        try:
            output = crew.kickoff()
        finally:
            hooks.disable()
        assert len(script.inputs) == len(queries) + 1, "one model call per tool query + answer"
        return TurnResult(reply=output.raw, model_inputs=script.inputs)


class TestCrewAIContract(AdapterContract):
    framework_key = "crewai"
    framework_modules = ("crewai",)

    @pytest.fixture
    def make_harness(
        self,
        crew_factory: Callable[..., Any],
        script_factory: Callable[[list[str]], Any],
        react: tuple[Callable[[str, dict[str, Any]], str], Callable[[str], str]],
    ) -> Callable[[MemoryLoop], AdapterHarness]:
        return lambda memory: CrewHarness(memory, crew_factory, script_factory, react)
