"""Several processes on one file, and durability of acknowledged writes across kill -9."""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest

from zepkit.core._backend import SearchRequest
from zepkit.local import LocalBackend

WRITER = """
import asyncio, sys, time
from zepkit.core._backend import SearchRequest, UserProfile
from zepkit.core._models import Message
from zepkit.local import LocalBackend

async def main(path, name, batches, start_at):
    while time.time() < start_at:
        time.sleep(0.001)
    backend = LocalBackend(path)  # both processes create the new file's schema at once
    await backend.ensure_user(UserProfile("shared-user"))
    await backend.ensure_thread(name, "shared-user")
    for n in range(batches):
        batch = [Message("user", f"{name} batch {n} item {i} saw herons") for i in range(5)]
        await backend.add_messages(name, batch, return_context=n % 2 == 0)
        await backend.search(SearchRequest("herons", user_id="shared-user"))
    await backend.aclose()

asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])))
"""

ACKER = """
import asyncio, sys
from zepkit.core._backend import UserProfile
from zepkit.core._models import Message
from zepkit.local import LocalBackend

async def main(path):
    backend = LocalBackend(path)
    await backend.ensure_user(UserProfile("u"))
    await backend.ensure_thread("t", "u")
    n = 0
    while True:
        await backend.add_messages("t", [Message("user", f"durable note {n}")])
        print(f"ack {n}", flush=True)
        n += 1

asyncio.run(main(sys.argv[1]))
"""


def check_integrity(path: Path) -> None:
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        for table in ("episodes_fts", "statements_fts", "entities_fts"):
            conn.execute(f"INSERT INTO {table} ({table}) VALUES ('integrity-check')")


@pytest.mark.slow
def test_two_processes_write_one_new_file(
    tmp_path: Path, db_path: Path, python: str, child_env: dict[str, str]
) -> None:
    script = tmp_path / "writer.py"
    script.write_text(WRITER)
    start_at = str(time.time() + 1.0)
    writers = [
        subprocess.Popen(
            [python, str(script), str(db_path), name, "20", start_at],
            env=child_env,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in ("left", "right")
    ]
    for writer in writers:
        _, errors = writer.communicate(timeout=120)
        assert writer.returncode == 0, errors

    async def verify() -> None:
        backend = LocalBackend(db_path)
        try:
            for name in ("left", "right"):
                contents = [m.content for m in await backend.get_messages(name)]
                expected = [
                    f"{name} batch {n} item {i} saw herons" for n in range(20) for i in range(5)
                ]
                assert contents == expected
            found = await backend.search(SearchRequest("herons", user_id="shared-user", limit=50))
            assert len(found.edges) == 50
        finally:
            await backend.aclose()

    asyncio.run(verify())
    check_integrity(db_path)
    with sqlite3.connect(db_path) as conn:
        assert conn.execute("SELECT count(*) FROM users").fetchone()[0] == 1


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_acknowledged_writes_survive_kill_9(
    tmp_path: Path, db_path: Path, python: str, child_env: dict[str, str]
) -> None:
    script = tmp_path / "acker.py"
    script.write_text(ACKER)
    child = subprocess.Popen(
        [python, str(script), str(db_path)], env=child_env, stdout=subprocess.PIPE, text=True
    )
    assert child.stdout is not None
    acked: list[int] = []
    try:
        deadline = time.monotonic() + 60
        while len(acked) < 40 and time.monotonic() < deadline:
            line = child.stdout.readline()
            if not line:
                break
            acked.append(int(line.split()[1]))
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=30)
    acked += [int(line.split()[1]) for line in child.stdout.read().splitlines()]
    child.stdout.close()
    assert child.returncode == -signal.SIGKILL
    assert len(acked) >= 40

    async def stored() -> list[str]:
        backend = LocalBackend(db_path)
        try:
            return [m.content for m in await backend.get_messages("t")]
        finally:
            await backend.aclose()

    contents = asyncio.run(stored())
    assert contents[: len(acked)] == [f"durable note {n}" for n in acked]
    check_integrity(db_path)
