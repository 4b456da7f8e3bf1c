"""The memory file: private when new, refused at open when it cannot serve, never adopted when it
belongs to another application, and inspected by the CLI without being changed."""

from __future__ import annotations

import asyncio
import hashlib
import os
import shutil
import sqlite3
import stat
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from zepkit.core import Identity, MemoryLoop
from zepkit.core._backend import UserProfile
from zepkit.core._errors import BackendError
from zepkit.core._models import Message
from zepkit.local import LocalBackend
from zepkit.testing._fakes import FailingBackend
from zepkit.zep import SqliteIdMap

MAYA = Identity(user_id="maya", thread_id="t1")


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


async def _filled(path: Path, turns: int = 120) -> None:
    async with MemoryLoop.local(path) as memory:
        earlier = MAYA.model_copy(update={"thread_id": "t0"})  # a block never repeats its thread
        for n in range(turns - 1):
            await memory.begin_turn(earlier, f"note {n}: herons, tea and the harbour at dawn " * 4)
        await memory.begin_turn(MAYA, "Where do the herons go?")


async def test_a_new_database_and_its_side_files_are_private(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        backend = LocalBackend(tmp_path / "memory.db")
        await backend.ensure_user(UserProfile("maya"))
        ids = SqliteIdMap(tmp_path / "ids.db")
        await ids.set("thread", "t1", "uuid-1")
        files = sorted(await asyncio.to_thread(lambda: list(tmp_path.iterdir())))
        names = {p.name for p in files}
        assert {"memory.db", "memory.db-wal", "memory.db-shm", "ids.db"} <= names
        assert {p.name: _mode(p) for p in files} == {p.name: 0o600 for p in files}
        await backend.aclose()
    finally:
        os.umask(old)


async def test_a_corrupt_database_fails_at_open(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    await _filled(path)
    data = bytearray(path.read_bytes())
    for page in range(len(data) // 2 // 4096, len(data) // 4096 - 1):  # the later pages only
        data[page * 4096 + 100 : page * 4096 + 400] = bytes(range(256)) + bytes(44)
    path.write_bytes(bytes(data))
    with pytest.raises(BackendError, match="corrupt"):
        LocalBackend(path)


@pytest.fixture
def read_only_file(tmp_path: Path) -> Iterator[Path]:
    """A zepkit database this process cannot write (immutable when running as root)."""
    path = tmp_path / "memory.db"
    asyncio.run(_filled(path, turns=3))
    if os.geteuid() != 0:
        path.chmod(0o444)
        yield path
        path.chmod(0o600)
        return
    if shutil.which("chattr") is None or _chattr("+i", path).returncode != 0:
        pytest.skip("running as root without chattr: no file is read-only to this process")
    try:
        yield path
    finally:
        _chattr("-i", path)


def _chattr(flag: str, path: Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["chattr", flag, str(path)], capture_output=True, check=False)


def test_a_read_only_database_fails_at_open(read_only_file: Path) -> None:
    with pytest.raises(BackendError, match="read-only"):
        LocalBackend(read_only_file)
    # opening it for reading is fine
    asyncio.run(_count_messages(read_only_file, expected=1))  # the question; notes are in t0


async def _count_messages(path: Path, expected: int) -> None:
    async with LocalBackend(path, read_only=True) as backend:
        assert len(await backend.get_messages("t1")) == expected
        with pytest.raises(BackendError, match="opened with read_only=True"):
            await backend.add_messages("t1", [Message("user", "no")])


def _foreign(path: Path) -> str:
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)")
        conn.execute("INSERT INTO invoices (total) VALUES (12.5)")
    conn.close()
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_another_applications_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "app.db"
    digest = _foreign(path)
    with pytest.raises(BackendError, match="another application"):
        LocalBackend(path)
    with pytest.raises(BackendError, match="another application"):
        LocalBackend(path, read_only=True)
    assert hashlib.sha256(path.read_bytes()).hexdigest() == digest


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "zepkit.core._cli", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize(
    "command", [["search", "--user", "maya", "herons"], ["context", "--thread", "t1"]]
)
def test_cli_inspection_reads_without_writing(tmp_path: Path, command: Sequence[str]) -> None:
    foreign = tmp_path / "app.db"
    digest = _foreign(foreign)
    refused = _cli(command[0], "--db", str(foreign), *command[1:])
    assert refused.returncode == 2 and "another application" in refused.stderr
    assert hashlib.sha256(foreign.read_bytes()).hexdigest() == digest
    assert sorted(p.name for p in tmp_path.iterdir()) == ["app.db"]

    ours = tmp_path / "memory.db"
    asyncio.run(_filled(ours, turns=8))
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.name.startswith("memory")}
    shown = _cli(command[0], "--db", str(ours), *command[1:])
    assert shown.returncode == 0, shown.stderr
    assert "herons" in shown.stdout
    after = {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.name.startswith("memory")}
    assert after["memory.db"] == before["memory.db"]


class SlowWrites(FailingBackend):
    """Delays only message writes, past the old five-second grace of `aclose`."""

    async def add_messages(
        self,
        thread_id: str,
        messages: Sequence[Message],
        *,
        return_context: bool = False,
        user_id: str | None = None,
        idempotency_key: str | None = None,
    ) -> str | None:
        await asyncio.sleep(5.5)
        return await self.inner.add_messages(
            thread_id,
            messages,
            return_context=return_context,
            user_id=user_id,
            idempotency_key=idempotency_key,
        )


async def test_close_waits_for_late_recalls_to_store_their_turn(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    memory = MemoryLoop(SlowWrites(LocalBackend(path), fail_on=frozenset()), recall_budget=0.05)
    assert await memory.begin_turn(MAYA, "My new PIN is 9911.") == ""  # over budget
    await memory.aclose()
    async with LocalBackend(path) as backend:
        assert [m.content for m in await backend.get_messages("t1")] == ["My new PIN is 9911."]
