"""Node helpers, the search tool factory and the middleware's specific behaviour."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver

from zepkit.core import ConfigurationError, MemoryLoop
from zepkit.langgraph import (
    ZepMemoryMiddleware,
    build_system_message,
    build_system_message_sync,
    get_zep_context,
    get_zep_context_sync,
    persist_messages,
    persist_messages_sync,
    resolve_identity,
    search_tool,
    search_tool_sync,
)
from zepkit.langgraph._helpers import FALLBACK_INSTRUCTIONS


@pytest.fixture
async def memory() -> AsyncIterator[MemoryLoop]:
    loop = MemoryLoop.local(":memory:")
    yield loop
    await loop.aclose()


async def test_persist_messages_maps_roles_and_skips_tool_traffic(memory: MemoryLoop) -> None:
    messages = [
        SystemMessage("be nice"),
        HumanMessage("My cat is called Miso.", name="Ana"),
        AIMessage("", tool_calls=[{"name": "x", "args": {}, "id": "c1"}]),
        ToolMessage("tool output", tool_call_id="c1", name="x"),
        AIMessage("What a lovely name.", name="Helper"),
        AIMessage("Anything else?"),
    ]
    stored = await persist_messages(memory, thread_id="t1", user_id="ana", messages=messages)
    assert stored == 3
    rows = [(m.role, m.content, m.name) for m in await memory.get_messages("t1")]
    assert rows == [
        ("user", "My cat is called Miso.", "Ana"),
        ("assistant", "What a lovely name.", "Helper"),
        ("assistant", "Anything else?", memory.assistant_name),
    ]
    more = persist_messages_sync(
        memory, thread_id="t1", messages=messages[:4], include_system=True, include_tool=True
    )
    assert more == 3
    roles = [m.role for m in await memory.get_messages("t1")]
    assert roles[3:] == ["system", "user", "tool"]


async def test_context_and_system_message(memory: MemoryLoop) -> None:
    assert await get_zep_context(memory, thread_id="t0", user_id="ana") is None
    empty = await build_system_message(memory, thread_id="t0", user_id="ana")
    assert empty.content == FALLBACK_INSTRUCTIONS
    plain = await build_system_message(memory, thread_id="t0", base_instructions="Be brief.")
    assert plain.content == "Be brief."

    await persist_messages(
        memory, thread_id="t1", user_id="ana", messages=[HumanMessage("I moved to Porto.")]
    )
    await persist_messages(
        memory, thread_id="t2", user_id="ana", messages=[HumanMessage("Where do I live, Porto?")]
    )
    block = get_zep_context_sync(memory, thread_id="t2", user_id="ana")
    assert block is not None and "<ZEP_CONTEXT>" in block and "Porto" in block
    system = build_system_message_sync(memory, thread_id="t2", base_instructions="Be brief.")
    assert isinstance(system.content, str)
    assert system.content.startswith("Be brief.\n\n") and system.content.endswith(block)


async def test_search_tool_needs_exactly_one_target(memory: MemoryLoop) -> None:
    with pytest.raises(ValueError, match="exactly one"):
        await search_tool(memory)
    with pytest.raises(ValueError, match="exactly one"):
        search_tool_sync(memory, user_id="a", graph_id="g")
    with pytest.raises(ValueError, match="cannot be pinned"):
        await search_tool(memory, graph_id="g", user_id=None, thread_id="t")


async def test_search_tool_on_a_user_and_on_a_shared_graph(memory: MemoryLoop) -> None:
    await persist_messages(
        memory, thread_id="t1", user_id="ana", messages=[HumanMessage("I play the oboe.")]
    )
    await memory.add_data("Refunds take five business days.", graph_id="policies")
    user_tool = await search_tool(memory, user_id="ana", limit=3)
    assert user_tool.name == "search_memory"
    assert "limit" not in user_tool.args and "query" in user_tool.args
    assert "oboe" in await user_tool.ainvoke({"query": "oboe"})
    assert "oboe" in user_tool.invoke({"query": "oboe"})
    assert (await user_tool.ainvoke({"query": "  "})).startswith("Error")
    shared = search_tool_sync(memory, graph_id="policies")
    assert "five business days" in shared.invoke({"query": "refunds"})
    fresh = await search_tool(memory, user_id="nobody-yet")
    assert await fresh.ainvoke({"query": "oboe"}) == "No results found."


def test_identity_prefers_context_then_configurable() -> None:
    config: Any = {"configurable": {"thread_id": "t", "user_id": "from-config"}}
    assert resolve_identity({"user_id": "from-context"}, config).user_id == "from-context"
    assert resolve_identity(None, config).user_id == "from-config"
    with pytest.raises(ConfigurationError, match="user_id"):
        resolve_identity(None, {"configurable": {"thread_id": "t"}})


async def test_middleware_keeps_the_block_out_of_state_and_searches_the_runs_user(
    memory: MemoryLoop, make_model: Callable[..., Any]
) -> None:
    await memory.begin_turn(
        resolve_identity({"user_id": "ana", "thread_id": "old"}), "My dog Rex loves the beach."
    )
    await memory.begin_turn(
        resolve_identity({"user_id": "bob", "thread_id": "bobs"}), "My dog Fido hates the beach."
    )
    model = make_model("Rex loves the beach.", ["dog beach"])
    checkpointer = InMemorySaver()
    agent = create_agent(
        model,
        system_prompt="Be kind.",
        middleware=[ZepMemoryMiddleware(memory)],
        checkpointer=checkpointer,
    )
    config: Any = {"configurable": {"thread_id": "new", "user_id": "ana"}}
    result = await agent.ainvoke({"messages": [HumanMessage("Tell me about my dog")]}, config)
    kinds = [m.type for m in result["messages"]]
    assert kinds == ["human", "ai", "tool", "ai"]  # no system message stored in the state
    tool_output = result["messages"][2].text
    assert "Rex" in tool_output and "Fido" not in tool_output
    assert len(model.inputs) == 2
    assert all(text.startswith("system: Be kind.\n\n") for text in model.inputs)
    assert all(text.count("<ZEP_CONTEXT>") == 1 and "Rex" in text for text in model.inputs)
    stored = [(m.role, m.content) for m in await memory.get_messages("new")]
    assert stored == [("user", "Tell me about my dog"), ("assistant", "Rex loves the beach.")]


def test_middleware_without_search_tool(memory: MemoryLoop) -> None:
    assert ZepMemoryMiddleware(memory, search_tool=False).tools == []
    pinned = ZepMemoryMiddleware(memory, scope="episodes")
    assert [tool.name for tool in pinned.tools] == ["search_memory"]
    assert "scope" not in pinned.tools[0].args
