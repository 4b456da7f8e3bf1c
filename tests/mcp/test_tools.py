"""Every tool, resource and the prompt through the SDK's own client, in process: over the
in-memory transport (JSON-RPC framing, the initialize handshake) and the direct dispatcher."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult, TextContent

from zepkit.core import BackendUnavailableError, MemoryLoop
from zepkit.local import LocalBackend
from zepkit.mcp import create_server
from zepkit.testing import FailingBackend

from .conftest import ALICE, ALICE_SAYS, BOB, seed

READ_TOOLS = {"memory_context", "memory_search", "memory_list_threads", "memory_get_messages"}
WRITE_TOOLS = {"memory_add", "memory_forget"}


@pytest.fixture(params=["legacy", "auto"], ids=["in-memory-transport", "direct"])
def mode(request: pytest.FixtureRequest) -> str:
    """How the client reaches the server in process: the in-memory transport (JSON-RPC over
    memory streams, with the initialize handshake) or the SDK's direct dispatcher."""
    return str(request.param)


@asynccontextmanager
async def connect(
    memory: MemoryLoop, mode: str = "legacy", **options: Any
) -> AsyncIterator[Client]:
    """A client session (opened and closed in the test's own task, as anyio requires)."""
    async with Client(create_server(memory, **options), mode=mode) as client:
        yield client


def text(result: CallToolResult) -> str:
    (block,) = result.content
    assert isinstance(block, TextContent)
    return block.text


async def call(client: Client, name: str, args: dict[str, Any] | None = None) -> CallToolResult:
    return await client.call_tool(name, args or {})


async def answer(client: Client, name: str, args: dict[str, Any] | None = None) -> str:
    result = await call(client, name, args)
    assert not result.is_error, text(result)
    assert result.structured_content is not None  # and the client checked it against the schema
    return text(result)


async def refused(client: Client, name: str, args: dict[str, Any] | None = None) -> str:
    result = await call(client, name, args)
    assert result.is_error and result.structured_content is None
    return text(result)


# -- the tool list ------------------------------------------------------------------------------


async def test_read_write_lists_every_tool_with_hints_and_schemas(
    memory: MemoryLoop, mode: str
) -> None:
    async with connect(memory, mode, user_id=ALICE.user_id, read_write=True) as alice:
        tools = {tool.name: tool for tool in (await alice.list_tools()).tools}
        assert set(tools) == READ_TOOLS | WRITE_TOOLS
        for name, tool in tools.items():
            hints = tool.annotations
            assert hints is not None and tool.output_schema is not None and tool.description
            assert hints.read_only_hint is (name in READ_TOOLS), name
            assert hints.destructive_hint is (name == "memory_forget"), name
            assert hints.open_world_hint is False
            properties = set(tool.input_schema["properties"])
            assert not properties & {"user_id", "user", "graph_id", "thread_id"}, name
        assert tools["memory_add"].annotations.idempotent_hint is False  # type: ignore[union-attr]
        assert set(tools["memory_search"].input_schema["properties"]) == {"query", "scope", "limit"}


async def test_read_only_mode_hides_and_refuses_the_write_tools(memory: MemoryLoop) -> None:
    async with connect(memory, user_id=ALICE.user_id) as reader:
        assert {tool.name for tool in (await reader.list_tools()).tools} == READ_TOOLS
        sentence = await refused(reader, "memory_add", {"content": "Alice hates opera."})
        assert "no tool 'memory_add'" in sentence
        assert "no tool" in await refused(reader, "memory_forget", {"everything": True})
        assert "opera" not in await answer(reader, "memory_search", {"query": "opera"})
        assert [t.thread_id async for t in _threads(memory, "alice")] == [ALICE.thread_id]


async def _threads(memory: MemoryLoop, user_id: str) -> AsyncIterator[Any]:
    for thread in (await memory.list_threads(user_id)).items:
        yield thread


# -- reading ------------------------------------------------------------------------------------


async def test_search_finds_the_users_memory_as_text_and_data(
    memory: MemoryLoop, mode: str
) -> None:
    async with connect(memory, mode, user_id=ALICE.user_id, read_write=True) as alice:
        result = await call(alice, "memory_search", {"query": "Tobias trombone"})
        assert "Tobias" in text(result)
        data = result.structured_content
        assert data is not None and data["scope"] == "edges"
        assert any("Tobias" in edge["fact"] for edge in data["edges"])
        episodes = await call(alice, "memory_search", {"query": "Tobias", "scope": "episodes"})
        assert episodes.structured_content["episodes"]  # type: ignore[index]
        assert await answer(alice, "memory_search", {"query": "submarine"}) == "No results found."


async def test_search_never_sees_another_users_memory(memory: MemoryLoop, mode: str) -> None:
    async with connect(memory, mode, user_id=ALICE.user_id, read_write=True) as alice:
        for query in ("tomatoes Rotterdam blight", "bees allotment"):
            for scope in ("edges", "nodes", "episodes"):
                found = await answer(alice, "memory_search", {"query": query, "scope": scope})
                assert "Rotterdam" not in found and "bees" not in found


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({}, "empty search query"),
        ({"query": "  "}, "empty search query"),
        ({"query": 42}, "empty search query"),
        ({"query": "Tobias", "limit": "ten"}, "limit must be a whole number"),
        ({"query": "Tobias", "scope": "everything"}, "scope 'everything' is not available"),
        ({"query": "Tobias", "user_id": "bob"}, "unknown argument(s) user_id"),
        ({"query": "Tobias", "reranker": "mmr"}, "unknown argument(s) reranker"),
    ],
)
async def test_bad_search_arguments_come_back_as_a_sentence(
    memory: MemoryLoop, mode: str, args: dict[str, Any], expected: str
) -> None:
    async with connect(memory, mode, user_id=ALICE.user_id, read_write=True) as alice:
        assert expected in await refused(alice, "memory_search", args)


async def test_context_is_the_block_adapters_inject(mode: str, memory: MemoryLoop) -> None:
    async with connect(memory, mode, user_id=ALICE.user_id, read_write=True) as alice:
        later = ALICE.model_copy(update={"thread_id": "alice-later"})
        injected = await memory.begin_turn(later, "Is my brother's trombone concert soon?")
        result = await call(alice, "memory_context", {})
        data = result.structured_content
        assert data is not None and data["thread_id"] == "alice-later"  # the latest thread
        expected = memory.render(await memory.get_context("alice-later"))
        assert "Tobias" in expected and data["block"] == expected == text(result) == injected
        assert data["chars"] == len(expected)
        about = await call(alice, "memory_context", {"query": "trombone"})
        block = about.structured_content["block"]  # type: ignore[index]
        assert "<ZEP_CONTEXT>" in block and "Tobias" in block and "Rotterdam" not in block
        assert "Error: `query` must be a string" in await refused(
            alice, "memory_context", {"query": 1}
        )


async def test_threads_and_messages_of_the_user_only(mode: str, memory: MemoryLoop) -> None:
    async with connect(memory, mode, user_id=ALICE.user_id, read_write=True) as alice:
        await memory.begin_turn(
            ALICE.model_copy(update={"thread_id": "alice-later"}), "Hello again."
        )
        result = await call(alice, "memory_list_threads", {"limit": 1})
        data = result.structured_content
        assert data is not None and [t["thread_id"] for t in data["threads"]] == [ALICE.thread_id]
        assert data["next_cursor"] and "cursor=" in text(result)
        rest = await call(alice, "memory_list_threads", {"cursor": data["next_cursor"]})
        assert [t["thread_id"] for t in rest.structured_content["threads"]] == ["alice-later"]  # type: ignore[index]
        lines = await answer(alice, "memory_get_messages", {"thread": ALICE.thread_id})
        assert ALICE_SAYS in lines.splitlines()[0] and "trombonist" in lines.splitlines()[1]
        last = await call(alice, "memory_get_messages", {"thread": ALICE.thread_id, "last_n": 1})
        messages = last.structured_content["messages"]  # type: ignore[index]
        assert [m["role"] for m in messages] == ["assistant"]
        assert "no thread 'bob-garden'" in await refused(
            alice, "memory_get_messages", {"thread": BOB.thread_id}
        )
        assert "from 1 to 100" in await refused(
            alice, "memory_get_messages", {"thread": ALICE.thread_id, "last_n": 0}
        )
        assert "`thread` is required" in await refused(alice, "memory_get_messages", {})


# -- writing ------------------------------------------------------------------------------------


async def test_add_answers_after_the_write_is_stored(
    memory: MemoryLoop, mode: str, tmp_path: Path
) -> None:
    async with connect(memory, mode, user_id=ALICE.user_id, read_write=True) as alice:
        result = await call(
            alice,
            "memory_add",
            {"content": "Alice is learning Portuguese.", "occurred_at": "2024-03-05T10:00:00Z"},
        )
        assert not result.is_error and result.structured_content is not None
        assert result.structured_content["saved"] and result.structured_content["episode_uuids"]
        # Another connection to the same file reads it at once: the write was durable when answered.
        other = MemoryLoop(LocalBackend(tmp_path / "memory.db", read_only=True), on_error="raise")
        async with other:
            found = await other.search("Portuguese", user_id="alice", scope="episodes")
        assert [e.created_at.year for e in found.episodes if e.created_at] == [2024]
        json_note = {"content": '{"diet": "vegetarian"}', "kind": "json"}
        assert "Stored" in await answer(alice, "memory_add", json_note)
        assert "vegetarian" in await answer(alice, "memory_search", {"query": "vegetarian diet"})


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({}, "`content` is required"),
        ({"content": "   "}, "`content` is empty"),
        ({"content": "x", "kind": "fact"}, "`kind` must be one of text, json, message"),
        ({"content": "x", "occurred_at": "last Tuesday"}, "must be an ISO 8601 date"),
        ({"content": "x", "occurred_at": "2999-01-01"}, "is in the future"),
        ({"content": "{not json", "kind": "json"}, "Error:"),
        ({"content": "x", "user_id": "bob"}, "unknown argument(s) user_id"),
    ],
)
async def test_bad_add_arguments_store_nothing_and_say_why(
    memory: MemoryLoop, mode: str, args: dict[str, Any], expected: str
) -> None:
    async with connect(memory, mode, user_id=ALICE.user_id, read_write=True) as alice:
        assert expected in await refused(alice, "memory_add", args)


async def test_add_while_memory_is_down_is_kept_in_the_outbox(tmp_path: Path) -> None:
    failing = FailingBackend(LocalBackend(tmp_path / "down.db"), fail_on=frozenset({"add_data"}))
    memory = MemoryLoop(failing, outbox=tmp_path / "down.outbox", on_error="raise")
    async with memory, Client(create_server(memory, user_id="alice", read_write=True)) as client:
        result = await call(client, "memory_add", {"content": "Alice moved to Porto."})
        assert not result.is_error and result.structured_content is not None
        assert result.structured_content["queued"] and not result.structured_content["saved"]
        assert "outbox" in text(result)
        status = await memory.outbox_status()
        assert status is not None and status.pending == 1


async def test_forget_a_thread_needs_the_code_from_its_dry_run(
    mode: str, memory: MemoryLoop
) -> None:
    async with connect(memory, mode, user_id=ALICE.user_id, read_write=True) as alice:
        dry = await call(alice, "memory_forget", {"thread": ALICE.thread_id})
        report = dry.structured_content
        assert report is not None and report["dry_run"] and not report["deleted"]
        assert report["messages"] == 2 and "Nothing deleted" in text(dry)
        assert len(await memory.get_messages(ALICE.thread_id)) == 2
        wrong = {"thread": ALICE.thread_id, "confirm": "0000000000"}
        assert "does not match" in await refused(alice, "memory_forget", wrong)
        other = await call(alice, "memory_forget", {"everything": True})
        other_code = other.structured_content["confirm"]  # type: ignore[index]
        mixed = {"thread": ALICE.thread_id, "confirm": other_code}
        assert "does not match" in await refused(alice, "memory_forget", mixed)
        done = await call(
            alice, "memory_forget", {"thread": ALICE.thread_id, "confirm": report["confirm"]}
        )
        assert done.structured_content["deleted"]  # type: ignore[index]
        assert (await memory.list_threads("alice")).items == []
        assert len(await memory.get_messages(BOB.thread_id)) == 1


async def test_forget_refuses_other_users_and_unclear_targets(
    memory: MemoryLoop, mode: str
) -> None:
    async with connect(memory, mode, user_id=ALICE.user_id, read_write=True) as alice:
        assert "no thread 'bob-garden'" in await refused(
            alice, "memory_forget", {"thread": BOB.thread_id}
        )
        assert "either `thread`" in await refused(alice, "memory_forget", {})
        both = {"thread": ALICE.thread_id, "everything": True}
        assert "either `thread`" in await refused(alice, "memory_forget", both)
        assert "true or false" in await refused(alice, "memory_forget", {"everything": "yes"})


async def test_forget_everything_deletes_the_user_and_nobody_else(
    mode: str, memory: MemoryLoop
) -> None:
    async with connect(memory, mode, user_id=ALICE.user_id, read_write=True) as alice:
        code = (await call(alice, "memory_forget", {"everything": True})).structured_content
        assert code is not None and code["threads"] == 1 and code["messages"] == 2
        await answer(alice, "memory_forget", {"everything": True, "confirm": code["confirm"]})
        assert await answer(alice, "memory_search", {"query": "Tobias"}) == "No results found."
        assert "No conversations" in await answer(alice, "memory_list_threads")
        found = await memory.search("tomatoes blight", user_id="bob", scope="episodes")
        assert found.episodes


# -- resources and the prompt ------------------------------------------------------------------


async def test_resources_are_the_users_own(memory: MemoryLoop, mode: str) -> None:
    async with connect(memory, mode, user_id=ALICE.user_id, read_write=True) as alice:
        listed = {str(r.uri) for r in (await alice.list_resources()).resources}
        assert listed == {"zepkit://memory/profile", "zepkit://memory/export"}
        templates = (await alice.list_resource_templates()).resource_templates
        assert [t.uri_template for t in templates] == ["zepkit://memory/threads/{thread_id}"]

        profile = json.loads(await _read(alice, "zepkit://memory/profile"))
        assert profile["user_id"] == "alice" and profile["first_name"] == "Alice"
        assert profile["threads"] == 1 and profile["known"]

        lines = [
            json.loads(line) for line in (await _read(alice, "zepkit://memory/export")).splitlines()
        ]
        assert lines[0]["type"] == "header"
        assert {line.get("user_id") for line in lines[1:] if "user_id" in line} == {"alice"}
        assert next(m["content"] for m in lines if m["type"] == "message") == ALICE_SAYS

        thread = json.loads(await _read(alice, "zepkit://memory/threads/alice-trip"))
        assert next(m["content"] for m in thread["messages"]) == ALICE_SAYS
        for uri in ("zepkit://memory/threads/bob-garden", "zepkit://memory/elsewhere"):
            with pytest.raises(MCPError):
                await alice.read_resource(uri)


async def _read(client: Client, uri: str) -> str:
    (contents,) = (await client.read_resource(uri)).contents
    assert hasattr(contents, "text")
    return str(contents.text)


async def test_recall_prompt_carries_the_block(memory: MemoryLoop, mode: str) -> None:
    async with connect(memory, mode, user_id=ALICE.user_id, read_write=True) as alice:
        (prompt,) = (await alice.list_prompts()).prompts
        assert prompt.name == "recall"
        result = await alice.get_prompt("recall", {"topic": "trombone"})
        (message,) = result.messages
        assert message.role == "user" and isinstance(message.content, TextContent)
        assert "<ZEP_CONTEXT>" in message.content.text and "Tobias" in message.content.text
        empty = await alice.get_prompt("recall", {"topic": "submarines"})
        assert "holds nothing about submarines" in empty.messages[0].content.text  # type: ignore[union-attr]
        with pytest.raises(MCPError):
            await alice.get_prompt("summarise", {})


# -- no user, a shared graph, a failing memory -------------------------------------------------


async def test_without_a_user_nothing_is_read_or_written(memory: MemoryLoop) -> None:
    async with Client(create_server(memory, read_write=True), mode="legacy") as client:
        for name, args in [
            ("memory_search", {"query": "Tobias"}),
            ("memory_add", {"content": "x"}),
        ]:
            assert "no memory user" in await refused(client, name, args)
        with pytest.raises(MCPError):
            await client.read_resource("zepkit://memory/profile")


async def test_a_shared_graph_is_configuration_not_an_argument(memory: MemoryLoop) -> None:
    await memory.add_data("The office closes at 6pm on Fridays.", graph_id="office")
    server = create_server(memory, user_id="alice", shared_graph="office")
    async with Client(server, mode="legacy") as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        assert names == READ_TOOLS | {"memory_search_shared"}
        assert "6pm" in await answer(client, "memory_search_shared", {"query": "office Fridays"})
        assert "6pm" not in await answer(client, "memory_search", {"query": "office Fridays"})


async def test_a_failing_memory_answers_with_a_sentence(tmp_path: Path) -> None:
    failing = FailingBackend(LocalBackend(tmp_path / "f.db"), error=BackendUnavailableError("down"))
    memory = MemoryLoop(failing, on_error="raise")
    async with memory, Client(create_server(memory, user_id="alice", read_write=True)) as client:
        for name, args in [
            ("memory_search", {"query": "Tobias"}),
            ("memory_context", {"query": "Tobias"}),
            ("memory_list_threads", {}),
            ("memory_add", {"content": "Alice likes figs."}),
        ]:
            sentence = await refused(client, name, args)
            assert "unavailable" in sentence, (name, sentence)


async def test_zep_cloud_is_served_the_same_way() -> None:
    """Over Zep Cloud's API (the real SDK against the HTTP-level fake): the user's memory, the
    user's threads, and nobody else's."""
    from zepkit.zep.testing import FakeZep

    memory = MemoryLoop.zep(client=FakeZep().client(), on_error="raise")
    async with memory:
        await seed(memory)
        async with connect(memory, user_id=BOB.user_id, read_write=True) as bob:
            threads = await call(bob, "memory_list_threads")
            assert [t["thread_id"] for t in threads.structured_content["threads"]] == [  # type: ignore[index]
                BOB.thread_id
            ]
            lines = await answer(bob, "memory_get_messages", {"thread": BOB.thread_id})
            assert "tomatoes" in lines
            assert "no thread" in await refused(
                bob, "memory_get_messages", {"thread": ALICE.thread_id}
            )
            assert "Stored" in await answer(bob, "memory_add", {"content": "Bob sells honey."})
            found = await answer(bob, "memory_search", {"query": "honey", "scope": "episodes"})
            assert "honey" in found and "Tobias" not in found


async def test_a_user_memory_does_not_know_yet_gets_calm_empty_answers(memory: MemoryLoop) -> None:
    async with connect(memory, user_id="newcomer") as client:
        assert await answer(client, "memory_search", {"query": "Tobias"}) == "No results found."
        assert await answer(client, "memory_context", {}) == "Memory holds nothing about this yet."
        assert "No conversations" in await answer(client, "memory_list_threads")
        profile = json.loads(await _read(client, "zepkit://memory/profile"))
        assert profile == {"user_id": "newcomer", "known": False, "threads": 0}
        lines = (await _read(client, "zepkit://memory/export")).splitlines()
        assert [json.loads(line)["type"] for line in lines] == ["header"]
        recall = await client.get_prompt("recall", {})
        assert "holds nothing yet" in recall.messages[0].content.text  # type: ignore[union-attr]
