"""`ZepMemoryBlock`, `zep_memory` and `search_tool` on real LlamaIndex agents: where the block
goes (and where it never goes), when a turn starts, what is stored, and how misuse and failures
are reported."""

from __future__ import annotations

import importlib
import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from llama_index.core.agent.workflow import FunctionAgent, ReActAgent
from llama_index.core.memory import InsertMethod, Memory

from zepkit.core import ConfigurationError, Identity, MemoryLoop
from zepkit.llama_index import ZepMemoryBlock, search_tool, zep_memory

FACT = "My sister Beatrix moved to Lisbon last spring and opened a bakery."


@pytest.fixture
async def memory() -> AsyncIterator[MemoryLoop]:
    loop = MemoryLoop.local(":memory:")
    yield loop
    await loop.aclose()


def agent_for(llm: Any, memory: MemoryLoop, **options: Any) -> FunctionAgent:
    options.setdefault("tools", [search_tool(memory)])
    return FunctionAgent(llm=llm, system_prompt="You are a helpful assistant.", **options)


async def remember_fact(memory: MemoryLoop, scripted: Any) -> None:
    conversation = zep_memory(memory, user_id="alice", thread_id="s0")
    await agent_for(scripted(script=["Noted."]), memory).run(FACT, memory=conversation)


async def test_the_block_is_a_system_message_of_each_call_and_never_stored(
    memory: MemoryLoop, scripted: Any, call: Any
) -> None:
    await remember_fact(memory, scripted)
    conversation = zep_memory(memory, user_id="alice", thread_id="s1")
    llm = scripted(script=[call("search_memory", {"query": "Beatrix"}), "Lisbon."])
    result = await agent_for(llm, memory).run("Where does Beatrix live?", memory=conversation)
    assert str(result.response.content) == "Lisbon."
    for seen in llm.inputs:  # the agent's prompt, then the memory, then the conversation
        lines = seen.splitlines()
        assert lines[0] == "system: You are a helpful assistant."
        assert lines[1] == "system: <memory>"
        assert seen.count("<ZEP_CONTEXT>") == 1 and "Lisbon" in seen
    kept = await conversation.aget_all()
    assert all("ZEP_CONTEXT" not in (m.content or "") for m in kept)
    stored = await memory.get_messages("s1")
    assert [(m.role, m.content) for m in stored] == [
        ("user", "Where does Beatrix live?"),
        ("assistant", "Lisbon."),
    ]


async def test_insert_into_the_user_message_keeps_the_history_clean(
    memory: MemoryLoop, scripted: Any
) -> None:
    await remember_fact(memory, scripted)
    conversation = zep_memory(
        memory, user_id="alice", thread_id="s1", insert_method=InsertMethod.USER
    )
    llm = scripted(script=["Lisbon."])
    await agent_for(llm, memory).run("Where does Beatrix live?", memory=conversation)
    (seen,) = llm.inputs
    assert "user: <memory>" in seen and "Where does Beatrix live?" in seen
    kept = await conversation.aget_all()
    assert [m.content for m in kept] == ["Where does Beatrix live?", "Lisbon."]


async def test_a_react_agent_gets_the_block_and_its_answer_is_stored(
    memory: MemoryLoop, scripted: Any
) -> None:
    """ReActAgent drops the first system message it is given, so it needs a `system_prompt` for
    the memory's system message to stay; its final step is stored as the answer alone."""
    await remember_fact(memory, scripted)
    llm = scripted(script=["Thought: I can answer without using any more tools.\nAnswer: Lisbon."])
    agent = ReActAgent(llm=llm, tools=[search_tool(memory)], system_prompt="Be helpful.")
    conversation = zep_memory(memory, user_id="alice", thread_id="s1")
    await agent.run("Where does Beatrix live?", memory=conversation)
    (seen,) = llm.inputs
    assert seen.count("<ZEP_CONTEXT>") == 1 and "Lisbon" in seen
    stored = await memory.get_messages("s1")
    assert [(m.role, m.content) for m in stored] == [
        ("user", "Where does Beatrix live?"),
        ("assistant", "Lisbon."),
    ]


async def test_a_conversation_is_stored_turn_by_turn(memory: MemoryLoop, scripted: Any) -> None:
    conversation = zep_memory(memory, user_id="alice", thread_id="s1")
    for text, reply in (("Hi.", "Hello!"), ("Hi.", "Hello again!"), ("Bye.", "Bye!")):
        await agent_for(scripted(script=[reply]), memory).run(text, memory=conversation)
    stored = await memory.get_messages("s1")
    assert [m.content for m in stored] == ["Hi.", "Hello!", "Hi.", "Hello again!", "Bye.", "Bye!"]


async def test_a_failed_run_keeps_the_turn_and_a_retry_answers_it(
    memory: MemoryLoop, scripted: Any
) -> None:
    conversation = zep_memory(memory, user_id="alice", thread_id="s1")
    llm = scripted(script=[RuntimeError("model down")])
    with pytest.raises(Exception, match="model down"):  # some releases wrap it
        await agent_for(llm, memory).run(FACT, memory=conversation)
    assert [m.role for m in await memory.get_messages("s1")] == ["user"]
    # the same words again right after: the same turn, now answered (stored once)
    await agent_for(scripted(script=["How lovely!"]), memory).run(FACT, memory=conversation)
    stored = await memory.get_messages("s1")
    assert [(m.role, m.content) for m in stored] == [("user", FACT), ("assistant", "How lovely!")]


async def test_archived_history_does_not_start_a_turn(memory: MemoryLoop, scripted: Any) -> None:
    """A tiny token limit makes LlamaIndex archive older messages while the run ends: the block
    still knows the turn and stores its reply, without storing the question twice."""
    conversation = zep_memory(
        memory, user_id="alice", thread_id="s1", token_limit=100, chat_history_token_ratio=0.5
    )
    for i in range(4):
        text = f"Message number {i} with a few more words to fill the history."
        await agent_for(scripted(script=[f"Reply {i} of some length."]), memory).run(
            text, memory=conversation
        )
    assert len(await conversation.aget_all()) > len(await conversation.aget())
    stored = await memory.get_messages("s1")
    assert [m.role for m in stored] == ["user", "assistant"] * 4


async def test_missing_identity_is_reported_once_per_turn(
    memory: MemoryLoop, scripted: Any, call: Any, caplog: pytest.LogCaptureFixture
) -> None:
    conversation = Memory.from_defaults(session_id="s1", memory_blocks=[ZepMemoryBlock(memory)])
    llm = scripted(script=[call("search_memory", {"query": "x"}), "Hello."])
    with caplog.at_level(logging.WARNING, logger="zepkit"):
        result = await agent_for(llm, memory).run("Hi!", memory=conversation)
    warnings = [r.getMessage() for r in caplog.records if r.name.startswith("zepkit")]
    assert str(result.response.content) == "Hello."
    assert len(warnings) == 1 and "llama-index identity" in warnings[0]
    assert "no user" in llm.inputs[1]  # what the search tool told the model
    assert all("<ZEP_CONTEXT>" not in seen for seen in llm.inputs)


async def test_on_error_callable_hears_the_missing_identity(scripted: Any) -> None:
    heard: list[tuple[str, BaseException]] = []
    async with MemoryLoop.local(":memory:", on_error=lambda s, e: heard.append((s, e))) as memory:
        conversation = Memory.from_defaults(memory_blocks=[ZepMemoryBlock(memory)])
        await agent_for(scripted(script=["ok"]), memory).run("Hi!", memory=conversation)
    assert [stage for stage, _ in heard] == ["llama-index identity"]
    assert isinstance(heard[0][1], ConfigurationError)


async def test_identity_from_the_app(memory: MemoryLoop, scripted: Any) -> None:
    def by_session(session_id: str | None) -> Identity | None:
        if session_id is None or not session_id.startswith("acct-"):
            return None
        return Identity(user_id=session_id.removeprefix("acct-"), thread_id=f"{session_id}-t")

    block = ZepMemoryBlock(memory, identity=by_session)
    for session in ("acct-dave", "anonymous"):
        conversation = Memory.from_defaults(session_id=session, memory_blocks=[block])
        await agent_for(scripted(script=["ok"]), memory).run("Hello.", memory=conversation)
    assert [m.role for m in await memory.get_messages("acct-dave-t")] == ["user", "assistant"]
    assert await memory.get_messages("anonymous-t") == []

    fixed = zep_memory(memory, identity=Identity(user_id="carol", thread_id="c1"))
    await agent_for(scripted(script=["ok"]), memory).run("Hi.", memory=fixed)
    assert [m.role for m in await memory.get_messages("c1")] == ["user", "assistant"]


async def test_the_search_tool_without_a_zep_memory_has_no_user(
    memory: MemoryLoop, scripted: Any, call: Any
) -> None:
    await remember_fact(memory, scripted)
    llm = scripted(script=[call("search_memory", {"query": "Beatrix"}), "Sorry."])
    await agent_for(llm, memory).run("Find Beatrix.", memory=Memory.from_defaults())
    assert "Lisbon" not in llm.inputs[1] and "no user" in llm.inputs[1]


async def test_a_memory_with_the_block_still_serializes(memory: MemoryLoop) -> None:
    """The loop is a live connection: a dump of the LlamaIndex `Memory` leaves it out."""
    conversation = zep_memory(memory, user_id="alice", thread_id="s1")
    (block,) = conversation.model_dump()["memory_blocks"]
    assert block["name"] == "zep_memory" and "memory" not in block


async def test_misuse_is_refused(memory: MemoryLoop) -> None:
    with pytest.raises(ValueError, match="not both"):
        ZepMemoryBlock(memory, user_id="u", identity=Identity(user_id="u", thread_id="t"))
    with pytest.raises(TypeError, match="MemoryLoop"):
        ZepMemoryBlock("memory")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="MemoryLoop"):
        search_tool("memory")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="user_id cannot be pinned"):
        search_tool(memory, user_id="u")


def test_the_adapter_does_not_shadow_llama_index() -> None:
    """`zepkit.llama_index` lives in the `zepkit` namespace: `llama_index.core` is LlamaIndex."""
    adapter = importlib.import_module("zepkit.llama_index")
    core = importlib.import_module("llama_index.core")
    assert Path(core.__file__ or "").parts[-3:-1] == ("llama_index", "core")
    assert "zepkit" not in Path(core.__file__ or "").parts
    assert Path(adapter.__file__ or "").parts[-3:-1] == ("zepkit", "llama_index")
