"""A thought sent in pieces: "I'm doing a PhD", then "marine biology, final year"."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from zepkit.core._backend import UserProfile
from zepkit.core._models import DataType, Message
from zepkit.local import ExtractedStatement, FollowUpExtractor, LocalBackend, RuleExtractor
from zepkit.local.answers import Lead, lead_of
from zepkit.local.profile import carries_on


@pytest.mark.parametrize(
    ("before", "sentence"),
    [
        ("I'm doing a PhD", "marine biology, coral bleaching in the Caribbean."),
        ("landlord is super strict", "no nails in the walls, it's in the contract."),
        ("rough week. my husband is", "in the navy and he left on tuesday"),
        ("so my laptop is...", "a 2015 macbook air, it's so slow now."),
    ],
)
def test_a_subjectless_sentence_carries_on_an_unfinished_message(
    before: str, sentence: str
) -> None:
    assert carries_on(sentence, before.split(". ")[-1])


@pytest.mark.parametrize(
    ("before", "sentence"),
    [
        ("I'm doing a PhD.", "marine biology, coral bleaching."),  # the first one was finished
        ("I'm doing a PhD!", "marine biology, coral bleaching."),
        ("I'm doing a PhD 😬", "marine biology, coral bleaching."),  # an emoji closes it too
        ("I'm doing a PhD", "I love it though."),  # a subject of its own
        ("I'm doing a PhD", "thanks for the tips"),
        ("I'm doing a PhD", "what should I read first?"),
        ("My size is EU 41", "*EU 44 sorry"),  # a correction, read on its own
        (
            "so I wanted to tell you about the long and winding story of how we ended up here",
            "marine biology, coral bleaching.",
        ),  # a long message is no fragment
    ],
)
def test_what_does_not_carry_on(before: str, sentence: str) -> None:
    assert not carries_on(sentence, before)


def test_the_pieces_are_one_statement_only_when_nothing_came_between() -> None:
    extractor = RuleExtractor()
    [phd, year] = extractor.extract_follow_up(
        "marine biology, coral bleaching and heat stress in the Caribbean. final year 😬",
        speaker="Kim",
        before="I'm doing a PhD",
    )
    assert phd.text == (
        "Kim: I'm doing a PhD, marine biology, coral bleaching and heat stress in the Caribbean."
    )
    assert phd.profile is not None and "Caribbean" in phd.entities
    assert year.text == "Kim: final year 😬"
    # ended on a small word, the pieces are one sentence
    [navy] = extractor.extract_follow_up(
        "in the navy and he left on tuesday", speaker="Kim", before="rough week. my husband is"
    )
    assert navy.text == "Kim: my husband is in the navy and he left on tuesday"
    # with the assistant's reply between, each is read as it was
    [alone, _] = extractor.extract_reply(
        "marine biology, coral bleaching and heat stress in the Caribbean. final year 😬",
        speaker="Kim",
        question=None,
        before="I'm doing a PhD",
    )
    assert alone.text == "Kim: marine biology, coral bleaching and heat stress in the Caribbean."
    # not when the unfinished piece said nothing of the user
    [plain] = extractor.extract_follow_up(
        "no nails in the walls.", speaker="Kim", before="what about the hallway"
    )
    assert plain.text == "Kim: no nails in the walls."


def test_a_lead_says_when_the_users_message_came_right_before() -> None:
    assert lead_of([("user", "I'm doing a PhD")]) == Lead(before="I'm doing a PhD", follows=True)
    between = lead_of([("user", "I'm doing a PhD"), ("assistant", "Nice!")])
    assert between == Lead(before="I'm doing a PhD", follows=False)


async def test_pieces_sent_one_by_one_reach_a_new_conversation(lexical_alice: LocalBackend) -> None:
    await lexical_alice.ensure_thread("now", "alice")
    await lexical_alice.add_messages("a1", [Message("user", "I'm doing a PhD", name="Alice")])
    await lexical_alice.add_messages(
        "a1", [Message("user", "marine biology, coral bleaching. final year", name="Alice")]
    )
    block = await lexical_alice.add_messages(
        "now",
        [Message("user", "Can you help me with a cover letter for a postdoc?", name="Alice")],
        return_context=True,
    )
    assert block is not None
    profile = block.split("</USER_PROFILE>")[0]
    assert "I'm doing a PhD, marine biology, coral bleaching." in profile


class PiecesExtractor:
    """A reply-reading extractor that records which of its methods read each message."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []

    def extract(
        self, text: str, *, speaker: str | None, source: DataType, role: str | None = None
    ) -> Sequence[ExtractedStatement]:
        self.calls.append(("extract", text))
        return [ExtractedStatement(text=f"{speaker}: {text}")]

    def extract_reply(
        self, text: str, *, speaker: str | None, question: str | None, before: str | None
    ) -> Sequence[ExtractedStatement]:
        self.calls.append(("reply", text))
        return [ExtractedStatement(text=f"{speaker}: {text}")]


class FollowingExtractor(PiecesExtractor):
    def extract_follow_up(
        self, text: str, *, speaker: str | None, before: str
    ) -> Sequence[ExtractedStatement]:
        self.calls.append(("follow-up", text))
        return [ExtractedStatement(text=f"{speaker}: {before} {text}")]


@pytest.mark.parametrize("follows", [False, True])
async def test_an_extractor_reads_follow_ups_only_when_it_can(follows: bool) -> None:
    extractor = FollowingExtractor() if follows else PiecesExtractor()
    assert isinstance(extractor, FollowUpExtractor) is follows
    backend = LocalBackend(extractor=extractor, retriever="lexical")
    try:
        await backend.ensure_user(UserProfile("kim"))
        await backend.ensure_thread("t", "kim")
        said = [Message("user", "I'm doing a PhD"), Message("user", "marine biology")]
        await backend.add_messages("t", said)
        asked = [Message("assistant", "Where?"), Message("user", "Oslo")]
        await backend.add_messages("t", asked)
        assert extractor.calls == [
            ("extract", "I'm doing a PhD"),
            ("follow-up" if follows else "reply", "marine biology"),
            ("extract", "Where?"),
            ("reply", "Oslo"),
        ]
    finally:
        await backend.aclose()
