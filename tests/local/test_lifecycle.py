"""Closing, and using one backend from several event loops and threads."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest

from zepkit.core._backend import SearchRequest, UserProfile
from zepkit.core._errors import BackendError
from zepkit.core._models import Message
from zepkit.local import LocalBackend


async def test_close_is_safe_twice_and_later_calls_fail() -> None:
    backend = LocalBackend()
    await backend.ensure_user(UserProfile("u"))
    await backend.aclose()
    await backend.aclose()
    with pytest.raises(BackendError, match="closed"):
        await backend.ensure_user(UserProfile("u"))
    with pytest.raises(BackendError, match="closed"):
        await backend.search(SearchRequest("q", user_id="u"))


async def test_async_context_manager_closes() -> None:
    async with LocalBackend() as backend:
        await backend.ensure_graph("g")
    with pytest.raises(BackendError, match="closed"):
        await backend.ensure_graph("g")


async def test_calls_queued_before_close_still_complete(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    backend = LocalBackend(path)
    await backend.ensure_user(UserProfile("u"))
    await backend.ensure_thread("t", "u")
    writes = [backend.add_messages("t", [Message("user", f"m{n}")]) for n in range(10)]
    pending = asyncio.gather(*writes)
    await asyncio.sleep(0)
    await asyncio.gather(pending, backend.aclose())
    async with LocalBackend(path) as reopened:
        stored = await reopened.get_messages("t")
    assert sorted(m.content for m in stored) == sorted(f"m{n}" for n in range(10))


async def test_usable_from_another_event_loop_in_another_thread(backend: LocalBackend) -> None:
    await backend.ensure_user(UserProfile("u"))
    await backend.ensure_thread("t", "u")
    failures: list[BaseException] = []

    def other_loop() -> None:
        try:
            asyncio.run(backend.add_messages("t", [Message("user", "from elsewhere")]))
        except BaseException as exc:  # reported to the test below
            failures.append(exc)

    thread = threading.Thread(target=other_loop)
    thread.start()
    await asyncio.to_thread(thread.join)
    assert failures == []
    assert [m.content for m in await backend.get_messages("t")] == ["from elsewhere"]


async def test_concurrent_writes_and_reads_are_safe(backend: LocalBackend) -> None:
    await backend.ensure_user(UserProfile("u"))
    await asyncio.gather(*(backend.ensure_thread(f"t{n}", "u") for n in range(5)))

    async def chat(n: int) -> None:
        for turn in range(10):
            await backend.add_messages(
                f"t{n}", [Message("user", f"thread {n} turn {turn} about otters")]
            )
            await backend.search(SearchRequest("otters", user_id="u"))

    await asyncio.gather(*(chat(n) for n in range(5)))
    for n in range(5):
        contents = [m.content for m in await backend.get_messages(f"t{n}")]
        assert contents == [f"thread {n} turn {turn} about otters" for turn in range(10)]
