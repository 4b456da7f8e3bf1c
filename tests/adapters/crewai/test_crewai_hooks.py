"""Form A hooks: one block per model call (replaced across iterations), the task input and the
final answer persisted once, agent filtering, and `disable()` removing only its own hooks."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from crewai.hooks import (
    get_before_llm_call_hooks,
    register_before_llm_call_hook,
    unregister_before_llm_call_hook,
)

from zepkit.core import MemoryLoop
from zepkit.crewai import ZepSearchTool, enable_zep_memory
from zepkit.crewai._hooks import place_block

React = tuple[Callable[[str, dict[str, Any]], str], Callable[[str], str]]


@pytest.fixture
def memory() -> Iterator[MemoryLoop]:
    loop = MemoryLoop.local(":memory:")
    yield loop
    loop.sync.close()


def _seed(memory: MemoryLoop) -> None:
    memory.sync.add_data("Mira's favourite tea is smoky lapsang souchong.", user_id="mira")


def test_block_is_replaced_not_appended_across_iterations(
    memory: MemoryLoop, crew_factory: Any, script_factory: Any, react: React
) -> None:
    action, final = react
    memory.sync.ensure_user("mira")
    _seed(memory)
    tool = ZepSearchTool(memory, user_id="mira", thread_id="m1")
    script = script_factory(
        [
            action(tool.name, {"query": "tea"}),
            action(tool.name, {"query": "lapsang"}),
            final("Tea!"),
        ]
    )
    crew, agent = crew_factory(script, "Which tea does Mira like? lapsang souchong", tools=[tool])
    hooks = enable_zep_memory(memory, user_id="mira", thread_id="m1", agents=[agent])
    try:
        crew.kickoff()
    finally:
        hooks.disable()

    assert len(script.messages) == 3
    for messages in script.messages:
        system = next(m for m in messages if m["role"] == "system")
        assert system["content"].count("<ZEP_CONTEXT>") == 1
        assert "lapsang" in system["content"]
        assert all("<ZEP_CONTEXT>" not in m["content"] for m in messages if m is not system)
    stored = memory.sync.get_messages("m1")
    assert [(m.role, m.content, m.name) for m in stored] == [
        ("user", "Which tea does Mira like? lapsang souchong", None),
        ("assistant", "Tea!", "Assistant"),
    ]


def test_place_block_replaces_an_earlier_block(memory: MemoryLoop) -> None:
    first = memory.render("- old fact")
    second = memory.render("- new fact")
    messages = [{"role": "system", "content": "You help."}, {"role": "user", "content": "Hi"}]
    place_block(messages, first, memory.template)
    place_block(messages, second, memory.template)
    assert messages[0]["content"] == f"You help.\n\n{second}"
    place_block(messages, "", memory.template)
    assert messages[0]["content"] == "You help."
    assert messages[1]["content"] == "Hi"


def test_other_agents_are_left_alone(
    memory: MemoryLoop, crew_factory: Any, script_factory: Any, react: React
) -> None:
    _, final = react
    _seed(memory)
    script = script_factory([final("Hello.")])
    crew, _ = crew_factory(script, "Say hello about lapsang tea.", role="Greeter")
    hooks = enable_zep_memory(memory, user_id="mira", thread_id="m1", agents=["Researcher"])
    try:
        crew.kickoff()
    finally:
        hooks.disable()
    assert all("<ZEP_CONTEXT>" not in text for text in script.inputs)
    assert memory.sync.get_messages("m1") == []


def test_agents_can_be_named_by_role(
    memory: MemoryLoop, crew_factory: Any, script_factory: Any, react: React
) -> None:
    _, final = react
    script = script_factory([final("Hello.")])
    crew, _ = crew_factory(script, "Say hello.", role="Greeter")
    hooks = enable_zep_memory(memory, user_id="mira", thread_id="m1", agents=["Greeter"])
    try:
        crew.kickoff()
    finally:
        hooks.disable()
    assert [m.role for m in memory.sync.get_messages("m1")] == ["user", "assistant"]


def test_disable_removes_exactly_its_own_hooks(
    memory: MemoryLoop, crew_factory: Any, script_factory: Any, react: React
) -> None:
    _, final = react
    seen: list[int] = []

    def foreign(context: Any) -> None:
        seen.append(len(context.messages))

    register_before_llm_call_hook(foreign)
    try:
        first = enable_zep_memory(memory, user_id="mira", thread_id="m1")
        second = enable_zep_memory(memory, user_id="mira", thread_id="m2")
        first.disable()
        first.disable()  # idempotent
        hooks = get_before_llm_call_hooks()
        assert foreign in hooks
        assert second.before_llm_call in hooks
        assert first.before_llm_call not in hooks
        assert not first.enabled and second.enabled
        second.disable()

        script = script_factory([final("Done.")])
        crew, _ = crew_factory(script, "Do the thing.")
        crew.kickoff()
    finally:
        unregister_before_llm_call_hook(foreign)
    assert seen, "the foreign hook still runs"
    assert memory.sync.get_messages("m1") == [] and memory.sync.get_messages("m2") == []
    assert all("<ZEP_CONTEXT>" not in text for text in script.inputs)
