"""A thread id deleted by one worker and reused by another user: no write lands in the wrong
user's memory, and a thread deleted elsewhere does not break the worker that still caches it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from zepkit.core import Identity, MemoryLoop
from zepkit.zep import SqliteIdMap, ZepBackend
from zepkit.zep.testing import FakeZep

ANA = Identity(user_id="ana", thread_id="support", first_name="Ana")
BOB = Identity(user_id="bob", thread_id="support", first_name="Bob")

Workers = Callable[[], MemoryLoop]


@pytest.fixture(params=["local", "zep"])
async def workers(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Workers]:
    """Makes loops that act as separate workers sharing one store (a file, or Zep + id map)."""
    fake = FakeZep()
    made: list[MemoryLoop] = []

    def make() -> MemoryLoop:
        if request.param == "local":
            loop = MemoryLoop.local(tmp_path / "memory.db")
        else:
            backend = ZepBackend(
                fake.client(), id_map=SqliteIdMap(tmp_path / "ids.db"), owns_client=True
            )
            loop = MemoryLoop(backend)
        made.append(loop)
        return loop

    yield make
    for loop in made:
        await loop.aclose()


async def test_reused_thread_id_never_takes_another_users_write(workers: Workers) -> None:
    one, two = workers(), workers()
    await one.begin_turn(ANA, "My cat is called Miso.")
    await two.delete_thread("support")
    await two.begin_turn(BOB, "I like hiking in the Alps.")

    block = await one.begin_turn(ANA, "My new PIN is 9911.")  # worker one still caches Ana's

    assert "hiking" not in block
    stored = [m.content for m in await two.get_messages("support")]
    assert stored == ["I like hiking in the Alps."]
    found = await two.search("PIN 9911", user_id="bob", scope="episodes")
    assert not any("9911" in (e.content or "") for e in found.episodes)
    bob_block = await two.begin_turn(BOB, "What is my PIN?")
    assert "9911" not in bob_block


async def test_thread_deleted_elsewhere_is_provisioned_again(workers: Workers) -> None:
    one, two = workers(), workers()
    await one.begin_turn(ANA, "My cat is called Miso.")
    await two.delete_thread("support")

    for n in range(3):
        await one.begin_turn(ANA, f"note number {n}")
        assert await one.capture_reply(ANA, f"reply number {n}") is True

    stored = [m.content for m in await two.get_messages("support")]
    assert stored == [
        "note number 0",
        "reply number 0",
        "note number 1",
        "reply number 1",
        "note number 2",
        "reply number 2",
    ]
