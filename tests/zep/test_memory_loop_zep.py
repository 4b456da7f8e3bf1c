"""`MemoryLoop.zep()`: the one-line way onto Zep Cloud."""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
from pathlib import Path

import pytest

from zepkit.core import ConfigurationError, Identity, MemoryLoop
from zepkit.zep import SqliteIdMap, ZepBackend
from zepkit.zep.testing import FakeZep


def test_missing_key_says_how_to_set_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ZEP_API_KEY", raising=False)
    with pytest.raises(ConfigurationError, match="ZEP_API_KEY"):
        MemoryLoop.zep()


async def test_key_from_environment_and_options_pass_through(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("ZEP_API_KEY", "z_test")
    id_map = SqliteIdMap(tmp_path / "ids.db")
    loop = MemoryLoop.zep(base_url="http://zep.test/api/v4", id_map=id_map, recall_budget=0.25)
    assert isinstance(loop.backend, ZepBackend)
    assert loop.backend.owns_client
    assert loop.backend.id_map is id_map
    assert loop.recall_budget == 0.25
    assert loop.capabilities.supports("observations", "cross_encoder")
    await loop.aclose()


async def test_a_callers_client_is_used_and_never_closed() -> None:
    fake = FakeZep()
    client = fake.client()
    loop = MemoryLoop.zep(client=client)
    assert isinstance(loop.backend, ZepBackend)
    assert loop.backend.client is client
    assert not loop.backend.owns_client
    assert await loop.ensure_user("ana") is True
    await loop.aclose()
    assert await loop.ensure_user("ana") is False  # still usable: zepkit did not close it
    with pytest.raises(ValueError, match="client"):
        MemoryLoop.zep(client=client, api_key="z_other")


def test_owned_clients_are_made_one_per_event_loop() -> None:
    # An HTTP connection pool must not cross event loops; adapters and the sync facade may
    # drive one backend from several, so an owned backend keeps one client per loop.
    import asyncio

    from zep_cloud.client import AsyncZep

    fake = FakeZep()
    made: list[AsyncZep] = []

    def factory() -> AsyncZep:
        client = fake.client()
        made.append(client)
        return client

    memory = MemoryLoop(ZepBackend(factory(), client_factory=factory))
    asyncio.run(memory.ensure_user("ana"))  # loop 1 uses the first client
    asyncio.run(memory.ensure_thread("t1", user_id="ana"))  # loop 2 gets its own
    assert memory.sync.ensure_thread("t2", user_id="ana") is True  # the facade's loop: a third
    assert len(made) == 3
    assert len(fake.calls("POST", "/threads")) == 2
    memory.sync.close()  # closes the clients of loops still alive: the facade's
    assert made[-1]._client_wrapper.httpx_client.httpx_client.is_closed


def _closed_port() -> int:
    """A loopback port nothing listens on (connections are refused at once)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def test_writes_during_an_outage_wait_in_a_default_outbox(tmp_path: Path) -> None:
    # Nothing said is lost by default: with no outbox= the loop keeps one per Zep project.
    down = f"http://127.0.0.1:{_closed_port()}/api/v4"
    loop = MemoryLoop.zep(api_key="z_alpha", base_url=down, max_retries=0)
    assert loop.outbox is not None
    assert Path(loop.outbox.path).parent == Path(os.environ["ZEPKIT_STATE_DIR"])
    await loop.begin_turn(Identity(user_id="ana", thread_id="t1"), "My locker code is 4471.")
    status = await loop.outbox_status()
    assert status is not None and status.pending == 1
    other = MemoryLoop.zep(api_key="z_bravo", base_url=down)
    assert other.outbox is not None and other.outbox.path != loop.outbox.path  # per project
    assert MemoryLoop.zep(api_key="z_alpha", base_url=down, outbox=None).outbox is None
    for memory in (loop, other):
        with contextlib.suppress(Exception):
            await asyncio.wait_for(memory.aclose(), 30)
