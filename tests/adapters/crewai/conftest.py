"""CrewAI test setup: telemetry, tracing and version checks off before CrewAI is imported, and a
scripted CrewAI LLM that speaks the ReAct text protocol (no network, no keys)."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

os.environ.update(
    {
        "CREWAI_DISABLE_TELEMETRY": "true",
        "CREWAI_DISABLE_TRACKING": "true",
        "OTEL_SDK_DISABLED": "true",
        "CREWAI_TRACING_ENABLED": "false",
        "CREWAI_DISABLE_VERSION_CHECK": "true",
    }
)
os.environ.setdefault("CREWAI_STORAGE_DIR", tempfile.mkdtemp(prefix="zepkit-crewai-"))

import pytest
from crewai import Agent, Crew, Task
from crewai.hooks import get_after_llm_call_hooks, get_before_llm_call_hooks
from crewai.llms.base_llm import BaseLLM


def action(tool: str, args: dict[str, Any]) -> str:
    """A ReAct tool call."""
    return f"Thought: I should look this up.\nAction: {tool}\nAction Input: {json.dumps(args)}"


def final(text: str) -> str:
    """A ReAct final answer."""
    return f"Thought: I now know the final answer\nFinal Answer: {text}"


@dataclass
class Script:
    """The responses a scripted LLM gives, in order, and the full text of every input it got."""

    steps: list[str]
    inputs: list[str] = field(default_factory=list)
    messages: list[list[dict[str, Any]]] = field(default_factory=list)

    def llm(self) -> BaseLLM:
        script = self

        class ScriptedLLM(BaseLLM):
            def call(
                self,
                messages: Any,
                tools: Any = None,
                callbacks: Any = None,
                available_functions: Any = None,
                from_task: Any = None,
                from_agent: Any = None,
                response_model: Any = None,
                **kwargs: Any,
            ) -> str:
                listed = (
                    [{"role": "user", "content": messages}]
                    if isinstance(messages, str)
                    else [dict(m) for m in messages]
                )
                script.messages.append(listed)
                script.inputs.append("\n".join(f"{m['role']}: {m['content']}" for m in listed))
                if not script.steps:
                    return final("(script exhausted)")
                return script.steps.pop(0)

            def supports_stop_words(self) -> bool:
                return False

            def supports_function_calling(self) -> bool:
                return False

            def get_context_window_size(self) -> int:
                return 8192

        return ScriptedLLM(model="scripted-fake")


def make_crew(
    script: Script,
    description: str,
    *,
    tools: Sequence[Any] = (),
    memory: Any = False,
    role: str = "Assistant",
) -> tuple[Crew, Agent]:
    """One agent, one task, driven by `script`."""
    agent = Agent(
        role=role,
        goal="Help the user with what they ask.",
        backstory="A careful assistant with long-term memory.",
        llm=script.llm(),
        tools=list(tools),
        allow_delegation=False,
        max_iter=8,
        verbose=False,
    )
    task = Task(description=description, expected_output="A short answer.", agent=agent)
    return Crew(agents=[agent], tasks=[task], memory=memory, verbose=False), agent


@pytest.fixture
def crew_factory() -> Callable[..., tuple[Crew, Agent]]:
    return make_crew


@pytest.fixture
def script_factory() -> Callable[[list[str]], Script]:
    return Script


@pytest.fixture
def react() -> tuple[Callable[[str, dict[str, Any]], str], Callable[[str], str]]:
    return action, final


@pytest.fixture(autouse=True)
def no_leftover_hooks() -> Iterator[None]:
    """Every test must remove the global hooks it registered."""
    before, after = get_before_llm_call_hooks(), get_after_llm_call_hooks()
    yield
    assert get_before_llm_call_hooks() == before
    assert get_after_llm_call_hooks() == after
