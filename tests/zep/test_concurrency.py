"""Concurrent first turns create exactly one Zep user and one Zep thread."""

from __future__ import annotations

import asyncio
from pathlib import Path

from zepkit.core import Identity, MemoryLoop
from zepkit.core._backend import UserProfile
from zepkit.zep import SqliteIdMap, ZepBackend
from zepkit.zep.testing import FakeZep, Fault


async def test_twenty_first_turns_through_the_loop(fake: FakeZep) -> None:
    loop = MemoryLoop(ZepBackend(fake.client(), owns_client=True, max_retries=0))
    identity = Identity(user_id="alice", thread_id="t1")
    fake.fail(Fault(delay=0.01), times=None)  # let the turns interleave
    blocks = await asyncio.gather(*(loop.begin_turn(identity, f"turn {i}") for i in range(20)))
    assert len(blocks) == 20
    assert len(fake.calls("POST", "/users")) == 1 and len(fake.users) == 1
    assert len(fake.calls("POST", "/threads")) == 1 and len(fake.threads) == 1
    assert len(next(iter(fake.messages.values()))) == 20
    await loop.aclose()


async def test_twenty_concurrent_ensures_on_one_backend(fake: FakeZep) -> None:
    backend = ZepBackend(fake.client(), max_retries=0)
    fake.fail(Fault(delay=0.01), times=None)
    users = await asyncio.gather(*(backend.ensure_user(UserProfile("bob")) for _ in range(20)))
    threads = await asyncio.gather(*(backend.ensure_thread("tb", "bob") for _ in range(20)))
    assert users.count(True) == 1 and threads.count(True) == 1
    assert len(fake.calls("POST", "/users")) == 1
    assert len(fake.calls("POST", "/threads")) == 1
    assert len(fake.threads) == 1


async def test_two_processes_sharing_a_durable_map(fake: FakeZep, tmp_path: Path) -> None:
    """Two backends (as two processes would) on one SQLite id map and one Zep account."""
    backends = [
        ZepBackend(fake.client(), id_map=SqliteIdMap(tmp_path / "ids.db"), max_retries=0)
        for _ in range(2)
    ]
    fake.fail(Fault(delay=0.01), times=None)
    await asyncio.gather(
        *(b.ensure_user(UserProfile("carol")) for b in backends for _ in range(10))
    )
    await asyncio.gather(*(b.ensure_thread("tc", "carol") for b in backends for _ in range(10)))
    assert len(fake.users) == 1
    assert len(fake.threads) == 1  # the shared create key makes Zep answer both with one thread
    maps = [await b.id_map.get("thread", "tc") for b in backends]
    assert maps[0] == maps[1] == next(iter(fake.threads))
