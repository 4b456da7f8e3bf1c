"""Export and import as JSON Lines: a round trip keeps every record, a re-run adds nothing, an
interrupted import run again gives exactly one copy, and bad files are refused by line."""

from __future__ import annotations

import io
import json
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from zepkit.core import (
    BackendUnavailableError,
    ConflictError,
    MemoryLoop,
    Message,
    NotFoundError,
    TransferCounts,
    export_memory,
    import_memory,
)
from zepkit.local import LocalBackend
from zepkit.testing import FailingBackend

Seed = Callable[[MemoryLoop], Awaitable[None]]
Records = Callable[[str], list[dict[str, Any]]]


async def export_text(memory: MemoryLoop, **options: Any) -> str:
    stream = io.StringIO()
    await export_memory(memory, stream, **options)
    return stream.getvalue()


@pytest.fixture
async def source(tmp_path: Path, transfer_seed: Seed) -> Any:
    memory = MemoryLoop.local(tmp_path / "source.db", on_error="raise")
    await transfer_seed(memory)
    yield memory
    await memory.aclose()


async def test_round_trip_keeps_every_record(
    source: MemoryLoop, tmp_path: Path, records: Records
) -> None:
    exported = await export_text(source)
    everything = [json.loads(line) for line in exported.splitlines()]
    facts = [r for r in everything if r["type"] == "fact"]
    lines = [r for r in everything if r["type"] != "fact"]
    assert lines[0]["type"] == "header" and lines[0]["version"] == 1
    assert [r["type"] for r in lines[1:6]] == ["user", "data", "data", "thread", "message"]
    assert lines[2] == {
        "type": "data",
        "user_id": "ana",
        "data_type": "text",
        "content": "Ana prefers email over phone.",
        "created_at": "2024-03-01T09:00:00Z",
        "metadata": {"source": "crm"},
    }
    assert lines[5] == {
        "type": "message",
        "thread_id": "ana-long",
        "seq": 0,
        "role": "user",
        "content": "Turn 0: café ☕ talk about herons, line 0.",
        "name": "Ana",
        "created_at": "2024-03-01T09:00:00Z",
        "metadata": {"n": 0},
    }
    ana_facts = [f["fact"] for f in facts if f["user_id"] == "ana"]
    assert any("email" in fact for fact in ana_facts), ana_facts
    assert {"uuid", "fact", "valid_at", "invalid_at", "created_at"} <= set(facts[0])

    async with MemoryLoop.local(tmp_path / "target.db", on_error="raise") as target:
        counts = await import_memory(target, io.StringIO(exported))
        assert counts == TransferCounts(users=2, threads=3, messages=70, data=2, facts=len(facts))
        assert counts.import_summary() == (
            f"2 users, 3 threads, 70 messages, 2 data items ({len(facts)} facts not imported: "
            "the target derives its own)"
        )
        assert records(await export_text(target)) == records(exported)
        ana = await target.get_user("ana")
        assert (ana.email, ana.metadata) == ("ana@example.com", {"plan": "pro"})


async def test_a_second_import_adds_nothing(
    source: MemoryLoop, tmp_path: Path, records: Records
) -> None:
    exported = await export_text(source)
    async with MemoryLoop.local(tmp_path / "target.db", on_error="raise") as target:
        await import_memory(target, io.StringIO(exported))
        again = await import_memory(target, io.StringIO(exported))
        assert replace(again, facts=0) == TransferCounts(
            users=2, threads=3, messages=70, data=2, skipped=72, messages_there=70, data_there=2
        )
        assert again.import_summary() == (
            "2 users, 3 threads, 0 messages, 0 data items (70 messages and 2 data items already "
            f"there; {again.facts} facts not imported: the target derives its own)"
        )
        assert records(await export_text(target)) == records(exported)


class Interrupting(FailingBackend):
    """Takes `calls` message writes, then fails every later one; with `stored`, the failing write
    is stored first (its answer is lost, as when a connection drops after the commit)."""

    def __init__(self, inner: LocalBackend, calls: int, *, stored: bool) -> None:
        super().__init__(inner, fail_on=frozenset())
        self.left, self.stored = calls, stored

    async def add_messages(self, thread_id: str, messages: Sequence[Message], **kw: Any) -> Any:
        if self.left == 0:
            if self.stored:
                await self.inner.add_messages(thread_id, messages, **kw)
            raise BackendUnavailableError("connection lost (simulated)")
        self.left -= 1
        return await self.inner.add_messages(thread_id, messages, **kw)


@pytest.mark.parametrize("stored", [False, True], ids=["lost-write", "lost-answer"])
async def test_an_interrupted_import_run_again_gives_one_copy(
    source: MemoryLoop, tmp_path: Path, stored: bool, records: Records
) -> None:
    exported = await export_text(source)
    path = tmp_path / "target.db"
    broken = MemoryLoop(Interrupting(LocalBackend(path), 1, stored=stored), on_error="raise")
    with pytest.raises(BackendUnavailableError):
        await import_memory(broken, io.StringIO(exported))
    await broken.aclose()
    async with MemoryLoop.local(path, on_error="raise") as target:
        halfway = (await target.list_messages("ana-long", limit=100)).items
        assert len(halfway) == (60 if stored else 30)  # one or two batches of 30 got in
        counts = await import_memory(target, io.StringIO(exported))
        assert counts.skipped == len(halfway) + 2  # the data items got in before the messages
        assert (counts.messages_there, counts.data_there) == (len(halfway), 2)
        assert counts.import_summary().startswith(
            f"2 users, 3 threads, {70 - len(halfway)} messages, 0 data items "
            f"({len(halfway)} messages and 2 data items already there; "
        )
        assert records(await export_text(target)) == records(exported)


async def test_export_of_chosen_users(source: MemoryLoop, records: Records) -> None:
    exported = records(await export_text(source, user_ids=["bo"]))
    assert [(r["type"], r.get("content")) for r in exported] == [
        ("header", None),
        ("user", None),
        ("thread", None),
        ("message", "Bo here."),
    ]
    with pytest.raises(NotFoundError):
        await export_text(source, user_ids=["nobody"])
    with pytest.raises(TypeError, match="list of ids"):
        await export_text(source, user_ids="bo")


async def test_import_refuses_a_thread_holding_other_messages(
    source: MemoryLoop, tmp_path: Path
) -> None:
    exported = await export_text(source, user_ids=["bo"])
    async with MemoryLoop.local(tmp_path / "target.db", on_error="raise") as target:
        await target.ensure_user("bo")
        await target.ensure_thread("bo-1", user_id="bo")
        await target.add_messages("bo-1", [Message("user", "Something else entirely.")])
        with pytest.raises(ConflictError, match=r"line \d+: thread 'bo-1' already holds other"):
            await import_memory(target, io.StringIO(exported))


HEADER = '{"type":"header","format":"zepkit-export","version":1}'
USER = '{"type":"user","user_id":"u"}'
THREAD = '{"type":"thread","thread_id":"t","user_id":"u"}'


@pytest.mark.parametrize(
    ("lines", "error"),
    [
        ([], "the file is empty"),
        ([USER], "line 1: not a zepkit export"),
        (['{"type":"header","format":"zepkit-export","version":2}'], "version 2 is newer"),
        ([HEADER, "{not json"], "line 2: not JSON"),
        ([HEADER, '{"type":"edge"}'], "line 2: unknown record type 'edge'"),
        ([HEADER, '{"type":"user"}'], "line 2: invalid user record \\(user_id: Field required"),
        ([HEADER, THREAD], "line 2: thread 't' comes before the record of its user 'u'"),
        (
            [HEADER, '{"type":"data","user_id":"u","data_type":"text","content":"x"}'],
            "line 2: data comes before the record of its user 'u'",
        ),
        (
            [HEADER, USER, json.dumps({"type": "data", "user_id": "u", "data_type": "pdf"})],
            "line 3: invalid data record \\(data_type:",
        ),
        (
            [
                HEADER,
                USER,
                json.dumps(
                    {"type": "data", "user_id": "u", "data_type": "text", "content": "x" * 10_001}
                ),
            ],
            "line 3: data of 10,001 characters; an item holds at most 10,000",
        ),
        (
            [
                HEADER,
                USER,
                '{"type":"message","thread_id":"t","seq":0,"role":"user","content":"x"}',
            ],
            "line 3: message of thread 't' comes before",
        ),
        (
            [
                HEADER,
                USER,
                THREAD,
                '{"type":"message","thread_id":"t","seq":1,"role":"user","content":"x"}',
            ],
            "line 4: message seq 1 of thread 't' where 0 was expected",
        ),
        (
            [
                HEADER,
                USER,
                THREAD,
                '{"type":"message","thread_id":"t","seq":0,"role":"robot","content":"x"}',
            ],
            "line 4: invalid message record \\(role:",
        ),
    ],
)
async def test_bad_files_are_refused_by_line(
    memory: MemoryLoop, lines: list[str], error: str
) -> None:
    with pytest.raises(ValueError, match=error):
        await import_memory(memory, lines)
