"""The id maps: in-memory and durable SQLite (shared across instances and processes)."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from zepkit.zep import IdMap, InMemoryIdMap, SqliteIdMap


@pytest.fixture(params=["memory", "sqlite"])
def id_map(request: pytest.FixtureRequest, tmp_path: Path) -> IdMap:
    return InMemoryIdMap() if request.param == "memory" else SqliteIdMap(tmp_path / "ids.db")


async def test_get_set_delete(id_map: IdMap) -> None:
    assert isinstance(id_map, IdMap)
    assert await id_map.get("thread", "t1") is None
    await id_map.set("thread", "t1", "uuid-1")
    await id_map.set("graph", "t1", "uuid-g")
    assert await id_map.get("thread", "t1") == "uuid-1"
    await id_map.set("thread", "t1", "uuid-2")
    assert await id_map.get("thread", "t1") == "uuid-2"
    await id_map.delete("thread", "t1")
    await id_map.delete("thread", "never-set")
    assert await id_map.get("thread", "t1") is None
    assert await id_map.get("graph", "t1") == "uuid-g"


async def test_sqlite_is_durable_and_uses_wal(tmp_path: Path) -> None:
    path = tmp_path / "ids.db"
    await SqliteIdMap(path).set("thread", "t1", "uuid-1")
    assert await SqliteIdMap(path).get("thread", "t1") == "uuid-1"
    with sqlite3.connect(path) as connection:
        assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    connection.close()


async def test_sqlite_concurrent_writers(tmp_path: Path) -> None:
    maps = [SqliteIdMap(tmp_path / "ids.db") for _ in range(4)]
    await asyncio.gather(*(m.set("thread", f"t{i}", f"u{i}") for i in range(25) for m in maps))
    assert [await maps[0].get("thread", f"t{i}") for i in range(25)] == [f"u{i}" for i in range(25)]


def test_sqlite_shared_with_another_process(tmp_path: Path) -> None:
    path = tmp_path / "ids.db"
    script = (
        "import asyncio, sys\n"
        "from zepkit.zep import SqliteIdMap\n"
        "asyncio.run(SqliteIdMap(sys.argv[1]).set('thread', 'remote', 'uuid-r'))\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    subprocess.run([sys.executable, "-c", script, str(path)], check=True, env=env, timeout=60)
    assert asyncio.run(SqliteIdMap(path).get("thread", "remote")) == "uuid-r"


def test_sqlite_refuses_memory_path() -> None:
    with pytest.raises(ValueError, match="InMemoryIdMap"):
        SqliteIdMap(":memory:")
