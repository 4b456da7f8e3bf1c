"""Every turn-path operation of both backends under faults: nothing raises at the agent, nothing
waits past the loop's deadline (a hanging Zep, `Retry-After: 3600`, a locked file), and memory
works again once the fault is gone. Zep's faults are injected at the HTTP level."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from zepkit.core import Identity, MemoryLoop, Message, SearchResults
from zepkit.core._errors import BackendUnavailableError
from zepkit.zep import ZepBackend
from zepkit.zep.testing import FakeZep, Fault

SECRET = "my secret ramen recipe uses miso"
DEADLINE = 0.3
GUARD = 20.0  # a test that waits this long has stalled: the deadline did not hold
ANA = Identity(user_id="ana", thread_id="ana-1", first_name="Ana")
NEWCOMER = Identity(user_id="newcomer", thread_id="new-1")

ZEP_FAULTS = {
    "500": Fault(status=500),
    "503 retry-after": Fault(status=503, headers={"Retry-After": "1"}),
    "429 retry-after 3600": Fault(status=429, headers={"Retry-After": "3600"}),
    "401": Fault(status=401),
    "404": Fault(status=404),
    "read timeout": Fault(timeout=True),
    "connection refused": Fault(connect_error=True),
    "invalid json": Fault(invalid_json=True),
    "hang": Fault(delay=3600),
}


@dataclass
class Harness:
    memory: MemoryLoop
    inject: Callable[[], None]
    clear: Callable[[], None]
    transient: bool  # an outage (kept and replayed), not a refusal


Operation = Callable[[MemoryLoop], Awaitable[object]]

OPERATIONS: dict[str, tuple[Operation, Callable[[object], bool]]] = {
    "first turn": (lambda m: m.begin_turn(NEWCOMER, SECRET), lambda r: r == ""),
    "turn": (lambda m: m.begin_turn(ANA, SECRET), lambda r: isinstance(r, str)),
    "turn within a recall budget": (
        lambda m: m.begin_turn(ANA, SECRET, recall_budget=0.05),
        lambda r: isinstance(r, str),
    ),
    "capture_reply": (lambda m: m.capture_reply(ANA, SECRET), lambda r: isinstance(r, bool)),
    "add_messages": (
        lambda m: m.add_messages("ana-1", [Message("user", SECRET)], return_context=True),
        lambda r: r is None or isinstance(r, str),
    ),
    "get_context": (lambda m: m.get_context("ana-1"), lambda r: r is None or isinstance(r, str)),
    "get_messages": (lambda m: m.get_messages("ana-1"), lambda r: isinstance(r, list)),
    "search": (
        lambda m: m.search("ramen", user_id="ana"),
        lambda r: isinstance(r, SearchResults),
    ),
    "search tool": (
        lambda m: m.search_tool().call({"query": "ramen"}, ANA),
        lambda r: isinstance(r, str),
    ),
    "add_data": (lambda m: m.add_data(SECRET, user_id="ana"), lambda r: isinstance(r, list)),
}


PERMANENT = {"401", "404", "invalid json"}


async def _zep(name: str, outbox: Path) -> Harness:
    fake = FakeZep()
    # the SDK's own retries on, as with a client zepkit makes: they must not outlast the deadline
    backend = ZepBackend(fake.client(max_retries=2), owns_client=True)
    return Harness(
        MemoryLoop(backend, deadline=DEADLINE, outbox=outbox),
        lambda: fake.fail(ZEP_FAULTS[name], times=None),
        fake.clear_faults,
        name not in PERMANENT,
    )


def _local(path: Path) -> Harness:
    holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)

    def lock() -> None:  # another process holds the write lock
        holder.execute("BEGIN IMMEDIATE")

    def unlock() -> None:
        if holder.in_transaction:
            holder.execute("ROLLBACK")

    return Harness(MemoryLoop.local(path, deadline=DEADLINE), lock, unlock, True)


@pytest.fixture(
    params=["local: file locked by another process", *(f"zep: {f}" for f in ZEP_FAULTS)]
)
async def harness(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Harness]:
    name: str = request.param
    if name.startswith("local"):
        made = _local(tmp_path / "memory.db")
    else:
        made = await _zep(name.removeprefix("zep: "), tmp_path / "outbox.db")
    await made.memory.begin_turn(ANA, "I like green tea.")
    yield made
    made.clear()
    await made.memory.aclose()


async def test_every_turn_path_operation_survives_the_fault(
    harness: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    memory = harness.memory
    harness.inject()
    with caplog.at_level(logging.DEBUG, logger="zepkit"):
        async with asyncio.timeout(GUARD):
            for name, (operation, neutral) in OPERATIONS.items():
                result = await operation(memory)
                assert neutral(result), (name, result)
            await memory.drain()  # late recalls end by the deadline too
    assert "miso" not in caplog.text

    harness.clear()
    async with asyncio.timeout(GUARD):
        await memory.begin_turn(ANA, "After the outage: I moved to Porto.")
        assert await memory.capture_reply(ANA, "Porto is lovely.") is True
        await memory.drain()  # what the outbox kept is replayed
    contents = [m.content for m in await memory.get_messages("ana-1")]
    said = [c for c in contents if c not in (SECRET, "I like green tea.")]
    assert said == ["After the outage: I moved to Porto.", "Porto is lovely."]
    if harness.transient:  # (a 404 says the thread is gone: a new one is made after it)
        assert contents[0] == "I like green tea."
    # an outage loses nothing (4 writes to the thread); a refusal for good is not kept
    assert contents.count(SECRET) == (4 if harness.transient else 0)
    newcomer = [m.content for m in await memory.get_messages("new-1")]
    assert newcomer == ([SECRET] if harness.transient else [])
    status = await memory.outbox_status()
    assert status is not None and status.pending == 0


async def test_the_recall_budget_bounds_search_and_the_tool() -> None:
    fake = FakeZep()
    memory = MemoryLoop(
        ZepBackend(fake.client(), owns_client=True), recall_budget=0.2, deadline=None
    )
    await memory.begin_turn(ANA, "I like green tea.")
    fake.fail(Fault(delay=3600), times=None)
    async with asyncio.timeout(GUARD):
        answer = await memory.search_tool().call({"query": "tea"}, ANA)
        found = await memory.search("tea", user_id="ana")
    assert answer.startswith("Memory search failed")
    assert found == SearchResults(scope="edges")
    fake.clear_faults()
    await memory.aclose()


async def test_user_creation_is_bounded_by_the_deadline() -> None:
    fake = FakeZep()
    memory = MemoryLoop(ZepBackend(fake.client(max_retries=2), owns_client=True), deadline=0.5)
    fake.fail(Fault(delay=3600), times=None, route="POST /users")
    async with asyncio.timeout(GUARD):
        assert await memory.begin_turn(NEWCOMER, "hello") == ""
        with pytest.raises(BackendUnavailableError, match=r"within 0\.5 s"):
            await memory.ensure_user("someone")
    fake.clear_faults()
    await memory.aclose()


@pytest.mark.parametrize("value", [0, -1, "10", True])
def test_deadline_must_be_a_positive_number(value: object) -> None:
    from zepkit.local import LocalBackend

    with pytest.raises(ValueError, match="deadline"):
        MemoryLoop(LocalBackend(), deadline=value)  # type: ignore[arg-type]
