"""Invalid arguments raise at the caller instead of passing for memory failures; the search tool
answers bad numbers with a sentence; huge input is split off the event loop."""

from __future__ import annotations

import logging
import threading

import pytest

import zepkit.core._splitting
import zepkit.core._validation
from zepkit.core import Identity, MemoryLoop
from zepkit.core._backend import UserProfile
from zepkit.core._errors import BackendUnavailableError
from zepkit.core._models import Message
from zepkit.local import LocalBackend
from zepkit.testing import SlowBackend

ALICE = Identity(user_id="alice", thread_id="a1")


@pytest.mark.parametrize("message", [None, 42, b"my secret ramen recipe"])
async def test_begin_turn_rejects_a_message_that_is_not_text(
    memory: MemoryLoop, message: object, caplog: pytest.LogCaptureFixture
) -> None:
    with (
        caplog.at_level(logging.DEBUG, logger="zepkit"),
        pytest.raises(TypeError, match="user_message"),
    ):
        await memory.begin_turn(ALICE, message)  # type: ignore[arg-type]
    assert "ramen" not in caplog.text
    assert await memory.get_messages("a1") == []


@pytest.mark.parametrize("text", [42, b"bytes reply"])
async def test_capture_reply_rejects_text_of_another_type(memory: MemoryLoop, text: object) -> None:
    with pytest.raises(TypeError, match="text"):
        await memory.capture_reply(ALICE, text)  # type: ignore[arg-type]
    assert await memory.capture_reply(ALICE, None) is False  # None still means "no reply"


async def test_turns_reject_an_identity_that_is_not_one(memory: MemoryLoop) -> None:
    with pytest.raises(TypeError, match="identity"):
        await memory.begin_turn({"user_id": "alice", "thread_id": "a1"}, "hi")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="identity"):
        await memory.capture_reply("alice", "hi")  # type: ignore[arg-type]


def test_an_id_over_the_limit_is_refused_when_the_identity_is_made() -> None:
    with pytest.raises(ValueError, match="at most 500"):
        Identity(user_id="u" * 100_000, thread_id="t")
    with pytest.raises(ValueError, match="at most 500"):
        Identity(user_id="u", thread_id="t" * 501)


@pytest.mark.parametrize("limit", [float("inf"), float("-inf"), float("nan")])
async def test_tool_answers_non_finite_limits_with_a_sentence(
    memory: MemoryLoop, limit: float
) -> None:
    answer = await memory.search_tool().call({"query": "tea", "limit": limit}, ALICE)
    assert answer.startswith("Error: limit")


async def test_a_huge_message_is_split_off_the_event_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    # Lexical: embedding 1.3 million characters takes a minute and is not what this is about.
    memory = MemoryLoop(LocalBackend(retriever="lexical"))
    threads: set[int] = set()
    split = zepkit.core._splitting.split_text

    def recording(text: str, max_chars: int) -> list[str]:
        threads.add(threading.get_ident())
        return split(text, max_chars)

    monkeypatch.setattr(zepkit.core._validation, "split_text", recording)
    big = "A sentence about tea and herons. " * 40_000  # 1.3 million characters
    await memory.begin_turn(ALICE, big)
    assert threads and threading.get_ident() not in threads
    stored = await memory.get_messages("a1")
    await memory.aclose()
    assert " ".join(m.content for m in stored).split() == big.split()


async def test_a_long_write_gets_more_time_than_a_short_one() -> None:
    # Storing grows with the text: a write's deadline grows by a second per 10,000 characters.
    inner = LocalBackend(retriever="lexical")
    await inner.ensure_user(UserProfile("alice"))
    await inner.ensure_thread("a1", "alice")
    memory = MemoryLoop(SlowBackend(inner, delay=0.6), deadline=0.5, on_error="raise")
    with pytest.raises(BackendUnavailableError):
        await memory.add_messages("a1", [Message("user", "short")])
    await memory.add_messages("a1", [Message("user", "long " * 2_000)])  # 10,000 characters
    await memory.aclose()
