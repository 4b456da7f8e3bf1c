"""`ZepMemory` on real Strands `Agent`s driven by a scripted `Model`: the adapter contract, then
what is particular to Strands (the system prompt swap, agent and invocation state, sync calls)."""

from __future__ import annotations

import asyncio
import json
import logging
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Sequence
from typing import Any

import pytest
from strands import Agent
from strands.hooks import BeforeInvocationEvent
from strands.models import Model

from zepkit.core import Identity, MemoryLoop
from zepkit.strands import ZepMemory
from zepkit.testing import AdapterContract, AdapterHarness, FailingBackend, TurnResult

pytestmark = pytest.mark.asyncio

Step = str | tuple[str, dict[str, Any]]


def text_of(message: dict[str, Any]) -> str:
    """One message as lines of text: its text blocks, tool calls and tool results."""
    lines = []
    for block in message.get("content", []):
        if "text" in block:
            lines.append(f"{message['role']}: {block['text']}")
        elif "toolUse" in block:
            lines.append(f"tool-call {block['toolUse']['name']}: {block['toolUse']['input']}")
        elif "toolResult" in block:
            results = block["toolResult"]["content"]
            lines.append("tool-result: " + " ".join(r.get("text", "") for r in results))
    return "\n".join(lines)


class ScriptedModel(Model):
    """A model that answers from a script: each step is a reply text or a tool call, in order.
    Every call's full input (system prompt first) is recorded as text."""

    def __init__(self, steps: Sequence[Step] = ()) -> None:
        self.steps = list(steps)
        self.inputs: list[str] = []
        self.tool_names: list[list[str]] = []

    def update_config(self, **model_config: Any) -> None:
        pass

    def get_config(self) -> Any:
        return {}

    async def structured_output(self, *args: Any, **kwargs: Any) -> AsyncGenerator[Any, None]:
        raise NotImplementedError("not scripted")
        yield

    async def stream(  # type: ignore[override]
        self,
        messages: Any,
        tool_specs: Any = None,
        system_prompt: str | None = None,
        **kwargs: Any,
    ) -> AsyncGenerator[Any, None]:
        lines = [f"system: {system_prompt or ''}", *(text_of(m) for m in messages)]
        self.inputs.append("\n".join(lines))
        self.tool_names.append([spec["name"] for spec in tool_specs or []])
        step = self.steps.pop(0) if self.steps else "done"
        yield {"messageStart": {"role": "assistant"}}
        if isinstance(step, tuple):
            name, arguments = step
            start = {"toolUse": {"name": name, "toolUseId": f"t-{uuid.uuid4().hex[:8]}"}}
            yield {"contentBlockStart": {"start": start}}
            yield {"contentBlockDelta": {"delta": {"toolUse": {"input": json.dumps(arguments)}}}}
            yield {"contentBlockStop": {}}
            yield {"messageStop": {"stopReason": "tool_use"}}
        else:
            yield {"contentBlockStart": {"start": {}}}
            yield {"contentBlockDelta": {"delta": {"text": step}}}
            yield {"contentBlockStop": {}}
            yield {"messageStop": {"stopReason": "end_turn"}}


def make_agent(zep: ZepMemory, model: Model, **options: Any) -> Agent:
    options.setdefault("system_prompt", "You are a helpful assistant.")
    return Agent(model=model, hooks=[zep], tools=list(zep.tools), callback_handler=None, **options)


class StrandsHarness:
    """One `ZepMemory` for every user; each turn is a new agent with its scripted model, and the
    identity comes with the invocation."""

    supports_tools = True

    def __init__(self, memory: MemoryLoop) -> None:
        self.memory = memory
        self.zep = ZepMemory(memory)

    async def run_turn(
        self,
        *,
        user_id: str,
        thread_id: str,
        text: str,
        reply: str,
        tool_queries: Sequence[str] = (),
    ) -> TurnResult:
        model = ScriptedModel([*(("search_memory", {"query": q}) for q in tool_queries), reply])
        agent = make_agent(self.zep, model)
        state = {"user_id": user_id, "thread_id": thread_id}
        result = await agent.invoke_async(text, invocation_state=state)
        assert not model.steps, "the invocation stopped before every scripted step was used"
        return TurnResult(reply=str(result).strip(), model_inputs=model.inputs)

    async def run_streamed_turn(
        self,
        *,
        user_id: str,
        thread_id: str,
        text: str,
        reply: str,
        tool_queries: Sequence[str] = (),
    ) -> TurnResult:
        model = ScriptedModel([*(("search_memory", {"query": q}) for q in tool_queries), reply])
        agent = make_agent(self.zep, model, state={"user_id": user_id, "thread_id": thread_id})
        async for _ in agent.stream_async(text):
            pass
        assert not model.steps, "the invocation stopped before every scripted step was used"
        return TurnResult(reply=reply, model_inputs=model.inputs)

    async def search_tool_schema(self, **pinned: Any) -> dict[str, Any]:
        spec = ZepMemory(self.memory, **pinned).tools[0].tool_spec
        return {
            "name": spec["name"],
            "description": spec["description"],
            "parameters": spec["inputSchema"]["json"],
        }

    async def run_turn_without_identity(self, *, text: str, reply: str) -> TurnResult:
        model = ScriptedModel([reply])
        result = await make_agent(self.zep, model).invoke_async(text)
        return TurnResult(reply=str(result).strip(), model_inputs=model.inputs)


class TestStrandsAdapterContract(AdapterContract):
    framework_key = "strands"
    framework_modules = ("strands",)

    @pytest.fixture
    def make_harness(self) -> Callable[[MemoryLoop], AdapterHarness]:
        return StrandsHarness


@pytest.fixture
async def memory() -> AsyncIterator[MemoryLoop]:
    loop = MemoryLoop.local(":memory:")
    yield loop
    await loop.aclose()


async def remember(memory: MemoryLoop, user_id: str, fact: str) -> None:
    """A fact the user said in an earlier conversation."""
    await memory.begin_turn(Identity(user_id=user_id, thread_id=f"{user_id}-earlier"), fact)


def stored(messages: Sequence[Any]) -> list[tuple[str, str]]:
    return [(m.role, m.content) for m in messages]


ANA = {"user_id": "ana", "thread_id": "t1"}


async def test_agent_state_identity_and_the_search_tool(memory: MemoryLoop) -> None:
    await remember(memory, "ana", "Ana's favourite bakery is Padaria Lisboa.")
    zep = ZepMemory(memory)
    model = ScriptedModel([("search_memory", {"query": "bakery"}), "Padaria Lisboa."])
    agent = make_agent(zep, model, state=ANA)
    result = await agent.invoke_async("Where do I buy bread?")
    assert str(result).strip() == "Padaria Lisboa."
    assert model.tool_names[0] == ["search_memory"]
    assert "Padaria Lisboa" in model.inputs[1].split("tool-result:", 1)[1]
    assert stored(await memory.get_messages("t1")) == [
        ("user", "Where do I buy bread?"),
        ("assistant", "Padaria Lisboa."),
    ]


async def test_the_block_never_enters_the_conversation_and_the_prompt_comes_back(
    memory: MemoryLoop,
) -> None:
    await remember(memory, "ana", "Ana grows basil on her balcony.")
    zep = ZepMemory(memory, search_tool=False)
    model = ScriptedModel(["Basil.", "Still basil."])
    agent = make_agent(zep, model, state=ANA, system_prompt="Be brief.")
    await agent.invoke_async("What do I grow?")
    await agent.invoke_async("And what else?")
    assert agent.system_prompt == "Be brief."
    for seen in model.inputs:
        assert seen.startswith("system: Be brief.\n") and seen.count("<ZEP_CONTEXT>") == 1
    assert "ZEP_CONTEXT" not in json.dumps(agent.messages)
    conversation = model.inputs[1].split("</ZEP_CONTEXT>\n", 1)[1]  # goes on, without the block
    assert conversation == "user: What do I grow?\nassistant: Basil.\nuser: And what else?"
    assert [m.role for m in await memory.get_messages("t1")] == ["user", "assistant"] * 2


async def test_a_failing_model_still_gets_its_prompt_back(memory: MemoryLoop) -> None:
    class Broken(ScriptedModel):
        async def stream(self, *args: Any, **kwargs: Any) -> AsyncGenerator[Any, None]:
            raise RuntimeError("model down")
            yield

    await remember(memory, "ana", "Ana likes tea.")
    agent = make_agent(ZepMemory(memory), Broken(), state=ANA, system_prompt="Be brief.")
    with pytest.raises(RuntimeError, match="model down"):
        await agent.invoke_async("Tea?")
    assert agent.system_prompt == "Be brief."
    assert [m.role for m in await memory.get_messages("t1")] == ["user"]  # no reply to store


async def test_an_invocation_that_never_ended_leaves_no_block_behind(memory: MemoryLoop) -> None:
    await remember(memory, "ana", "Ana likes tea.")
    zep = ZepMemory(memory, search_tool=False)
    model = ScriptedModel(["Tea."])
    agent = make_agent(zep, model, state=ANA, system_prompt="Be brief.")
    started = [{"role": "user", "content": [{"text": "Tea?"}]}]
    await zep.before_invocation(BeforeInvocationEvent(agent=agent, messages=started))
    assert "<ZEP_CONTEXT>" in str(agent.system_prompt)  # and its end never comes
    await agent.invoke_async("Tea again?")
    assert model.inputs[0].count("<ZEP_CONTEXT>") == 1
    assert agent.system_prompt == "Be brief."


async def test_prompt_content_blocks_keep_their_cache_point(memory: MemoryLoop) -> None:
    await remember(memory, "ana", "Ana likes tea.")
    blocks: Any = [{"text": "Be brief."}, {"cachePoint": {"type": "default"}}]
    model = ScriptedModel(["Tea."])
    agent = make_agent(ZepMemory(memory), model, state=ANA, system_prompt=blocks)
    await agent.invoke_async("Tea?")
    assert "<ZEP_CONTEXT>" in model.inputs[0]
    assert "<ZEP_CONTEXT>" not in str(agent.system_prompt)
    if hasattr(Agent, "system_prompt_content"):  # public since strands-agents 1.40
        assert agent.system_prompt_content == blocks


async def test_a_sync_call_works(memory: MemoryLoop) -> None:
    model = ScriptedModel(["Hello!"])
    agent = make_agent(ZepMemory(memory), model, state=ANA)
    result = await asyncio.to_thread(agent, "Hi there")
    assert str(result).strip() == "Hello!"
    assert stored(await memory.get_messages("t1")) == [
        ("user", "Hi there"),
        ("assistant", "Hello!"),
    ]


async def test_only_the_text_of_a_rich_prompt_is_stored(memory: MemoryLoop) -> None:
    agent = make_agent(ZepMemory(memory), ScriptedModel(["A cat."]), state=ANA)
    image: Any = {"image": {"format": "png", "source": {"bytes": b"\x89PNG"}}}
    await agent.invoke_async([{"text": "What is this?"}, image])
    assert stored(await memory.get_messages("t1")) == [
        ("user", "What is this?"),
        ("assistant", "A cat."),
    ]


async def test_invocation_state_wins_over_agent_state(memory: MemoryLoop) -> None:
    zep = ZepMemory(memory)
    agent = make_agent(zep, ScriptedModel(["One.", "Two."]), state={"user_id": "ana"})
    await agent.invoke_async("no thread anywhere")  # reported, no memory
    await agent.invoke_async("now", invocation_state={"user_id": "bo", "thread_id": "b1"})
    assert stored(await memory.get_messages("b1")) == [("user", "now"), ("assistant", "Two.")]


async def test_identity_function_decides_each_invocation(memory: MemoryLoop) -> None:
    seen: list[str] = []

    async def who(agent: Agent, state: Any) -> Identity | None:
        seen.append(agent.name)
        account = state.get("account")
        return Identity(user_id=account, thread_id="t1") if account else None

    zep = ZepMemory(memory, identity=who)
    model = ScriptedModel(["One.", ("search_memory", {"query": "x"}), "Two."])
    agent = make_agent(zep, model, name="helper")
    await agent.invoke_async("with memory", invocation_state={"account": "ana"})
    await agent.invoke_async("without memory")
    assert stored(await memory.get_messages("t1")) == [
        ("user", "with memory"),
        ("assistant", "One."),
    ]
    assert "no user for this conversation" in model.inputs[2]
    assert set(seen) == {"helper"}


async def test_a_missing_identity_is_reported_once_and_the_run_goes_on(
    memory: MemoryLoop, caplog: pytest.LogCaptureFixture
) -> None:
    model = ScriptedModel([("search_memory", {"query": "x"}), "Fine."])
    agent = make_agent(ZepMemory(memory), model)
    with caplog.at_level(logging.WARNING, logger="zepkit"):
        result = await agent.invoke_async("hello")
    assert str(result).strip() == "Fine."
    assert "<ZEP_CONTEXT>" not in model.inputs[0]
    reports = [r for r in caplog.records if "strands identity" in r.getMessage()]
    assert len(reports) == 1


async def test_a_fixed_identity_and_options(memory: MemoryLoop) -> None:
    fixed = ZepMemory(memory, identity=Identity(user_id="ana", thread_id="solo"), limit=3)
    assert "limit" not in fixed.tools[0].tool_spec["inputSchema"]["json"]["properties"]
    await make_agent(fixed, ScriptedModel(["Hi."])).invoke_async("hello")
    assert [m.role for m in await memory.get_messages("solo")] == ["user", "assistant"]
    assert ZepMemory(memory, search_tool=False).tools == []
    with pytest.raises(ValueError, match="search_tool=False"):
        ZepMemory(memory, search_tool=False, limit=3)
    with pytest.raises(TypeError, match="MemoryLoop"):
        ZepMemory("not a loop")  # type: ignore[arg-type]


async def test_concurrent_agents_of_two_users_stay_apart(memory: MemoryLoop) -> None:
    await remember(memory, "ana", "Ana's locker code is ZEBRA-7781.")
    zep = ZepMemory(memory)
    models = {
        u: ScriptedModel([("search_memory", {"query": "locker code"}), "ok"]) for u in ("ana", "bo")
    }
    agents = [
        make_agent(zep, m, state={"user_id": u, "thread_id": f"t-{u}"}) for u, m in models.items()
    ]
    await asyncio.gather(*(agent.invoke_async("My locker?") for agent in agents))
    assert "ZEBRA" in models["ana"].inputs[0] and "ZEBRA" in models["ana"].inputs[1]
    assert not any("ZEBRA" in seen for seen in models["bo"].inputs)


async def test_failures_escaping_the_loop_go_to_on_error_as_the_hooks_stage(
    memory: MemoryLoop,
) -> None:
    seen: list[str] = []

    def on_error(stage: str, exc: BaseException) -> None:
        seen.append(stage)
        if not stage.startswith("strands"):
            raise exc  # out of the loop, into the hook's guard

    failing = FailingBackend(memory.backend, fail_on=frozenset({"add_messages"}))
    zep = ZepMemory(MemoryLoop(failing, on_error=on_error), search_tool=False)
    agent = make_agent(zep, ScriptedModel(["Tea."]), state=ANA, system_prompt="Be brief.")
    await agent.invoke_async("Tea?")
    assert seen == ["begin_turn", "strands before_invocation"]
    assert agent.system_prompt == "Be brief."
