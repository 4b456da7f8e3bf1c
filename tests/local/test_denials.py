"""A user's statement that denies an older one of theirs ends it, and nothing else."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from zepkit.core._backend import SearchRequest, UserProfile
from zepkit.core._models import Message
from zepkit.local import LocalBackend
from zepkit.local.denials import affirmed_claim, affirms, denied_claim, denies

T0 = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "claim"),
    [
        ("Ana: Turns out I'm not allergic to penicillin after all.", {"allergic", "penicillin"}),
        ("Ana: I don't eat meat anymore.", {"eat", "meat"}),
        ("Ana: I can't swim.", {"swim"}),  # "can't" is "can" denied, not "ca"
        ("Ana: I won't eat pork.", {"eat", "pork"}),
        ("Ana: I hate olives.", {"like", "oliv"}),  # disliking is not liking
        ("Ana: I didn't lose my hat.", {"lose", "hat"}),  # a hat is no taste
        ("Ana: I'm allergic to penicillin.", None),  # nothing denied
        ("Ana: Not sure if I'm allergic to penicillin.", None),  # a doubt, not a denial
        ("Ana: I don't think I'm allergic to it.", None),
        ("Ana: I'm not.", None),  # no claim
        # a denial in part: the older statement still holds
        ("Ana: I don't play tennis as much these days.", None),
        ("Ana: I don't always work from home.", None),
        ("Ana: I can't run every day.", None),
        ("Ana: I don't have a car with me.", None),
        # the clause that says "not", not what the sentence goes on to say
        (
            "Ana: I'm not gluten intolerant after all, turns out it was IBS.",
            {"gluten", "intolerant"},
        ),
    ],
)
def test_the_claim_a_statement_denies(text: str, claim: set[str] | None) -> None:
    assert denied_claim(text) == (frozenset(claim) if claim is not None else None)


@pytest.mark.parametrize(
    ("denial", "statement", "denied"),
    [
        ("I'm not allergic to penicillin.", "Ana: I'm allergic to penicillin.", True),
        ("I don't eat meat anymore.", "Ana: I eat meat every day.", True),  # one word more
        ("I can't swim.", "Ana: I can swim.", True),
        ("I really don't like spicy food.", "Ana: I like spicy food.", True),
        ("I hate sushi now.", "Ana: I like sushi.", True),
        # a claim of one word ends only the same claim
        ("I don't drink.", "Ana: I drink coffee every morning.", False),
        # the denial's qualifier is not in the statement, or the statement says more
        ("I never go running in the rain.", "Ana: I go running every morning.", False),
        ("I'm not allergic to nuts.", "Ana: I'm allergic to peanuts and shellfish.", False),
        # one item of a list denied: the others still hold
        (
            "I'm not allergic to penicillin.",
            "Ana: I'm allergic to shellfish and penicillin.",
            False,
        ),
        ("I don't like hiking anymore.", "Ana: I like hiking and swimming.", False),
        ("I don't eat meat.", "Ana: I eat meat and fish at weekends with my family.", False),
        # what the statement says before an aside
        (
            "I'm not gluten intolerant.",
            "Ana: I'm gluten intolerant, which is ironic for a chef.",
            True,
        ),
        # someone else's denial is not the user's
        ("My wife doesn't eat meat.", "Ana: I eat meat every day.", False),
        # a statement that is itself negated is not what a denial ends
        ("I don't eat meat.", "Ana: I don't eat meat on Fridays.", False),
    ],
)
def test_what_a_denial_ends(denial: str, statement: str, denied: bool) -> None:
    claim = denied_claim(denial)
    assert claim is not None
    assert denies(claim, statement) is denied


async def _told(backend: LocalBackend, *said: str) -> dict[str, datetime | None]:
    """Each statement told a day after the one before; every fact's end time by its text."""
    await backend.ensure_user(UserProfile("ana", first_name="Ana"))
    await backend.ensure_thread("t", "ana")
    for n, text in enumerate(said):
        when = T0 + timedelta(days=n)
        await backend.add_messages("t", [Message("user", text, created_at=when)])
    query = " ".join(said)
    found = await backend.search(SearchRequest(query[:400], user_id="ana", limit=20))
    return {fact.fact.split(": ", 1)[1]: fact.invalid_at for fact in found.edges}


async def test_a_denial_ends_what_it_denies_and_keeps_the_rest(backend: LocalBackend) -> None:
    allergic = "I'm allergic to penicillin."
    shellfish = "I'm allergic to shellfish."
    corrected = "Turns out I'm not allergic to penicillin after all."
    ended = await _told(backend, allergic, shellfish, corrected)
    assert ended[allergic] == T0 + timedelta(days=2)
    assert ended[shellfish] is None
    assert ended[corrected] is None


async def test_a_claim_said_to_be_so_now_ends_its_older_denial(backend: LocalBackend) -> None:
    """The other way round: "I can swim now" ends "I can't swim"; a statement without a word of
    change ("I can swim.") is not read against the denials before it."""
    ended = await _told(backend, "I can't swim.", "I can swim now, I took lessons.")
    assert ended["I can't swim."] == T0 + timedelta(days=1)
    assert ended["I can swim now, I took lessons."] is None
    kept = await _told(backend, "I don't like sushi.", "I like sushi.")
    assert kept["I don't like sushi."] is None
    loved = await _told(backend, "I don't like olives.", "I love olives now!")
    assert loved["I don't like olives."] == T0 + timedelta(days=1)


@pytest.mark.parametrize(
    ("text", "claim"),
    [
        ("Ana: I like sushi now.", {"like", "sushi"}),
        ("Ana: I can swim now, I took lessons.", {"swim"}),  # the clause that says so
        ("Ana: We finally have a car!", {"car"}),
        ("Ana: I like sushi.", None),  # no word of change
        ("Ana: I don't like sushi now.", None),  # a denial, read as one
        ("Ana: I play tennis now and then.", None),  # "now and then": how often
    ],
)
def test_the_claim_a_statement_affirms(text: str, claim: set[str] | None) -> None:
    assert affirmed_claim(text) == (frozenset(claim) if claim is not None else None)


@pytest.mark.parametrize(
    ("older", "newer", "ended"),
    [
        ("Ana: I don't like sushi.", "I like sushi now.", True),
        ("Ana: I'm not a morning person.", "I'm a morning person now!", True),
        ("Ana: I don't eat meat anymore.", "I eat meat again.", True),
        # the verbs of liking say the same of a taste
        ("Ana: I don't like coffee.", "I love coffee now.", True),
        ("Ana: I don't enjoy running.", "I actually like running now.", True),
        ("Ana: I don't like coffee.", "I love tea now.", False),
        ("Ana: I hate running.", "I actually love running now!", True),
        ("Ana: I can't cook.", "I've learned to cook!", True),
        ("Ana: I don't play tennis as much these days.", "I play tennis now.", False),  # partial
        ("Ana: I like sushi.", "I like sushi now.", False),  # nothing denied
        ("Ana: I don't like sushi.", "My son likes sushi now.", False),  # his, not the user's
    ],
)
def test_what_an_affirmation_ends(older: str, newer: str, ended: bool) -> None:
    claim = affirmed_claim(newer)
    assert claim is not None
    assert affirms(claim, older) is ended
