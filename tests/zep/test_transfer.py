"""Export and import between the local engine and Zep (over the HTTP fake), both ways."""

from __future__ import annotations

import io
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from zepkit.core import MemoryLoop, TransferCounts, export_memory, import_memory
from zepkit.zep import SqliteIdMap, ZepBackend
from zepkit.zep.testing import FakeZep

Seed = Callable[[MemoryLoop], Awaitable[None]]
Records = Callable[[str], list[dict[str, Any]]]


async def _export(memory: MemoryLoop) -> str:
    stream = io.StringIO()
    await export_memory(memory, stream)
    return stream.getvalue()


def _zep(fake: FakeZep, tmp_path: Path) -> MemoryLoop:
    backend = ZepBackend(
        fake.client(), id_map=SqliteIdMap(tmp_path / "ids.db"), owns_client=True, max_retries=0
    )
    return MemoryLoop(backend, on_error="raise")


async def test_local_to_zep_and_back(tmp_path: Path, transfer_seed: Seed, records: Records) -> None:
    fake = FakeZep()
    async with MemoryLoop.local(tmp_path / "source.db", on_error="raise") as local:
        await transfer_seed(local)
        exported = await _export(local)
    async with _zep(fake, tmp_path) as zep:
        counts = await import_memory(zep, io.StringIO(exported))
        assert replace(counts, facts=0) == TransferCounts(users=2, threads=3, messages=70, data=2)
        from_zep = await _export(zep)
        assert records(from_zep) == records(exported)
        again = await import_memory(zep, io.StringIO(exported))
        assert again.skipped == 72
    stored = sorted(m["content"] for messages in fake.messages.values() for m in messages)
    assert len(stored) == 70 == len(set(stored))
    ana = next(u for u in fake.users.values() if u["user_id"] == "ana")
    assert (ana["first_name"], ana["email"], ana["metadata"]) == (
        "Ana",
        "ana@example.com",
        {"plan": "pro"},
    )
    times = {m["reference_time"] for messages in fake.messages.values() for m in messages}
    assert "2024-03-01T09:00:00+00:00" in times  # the original times went to Zep

    async with MemoryLoop.local(tmp_path / "back.db", on_error="raise") as back:
        await import_memory(back, io.StringIO(from_zep))
        assert records(await _export(back)) == records(exported)


async def test_zep_to_local(tmp_path: Path, transfer_seed: Seed, records: Records) -> None:
    fake = FakeZep()
    async with _zep(fake, tmp_path) as zep:
        await transfer_seed(zep)
        exported = await _export(zep)
    async with MemoryLoop.local(tmp_path / "target.db", on_error="raise") as local:
        counts = await import_memory(local, io.StringIO(exported))
        assert replace(counts, facts=0) == TransferCounts(users=2, threads=3, messages=70, data=2)
        assert records(await _export(local)) == records(exported)
