from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from zepkit.core import (
    BackendError,
    BackendUnavailableError,
    ConfigurationError,
    ConflictError,
    ContextInput,
    Identity,
    MemoryLoop,
    Message,
    NotFoundError,
)
from zepkit.core.spi import UserProfile
from zepkit.local import LocalBackend
from zepkit.testing import FailingBackend, SlowBackend

SECRET = "my passport number is X1234567"


class RecordingBackend(FailingBackend):
    """Passes everything through and records add_messages calls."""

    def __init__(self) -> None:
        super().__init__(LocalBackend(":memory:"), fail_on=frozenset())
        self.add_calls: list[tuple[int, bool]] = []

    async def add_messages(
        self,
        thread_id: str,
        messages: Sequence[Message],
        *,
        return_context: bool = False,
        user_id: str | None = None,
        idempotency_key: str | None = None,
    ) -> str | None:
        self.add_calls.append((len(messages), return_context))
        return await super().add_messages(
            thread_id,
            messages,
            return_context=return_context,
            user_id=user_id,
            idempotency_key=idempotency_key,
        )


# -- provisioning -------------------------------------------------------------------------------


async def test_provisioning_is_idempotent_and_strict(memory: MemoryLoop) -> None:
    assert await memory.ensure_user("alice", first_name="Alice") is True
    assert await memory.ensure_user("alice") is False
    assert await memory.ensure_thread("t1", user_id="alice") is True
    assert await memory.ensure_thread("t1", user_id="alice") is False
    with pytest.raises(NotFoundError):
        await memory.ensure_thread("t2", user_id="nobody")
    await memory.ensure_user("bob")
    with pytest.raises(ConflictError):
        await memory.ensure_thread("t1", user_id="bob")


async def test_a_turn_with_a_new_name_updates_the_user_once() -> None:
    calls: list[str] = []

    class Counted(LocalBackend):
        async def ensure_user(self, user: UserProfile) -> bool:
            calls.append(user.first_name or "")
            return await super().ensure_user(user)

    loop = MemoryLoop(Counted(":memory:"), on_error="raise")
    ana = Identity(user_id="ana", thread_id="ana-1", first_name="Ana")
    await loop.begin_turn(ana, "Hello there.")
    await loop.begin_turn(ana, "Still me.")
    assert calls == ["Ana"]  # provisioned once for the thread and profile
    renamed = ana.model_copy(update={"first_name": "Anna"})
    await loop.begin_turn(renamed, "I go by Anna now.")
    await loop.begin_turn(renamed, "Thanks.")
    assert calls == ["Ana", "Anna"]  # the new name is sent with the next turn, once
    assert (await loop.get_user("ana")).first_name == "Anna"
    await loop.aclose()


async def test_twenty_concurrent_first_calls_create_one(memory: MemoryLoop) -> None:
    created = await asyncio.gather(*(memory.ensure_user("carol") for _ in range(20)))
    assert created.count(True) == 1
    created = await asyncio.gather(
        *(memory.ensure_thread("c1", user_id="carol") for _ in range(20))
    )
    assert created.count(True) == 1


@pytest.mark.parametrize("bad", ["", "  ", "x" * 501])
async def test_bad_ids_raise_naming_the_field(memory: MemoryLoop, bad: str) -> None:
    with pytest.raises(ValueError, match="user_id"):
        await memory.ensure_user(bad)
    with pytest.raises(ValueError, match="thread_id"):
        await memory.add_messages(bad, [Message("user", "x")])
    with pytest.raises(TypeError, match="thread_id"):
        await memory.get_context(123)  # type: ignore[arg-type]


async def test_provisioning_failure_raises_typed_error() -> None:
    loop = MemoryLoop(FailingBackend(LocalBackend(":memory:")))
    with pytest.raises(BackendUnavailableError):
        await loop.ensure_user("alice")
    await loop.aclose()


# -- writes -------------------------------------------------------------------------------------


async def test_add_messages_batches_of_thirty_context_on_last_only() -> None:
    backend = RecordingBackend()
    loop = MemoryLoop(backend)
    await loop.ensure_user("u")
    await loop.ensure_thread("t", user_id="u")
    messages = [Message("user", f"message number {i} about sailing") for i in range(65)]
    await loop.add_messages("t", messages, return_context=True)
    assert backend.add_calls == [(30, False), (30, False), (5, True)]
    stored = await loop.get_messages("t")
    assert [m.content for m in stored] == [m.content for m in messages]
    await loop.aclose()


async def test_oversized_message_is_split_not_dropped(memory: MemoryLoop) -> None:
    await memory.ensure_user("u")
    await memory.ensure_thread("t", user_id="u")
    long_text = "Paragraph about the ocean and whales. " * 400
    await memory.add_messages("t", [Message("user", long_text), Message("user", "   ")])
    stored = await memory.get_messages("t")
    assert len(stored) > 1
    assert " ".join(m.content for m in stored).split() == long_text.split()


async def test_unicode_round_trips_byte_for_byte(memory: MemoryLoop) -> None:
    await memory.ensure_user("u")
    await memory.ensure_thread("t", user_id="u")
    texts = ["👩‍👩‍👧 family 🇵🇹", "東京で寿司を食べた", "שלום עולם", "e\u0301 combining"]
    await memory.add_messages("t", [Message("user", t) for t in texts])
    assert [m.content for m in await memory.get_messages("t")] == texts


# -- fail-soft ----------------------------------------------------------------------------------


async def test_data_path_is_fail_soft_and_logs_no_content(caplog: pytest.LogCaptureFixture) -> None:
    loop = MemoryLoop(FailingBackend(LocalBackend(":memory:")))
    with caplog.at_level(logging.DEBUG, logger="zepkit"):
        assert await loop.add_messages("t", [Message("user", SECRET)], return_context=True) is None
        assert await loop.get_context("t") is None
        assert (await loop.search("passport", user_id="u")).is_empty()
        assert await loop.add_data(SECRET, user_id="u") == []
        block = await loop.begin_turn(Identity(user_id="u", thread_id="t"), SECRET)
        assert block == ""
        assert await loop.capture_reply(Identity(user_id="u", thread_id="t"), SECRET) is False
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 6
    assert {"add_messages", "get_context", "search", "add_data", "begin_turn", "capture_reply"} <= {
        r.getMessage().split()[1] for r in warnings
    }
    assert all(
        "X1234567" not in r.getMessage() and "passport" not in r.getMessage()
        for r in caplog.records
    )
    assert "thread_id='t'" in warnings[0].getMessage()
    await loop.aclose()


async def test_on_error_raise_and_callable() -> None:
    raising = MemoryLoop(FailingBackend(LocalBackend(":memory:")), on_error="raise")
    with pytest.raises(BackendUnavailableError):
        await raising.add_messages("t", [Message("user", "x")])
    with pytest.raises(BackendUnavailableError):
        await raising.begin_turn(Identity(user_id="u", thread_id="t"), "x")
    await raising.aclose()

    seen: list[tuple[str, str]] = []
    calling = MemoryLoop(
        FailingBackend(LocalBackend(":memory:")),
        on_error=lambda stage, exc: seen.append((stage, type(exc).__name__)),
    )
    assert await calling.get_context("t") is None
    assert seen == [("get_context", "BackendUnavailableError")]
    await calling.aclose()


def test_on_error_must_be_log_raise_or_callable() -> None:
    with pytest.raises(ValueError, match="on_error"):
        MemoryLoop(LocalBackend(":memory:"), on_error="ignore")  # type: ignore[arg-type]


# -- the turn -----------------------------------------------------------------------------------


async def test_turn_persists_once_and_reinjects_the_same_block(
    memory: MemoryLoop, alice: Identity
) -> None:
    await memory.begin_turn(alice, "I keep bees in my garden in Porto.", turn_id="1")
    await memory.capture_reply(alice, "Lovely!", turn_id="1")
    session_2 = alice.model_copy(update={"thread_id": "alice-2"})
    blocks = [
        await memory.begin_turn(session_2, "How are my bees doing?", turn_id="2") for _ in range(3)
    ]
    concurrent = await asyncio.gather(
        *(memory.begin_turn(session_2, "How are my bees doing?", turn_id="2") for _ in range(5))
    )
    assert blocks[0] and "bees" in blocks[0]
    assert set(blocks) | set(concurrent) == {blocks[0]}
    stored = await memory.get_messages("alice-2")
    assert [(m.role, m.content, m.name) for m in stored] == [
        ("user", "How are my bees doing?", "Alice")
    ]


async def test_same_text_in_a_new_turn_is_persisted_again(
    memory: MemoryLoop, alice: Identity
) -> None:
    await memory.begin_turn(alice, "hello", turn_id="1")
    await memory.begin_turn(alice, "hello", turn_id="2")
    await memory.begin_turn(alice, "hello")  # no turn id: every call is its own turn
    assert [m.content for m in await memory.get_messages("alice-1")] == ["hello"] * 3


async def test_capture_reply_skips_tool_calls_partials_empty_and_repeats(
    memory: MemoryLoop, alice: Identity
) -> None:
    await memory.begin_turn(alice, "question", turn_id="1")
    assert (
        await memory.capture_reply(alice, "calling a tool", turn_id="1", is_tool_call=True) is False
    )
    assert await memory.capture_reply(alice, "partial", turn_id="1", partial=True) is False
    assert await memory.capture_reply(alice, "   ", turn_id="1") is False
    assert await memory.capture_reply(alice, None, turn_id="1") is False
    assert await memory.capture_reply(alice, "The answer.", turn_id="1") is True
    assert await memory.capture_reply(alice, "The answer.", turn_id="1") is False
    stored = await memory.get_messages("alice-1")
    assert [(m.role, m.content, m.name) for m in stored] == [
        ("user", "question", "Alice"),
        ("assistant", "The answer.", "Assistant"),
    ]


async def test_failed_turn_is_retried_by_the_next_call(alice: Identity) -> None:
    backend = FailingBackend(LocalBackend(":memory:"), fail_on=frozenset({"add_messages"}))
    loop = MemoryLoop(backend)
    assert await loop.begin_turn(alice, "remember me", turn_id="1") == ""
    backend.fail_on = frozenset()
    await loop.begin_turn(alice, "remember me", turn_id="1")
    assert [m.content for m in await loop.get_messages("alice-1")] == ["remember me"]
    await loop.aclose()


async def test_context_builder_runs_beside_persistence(alice: Identity) -> None:
    seen: list[ContextInput] = []

    async def builder(request: ContextInput) -> str:
        seen.append(request)
        return "- custom memory line"

    loop = MemoryLoop.local(":memory:", context_builder=builder)
    block = await loop.begin_turn(alice, "hi there")
    assert "<ZEP_CONTEXT>\n- custom memory line\n</ZEP_CONTEXT>" in block
    assert seen[0].identity == alice and seen[0].user_message == "hi there"
    assert [m.content for m in await loop.get_messages("alice-1")] == ["hi there"]
    await loop.aclose()


async def test_failing_context_builder_still_persists(alice: Identity) -> None:
    async def builder(request: ContextInput) -> str:
        raise RuntimeError("builder broke")

    loop = MemoryLoop.local(":memory:", context_builder=builder)
    assert await loop.begin_turn(alice, "still stored") == ""
    assert [m.content for m in await loop.get_messages("alice-1")] == ["still stored"]
    await loop.aclose()


async def test_recall_budget_uses_last_block_and_late_result_serves_next_turn(
    alice: Identity,
) -> None:
    inner = LocalBackend(":memory:")
    fast = MemoryLoop(inner)
    await fast.begin_turn(alice, "My favourite mountain is Mount Fuji.")
    slow_backend = SlowBackend(inner, delay=0.3)
    loop = MemoryLoop(slow_backend, recall_budget=0.05)
    await loop.provision(alice)  # slow provisioning is not what this test measures
    session = alice.model_copy(update={"thread_id": "alice-2"})
    await loop.provision(session)
    first = await loop.begin_turn(session, "Tell me about my favourite mountain.")
    assert first == ""  # over budget, and no earlier block for this thread
    await loop.drain()  # the late recall lands
    second = await loop.begin_turn(session, "And what else about the mountain?")
    assert "Fuji" in second  # the late block from the previous turn
    await loop.drain()  # the second turn's write finishes in the background
    user_turns = [m for m in await inner.get_messages("alice-2") if m.role == "user"]
    assert len(user_turns) == 2  # a late recall still stores the turn
    await loop.aclose()


async def test_recall_within_budget_is_used_directly(alice: Identity) -> None:
    loop = MemoryLoop.local(":memory:", recall_budget=5.0)
    await loop.begin_turn(alice, "I collect vintage typewriters.")
    other = alice.model_copy(update={"thread_id": "alice-9"})
    assert "typewriters" in await loop.begin_turn(other, "Which typewriters do I collect?")
    await loop.aclose()


# -- search and data ----------------------------------------------------------------------------


async def test_a_long_query_is_cut_with_one_line(
    memory: MemoryLoop, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="zepkit.core"):
        results = await memory.search("q" * 401, user_id="u")
    assert results.edges == []
    cut = [r.getMessage() for r in caplog.records if "cut" in r.getMessage()]
    assert cut == ["search query cut from 401 to 400 characters"]


async def test_search_validates_its_arguments(memory: MemoryLoop) -> None:
    with pytest.raises(ValueError, match="exactly one"):
        await memory.search("x")
    with pytest.raises(ValueError, match="exactly one"):
        await memory.search("x", user_id="u", graph_id="g")
    with pytest.raises(ValueError, match="limit"):
        await memory.search("x", user_id="u", limit=51)
    with pytest.raises(ValueError, match="limit"):
        await memory.search("x", user_id="u", limit=0)
    with pytest.raises(ValueError, match="query"):
        await memory.search("  ", user_id="u")
    with pytest.raises(ValueError, match="scope"):
        await memory.search("x", user_id="u", scope="observations")
    with pytest.raises(ValueError, match="reranker"):
        await memory.search("x", user_id="u", reranker="cross_encoder")


async def test_add_data_chunks_long_documents(memory: MemoryLoop) -> None:
    await memory.ensure_user("u")
    document = "The warranty covers water damage for two years. " * 500
    episodes = await memory.add_data(document, user_id="u")
    assert len(episodes) == 3
    assert " ".join(e.content for e in episodes).split() == document.split()


async def test_add_data_json_and_shared_graph_created_on_first_use(memory: MemoryLoop) -> None:
    payload = json.dumps({"policy": "Returns accepted within 30 days", "region": "EU"})
    episodes = await memory.add_data(payload, type="json", graph_id="policies")
    assert len(episodes) == 1
    hits = await memory.search("returns accepted days", graph_id="policies")
    assert hits.edges and "30 days" in hits.edges[0].fact
    with pytest.raises(ValueError, match="JSON"):
        await memory.add_data("{not json", type="json", graph_id="policies")
    with pytest.raises(ValueError, match="type"):
        await memory.add_data("x", type="yaml", graph_id="policies")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="non-empty"):
        await memory.add_data("  ", graph_id="policies")


def test_constructor_rejects_bad_options() -> None:
    backend: Any = LocalBackend(":memory:")
    with pytest.raises(ValueError, match="recall_budget"):
        MemoryLoop(backend, recall_budget=0)
    with pytest.raises(TypeError, match="Backend"):
        MemoryLoop(object())  # type: ignore[arg-type]


async def test_local_passes_the_backends_options_on(tmp_path: Path, alice: Identity) -> None:
    path = tmp_path / "memory.db"
    async with MemoryLoop.local(path, retriever="lexical", on_error="raise") as memory:
        assert isinstance(memory.backend, LocalBackend)
        assert memory.backend.retriever == "lexical"
        assert memory.failsoft.on_error == "raise"
        assert memory.outbox is not None  # the loop's default for a file still applies
        await memory.begin_turn(alice, "I live in Leeds.")
    async with MemoryLoop.local(path, read_only=True, on_error="raise") as reader:
        assert [m.content for m in await reader.get_messages(alice.thread_id)] == [
            "I live in Leeds."
        ]
        with pytest.raises(BackendError, match=r"readonly|read-only"):
            await reader.add_messages(alice.thread_id, [Message("user", "I moved to York.")])


def test_an_option_neither_takes_is_named_with_what_each_takes(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match=r"unknown option 'retreiver'.*retriever") as raised:
        MemoryLoop.local(tmp_path / "memory.db", retreiver="lexical")
    assert "on_error" in str(raised.value)  # the loop's own, listed too
    assert not (tmp_path / "memory.db").exists()  # refused before anything was opened
    with pytest.raises(TypeError, match=r"unknown options 'colour', 'size'.*base_url"):
        MemoryLoop.zep(api_key="z_test", colour="blue", size=3)


@pytest.mark.parametrize(
    ("setting", "error"),
    [
        ({"on_error": "ignore"}, ValueError),
        ({"max_context_chars": 0}, ValueError),
        ({"deadline": -1}, ValueError),
        ({"recall_budget": 0}, ValueError),
        ({"template": "no placeholder"}, ConfigurationError),
    ],
)
def test_a_bad_loop_setting_is_refused_before_a_backend_is_opened(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, setting: dict[str, Any], error: type
) -> None:
    with pytest.raises(error):
        MemoryLoop.local(tmp_path / "memory.db", **setting)
    assert not (tmp_path / "memory.db").exists()  # no file made and left open
    monkeypatch.delenv("ZEP_API_KEY", raising=False)
    with pytest.raises(error):  # the setting named, not the missing key found on the way
        MemoryLoop.zep(**setting)


async def test_a_deleted_thread_can_be_used_again(memory: MemoryLoop, alice: Identity) -> None:
    await memory.begin_turn(alice, "First life of this thread.")
    await memory.delete_thread(alice.thread_id)
    await memory.begin_turn(alice, "Second life of this thread.")
    assert [m.content for m in await memory.get_messages(alice.thread_id)] == [
        "Second life of this thread."
    ]


async def test_add_data_creates_the_user_on_first_use(memory: MemoryLoop) -> None:
    episodes = await memory.add_data("Prefers aisle seats on long flights.", user_id="newbie")
    assert len(episodes) == 1
    hits = await memory.search("aisle seats", user_id="newbie")
    assert hits.edges


async def test_per_call_budget_covers_provisioning_and_drain_waits(alice: Identity) -> None:
    inner = LocalBackend(":memory:")
    await MemoryLoop(inner).begin_turn(alice, "My favourite lake is Lake Bled.")
    slow = SlowBackend(inner, delay=0.2)
    loop = MemoryLoop(slow)  # no loop-wide budget
    session = alice.model_copy(update={"thread_id": "alice-new"})
    # a first turn on a new thread: provisioning is slow too, and still inside the budget
    assert await loop.begin_turn(session, "Which lake do I like?", recall_budget=0.05) == ""
    await loop.drain()
    stored = [m.content for m in await inner.get_messages("alice-new")]
    assert stored == ["Which lake do I like?"]
    late = await loop.begin_turn(session, "Tell me about that lake.", recall_budget=0.05)
    assert "Bled" in late  # the late block from the previous turn
    await loop.drain()
    with pytest.raises(ValueError, match="recall_budget"):
        await loop.begin_turn(session, "x", recall_budget=0)
    await loop.aclose()
