"""`ZepMemory` on the OpenAI Agents SDK's real `Runner`, driven by a scripted `Model`: the adapter
contract, then what is particular to the SDK (handoffs, streaming, structured output, identity)."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

import pytest
from agents import Agent, FunctionTool, ModelResponse, Runner, Usage
from agents.models.interface import Model
from openai.types.responses import (
    Response,
    ResponseCompletedEvent,
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)
from pydantic import BaseModel

from zepkit.core import Identity, MemoryLoop
from zepkit.openai_agents import ZepMemory
from zepkit.testing import AdapterContract, AdapterHarness, FailingBackend, TurnResult

pytestmark = pytest.mark.asyncio


def text_of(item: Any) -> str:
    """One input item as a line of text: role and content, or the tool call / output."""
    if isinstance(item, dict):
        if item.get("type") == "function_call":
            return f"tool-call {item['name']}: {item['arguments']}"
        if item.get("type") == "function_call_output":
            return f"tool-result: {item['output']}"
        content = item.get("content")
        if isinstance(content, list):
            content = " ".join(str(part.get("text", "")) for part in content)
        return f"{item.get('role')}: {content}"
    return str(item)


class ScriptedModel(Model):
    """A model that answers from a script: each step is a reply text or a tool call, in order.
    Every call's full input (instructions first) is recorded as text."""

    def __init__(self, steps: Sequence[str | tuple[str, dict[str, Any]]] = ()) -> None:
        self.steps = list(steps)
        self.inputs: list[str] = []
        self.tool_names: list[list[str]] = []

    def _next(self, system: str | None, items: Any, tools: list[Any]) -> list[Any]:
        lines = [f"system: {system or ''}"]
        lines += [f"user: {items}"] if isinstance(items, str) else [text_of(i) for i in items]
        self.inputs.append("\n".join(lines))
        self.tool_names.append([tool.name for tool in tools])
        step = self.steps.pop(0) if self.steps else "done"
        if isinstance(step, tuple):
            name, arguments = step
            call = ResponseFunctionToolCall(
                arguments=json.dumps(arguments),
                call_id=f"call-{uuid.uuid4().hex[:8]}",
                name=name,
                type="function_call",
            )
            return [call]
        text = ResponseOutputText(text=step, type="output_text", annotations=[])
        message = ResponseOutputMessage(
            id="msg", content=[text], role="assistant", status="completed", type="message"
        )
        return [message]

    async def get_response(
        self,
        system_instructions: str | None,
        input: Any,
        model_settings: Any,
        tools: list[Any],
        *args: Any,
        **kwargs: Any,
    ) -> ModelResponse:
        output = self._next(system_instructions, input, tools)
        return ModelResponse(output=output, usage=Usage(), response_id=None)

    async def stream_response(  # type: ignore[override]
        self,
        system_instructions: str | None,
        input: Any,
        model_settings: Any,
        tools: list[Any],
        *args: Any,
        **kwargs: Any,
    ) -> AsyncIterator[Any]:
        output = self._next(system_instructions, input, tools)
        response = Response(
            id="resp",
            created_at=0,
            model="scripted",
            object="response",
            output=output,
            tool_choice="auto",
            tools=[],
            parallel_tool_calls=False,
        )
        yield ResponseCompletedEvent(
            type="response.completed", response=response, sequence_number=0
        )


class OpenAIAgentsHarness:
    """One `ZepMemory` and one agent definition for every user; each turn scripts its model."""

    supports_tools = True

    def __init__(self, memory: MemoryLoop) -> None:
        self.memory = memory
        self.zep = ZepMemory(memory)
        self.agent: Agent[Any] = self.zep.attach(
            Agent(name="assistant", instructions="You are a helpful assistant.")
        )

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
        agent = self.agent.clone(model=model)
        result = await Runner.run(
            agent, text, context=Identity(user_id=user_id, thread_id=thread_id)
        )
        assert not model.steps, "the run stopped before every scripted step was used"
        return TurnResult(reply=result.final_output, model_inputs=model.inputs)

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
        identity = Identity(user_id=user_id, thread_id=thread_id)
        streamed = Runner.run_streamed(self.agent.clone(model=model), text, context=identity)
        async for _ in streamed.stream_events():
            pass
        assert not model.steps, "the run stopped before every scripted step was used"
        return TurnResult(reply=str(streamed.final_output), model_inputs=model.inputs)

    async def search_tool_schema(self, **pinned: Any) -> dict[str, Any]:
        (tool,) = ZepMemory(self.memory, **pinned).attach(Agent(name="schema")).tools
        assert isinstance(tool, FunctionTool)
        return {
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.params_json_schema,
        }

    async def run_turn_without_identity(self, *, text: str, reply: str) -> TurnResult:
        model = ScriptedModel([reply])
        result = await Runner.run(self.agent.clone(model=model), text, context=None)
        return TurnResult(reply=result.final_output, model_inputs=model.inputs)


class TestOpenAIAgentsAdapterContract(AdapterContract):
    framework_key = "openai-agents"
    framework_modules = ("agents",)

    @pytest.fixture
    def make_harness(self) -> Callable[[MemoryLoop], AdapterHarness]:
        return OpenAIAgentsHarness


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


async def test_the_search_tool_finds_the_users_memory(memory: MemoryLoop) -> None:
    await remember(memory, "ana", "Ana's favourite bakery is Padaria Lisboa.")
    zep = ZepMemory(memory)
    model = ScriptedModel([("search_memory", {"query": "bakery"}), "Padaria Lisboa."])
    agent = zep.attach(Agent(name="cook", model=model))
    result = await Runner.run(
        agent, "Where do I buy bread?", context=Identity(user_id="ana", thread_id="t1")
    )
    assert result.final_output == "Padaria Lisboa."
    assert model.tool_names[0] == ["search_memory"]
    assert "Padaria Lisboa" in model.inputs[1].split("tool-result:", 1)[1]
    assert stored(await memory.get_messages("t1")) == [
        ("user", "Where do I buy bread?"),
        ("assistant", "Padaria Lisboa."),
    ]


async def test_history_in_the_input_stores_only_the_new_message(memory: MemoryLoop) -> None:
    zep = ZepMemory(memory)
    agent = zep.attach(Agent(name="a", model=ScriptedModel(["First answer."])))
    first = await Runner.run(
        agent, "First question", context=Identity(user_id="ana", thread_id="t1")
    )
    follow_up = [*first.to_input_list(), {"role": "user", "content": "Second question"}]
    agent = agent.clone(model=ScriptedModel(["Second answer."]))
    await Runner.run(agent, follow_up, context=Identity(user_id="ana", thread_id="t1"))
    assert stored(await memory.get_messages("t1")) == [
        ("user", "First question"),
        ("assistant", "First answer."),
        ("user", "Second question"),
        ("assistant", "Second answer."),
    ]


async def test_a_handoff_keeps_one_turn_and_the_block(memory: MemoryLoop) -> None:
    await remember(memory, "ana", "Ana is allergic to peanuts.")
    zep = ZepMemory(memory, search_tool=False)
    specialist_model = ScriptedModel(["No peanuts, then."])
    specialist = zep.attach(Agent(name="chef", model=specialist_model, instructions="Chef."))
    triage_model = ScriptedModel([("transfer_to_chef", {})])
    triage = zep.attach(Agent(name="triage", model=triage_model, handoffs=[specialist]))
    result = await Runner.run(
        triage, "What about peanuts?", context=Identity(user_id="ana", thread_id="t1")
    )
    assert result.final_output == "No peanuts, then."
    for seen in [*triage_model.inputs, *specialist_model.inputs]:
        assert seen.count("<ZEP_CONTEXT>") == 1 and "peanuts" in seen
    assert specialist_model.inputs[0].startswith("system: Chef.\n\n")
    assert stored(await memory.get_messages("t1")) == [
        ("user", "What about peanuts?"),
        ("assistant", "No peanuts, then."),
    ]


async def test_run_sync_works(memory: MemoryLoop) -> None:
    agent = ZepMemory(memory).attach(Agent(name="a", model=ScriptedModel(["Hello!"])))
    context = Identity(user_id="ana", thread_id="t1")
    result = await asyncio.to_thread(Runner.run_sync, agent, "Hi there", context=context)
    assert result.final_output == "Hello!"
    assert stored(await memory.get_messages("t1")) == [
        ("user", "Hi there"),
        ("assistant", "Hello!"),
    ]


async def test_only_the_text_parts_of_a_rich_message_are_stored(memory: MemoryLoop) -> None:
    agent = ZepMemory(memory).attach(Agent(name="a", model=ScriptedModel(["A cat."])))
    image = {"type": "input_image", "image_url": "https://example.invalid/c.png", "detail": "auto"}
    message = {"role": "user", "content": [{"type": "input_text", "text": "What is this?"}, image]}
    await Runner.run(agent, [message], context=Identity(user_id="ana", thread_id="t1"))
    assert stored(await memory.get_messages("t1")) == [
        ("user", "What is this?"),
        ("assistant", "A cat."),
    ]


class Dinner(BaseModel):
    dish: str
    minutes: int


async def test_structured_output_is_stored_as_json(memory: MemoryLoop) -> None:
    zep = ZepMemory(memory, search_tool=False)
    model = ScriptedModel([json.dumps({"dish": "risotto", "minutes": 30})])
    agent = zep.attach(Agent(name="a", model=model, output_type=Dinner))
    result = await Runner.run(
        agent, "Dinner idea?", context=Identity(user_id="ana", thread_id="t1")
    )
    assert result.final_output == Dinner(dish="risotto", minutes=30)
    (reply,) = [m for m in await memory.get_messages("t1") if m.role == "assistant"]
    assert json.loads(reply.content) == {"dish": "risotto", "minutes": 30}


async def test_own_instructions_function_and_context_type(memory: MemoryLoop) -> None:
    class AppContext:
        def __init__(self, user_id: str, thread_id: str, locale: str) -> None:
            self.user_id, self.thread_id, self.locale = user_id, thread_id, locale

    async def base(ctx: Any, agent: Agent[Any]) -> str:
        return f"Answer in {ctx.context.locale}."

    await remember(memory, "ana", "Ana grows basil on her balcony.")
    zep = ZepMemory(memory)
    model = ScriptedModel(["Ok."])
    agent = Agent(name="a", model=model, instructions=zep.instructions(base), hooks=zep)
    await Runner.run(agent, "What do I grow?", context=AppContext("ana", "t1", "pt-PT"))
    assert model.inputs[0].startswith("system: Answer in pt-PT.\n\n")
    assert "<ZEP_CONTEXT>" in model.inputs[0] and "basil" in model.inputs[0]
    assert model.tool_names[0] == []  # wired by hand without tools=zep.tools: no tool


async def test_identity_function_and_dict_context(memory: MemoryLoop) -> None:
    seen: list[Any] = []

    async def who(context: Any) -> Identity | None:
        seen.append(context)
        return (
            Identity(user_id=context["account"], thread_id="t1") if context.get("account") else None
        )

    zep = ZepMemory(memory, identity=who)
    model = ScriptedModel(["One.", "Two."])
    agent = zep.attach(Agent(name="a", model=model))
    await Runner.run(agent, "with memory", context={"account": "ana"})
    await Runner.run(agent, "without memory", context={})
    assert stored(await memory.get_messages("t1")) == [
        ("user", "with memory"),
        ("assistant", "One."),
    ]
    assert model.tool_names == [["search_memory"], []]  # no user, no user-graph search
    dict_zep = ZepMemory(memory)
    agent = dict_zep.attach(Agent(name="a", model=ScriptedModel(["Three."])))
    await Runner.run(agent, "from a dict", context={"user_id": "bo", "thread_id": "t2"})
    assert [m.role for m in await memory.get_messages("t2")] == ["user", "assistant"]


async def test_a_run_without_identity_is_offered_no_search(memory: MemoryLoop) -> None:
    """The contract checks that such a run answers without memory and warns once; here: the
    user-graph search is not offered to the model."""
    model = ScriptedModel(["Fine."])
    await Runner.run(ZepMemory(memory).attach(Agent(name="a", model=model)), "hello")
    assert model.tool_names == [[]]


async def test_concurrent_runs_of_two_users_stay_apart(memory: MemoryLoop) -> None:
    await remember(memory, "ana", "Ana's locker code is ZEBRA-7781.")
    zep = ZepMemory(memory)
    base = zep.attach(Agent(name="a"))
    models = {
        user: ScriptedModel([("search_memory", {"query": "locker code"}), "ok"])
        for user in ("ana", "bo")
    }
    await asyncio.gather(
        *(
            Runner.run(
                base.clone(model=model),
                "My locker?",
                context=Identity(user_id=user, thread_id=f"t-{user}"),
            )
            for user, model in models.items()
        )
    )
    assert "ZEBRA" in models["ana"].inputs[0] and "ZEBRA" in models["ana"].inputs[1]
    assert not any("ZEBRA" in seen for seen in models["bo"].inputs)


async def test_attach_refuses_foreign_hooks_and_pinning_a_disabled_tool(memory: MemoryLoop) -> None:
    from agents import AgentHooks

    zep = ZepMemory(memory)
    with pytest.raises(ValueError, match="already has hooks"):
        zep.attach(Agent(name="a", hooks=AgentHooks()))
    attached = zep.attach(Agent(name="a"))
    assert zep.attach(attached) is attached
    with pytest.raises(ValueError, match="search_tool=False"):
        ZepMemory(memory, search_tool=False, limit=3)
    with pytest.raises(TypeError, match="MemoryLoop"):
        ZepMemory("not a loop")  # type: ignore[arg-type]
    pinned = ZepMemory(memory, limit=3)
    assert "limit" not in pinned.tools[0].params_json_schema["properties"]


async def test_a_failure_in_on_end_goes_to_on_error_and_the_run_ends(memory: MemoryLoop) -> None:
    seen: list[str] = []

    def on_error(stage: str, exc: BaseException) -> None:
        seen.append(stage)
        if stage == "capture_reply":
            raise exc  # out of the loop, into on_end's guard

    failing = FailingBackend(memory.backend, fail_on=frozenset({"add_messages"}))
    loop = MemoryLoop(failing, on_error=on_error)
    ana = Identity(user_id="ana", thread_id="ana-1")
    agent = ZepMemory(loop).attach(Agent(name="a", model=ScriptedModel(["Hi!"])))
    result = await Runner.run(agent, "hello", context=ana)
    assert result.final_output == "Hi!"
    assert seen == ["begin_turn", "capture_reply", "openai_agents on_end"]
