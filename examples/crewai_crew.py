"""A CrewAI crew with zepkit memory, run twice for one user: the second run's LLM input carries a
fact the user gave in the first.

Offline by default (a scripted CrewAI LLM on the local engine); with OPENAI_API_KEY set, the
agent runs on a real OpenAI model instead.

Run: python examples/crewai_crew.py
"""

from __future__ import annotations

import json
import os
from typing import Any

# CrewAI reads these when it is imported: no telemetry, no trace upload, no version check.
os.environ.setdefault("CREWAI_DISABLE_TELEMETRY", "true")
os.environ.setdefault("CREWAI_DISABLE_TRACKING", "true")
os.environ.setdefault("OTEL_SDK_DISABLED", "true")
os.environ.setdefault("CREWAI_TRACING_ENABLED", "false")
os.environ.setdefault("CREWAI_DISABLE_VERSION_CHECK", "true")

from crewai import Agent, Crew, Task
from crewai.hooks import (
    LLMCallHookContext,
    register_before_llm_call_hook,
    unregister_before_llm_call_hook,
)
from crewai.llms.base_llm import BaseLLM

from zepkit.core import MemoryLoop
from zepkit.crewai import ZepSearchTool, enable_zep_memory

USER = "dana"
FACT = "I'm allergic to peanuts, so never suggest satay."
QUESTION = "Plan a three-course dinner for me on Friday. I'm allergic to something, remember?"


class ScriptedLLM(BaseLLM):
    """Stands in for a model: searches memory once, then answers (ReAct text protocol)."""

    def call(self, messages: Any, *args: Any, **kwargs: Any) -> str:
        text = messages if isinstance(messages, str) else str(messages)
        if "Observation" not in text and "peanut" not in FACT_SEEN:
            FACT_SEEN.append("peanut")
            query = json.dumps({"query": "food allergies"})
            return f"Thought: check memory.\nAction: search_memory\nAction Input: {query}"
        return "Thought: I now know the final answer\nFinal Answer: " + ANSWERS.pop(0)

    def supports_stop_words(self) -> bool:
        return False

    def supports_function_calling(self) -> bool:
        return False

    def get_context_window_size(self) -> int:
        return 8192


FACT_SEEN: list[str] = []
ANSWERS = [
    "Noted: no peanuts, and no satay.",
    "Tomato soup, grilled sea bass, lemon sorbet. Nothing with peanuts.",
]


def make_llm() -> BaseLLM | str:
    if os.environ.get("OPENAI_API_KEY"):
        return "gpt-4o-mini"
    return ScriptedLLM(model="scripted-fake")


def run_crew(memory: MemoryLoop, thread_id: str, request: str) -> tuple[str, list[str]]:
    """One crew run for the user in `thread_id`; returns the answer and every LLM input."""
    agent = Agent(
        role="Personal chef",
        goal="Plan meals the user will enjoy and can safely eat.",
        backstory="You cook for one family and remember what they told you.",
        llm=make_llm(),
        tools=[ZepSearchTool(memory, user_id=USER, thread_id=thread_id)],
        allow_delegation=False,
        verbose=False,
    )
    task = Task(description=request, expected_output="A short reply to the user.", agent=agent)
    seen: list[str] = []

    def record(context: LLMCallHookContext) -> None:  # registered after zepkit's hook
        seen.append("\n".join(str(m.get("content")) for m in context.messages))

    hooks = enable_zep_memory(memory, user_id=USER, thread_id=thread_id, agents=[agent])
    register_before_llm_call_hook(record)
    try:
        output = Crew(agents=[agent], tasks=[task], verbose=False).kickoff()
    finally:
        unregister_before_llm_call_hook(record)
        hooks.disable()
    return output.raw, seen


def main() -> None:
    memory = MemoryLoop.local(":memory:")
    try:
        first, _ = run_crew(memory, "dana-monday", FACT)
        print("run 1:", first)
        second, inputs = run_crew(memory, "dana-friday", QUESTION)
        print("run 2:", second)
        assert inputs, "the second run made no LLM call"
        assert all("peanut" in text and "<ZEP_CONTEXT>" in text for text in inputs), (
            "every LLM call of the second run carries the fact from the first"
        )
        stored = memory.sync.get_messages("dana-friday")
        assert [m.role for m in stored] == ["user", "assistant"]
        print(f"second run: {len(inputs)} LLM call(s), each with the peanut allergy in memory")
    finally:
        memory.sync.close()


if __name__ == "__main__":
    main()
