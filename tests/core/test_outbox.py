"""The outbox: what is said while memory is unavailable is kept on disk, acknowledged, replayed in
order with its idempotency keys once memory is back (in the background, on drain and on close),
survives a restart and a kill, is bounded, and can be inspected and replayed from the CLI."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from zepkit.core import ConfigurationError, Identity, MemoryLoop, _cli
from zepkit.core._outbox import Outbox
from zepkit.local import LocalBackend
from zepkit.zep import SqliteIdMap, ZepBackend
from zepkit.zep.testing import FakeZep, Fault

ANA = Identity(user_id="ana", thread_id="ana-1", first_name="Ana")
GUARD = 30.0


def _zep(fake: FakeZep, tmp_path: Path, **options: object) -> MemoryLoop:
    backend = ZepBackend(fake.client(), id_map=SqliteIdMap(tmp_path / "ids.db"), owns_client=True)
    return MemoryLoop(backend, outbox=tmp_path / "outbox.db", **options)  # type: ignore[arg-type]


def _conversation(turns: int) -> list[tuple[str, str]]:
    return [(f"user says {n} about herons", f"assistant answers {n}") for n in range(turns)]


async def _talk(memory: MemoryLoop, turns: list[tuple[str, str]]) -> None:
    for said, answered in turns:
        await memory.begin_turn(ANA, said)
        assert await memory.capture_reply(ANA, answered) is True  # acknowledged: kept


async def test_a_zep_outage_loses_nothing_and_keeps_the_order(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    fake = FakeZep()
    memory = _zep(fake, tmp_path, deadline=1.0)
    await memory.begin_turn(ANA, "before the outage")
    fake.fail(Fault(status=503), times=None)
    outage = _conversation(8)
    with caplog.at_level(logging.WARNING, logger="zepkit"):
        async with asyncio.timeout(GUARD):
            await _talk(memory, outage)
    tried = len(fake.calls("POST", "/threads/*/messages"))
    assert tried < 8  # after the first failure, writes queue behind it instead of each waiting
    assert "kept in the outbox" in caplog.text
    status = await memory.outbox_status()
    assert status is not None and status.pending == 16

    fake.clear_faults()
    await memory.begin_turn(ANA, "after the outage")  # queued behind the kept writes
    await memory.drain()
    stored = [m.content for m in await memory.get_messages("ana-1")]
    expected = [text for pair in outage for text in pair]
    assert stored == ["before the outage", *expected, "after the outage"]
    keys = [r.headers["idempotency-key"] for r in fake.calls("POST", "/threads/*/messages")]
    assert len(set(keys[tried:])) == len(keys[tried:])  # one key per write, replays included
    await memory.aclose()


async def test_kept_writes_are_replayed_in_the_background(tmp_path: Path) -> None:
    fake = FakeZep()
    memory = _zep(fake, tmp_path)
    fake.fail(Fault(connect_error=True), times=None)
    await _talk(memory, _conversation(2))
    fake.clear_faults()
    async with asyncio.timeout(GUARD):  # nobody calls drain: the background task delivers
        await _until_empty(memory)
    assert len(await memory.get_messages("ana-1")) == 4
    await memory.aclose()


async def _until_empty(memory: MemoryLoop) -> None:
    for _ in range(600):
        status = await memory.outbox_status()
        if status is not None and status.pending == 0:
            return
        await asyncio.sleep(0.05)


async def test_kept_writes_survive_a_restart(tmp_path: Path) -> None:
    fake = FakeZep()
    first = _zep(fake, tmp_path)
    fake.fail(Fault(status=502), times=None)
    await _talk(first, _conversation(3))
    await first.aclose()  # still down: the writes stay on disk

    fake.clear_faults()
    second = _zep(fake, tmp_path)  # a new process on the same outbox file
    await second.begin_turn(ANA, "back again")
    await second.drain()
    stored = [m.content for m in await second.get_messages("ana-1")]
    assert stored == [*(t for pair in _conversation(3) for t in pair), "back again"]
    await second.aclose()


async def test_a_locked_local_file_loses_nothing(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    memory = MemoryLoop.local(path, deadline=2.0)
    await memory.begin_turn(ANA, "before the lock")
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another process holds the write lock
    try:
        async with asyncio.timeout(GUARD):
            await _talk(memory, _conversation(3))
        status = await memory.outbox_status()
        assert status is not None and status.pending == 6
        assert status.path == f"{path}.outbox"
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    await memory.aclose()  # close replays what waits
    async with LocalBackend(path) as backend:
        stored = [m.content for m in await backend.get_messages("ana-1")]
    assert stored == ["before the lock", *(t for pair in _conversation(3) for t in pair)]


async def test_the_outbox_file_appears_only_when_needed_and_is_private(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    async with MemoryLoop.local(path) as memory:
        await memory.begin_turn(ANA, "nothing goes wrong")
    assert not (tmp_path / "memory.db.outbox").exists()
    fake = FakeZep()
    memory = _zep(fake, tmp_path)
    fake.fail(Fault(status=500), times=None)
    await memory.begin_turn(ANA, "kept")
    assert (tmp_path / "outbox.db").stat().st_mode & 0o777 == 0o600
    fake.clear_faults()
    await memory.aclose()


async def test_a_full_outbox_refuses_new_writes_and_says_they_are_lost(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    fake = FakeZep()
    backend = ZepBackend(fake.client(), owns_client=True)
    memory = MemoryLoop(backend, outbox=Outbox(tmp_path / "outbox.db", max_items=3))
    fake.fail(Fault(status=503), times=None)
    with caplog.at_level(logging.WARNING, logger="zepkit"):
        for n in range(5):
            await memory.begin_turn(ANA, f"message {n}")
    assert "OutboxFullError" in caplog.text
    status = await memory.outbox_status()
    assert status is not None and status.pending == 3
    fake.clear_faults()
    await memory.drain()
    assert [m.content for m in await memory.get_messages("ana-1")] == [
        "message 0",
        "message 1",
        "message 2",
    ]
    await memory.aclose()


async def test_a_write_refused_for_good_is_set_aside_not_retried_forever(
    tmp_path: Path,
) -> None:
    fake = FakeZep()
    memory = _zep(fake, tmp_path)
    await memory.begin_turn(ANA, "hello")
    fake.fail(Fault(status=503), times=None)
    await memory.begin_turn(ANA, "kept while down")
    fake.clear_faults()
    fake.fail(Fault(status=400), times=None, route="POST /threads/*/messages")
    await memory.drain()
    status = await memory.outbox_status()
    assert status is not None and (status.pending, status.failed) == (0, 1)
    fake.clear_faults()
    await memory.replay_outbox(failed=True)  # (the background replay may deliver it first)
    await memory.drain()
    status = await memory.outbox_status()
    assert status is not None and (status.pending, status.failed) == (0, 0)
    stored = [m.content for m in await memory.get_messages("ana-1")]
    assert stored == ["hello", "kept while down"]
    await memory.aclose()


async def test_a_replayed_local_write_is_stored_once(tmp_path: Path) -> None:
    from zepkit.core._backend import UserProfile
    from zepkit.core._models import Message

    async with LocalBackend(tmp_path / "memory.db") as backend:
        await backend.ensure_user(UserProfile("ana"))
        await backend.ensure_thread("ana-1", "ana")
        for _ in range(3):
            await backend.add_messages("ana-1", [Message("user", "once")], idempotency_key="k1")
        await backend.add_messages("ana-1", [Message("user", "once")], idempotency_key="k2")
        assert [m.content for m in await backend.get_messages("ana-1")] == ["once", "once"]


KEEPER = """
import asyncio, sys
from zepkit.core import Identity, MemoryLoop

async def main(path):
    memory = MemoryLoop.local(path, deadline=1.0)
    me = Identity(user_id="ana", thread_id="ana-1")
    n = 0
    while True:
        await memory.begin_turn(me, f"durable {n}")
        print(f"ack {n}", flush=True)
        n += 1

asyncio.run(main(sys.argv[1]))
"""


@pytest.fixture
def locked(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "memory.db"
    asyncio.run(_first_turn(path))
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    yield path
    holder.execute("ROLLBACK")
    holder.close()


async def _first_turn(path: Path) -> None:
    async with MemoryLoop.local(path) as memory:
        await memory.begin_turn(ANA, "durable start")


def test_acknowledged_kept_writes_survive_kill_9(locked: Path) -> None:
    process = subprocess.Popen(
        [sys.executable, "-c", KEEPER, str(locked)], stdout=subprocess.PIPE, text=True
    )
    assert process.stdout is not None
    acked = []
    for line in process.stdout:
        acked.append(int(line.split()[1]))
        if len(acked) == 5:
            break
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    status = Outbox(f"{locked}.outbox").status()
    assert status.pending >= 5


def test_cli_outbox_status_and_replay(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    asyncio.run(_first_turn(path))
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    asyncio.run(_keep_two(path))
    holder.execute("ROLLBACK")
    holder.close()

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "zepkit.core._cli", "outbox", *args],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )

    outbox = f"{path}.outbox"
    shown = cli("status", "--outbox", outbox)
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["pending"] == 2
    replayed = cli("replay", "--outbox", outbox, "--db", str(path))
    assert replayed.returncode == 0, replayed.stderr
    assert "delivered 2 writes; 0 wait" in replayed.stdout
    assert json.loads(cli("status", "--outbox", outbox).stdout)["pending"] == 0
    stored = asyncio.run(_messages(path))
    assert stored == ["durable start", "kept one", "kept two"]


def test_cli_outbox_of_a_database_is_its_default_one(tmp_path: Path) -> None:
    """`--db PATH` names the outbox `MemoryLoop.local(PATH)` keeps, `PATH.outbox`, made only
    when a write first waits: before that nothing waits, and nothing is made by asking."""
    path = tmp_path / "memory.db"
    asyncio.run(_first_turn(path))
    assert not Path(f"{path}.outbox").exists()
    status = _cli.main(["outbox", "status", "--db", str(path)])
    replay = _cli.main(["outbox", "replay", "--db", str(path)])
    assert (status, replay) == (0, 0)
    assert not Path(f"{path}.outbox").exists()

    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    asyncio.run(_keep_two(path))
    holder.execute("ROLLBACK")
    holder.close()
    assert _cli.outbox_of(None, str(path), zep=False) == f"{path}.outbox"
    assert _cli.main(["outbox", "replay", "--db", str(path)]) == 0
    assert asyncio.run(_messages(path)) == ["durable start", "kept one", "kept two"]


def test_cli_outbox_of_zep_needs_its_key(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("ZEP_API_KEY", raising=False)
    with pytest.raises(ConfigurationError, match="name the outbox"):
        _cli.outbox_of(None, None, zep=True)
    monkeypatch.setenv("ZEP_API_KEY", "z_test")
    monkeypatch.setenv("ZEPKIT_STATE_DIR", str(tmp_path))
    assert _cli.outbox_of(None, None, zep=True).startswith(str(tmp_path))


async def _keep_two(path: Path) -> None:
    memory = MemoryLoop.local(path, deadline=1.0)
    await memory.begin_turn(ANA, "kept one")
    await memory.begin_turn(ANA, "kept two")
    # leave without closing: a crash, as far as the outbox knows
    assert memory._spool is not None
    await memory._spool.close()


async def _messages(path: Path) -> list[str]:
    async with LocalBackend(path) as backend:
        return [m.content for m in await backend.get_messages("ana-1")]
