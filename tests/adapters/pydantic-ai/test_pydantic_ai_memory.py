"""`ZepMemory` behaviour beyond the contract: identity from deps, run modes (sync, streaming),
failed runs, instructions kept out of history, the search tool's schema, pinning and isolation."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import pytest
from pydantic import BaseModel
from pydantic_ai import Agent, DeferredToolRequests, ImageUrl
from pydantic_ai.messages import (
    ModelMessage,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserContent,
)
from pydantic_ai.models.function import AgentInfo, DeltaToolCalls, FunctionModel

from zepkit.core import Identity, MemoryLoop
from zepkit.pydantic_ai import ZepDeps, ZepMemory

FACT = "My sister Beatrix moved to Lisbon last spring and opened a bakery."
SECRET = "My locker code is ZEBRA-7781."

Script = Callable[[list[ModelMessage], AgentInfo], ModelResponse]


@dataclass
class Seen:
    """What the scripted model saw on each request."""

    instructions: list[str | None]
    tools: list[list[str]]
    tool_returns: list[str]


def scripted(reply: str, queries: tuple[str, ...] = ()) -> tuple[Script, Seen]:
    """A model that calls search_memory once per query, then answers `reply`."""
    pending = list(queries)
    seen = Seen([], [], [])

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.instructions.append(info.instructions)
        seen.tools.append([tool.name for tool in info.function_tools])
        last = messages[-1].parts
        seen.tool_returns += [str(p.content) for p in last if isinstance(p, ToolReturnPart)]
        if pending:
            return ModelResponse(parts=[ToolCallPart("search_memory", {"query": pending.pop(0)})])
        return ModelResponse(parts=[TextPart(reply)])

    return model, seen


def stored(messages: list[Any]) -> list[tuple[str, str]]:
    return [(m.role, m.content) for m in messages]


@pytest.fixture
async def memory() -> AsyncIterator[MemoryLoop]:
    loop = MemoryLoop.local(":memory:")
    yield loop
    await loop.aclose()


def agent_for(memory: MemoryLoop, **options: Any) -> Agent[Any, str]:
    return Agent(instructions="Be brief.", capabilities=[ZepMemory(memory, **options)])


async def test_block_on_every_request_and_never_in_history(memory: MemoryLoop) -> None:
    agent = agent_for(memory)
    await agent.run(FACT, deps=ZepDeps("alice", "s1"), model=FunctionModel(scripted("Noted.")[0]))
    model, seen = scripted("Lisbon.", ("sister", "bakery"))
    result = await agent.run(
        "Where does Beatrix live?", deps=ZepDeps("alice", "s2"), model=FunctionModel(model)
    )
    assert len(seen.instructions) == 3
    for instructions in seen.instructions:
        assert instructions is not None
        assert instructions.startswith("Be brief.")
        assert instructions.count("<ZEP_CONTEXT>") == 1 and "Lisbon" in instructions
    assert any("Lisbon" in text for text in seen.tool_returns)
    parts = [p for m in result.all_messages() for p in m.parts]
    assert not any(isinstance(p, SystemPromptPart) for p in parts)
    assert not any("ZEP_CONTEXT" in str(getattr(p, "content", "")) for p in parts)
    assert stored(await memory.get_messages("s2")) == [
        ("user", "Where does Beatrix live?"),
        ("assistant", "Lisbon."),
    ]

    # Continuing the conversation: the model gets this run's block once, none from history.
    sent: list[str] = []

    def follow_up(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        contents = [str(getattr(p, "content", "")) for m in messages for p in m.parts]
        sent.append("\n".join([info.instructions or "", *contents]))
        return ModelResponse(parts=[TextPart("Yes.")])

    await agent.run(
        "And the bakery?",
        deps=ZepDeps("alice", "s2"),
        message_history=result.all_messages(),
        model=FunctionModel(follow_up),
    )
    assert len(sent) == 1 and sent[0].count("<ZEP_CONTEXT>") == 1
    assert [m.role for m in await memory.get_messages("s2")] == ["user", "assistant"] * 2


async def test_one_agent_serves_concurrent_users_apart(memory: MemoryLoop) -> None:
    agent = agent_for(memory)
    await agent.run(SECRET, deps=ZepDeps("alice", "a1"), model=FunctionModel(scripted("Ok.")[0]))
    alice_model, alice = scripted("ZEBRA-7781.", ("locker code",))
    bob_model, bob = scripted("I don't know.", ("locker code",))
    await asyncio.gather(
        agent.run("My locker code?", deps=ZepDeps("alice", "a2"), model=FunctionModel(alice_model)),
        agent.run("My locker code?", deps=ZepDeps("bob", "b1"), model=FunctionModel(bob_model)),
    )
    assert all("ZEBRA" in (text or "") for text in alice.instructions)
    assert any("ZEBRA" in text for text in alice.tool_returns)
    assert not any("ZEBRA" in (text or "") for text in bob.instructions + bob.tool_returns)
    assert stored(await memory.get_messages("b1")) == [
        ("user", "My locker code?"),
        ("assistant", "I don't know."),
    ]


def test_run_sync_persists_the_turn_once() -> None:
    memory = MemoryLoop.local(":memory:")
    try:
        agent = agent_for(memory)
        model, seen = scripted("Hello Ana!", ("name",))
        result = agent.run_sync(
            "Hi, I'm Ana.", deps=ZepDeps("ana", "t1"), model=FunctionModel(model)
        )
        assert result.output == "Hello Ana!"
        assert len(seen.instructions) == 2
        again = agent.run_sync(
            "Who am I?", deps=ZepDeps("ana", "t2"), model=FunctionModel(scripted("Ana.")[0])
        )
        assert again.output == "Ana."
        assert stored(memory.sync.get_messages("t1")) == [
            ("user", "Hi, I'm Ana."),
            ("assistant", "Hello Ana!"),
        ]
        assert [m.role for m in memory.sync.get_messages("t2")] == ["user", "assistant"]
    finally:
        memory.sync.close()


async def _stream_after_a_search(
    messages: list[ModelMessage], info: AgentInfo
) -> AsyncIterator[str | DeltaToolCalls]:
    from pydantic_ai.models.function import DeltaToolCall

    if not any(isinstance(p, ToolReturnPart) for m in messages for p in m.parts):
        yield {0: DeltaToolCall(name="search_memory", json_args='{"query": "Lisbon"}')}
        return
    for chunk in ("Bea", "trix lives ", "in Lisbon."):
        yield chunk


async def test_abandoned_stream_stores_no_partial_reply(memory: MemoryLoop) -> None:
    agent = agent_for(memory)
    model = FunctionModel(stream_function=_stream_after_a_search)
    async with agent.run_stream(
        "Where is Beatrix?", deps=ZepDeps("alice", "s1"), model=model
    ) as run:
        async for _ in run.stream_text(delta=True):
            break
    assert stored(await memory.get_messages("s1")) == [("user", "Where is Beatrix?")]


async def test_failed_run_stores_no_reply(memory: MemoryLoop) -> None:
    agent = agent_for(memory)

    def broken(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if any(isinstance(p, ToolReturnPart) for p in messages[-1].parts):
            raise RuntimeError("provider outage")
        return ModelResponse(parts=[ToolCallPart("search_memory", {"query": "x"})])

    with pytest.raises(RuntimeError, match="provider outage"):
        await agent.run(
            "Remember my dog Rex.", deps=ZepDeps("alice", "s1"), model=FunctionModel(broken)
        )
    assert stored(await memory.get_messages("s1")) == [("user", "Remember my dog Rex.")]


async def test_run_without_identity_is_offered_no_search_and_told_why(
    memory: MemoryLoop, caplog: pytest.LogCaptureFixture
) -> None:
    """The contract checks that such a run answers without memory and warns once; here: the
    instructions stay the app's, the user-graph search is not offered, and the warning names the
    deps type that carried no identity."""
    agent = agent_for(memory)
    model, seen = scripted("Hi.")
    with caplog.at_level(logging.WARNING, logger="zepkit"):
        await agent.run("Hello", deps={"user": "anonymous"}, model=FunctionModel(model))
    assert seen.instructions == ["Be brief."]
    assert seen.tools == [[]], "a user-graph search without a user is not offered"
    assert any("deps of type dict" in r.getMessage() for r in caplog.records)


@dataclass
class AppDeps:
    """An app's own deps type, which knows nothing about zepkit."""

    account: str
    conversation: str
    shop: str


async def test_identity_resolver_reads_the_apps_own_deps(memory: MemoryLoop) -> None:
    agent = agent_for(
        memory, identity=lambda deps: Identity(user_id=deps.account, thread_id=deps.conversation)
    )
    await agent.run(
        "Ship to Porto, please.",
        deps=AppDeps("acct-9", "order-1", "books"),
        model=FunctionModel(scripted("Will do.")[0]),
    )
    assert stored(await memory.get_messages("order-1")) == [
        ("user", "Ship to Porto, please."),
        ("assistant", "Will do."),
    ]


async def test_resolver_that_fails_means_no_memory(
    memory: MemoryLoop, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(deps: AppDeps) -> Identity:
        return Identity(user_id=deps.account, thread_id="  ")  # blank thread id: ValueError

    agent = agent_for(memory, identity=broken)
    with caplog.at_level(logging.WARNING, logger="zepkit"):
        result = await agent.run(
            "Hi", deps=AppDeps("acct-9", "", "books"), model=FunctionModel(scripted("Hello.")[0])
        )
    assert result.output == "Hello."
    assert [r.levelno for r in caplog.records if "pydantic-ai identity" in r.getMessage()] == [
        logging.WARNING
    ]


async def test_fixed_identity_and_deps_subclass(memory: MemoryLoop) -> None:
    fixed = Identity(user_id="solo", thread_id="notebook")
    await agent_for(memory, identity=fixed).run(
        "Note one.", model=FunctionModel(scripted("Ok.")[0])
    )
    assert [m.role for m in await memory.get_messages("notebook")] == ["user", "assistant"]

    @dataclass(frozen=True)
    class ShopDeps(ZepDeps):
        shop: str = "books"

    deps = ShopDeps("ana", "t9", first_name="Ana")
    await agent_for(memory).run("Hi!", deps=deps, model=FunctionModel(scripted("Hello!")[0]))
    first = (await memory.get_messages("t9"))[0]
    assert (first.content, first.name) == ("Hi!", "Ana")


async def test_search_tool_opt_out_and_construction_errors(memory: MemoryLoop) -> None:
    """The tool's schema and pins are the contract's; here: leaving it out, and bad options."""
    deps = ZepDeps("alice", "s1")
    model, seen = scripted("ok")
    await agent_for(memory, search_tool=False).run("b", deps=deps, model=FunctionModel(model))
    assert seen.tools == [[]]
    assert seen.instructions[0] is not None and "Be brief." in seen.instructions[0]

    with pytest.raises(ValueError, match="user_id"):
        ZepMemory(memory, user_id="mallory")
    with pytest.raises(ValueError, match="search_tool=False"):
        ZepMemory(memory, search_tool=False, limit=3)
    with pytest.raises(TypeError, match="MemoryLoop"):
        ZepMemory("memory.db")  # type: ignore[arg-type]


async def test_shared_graph_search_needs_no_user(memory: MemoryLoop) -> None:
    await memory.add_data("Refunds take 5 business days.", graph_id="policies")
    agent = agent_for(memory, graph_id="policies")
    model, seen = scripted("Five days.", ("refund",))
    await agent.run("How long do refunds take?", deps=None, model=FunctionModel(model))
    assert seen.tools[0] == ["search_memory"]
    assert any("5 business days" in text for text in seen.tool_returns)


async def test_only_the_text_of_a_multimodal_prompt_is_remembered(memory: MemoryLoop) -> None:
    prompt: list[UserContent] = [
        "Here is my cat Miso.",
        ImageUrl("https://example.com/miso.png"),
        "Isn't she cute?",
    ]
    await agent_for(memory).run(
        prompt, deps=ZepDeps("alice", "s1"), model=FunctionModel(scripted("Very!")[0])
    )
    assert stored(await memory.get_messages("s1")) == [
        ("user", "Here is my cat Miso.\nIsn't she cute?"),
        ("assistant", "Very!"),
    ]


class Booking(BaseModel):
    city: str
    nights: int


async def test_structured_output_is_remembered_as_json(memory: MemoryLoop) -> None:
    def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        tool = info.output_tools[0].name
        return ModelResponse(parts=[ToolCallPart(tool, {"city": "Porto", "nights": 3})])

    agent: Agent[ZepDeps, Booking] = Agent(output_type=Booking, capabilities=[ZepMemory(memory)])
    result = await agent.run(
        "Three nights in Porto.", deps=ZepDeps("alice", "s1"), model=FunctionModel(answer)
    )
    assert result.output == Booking(city="Porto", nights=3)
    reply = (await memory.get_messages("s1"))[-1]
    assert reply.role == "assistant"
    assert json.loads(reply.content) == {"city": "Porto", "nights": 3}


async def test_a_run_paused_for_tool_approval_stores_no_reply(memory: MemoryLoop) -> None:
    agent: Agent[ZepDeps, str | DeferredToolRequests] = Agent(
        output_type=[str, DeferredToolRequests], capabilities=[ZepMemory(memory)]
    )

    @agent.tool_plain(requires_approval=True)
    def cancel_order(order_id: str) -> str:
        return f"cancelled {order_id}"

    def ask(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[ToolCallPart("cancel_order", {"order_id": "A1"})])

    result = await agent.run(
        "Cancel order A1.", deps=ZepDeps("alice", "s1"), model=FunctionModel(ask)
    )
    assert isinstance(result.output, DeferredToolRequests)
    assert stored(await memory.get_messages("s1")) == [("user", "Cancel order A1.")]
