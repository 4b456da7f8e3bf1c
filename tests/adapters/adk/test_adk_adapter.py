"""The ADK adapter's own behaviour on ADK's real runtime: tool loops, identity, isolation,
streaming, callback chaining, the search tool's schema and a Zep client as memory."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from google.adk.agents.callback_context import CallbackContext
from google.adk.agents.run_config import RunConfig, StreamingMode
from google.adk.models.llm_response import LlmResponse
from google.genai import types

from zepkit.adk import (
    ZepContextTool,
    ZepGraphSearchTool,
    create_after_model_callback,
    resolve_identity,
)
from zepkit.core import MemoryLoop
from zepkit.zep.testing import FakeZep

FACT = "My sister Beatrix moved to Lisbon last spring and opened a bakery."
SECRET = "My locker code is ZEBRA-7781."


def text(value: str) -> types.Part:
    return types.Part(text=value)


def search(query: str) -> types.Part:
    return types.Part(function_call=types.FunctionCall(name="search_memory", args={"query": query}))


@pytest.fixture
async def memory() -> AsyncIterator[MemoryLoop]:
    loop = MemoryLoop.local(":memory:")
    yield loop
    await loop.aclose()


async def test_tool_loop_injects_every_call_and_persists_once(
    memory: MemoryLoop, adk_harness: Callable[..., Any]
) -> None:
    harness = adk_harness(memory)
    await harness.run("alice", "s1", FACT, [text("Noted.")])
    await harness.run(
        "alice", "s2", "Tell me about Beatrix.", [search("Beatrix"), search("bakery"), text("ok")]
    )
    assert len(harness.llm.requests) == 3
    for request in harness.llm.requests:
        instruction = request.config.system_instruction
        assert instruction.count("<ZEP_CONTEXT>") == 1 and "Lisbon" in instruction
        declared = [d.name for tool in request.config.tools for d in tool.function_declarations]
        assert declared == ["search_memory"]  # the context tool is never offered to the model
    assert "Lisbon" in harness.llm.inputs[1]  # the search result reached the model
    stored = await memory.get_messages("s2")
    assert [(m.role, m.content) for m in stored] == [
        ("user", "Tell me about Beatrix."),
        ("assistant", "ok"),
    ]


async def test_two_users_on_one_tool_instance(
    memory: MemoryLoop, adk_harness: Callable[..., Any]
) -> None:
    harness = adk_harness(memory)  # one ZepContextTool and one search tool serve both users
    await harness.run("alice", "a1", SECRET, [text("Saved.")])
    await harness.run("bob", "b1", "My locker code?", [search("locker code ZEBRA"), text("?")])
    assert all("ZEBRA" not in seen for seen in harness.llm.inputs)
    await harness.run("alice", "a2", "My locker code?", [search("locker code"), text("ZEBRA")])
    assert all("ZEBRA-7781" in seen for seen in harness.llm.inputs)
    assert [m.content for m in await memory.get_messages("b1")] == ["My locker code?", "?"]


async def test_identity_from_session_state(
    memory: MemoryLoop, adk_harness: Callable[..., Any]
) -> None:
    harness = adk_harness(memory)
    state = {
        "zep_user_id": "crm-7",
        "zep_thread_id": "ticket-9",
        "zep_first_name": "Ana",
        "zep_last_name": "Silva",
        "zep_email": "ana@example.com",
    }
    await harness.session("adk-user", "adk-session", state)
    await harness.run("adk-user", "adk-session", FACT, [search("Beatrix"), text("Lovely.")])
    stored = await memory.get_messages("ticket-9")
    assert [(m.role, m.name) for m in stored] == [("user", "Ana Silva"), ("assistant", "Assistant")]
    assert await memory.get_messages("adk-session") == []
    found = await memory.search("Beatrix Lisbon", user_id="crm-7")
    assert found.edges
    assert not (await memory.search("Beatrix Lisbon", user_id="adk-user")).edges


async def test_identity_falls_back_to_adk_ids(
    memory: MemoryLoop, adk_harness: Callable[..., Any]
) -> None:
    harness = adk_harness(memory)
    await harness.session("adk-user", "adk-session", {"zep_user_id": "  ", "zep_thread_id": ["t"]})
    await harness.run("adk-user", "adk-session", FACT, [text("Lovely.")])
    assert len(await memory.get_messages("adk-session")) == 2
    assert (await memory.search("Beatrix", user_id="adk-user")).edges


def test_resolve_identity_prefers_state_keys() -> None:
    identity = resolve_identity({"zep_thread_id": "t-1", "zep_email": "a@b.c"}, "u", "s")
    assert (identity.user_id, identity.thread_id, identity.email) == ("u", "t-1", "a@b.c")
    assert resolve_identity({}, "u", "s").thread_id == "s"


async def test_streaming_stores_only_the_final_reply(
    memory: MemoryLoop, adk_harness: Callable[..., Any]
) -> None:
    seen: list[bool] = []

    def spy(callback_context: CallbackContext, llm_response: LlmResponse) -> None:
        seen.append(bool(llm_response.partial))

    harness = adk_harness(
        memory,
        after_model_callback=create_after_model_callback(memory, chain=spy),
        run_config=RunConfig(streaming_mode=StreamingMode.SSE),
    )
    harness.llm.chunks = ["Lis", "bon!"]
    events = await harness.run("alice", "s1", "Where?", [text("Lisbon!")])
    assert any(event.partial for event in events)
    assert True in seen and False in seen  # partial chunks did reach the callback
    stored = await memory.get_messages("s1")
    assert [(m.role, m.content) for m in stored] == [("user", "Where?"), ("assistant", "Lisbon!")]


async def test_callback_chains_the_users_callback(
    memory: MemoryLoop, adk_harness: Callable[..., Any]
) -> None:
    async def redact(callback_context: CallbackContext, llm_response: LlmResponse) -> Any:
        part = (llm_response.content.parts or [text("")])[0] if llm_response.content else None
        if part is not None and part.text and "secret" in part.text:
            return LlmResponse(content=types.Content(role="model", parts=[text("[redacted]")]))
        return None

    harness = adk_harness(
        memory, after_model_callback=create_after_model_callback(memory, chain=redact)
    )
    result = await harness.run("alice", "s1", "Tell me.", [search("x"), text("the secret")])
    finals = [e for e in result if e.is_final_response()]
    assert finals[-1].content.parts[0].text == "[redacted]"
    await harness.run("alice", "s1", "Again.", [text("plain")])
    stored = [(m.role, m.content) for m in await memory.get_messages("s1")]
    assert stored == [
        ("user", "Tell me."),
        ("assistant", "[redacted]"),
        ("user", "Again."),
        ("assistant", "plain"),
    ]


async def test_search_tool_pins_and_shared_graph(memory: MemoryLoop) -> None:
    pinned = ZepGraphSearchTool(memory, scope="nodes", limit=3)
    declaration = pinned._get_declaration()
    schema = declaration.parameters_json_schema
    assert "scope" not in schema["properties"] and "limit" not in schema["properties"]
    assert "user_id" not in schema["properties"] and schema["required"] == ["query"]
    with pytest.raises(ValueError, match="user_id"):
        ZepGraphSearchTool(memory, user_id="mallory")


async def test_search_tool_on_a_shared_graph(
    memory: MemoryLoop, adk_harness: Callable[..., Any]
) -> None:
    await memory.add_data("Refunds take five business days.", graph_id="policies")
    harness = adk_harness(memory)
    await harness.run("alice", "s1", "My refund for the bakery order?", [text("ok")])
    policies = ZepGraphSearchTool(memory, graph_id="policies")
    harness.agent.tools = [harness.context_tool, policies]
    await harness.run("alice", "s1", "How long?", [search("refund"), text("Five days.")])
    tool_output = harness.llm.inputs[1].split("tool search_memory:", 1)[1]
    assert "five business days" in tool_output
    assert "bakery" not in tool_output  # the user's own memory is not searched


async def test_model_cannot_choose_the_user(
    memory: MemoryLoop, adk_harness: Callable[..., Any]
) -> None:
    harness = adk_harness(memory)
    await harness.run("alice", "a1", SECRET, [text("Saved.")])
    sneaky = types.Part(
        function_call=types.FunctionCall(
            name="search_memory", args={"query": "locker", "user_id": "alice"}
        )
    )
    await harness.run("bob", "b1", "Hi", [sneaky, text("?")])
    assert "ZEBRA" not in harness.llm.inputs[1]
    assert "unknown parameter" in harness.llm.inputs[1]


async def test_memory_failure_lets_the_agent_answer(adk_harness: Callable[..., Any]) -> None:
    from zepkit.local import LocalBackend
    from zepkit.testing import FailingBackend

    failing = MemoryLoop(FailingBackend(LocalBackend(":memory:")))
    harness = adk_harness(failing)
    events = await harness.run("alice", "s1", SECRET, [search("locker"), text("Got it.")])
    assert [e for e in events if e.is_final_response()][-1].content.parts[0].text == "Got it."
    assert "Memory search failed" in harness.llm.inputs[1]
    await failing.aclose()


async def test_a_zep_client_is_accepted_and_wrapped_once(
    adk_harness: Callable[..., Any], caplog: pytest.LogCaptureFixture
) -> None:
    client = FakeZep().client()
    loop = ZepContextTool(client).memory
    assert ZepGraphSearchTool(client).memory is loop  # the pieces share one loop per client
    harness = adk_harness(client)
    with caplog.at_level(logging.WARNING, logger="zepkit"):
        await harness.run("alice", "s1", FACT, [text("Noted.")])
        await harness.run("alice", "s2", "Where is Beatrix?", [search("Beatrix"), text("Lisbon")])
    assert not [r for r in caplog.records if r.name.startswith("zepkit")]
    assert all("Lisbon" in seen for seen in harness.llm.inputs)
    assert [m.role for m in await loop.get_messages("s2")] == ["user", "assistant"]
    with pytest.raises(TypeError, match="MemoryLoop"):
        ZepContextTool("not memory")
