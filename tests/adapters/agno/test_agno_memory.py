"""`ZepMemory` on real Agno agents: where the block goes (and where it never goes), whose memory a
run uses, what is stored, and how misuse and failures are reported."""

from __future__ import annotations

import asyncio
import importlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from agno.agent import Agent
from agno.db.in_memory import InMemoryDb
from agno.run import RunContext
from pydantic import BaseModel

from zepkit.agno import ZepMemory
from zepkit.core import ConfigurationError, Identity, MemoryLoop
from zepkit.local import LocalBackend
from zepkit.testing import FailingBackend

FACT = "My sister Beatrix moved to Lisbon last spring and opened a bakery."


@pytest.fixture
async def memory() -> AsyncIterator[MemoryLoop]:
    loop = MemoryLoop.local(":memory:")
    yield loop
    await loop.aclose()


def agent_with(zep: ZepMemory, model: Any, **options: Any) -> Agent:
    options.setdefault("instructions", "You are a helpful assistant.")
    return zep.attach(Agent(model=model, telemetry=False, **options))


async def test_the_block_is_in_the_system_message_and_never_in_the_history(
    memory: MemoryLoop, scripted: Any
) -> None:
    """With Agno's own history on, the next run sees past turns without any old block and its
    system message carries exactly the current one."""
    zep = ZepMemory(memory)
    await agent_with(zep, scripted(script=["Noted."])).arun(FACT, user_id="alice", session_id="s0")
    model = scripted(script=["Hello!", "Lisbon."])
    agent = agent_with(zep, model, db=InMemoryDb(), add_history_to_context=True)
    await agent.arun("Hi, about my sister Beatrix.", user_id="alice", session_id="s1")
    await agent.arun("Where does Beatrix live?", user_id="alice", session_id="s1")
    first, second = model.inputs
    assert "<ZEP_CONTEXT>" in first
    assert "user: Hi, about my sister Beatrix.\nassistant: Hello!" in second  # the history
    assert second.count("<ZEP_CONTEXT>") == 1
    system, rest = second.split("\nuser: ", 1)
    assert system.startswith("system: You are a helpful assistant.")
    assert "<ZEP_CONTEXT>" in system and "Lisbon" in system
    assert "<ZEP_CONTEXT>" not in rest
    assert [m.role for m in await memory.get_messages("s1")] == ["user", "assistant"] * 2


async def test_list_and_callable_instructions_are_kept(memory: MemoryLoop, scripted: Any) -> None:
    await agent_with(ZepMemory(memory), scripted(script=["ok"])).arun(
        FACT, user_id="alice", session_id="s0"
    )

    def dynamic(run_context: RunContext) -> str:
        return f"Speak to {run_context.user_id}."

    async def dynamic_async(agent: Agent) -> list[str]:
        return [f"You are {agent.name}.", "Be brief."]

    for instructions, expected in (
        (["Be kind.", "Be brief."], "Be kind."),
        (dynamic, "Speak to alice."),
        (dynamic_async, "You are Ada."),
        (None, "<ZEP_CONTEXT>"),
    ):
        model = scripted(script=["ok"])
        agent = agent_with(ZepMemory(memory), model, instructions=instructions, name="Ada")
        await agent.arun("Tell me about Beatrix.", user_id="alice", session_id="s1")
        system = model.inputs[0].split("\nuser: ")[0]
        assert expected in system
        assert system.count("<ZEP_CONTEXT>") == 1


async def test_concurrent_runs_of_different_users_get_their_own_block(
    memory: MemoryLoop, scripted: Any
) -> None:
    zep = ZepMemory(memory)
    await agent_with(zep, scripted(script=["ok"])).arun(FACT, user_id="alice", session_id="a0")
    await agent_with(zep, scripted(script=["ok"])).arun(
        "My locker code is ZEBRA-7781.", user_id="bob", session_id="b0"
    )
    models = [scripted(script=["ok"]) for _ in range(6)]
    runs = [
        agent_with(zep, model).arun(
            "What do you know about me?",
            user_id="alice" if i % 2 == 0 else "bob",
            session_id=f"t{i}",
        )
        for i, model in enumerate(models)
    ]
    await asyncio.gather(*runs)
    for i, model in enumerate(models):
        (seen,) = model.inputs
        if i % 2 == 0:
            assert "Beatrix" in seen and "ZEBRA" not in seen
        else:
            assert "ZEBRA" in seen and "Beatrix" not in seen


async def test_the_search_tool_searches_the_runs_user(
    memory: MemoryLoop, scripted: Any, call: Any
) -> None:
    zep = ZepMemory(memory, limit=3)
    await agent_with(zep, scripted(script=["ok"])).arun(FACT, user_id="alice", session_id="s1")
    model = scripted(script=[call("search_memory", {"query": "Beatrix bakery"}), "Found it."])
    result = await agent_with(zep, model).arun("Search.", user_id="alice", session_id="s2")
    assert result.content == "Found it."
    tool_result = model.inputs[1].splitlines()[-1]
    assert tool_result.startswith("tool: ") and "Lisbon" in tool_result


async def test_no_search_tool_when_turned_off(memory: MemoryLoop, scripted: Any) -> None:
    zep = ZepMemory(memory, search_tool=False)
    agent = agent_with(zep, scripted(script=["ok"]))
    assert zep.tool is None and not agent.tools
    with pytest.raises(ValueError, match="search_tool=False"):
        ZepMemory(memory, search_tool=False, limit=3)


async def test_on_error_callable_hears_the_missing_identity(scripted: Any) -> None:
    heard: list[tuple[str, BaseException]] = []
    async with MemoryLoop.local(":memory:", on_error=lambda s, e: heard.append((s, e))) as memory:
        await agent_with(ZepMemory(memory), scripted(script=["ok"])).arun("Hi!")
    assert [stage for stage, _ in heard] == ["agno identity"]
    assert isinstance(heard[0][1], ConfigurationError)


async def test_on_error_raise_is_caught_by_agnos_hook_runner(scripted: Any) -> None:
    """Agno runs hooks inside its own error handling: with `on_error="raise"` the memory failure
    reaches Agno (which logs it) and the run still answers, without a block."""
    failing = MemoryLoop(FailingBackend(LocalBackend(":memory:")), on_error="raise")
    async with failing as memory:
        model = scripted(script=["Still here."])
        result = await agent_with(ZepMemory(memory), model).arun(
            "Hi.", user_id="alice", session_id="s1"
        )
    assert result.content == "Still here."
    assert "<ZEP_CONTEXT>" not in model.inputs[0]


async def test_identity_from_the_app(memory: MemoryLoop, scripted: Any) -> None:
    fixed = Identity(user_id="carol", thread_id="fixed-thread")
    await agent_with(ZepMemory(memory, identity=fixed), scripted(script=["ok"])).arun("Hi there.")
    assert [m.role for m in await memory.get_messages("fixed-thread")] == ["user", "assistant"]

    async def from_metadata(run: RunContext) -> Identity | None:
        if run.metadata is None:
            return None
        return Identity(user_id=run.metadata["account"], thread_id=f"{run.session_id}-x")

    zep = ZepMemory(memory, identity=from_metadata)
    await agent_with(zep, scripted(script=["ok"])).arun(
        "Hello.", session_id="s9", metadata={"account": "dave"}
    )
    stored = await memory.get_messages("s9-x")
    assert [(m.role, m.content) for m in stored] == [("user", "Hello."), ("assistant", "ok")]
    await agent_with(zep, scripted(script=["ok"])).arun("No memory.", session_id="s10")
    assert await memory.get_messages("s10-x") == []


async def test_agent_user_id_is_the_default_user(memory: MemoryLoop, scripted: Any) -> None:
    agent = agent_with(ZepMemory(memory), scripted(script=["ok"]), user_id="erin")
    await agent.arun("I play the cello.", session_id="s1")
    stored = await memory.get_messages("s1")
    assert [m.role for m in stored] == ["user", "assistant"]


async def test_a_failed_run_stores_the_turn_but_no_reply(memory: MemoryLoop, scripted: Any) -> None:
    model = scripted(script=[RuntimeError("model down")])
    agent = agent_with(ZepMemory(memory), model)
    result = await agent.arun(FACT, user_id="alice", session_id="s1")
    assert str(result.status.value).lower() == "error"
    assert [m.role for m in await memory.get_messages("s1")] == ["user"]


async def test_a_retried_run_stores_its_turn_once_and_keeps_the_block(
    memory: MemoryLoop, scripted: Any
) -> None:
    zep = ZepMemory(memory)
    await agent_with(zep, scripted(script=["Noted."])).arun(FACT, user_id="alice", session_id="s0")
    model = scripted(script=[RuntimeError("overloaded"), "Lisbon."])
    agent = agent_with(zep, model, retries=1, delay_between_retries=0)
    result = await agent.arun("Where does Beatrix live?", user_id="alice", session_id="s1")
    assert result.content == "Lisbon."
    assert len(model.inputs) == 2
    assert all(seen.count("<ZEP_CONTEXT>") == 1 for seen in model.inputs)
    assert [m.role for m in await memory.get_messages("s1")] == ["user", "assistant"]


async def test_structured_output_is_stored_as_json(memory: MemoryLoop, scripted: Any) -> None:
    class Answer(BaseModel):
        city: str

    model = scripted(script=['{"city": "Lisbon"}'])
    agent = agent_with(ZepMemory(memory), model, output_schema=Answer)
    result = await agent.arun("Where?", user_id="alice", session_id="s1")
    assert result.content == Answer(city="Lisbon")
    stored = await memory.get_messages("s1")
    assert stored[-1].content == '{"city":"Lisbon"}'


async def test_attach_refuses_what_cannot_work(memory: MemoryLoop, scripted: Any) -> None:
    zep = ZepMemory(memory)
    agent = agent_with(zep, scripted())
    with pytest.raises(ValueError, match="already attached"):
        zep.attach(agent)
    with pytest.raises(ValueError, match="system_message"):
        zep.attach(Agent(system_message="Fixed.", telemetry=False))
    with pytest.raises(TypeError, match="factory"):
        zep.attach(Agent(tools=lambda: [], telemetry=False))
    with pytest.raises(TypeError, match="agno Agent"):
        zep.attach("agent")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="MemoryLoop"):
        ZepMemory("memory")  # type: ignore[arg-type]


def test_a_synchronous_agent_runs_with_sync_hooks(scripted: Any, call: Any) -> None:
    """`attach(agent, sync=True)`: `run()` stores the turn and the reply, every model call of the
    run carries the block, and the blocking search tool uses the run's user."""
    memory = MemoryLoop.local(":memory:")
    try:
        zep = ZepMemory(memory)
        first = zep.attach(Agent(model=scripted(script=["Noted."]), telemetry=False), sync=True)
        first.run(FACT, user_id="alice", session_id="s1")
        model = scripted(script=[call("search_memory", {"query": "bakery"}), "Lisbon."])
        agent = zep.attach(Agent(model=model, telemetry=False), sync=True)
        result = agent.run("Where does Beatrix live?", user_id="alice", session_id="s2")
        assert result.content == "Lisbon."
        assert len(model.inputs) == 2
        assert all(seen.count("<ZEP_CONTEXT>") == 1 for seen in model.inputs)
        assert "tool: " in model.inputs[1] and "bakery" in model.inputs[1].splitlines()[-1]
        stored = memory.sync.get_messages("s2")
        assert [(m.role, m.content) for m in stored] == [
            ("user", "Where does Beatrix live?"),
            ("assistant", "Lisbon."),
        ]
        with pytest.raises(ValueError, match="already attached"):
            zep.attach(agent)
    finally:
        memory.sync.close()


def test_async_hooks_are_refused_by_a_synchronous_run(memory: MemoryLoop, scripted: Any) -> None:
    """Agno itself refuses `run()` with async hooks, saying to use `arun()`."""
    agent = agent_with(ZepMemory(memory), scripted(script=["ok"]))
    with pytest.raises(ValueError, match="arun"):
        agent.run("Hi.", user_id="alice", session_id="s1")


def test_the_adapter_does_not_shadow_agno() -> None:
    """`zepkit.agno` is a subpackage of the `zepkit` namespace: `import agno` still finds Agno."""
    adapter = importlib.import_module("zepkit.agno")
    agno = importlib.import_module("agno")
    agent_module = importlib.import_module("agno.agent")
    assert Path(agno.__file__ or "").parent.name == "agno"
    assert "zepkit" not in Path(agno.__file__ or "").parts
    assert agent_module.Agent is Agent
    assert Path(adapter.__file__ or "").parts[-3:-1] == ("zepkit", "agno")
