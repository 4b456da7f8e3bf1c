"""Closing, using one backend from several event loops and threads, and inline writes waiting
for another process's write lock."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path

import pytest

from zepkit.core._backend import SearchRequest, UserProfile
from zepkit.core._errors import (
    BackendError,
    BackendUnavailableError,
    ConflictError,
    NotFoundError,
)
from zepkit.core._models import DataType, Message
from zepkit.local import ExtractedStatement, LocalBackend, RuleExtractor
from zepkit.local import backend as backend_module


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


class _ThreadRecorder(RuleExtractor):
    """The rule extractor, noting the thread each message is read on."""

    def __init__(self) -> None:
        super().__init__()
        self.threads: set[int] = set()

    def extract(
        self, text: str, *, speaker: str | None, source: DataType, role: str | None = None
    ) -> Sequence[ExtractedStatement]:
        self.threads.add(threading.get_ident())
        return super().extract(text, speaker=speaker, source=source, role=role)


@pytest.mark.parametrize("inline", [False, True])
async def test_inline_calls_run_on_the_callers_thread(tmp_path: Path, inline: bool) -> None:
    recorder = _ThreadRecorder()
    async with LocalBackend(tmp_path / "m.db", extractor=recorder, inline=inline) as backend:
        await backend.ensure_user(UserProfile("u"))
        await backend.ensure_thread("t", "u")
        await backend.add_messages("t", [Message("user", "I keep bees in Porto.")])
        found = await backend.search(SearchRequest("bees", user_id="u"))
    assert (recorder.threads == {threading.get_ident()}) is inline
    assert [edge.fact for edge in found.edges] == ["user: I keep bees in Porto."]


async def test_inline_calls_from_several_loops_and_threads_are_safe(tmp_path: Path) -> None:
    backend = LocalBackend(tmp_path / "m.db", inline=True)
    await backend.ensure_user(UserProfile("u"))
    for n in range(4):
        await backend.ensure_thread(f"t{n}", "u")
    failures: list[BaseException] = []

    def other_loop(n: int) -> None:
        async def chat() -> None:
            for turn in range(15):
                await backend.add_messages(f"t{n}", [Message("user", f"t{n} turn {turn} otters")])
                await backend.search(SearchRequest("otters", user_id="u"))

        try:
            asyncio.run(chat())
        except BaseException as exc:  # reported to the test below
            failures.append(exc)

    threads = [threading.Thread(target=other_loop, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        await asyncio.to_thread(thread.join)
    assert failures == []
    for n in range(4):
        contents = [m.content for m in await backend.get_messages(f"t{n}")]
        assert contents == [f"t{n} turn {turn} otters" for turn in range(15)]
    await backend.aclose()
    with pytest.raises(BackendError, match="closed"):
        await backend.ensure_user(UserProfile("u"))


async def test_an_inline_write_waits_for_another_process_lock_on_the_event_loop(
    tmp_path: Path,
) -> None:
    path = tmp_path / "m.db"
    async with LocalBackend(path, inline=True) as backend:
        await backend.ensure_user(UserProfile("u"))
        await backend.ensure_thread("t", "u")
        await backend.add_messages("t", [Message("user", "I keep bees in Porto.")])
        other = sqlite3.connect(path, isolation_level=None)  # another process's writer
        other.execute("BEGIN IMMEDIATE")
        other.execute("UPDATE users SET first_name = 'Ana'")
        write = asyncio.create_task(
            backend.add_messages("t", [Message("user", "My sister Rita lives in Lyon.")])
        )
        await asyncio.sleep(0.05)
        assert not write.done()
        # this loop is free meanwhile: a read of the same backend answers
        found = await asyncio.wait_for(backend.search(SearchRequest("bees", user_id="u")), 1)
        assert [edge.fact for edge in found.edges] == ["user: I keep bees in Porto."]
        other.execute("COMMIT")
        other.close()
        await asyncio.wait_for(write, 5)
        contents = [m.content for m in await backend.get_messages("t")]
        assert contents == ["I keep bees in Porto.", "My sister Rita lives in Lyon."]
        found = await backend.search(SearchRequest("Rita", user_id="u"))
        assert [edge.fact for edge in found.edges] == ["user: My sister Rita lives in Lyon."]


async def test_an_inline_write_gives_up_on_a_lock_held_past_the_busy_timeout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(backend_module, "BUSY_TIMEOUT_MS", 200)
    path = tmp_path / "m.db"
    async with LocalBackend(path, inline=True) as backend:
        await backend.ensure_user(UserProfile("u"))
        await backend.ensure_thread("t", "u")
        other = sqlite3.connect(path, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        with pytest.raises(BackendUnavailableError, match="busy"):
            await backend.add_messages("t", [Message("user", "I keep bees in Porto.")])
        other.execute("ROLLBACK")
        other.close()
        # nothing was half done: the next write goes through and is the thread's only message
        await backend.add_messages("t", [Message("user", "I keep bees in Braga.")])
        assert [m.content for m in await backend.get_messages("t")] == ["I keep bees in Braga."]


async def test_an_inline_write_refused_after_taking_the_lock_leaves_it_free(
    tmp_path: Path,
) -> None:
    async with LocalBackend(tmp_path / "m.db", inline=True) as backend:
        await backend.ensure_user(UserProfile("u"))
        await backend.ensure_user(UserProfile("v"))
        await backend.ensure_thread("t", "u")
        with pytest.raises(ConflictError):
            await backend.add_messages("t", [Message("user", "Hello there.")], user_id="v")
        with pytest.raises(NotFoundError):
            await backend.add_messages("nope", [Message("user", "Hello there.")])
        await backend.add_messages("t", [Message("user", "I keep bees.")], user_id="u")
        assert [m.content for m in await backend.get_messages("t")] == ["I keep bees."]
