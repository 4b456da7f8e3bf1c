"""The user's own name in what they write: a signature, a letter's header, the third person."""

from __future__ import annotations

import pytest

from zepkit.local import RuleExtractor
from zepkit.local.extraction import own_name, signed_inline
from zepkit.local.profile import names_own

SIGNED = (
    "Can you check my email signature?\n\nNgā mihi,\nAroha Ngata\n"
    "Kaiako · Te Kura Kaupapa Māori o Te Rito\nRūma 4 (Tau 3–4)\naroha.n@terito.school.nz"
)


def read(text: str, speaker: str) -> list[tuple[str, float | None]]:
    found = RuleExtractor().extract(text, speaker=speaker, source="message", role="user")
    return [(statement.text, statement.profile) for statement in found]


@pytest.mark.parametrize(
    ("prefix", "name"),
    [
        ("Aroha: ", "Aroha"),
        ("Siobhan Doyle: ", "Siobhan"),
        ("Dr Amal Haddad: ", "Amal"),  # a title is no name
        ("user: ", None),
        ("kim: ", None),
    ],
)
def test_the_speakers_own_name_is_a_persons(prefix: str, name: str | None) -> None:
    assert own_name(prefix) == name


def test_a_name_is_a_word_of_its_own() -> None:
    assert names_own("Aroha Ngata · Kaiako", "Aroha")
    assert names_own("From: Bram | '09 Honda Jazz", "Bram")
    assert not names_own("Bramley apples are best", "Bram")
    assert not names_own("Abram is here", "Bram")


def test_a_signature_block_is_one_line_when_it_tells_of_the_user() -> None:
    signed = signed_inline(SIGNED, "Aroha")
    assert "Aroha Ngata · Kaiako · Te Kura Kaupapa Māori o Te Rito · Rūma 4" in signed
    # a name over lines of no kind of theirs stays as it was
    unsigned = "Thanks\nLukas Huber\nBäckerei Huber, Salzburg-Lehen"
    assert signed_inline(unsigned, "Lukas") == unsigned


@pytest.mark.parametrize(
    ("speaker", "text", "told"),
    [
        ("Aroha", SIGNED, "Te Kura Kaupapa Māori"),
        (
            "Siobhan",
            "Could you tighten this up?\n\nFrom: Siobhan Doyle, Head of Modern Foreign Languages\n"
            "To: MFL department",
            "Head of Modern Foreign Languages",
        ),
        (
            "Bram",
            "is my english ok?\n\n--\nBram | '09 Honda Jazz 1.4 | 187k km and counting",
            "Honda Jazz",
        ),
        ("Sven", "Sven doesn't do spicy.", "spicy"),  # the user in the third person
    ],
)
def test_what_the_user_writes_with_their_own_name_joins_the_profile(
    speaker: str, text: str, told: str
) -> None:
    assert any(told in said and profile is not None for said, profile in read(text, speaker))


def test_a_sign_off_or_another_speakers_name_is_no_profile() -> None:
    # a sign-off: the name and no kind of theirs
    assert all(profile is None for _, profile in read("Best regards, Yuki Tanaka", "Yuki"))
    # the same words from another speaker are about someone else
    assert all(profile is None for _, profile in read("Sven doesn't do spicy.", "Kim"))
