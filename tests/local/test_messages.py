"""Messages: stored in order, returned exactly as given, only into known threads."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from zepkit.core._errors import NotFoundError
from zepkit.core._models import Message
from zepkit.local import LocalBackend

UNICODE = [
    "Emoji 🎉👩‍💻 and a flag 🇵🇹",
    "日本語のテキスト、そして中文。",
    "עברית ועربية: مرحبا بالعالم",
    "Zero\u200bwidth, combining e\u0301, tab\tand\nnewline, nul-free",
]


async def test_messages_round_trip_exactly(alice: LocalBackend) -> None:
    aware = datetime(2024, 5, 1, 9, 30, tzinfo=timezone(timedelta(hours=5, minutes=30)))
    naive = datetime(2024, 5, 2, 10, 0, 0, 123456)
    sent = [
        Message("system", "You are helpful."),
        Message("user", UNICODE[0], name="Alice", created_at=aware, metadata={"k": [1, "é"]}),
        Message("assistant", UNICODE[1], created_at=naive),
        Message("tool", UNICODE[2], name="lookup", metadata={}),
        Message("function", UNICODE[3]),
    ]
    before = datetime.now(UTC)
    await alice.add_messages("a1", sent)
    stored = await alice.get_messages("a1")

    assert [m.role for m in stored] == ["system", "user", "assistant", "tool", "function"]
    for original, back in zip(sent, stored, strict=True):
        assert back.content == original.content
        assert back.content.encode() == original.content.encode()
        assert back.name == original.name
        assert back.metadata == original.metadata
        if original.created_at is not None:
            assert back.created_at == original.created_at
            assert back.created_at.utcoffset() == original.created_at.utcoffset()
    defaulted = stored[0].created_at
    assert defaulted is not None and defaulted.tzinfo is not None and defaulted >= before
    assert stored[2].uuid and stored[2].model_copy(update={"uuid": None}) == sent[2]


async def test_order_is_kept_across_calls_and_threads(alice: LocalBackend) -> None:
    for n in range(3):
        await alice.add_messages("a1", [Message("user", f"one-{n}"), Message("assistant", "ok")])
        await alice.add_messages("a2", [Message("user", f"two-{n}")])
    assert [m.content for m in await alice.get_messages("a2")] == ["two-0", "two-1", "two-2"]
    latest = await alice.get_messages("a1", limit=3)
    assert [m.content for m in latest] == ["ok", "one-2", "ok"]
    assert await alice.get_messages("a1", limit=0) == []


async def test_unknown_thread_is_not_found_with_a_hint(backend: LocalBackend) -> None:
    hint = "ensure_user and ensure_thread"
    with pytest.raises(NotFoundError, match=hint):
        await backend.add_messages("missing", [Message("user", "hi")])
    with pytest.raises(NotFoundError, match=hint):
        await backend.get_messages("missing")
    with pytest.raises(NotFoundError, match=hint):
        await backend.get_context("missing")


async def test_metadata_that_is_not_json_is_refused(alice: LocalBackend) -> None:
    with pytest.raises(ValueError, match="metadata"):
        await alice.add_messages("a1", [Message("user", "hi", metadata={"when": object()})])
    assert await alice.get_messages("a1") == []


async def test_add_messages_returns_context_only_when_asked(alice: LocalBackend) -> None:
    await alice.add_messages("a1", [Message("user", "My cat Miso loves tuna.")])
    assert await alice.add_messages("a2", [Message("user", "Is tuna ok for Miso?")]) is None
    context = await alice.add_messages(
        "a2", [Message("user", "Remind me about Miso.")], return_context=True
    )
    assert context is not None and "My cat Miso loves tuna." in context
