"""The local engine's read-only views (`zepkit.local.inspect`) and its turn preview: what the
inspector page shows, and the block a message would get, computed without storing it."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from pathlib import Path

import pytest

from zepkit.core._backend import UserProfile
from zepkit.core._errors import ConflictError, NotFoundError
from zepkit.core._models import Message
from zepkit.local import LocalBackend
from zepkit.local.inspect import Inspector

MAYA = UserProfile("maya", first_name="Maya")
SAID = (
    "I live in Lisbon and work at the Oceanarium.",
    "My dog Biscuit loves the beach at Cascais.",
    "I'm allergic to peanuts.",
)


async def _maya(backend: LocalBackend) -> None:
    await backend.ensure_user(MAYA)
    await backend.ensure_thread("t1", "maya")
    await backend.ensure_thread("t2", "maya")  # a later session, empty so far
    for text in SAID:
        await backend.add_messages("t1", [Message("user", text, name="Maya")])
    await backend.add_messages("t1", [Message("assistant", "Noted: no peanuts.")])


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


async def test_facts_and_entities_of_a_file(db_path: Path) -> None:
    async with LocalBackend(db_path) as backend:
        await _maya(backend)
        await backend.ensure_user(UserProfile("other"))
        await backend.add_messages("t1", [Message("user", "I moved to Porto.", name="Maya")])
        inspector = Inspector(backend)
        listed = await inspector.facts("maya")
        by_text = {fact.text: fact for fact in listed.items}
        assert listed.total == len(listed.items) >= 4
        moved = by_text["Maya: I moved to Porto."]
        lived = by_text["Maya: I live in Lisbon."]
        assert by_text["Maya: I work at the Oceanarium."].current  # said with the home
        assert moved.current and moved.profile and moved.thread_id == "t1"
        assert moved.invalid_at is None and moved.ended_by is None
        assert not lived.current  # the newer home ended the older one, and says which did
        assert lived.invalid_at == moved.valid_at and lived.ended_by == moved.uuid
        assert lived.valid_at < lived.invalid_at
        assert listed.items[0].text == "Maya: I moved to Porto."  # newest first

        entities = await inspector.entities("maya")
        names = {entity.name: entity for entity in entities.items}
        assert "Biscuit" in names and names["Biscuit"].mentions >= 1
        assert "beach" in names["Biscuit"].summary
        assert entities.total == len(entities.items)
        assert (await inspector.entities("other")).items == []


async def test_lists_are_capped_but_counted(backend: LocalBackend) -> None:
    await _maya(backend)
    inspector = Inspector(backend)
    everything = await inspector.facts("maya")
    two = await inspector.facts("maya", limit=2)
    assert [f.uuid for f in two.items] == [f.uuid for f in everything.items[:2]]
    assert two.total == everything.total > 2
    one = await inspector.entities("maya", limit=1)
    assert len(one.items) == 1 and one.total > 1


async def test_an_unknown_user_is_not_found(backend: LocalBackend) -> None:
    inspector = Inspector(backend)
    for read in (inspector.facts, inspector.entities):
        with pytest.raises(NotFoundError, match="nobody"):
            await read("nobody")


@pytest.mark.parametrize("thread_id", ["t2", "t-new"])
async def test_the_preview_is_what_the_write_returns_and_stores_nothing(
    db_path: Path, thread_id: str
) -> None:
    said = "Any beach snacks for Biscuit without peanuts?"
    message = Message("user", said, name="Maya", created_at=datetime.now(UTC))  # one time for all
    async with LocalBackend(db_path) as backend:
        await _maya(backend)
    before = _digest(db_path)
    async with LocalBackend(db_path, read_only=True) as reader:
        preview = await reader.preview_context(MAYA, thread_id, [message])
        again = await reader.preview_context(MAYA, thread_id, [message])
        assert await reader.get_messages("t1") and len(await reader.get_messages("t1")) == 4
    assert _digest(db_path) == before  # the file is untouched
    assert preview is not None and "peanuts" in preview and preview == again
    async with LocalBackend(db_path) as backend:
        await backend.ensure_user(MAYA)
        await backend.ensure_thread(thread_id, "maya")
        stored = await backend.add_messages(
            thread_id, [message], return_context=True, user_id="maya"
        )
    assert preview == stored


async def test_the_preview_sees_what_the_message_ends(backend: LocalBackend) -> None:
    await _maya(backend)
    # One time for both: each would stamp its own, and the block shows them to the second.
    moment = datetime.now(UTC)
    message = Message("user", "I moved to Porto last week.", name="Maya", created_at=moment)
    preview = await backend.preview_context(MAYA, "t2", [message])
    assert preview is not None and "Biscuit" in preview
    [lisbon] = [line for line in preview.splitlines() if "Lisbon" in line]
    assert not lisbon.endswith("present)")  # the message ends it, so the preview shows it ended
    assert preview == await backend.add_messages(
        "t2", [message], return_context=True, user_id="maya"
    )


async def test_the_preview_keeps_thread_ownership(backend: LocalBackend) -> None:
    await _maya(backend)
    await backend.ensure_user(UserProfile("other"))
    with pytest.raises(ConflictError):
        await backend.preview_context(UserProfile("other"), "t1", [Message("user", "hi there")])
