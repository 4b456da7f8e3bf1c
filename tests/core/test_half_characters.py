"""Half a character, a lone UTF-16 surrogate as `json.loads` makes of a client's `"\\ud83d"` after
it cut a string inside an emoji, has no UTF-8 form: no store, wire or tokenizer takes it. What a
user said, wrote or asked is kept with U+FFFD for the half; an id holding one is refused."""

from __future__ import annotations

import json

import pytest

from zepkit.core import Identity, MemoryLoop, Message
from zepkit.core.spi import SearchRequest, UserProfile, check_id, well_formed

HALF = "\ud83d"  # the first half of 😀 (U+1F600)


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        (f"I love {HALF} pizza", "I love \ufffd pizza"),
        (f"ends with {HALF}", "ends with \ufffd"),
        ("\ude00 starts with the second half", "\ufffd starts with the second half"),
        (f"two firsts {HALF}{HALF}", "two firsts \ufffd\ufffd"),
        ("a pair \ud83d\ude00 in two pieces", "a pair 😀 in two pieces"),
        ("already whole: 😀, é, 東京", "already whole: 😀, é, 東京"),
        ("", ""),
    ],
)
def test_well_formed_replaces_each_half_and_keeps_the_rest(text: str, kept: str) -> None:
    assert well_formed(text) == kept
    kept.encode("utf-8")  # it has a UTF-8 form now


def test_well_formed_text_is_returned_as_it_is() -> None:
    text = "nothing to mend: ümlaut"
    assert well_formed(text) is text


def test_a_message_keeps_its_text_with_the_half_replaced() -> None:
    message = Message("user", f"My dog is Rex {HALF}", name=f"Ann{HALF}")
    assert (message.content, message.name) == ("My dog is Rex \ufffd", "Ann\ufffd")
    identity = Identity(user_id="u", thread_id="t", first_name=HALF, email=f"a{HALF}@b.c")
    assert (identity.first_name, identity.email) == ("\ufffd", "a\ufffd@b.c")
    assert UserProfile("u", last_name=HALF).last_name == "\ufffd"
    assert SearchRequest(f"Rex {HALF}", user_id="u").query == "Rex \ufffd"


def test_an_id_with_half_a_character_is_refused() -> None:
    # Replacing would make "eve\ud83d" and "eve\ud83e" one user: the caller must fix the id.
    with pytest.raises(ValueError, match="user_id holds a lone surrogate"):
        check_id(f"eve{HALF}", "user_id")
    with pytest.raises(ValueError, match="lone surrogate"):
        Identity(user_id="eve", thread_id=f"t{HALF}")


async def test_what_the_user_said_is_stored_recalled_and_searchable() -> None:
    memory = MemoryLoop.local(":memory:")
    try:
        said = json.loads('"My dog is called Rex \\ud83d"')  # as a server decodes the client
        first = Identity(user_id="ann", thread_id="ann-1")
        await memory.begin_turn(first, said)
        assert [m.content for m in await memory.get_messages("ann-1")] == [
            "My dog is called Rex \ufffd"
        ]
        block = await memory.begin_turn(Identity(user_id="ann", thread_id="ann-2"), "My dog?")
        assert "Rex" in block
        found = await memory.search(f"Rex {HALF}", user_id="ann", scope="episodes")
        assert [e.content for e in found.episodes] == ["My dog is called Rex \ufffd"]
        await memory.add_messages(
            "ann-1", [Message("assistant", "Noted.", metadata={"mood": f"happy {HALF}"})]
        )
        noted = (await memory.get_messages("ann-1"))[-1]
        assert noted.metadata == {"mood": "happy \ufffd"}
        stored = await memory.add_data(f"Rex likes the beach {HALF}", user_id="ann")
        assert [e.content for e in stored] == ["Rex likes the beach \ufffd"]
    finally:
        await memory.aclose()
