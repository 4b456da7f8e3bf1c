"""A user's "*Galway" after a typo: the sentence it fixes is read, fixed, and remembered."""

from __future__ import annotations

import pytest

from zepkit.core._models import Message
from zepkit.local import LocalBackend, RuleExtractor
from zepkit.local.corrections import corrected

RELOCATING = "Big news, my wife got a job and we're relocating to Galwya in January."


@pytest.mark.parametrize(
    ("before", "text", "fixed", "rest"),
    [
        (
            RELOCATING,
            "*Galway lol. autocorrect",
            RELOCATING.replace("Galwya", "Galway"),
            "autocorrect",
        ),
        (
            "I'm an English to Portugese translator, mostly legal stuff",
            "*Portuguese. can't even spell my own job",
            "I'm an English to Portuguese translator, mostly legal stuff",
            "can't even spell my own job",
        ),
        (
            "Thanks! My daughter Maya turns 5 next week.",
            "*Maja with a j",
            "My daughter Maja turns 5 next week.",
            "",
        ),
        (
            "I live in Leeds and work in Bradfrod.",
            "Bradford* sorry",
            "I live in Leeds and work in Bradford.",
            "",
        ),
    ],
)
def test_a_starred_word_fixes_the_likest_word_of_the_previous_message(
    before: str, text: str, fixed: str, rest: str
) -> None:
    assert corrected(text, before) == (fixed, rest)


@pytest.mark.parametrize(
    ("before", "text"),
    [
        ("I love Paris.", "*sighs* so tired"),  # an action, not a fix
        ("I love Paris.", "**Note** it's fine"),  # bold
        ("I love Paris.", "*Lisbon"),  # nothing alike to fix
        ("I love Paris.", "*Paris"),  # nothing to fix: the word is there already
        ("I live in Galway.", "Galway is lovely."),  # no mark
        ("I have a cat.", "*cot"),  # too short to tell a typo from another word
    ],
)
def test_no_fix_without_a_marked_word_alike_to_one_typed(before: str, text: str) -> None:
    assert corrected(text, before) is None


def test_the_fixed_sentence_is_read_in_the_correction_s_place() -> None:
    [fixed, rest] = RuleExtractor().extract_reply(
        "*Galway lol. autocorrect", speaker="Kim", question=None, before=RELOCATING
    )
    assert fixed.text == "Kim: " + RELOCATING.replace("Galwya", "Galway")
    assert fixed.profile is not None and "Galway" in fixed.entities
    assert rest.text == "Kim: autocorrect"
    # read alone, as before: no previous message to fix
    alone = RuleExtractor().extract("*Galway lol.", speaker="Kim", source="message", role="user")
    assert all("relocating" not in statement.text for statement in alone)


async def test_a_fixed_typo_reaches_a_new_conversation(lexical_alice: LocalBackend) -> None:
    await lexical_alice.ensure_thread("now", "alice")
    await lexical_alice.add_messages("a1", [Message("user", RELOCATING, name="Alice")])
    await lexical_alice.add_messages(
        "a1", [Message("user", "*Galway lol. autocorrect", name="Alice")]
    )
    block = await lexical_alice.add_messages(
        "now",
        [Message("user", "Which neighbourhoods should we look at?", name="Alice")],
        return_context=True,
    )
    assert block is not None
    profile = block.split("</USER_PROFILE>")[0]
    assert "relocating to Galway in January" in profile
