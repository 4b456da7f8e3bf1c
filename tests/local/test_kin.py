"""The user's own people and pets by name: who a name is, and news told by the name alone."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from zepkit.core._backend import UserProfile
from zepkit.core._models import Message
from zepkit.local import LocalBackend
from zepkit.local.kin import named_salience, own_names, told_of_own
from zepkit.local.retrieval import KIN_SHOWN, kin_holders
from zepkit.local.schema import SCHEMA_VERSION


@pytest.mark.parametrize(
    ("text", "names", "own"),
    [
        ("My cat Mango (9, an orange tabby) sleeps on my laptop.", ["Mango"], ["Mango"]),
        ("our 2-year-old golden retriever Bingo chews the door frame", ["Bingo"], ["Bingo"]),
        ("Maybe my dad, Tunde, can help with the move.", ["Tunde"], ["Tunde"]),
        ("Njeri, my eldest, starts secondary school in January.", ["Njeri"], ["Njeri"]),
        ("Ioana is my wife, we met in Cluj.", ["Ioana", "Cluj"], ["Ioana"]),
        ("We adopted a kitten, Luna, from the shelter.", ["Luna"], ["Luna"]),
        ("I have a daughter named Ellie and a son.", ["Ellie"], ["Ellie"]),
        ("I have a dog. His name is Rex.", ["Rex"], ["Rex"]),
        ("My dog's name is Pilot and he is a greyhound.", ["Pilot"], ["Pilot"]),
        ("My friend Carla is moving to Lisbon.", ["Carla", "Lisbon"], []),
        ("My boss Karen wants the report by Friday.", ["Karen"], []),
        ("My business partner Tom wants to expand.", ["Tom"], []),
        ("my tennis partner Ana is away", ["Ana"], []),
        ("My partner Sam is a nurse.", ["Sam"], ["Sam"]),
        ("I walk my friend's dog Mango on Sundays.", ["Mango"], []),
        ("Anna, my daughter's friend, is staying over.", ["Anna"], []),
        ("Carla and my sister went to Porto.", ["Carla", "Porto"], []),
        ("Mango would be offended.", ["Mango"], []),
        ("Important, my son Theo has a peanut allergy.", ["Important", "Theo"], ["Theo"]),
        ("My friend has a dog, his name is Rex.", ["Rex"], []),
        ("My sister has a cat, Miso, who hates me.", ["Miso"], []),
        ("My neighbour got a puppy named Biscuit.", ["Biscuit"], []),
        ("My old dog Biscuit is 14 now.", ["Biscuit"], ["Biscuit"]),
        ("We have a cat. Her name is Miso.", ["Miso"], ["Miso"]),
        ("We rescued a greyhound and her name is Dot.", ["Dot"], ["Dot"]),
        ("My dad has a dog, his name is Rex.", ["Rex"], []),
    ],
)
def test_a_name_is_the_users_own_only_where_they_give_it_as_family_or_pet(
    text: str, names: list[str], own: list[str]
) -> None:
    assert list(own_names(text, names)) == own


def test_news_by_name_or_by_the_pronoun_after_it_weighs_in_the_profile() -> None:
    said = [
        ("Kuro has diabetes.", ["Kuro"], False),
        ("The vet says he needs insulin twice a day with his meals.", [], False),
        ("The clinic was packed with people.", [], False),
        ("She said it helps to rest.", [], False),  # the run ended: no one's
        ("Tomas fractured his wrist.", ["Tomas"], False),  # not one of theirs
    ]
    weights = told_of_own(said, {"kuro"})
    assert weights[0] > 0 and weights[1] > 0
    assert weights[2:] == [0.0, 0.0, 0.0]


def test_a_profile_statement_naming_one_of_theirs_carries_on_to_the_pronoun() -> None:
    said = [
        ("My cat Mango was diagnosed today.", ["Mango"], True),
        ("He has kidney disease, stage 2.", [], False),
    ]
    assert told_of_own(said, {"mango"}) == [0.0, named_salience("He has kidney disease, stage 2.")]


def test_news_that_touches_no_kind_of_subject_weighs_nothing() -> None:
    assert named_salience("Mango would be offended.") is None
    assert (named_salience("Mango has kidney disease, stage 2.") or 0.0) > (
        named_salience("Mango loves the garden.") or 0.0
    )


async def _profile_of(backend: LocalBackend) -> dict[str, float | None]:
    """Every statement user "u" made, with its profile weight (None: not in the profile)."""
    rows: list[tuple[str, float | None]] = backend._engine.read(
        lambda conn: conn.execute(
            "SELECT text, profile FROM statement_rows WHERE speaker = 'Sam'"
        ).fetchall()
    )
    return dict(rows)


async def _told(backend: LocalBackend, *sessions: list[str]) -> None:
    await backend.ensure_user(UserProfile("u", first_name="Sam"))
    for number, session in enumerate(sessions):
        await backend.ensure_thread(f"t{number}", "u")
        for text in session:
            await backend.add_messages(
                f"t{number}",
                [Message("user", text, name="Sam"), Message("assistant", "Noted, thanks.")],
            )


async def test_later_news_of_a_named_pet_joins_the_users_profile(db_path: Path) -> None:
    async with LocalBackend(db_path, retriever="lexical") as backend:
        await _told(
            backend,
            ["My cat Mango is 9, an orange tabby I rescued.", "My friend Carla loves cats."],
            [
                "Took Mango to the vet yesterday. Mango has kidney disease, stage 2. "
                "The vet says he needs prescription food from now on.",
                "Carla fractured her wrist skiing.",
                "Mango has diabetes. The vet says he needs insulin twice a day.",
            ],
        )
        profile = await _profile_of(backend)
    assert profile["Sam: Mango has kidney disease, stage 2."] is not None
    assert profile["Sam: The vet says he needs prescription food from now on."] is not None
    # the name's sentence is the profile's by the rules already; the pronoun's is Mango's
    assert profile["Sam: Mango has diabetes."] is not None
    assert profile["Sam: The vet says he needs insulin twice a day."] is not None
    assert profile["Sam: Carla fractured her wrist skiing."] is None  # a friend's news


async def test_a_block_naming_one_of_theirs_weighs_what_was_told_of_them(db_path: Path) -> None:
    """The message names Njeri, and the violin shares no other word with it: among many weightier
    and newer statements, and newer ones naming her, the block leads with it as one of the most
    salient things told of her."""
    async with LocalBackend(db_path, retriever="lexical") as backend:
        await _told(
            backend,
            ["My daughter Njeri is 10, in Grade 5."],
            [
                "Proud mum moment! Njeri was picked for the school orchestra and she's learning "
                "the violin now."
            ],
            [
                "I'm allergic to penicillin, I got hives from it.",
                "I have asthma and use an inhaler every morning.",
                "I'm vegan and gluten free.",
                "My husband Otieno works as an engineer in Mombasa.",
                "My mum has dementia and lives with my sister.",
                "I'm a nurse at a hospital in Nairobi, on night shifts.",
                "I take metformin for my type 2 diabetes.",
                "I'm coeliac, diagnosed last year.",
                "My dad had a stroke in March and uses a wheelchair now.",
                "I run 5k every morning before work.",
                "My sister turns 40 next month and I'm throwing her a party.",
                "My husband's birthday is next month too, he turns 45.",
                "Gift shopping stresses me out, I always leave it too late.",
            ],
            [f"Njeri and I watched film number {n} together." for n in range(4)],
        )
        await backend.ensure_thread("new", "u")
        asked = [Message("user", "Njeri turns 11 next month. Gift ideas?", name="Sam")]
        block = await backend.add_messages("new", asked, return_context=True)
        held = backend._engine.read(lambda conn: kin_holders(conn, _graph(conn), ["Njeri", "x"]))
    assert block is not None
    assert "violin" in block.split("<USER_PROFILE>")[1].split("</USER_PROFILE>")[0]
    assert 0 < len(held) <= KIN_SHOWN
    assert all("Njeri" in row.hit.text for row in held)


async def test_an_older_file_read_only_has_no_marks_and_still_answers(db_path: Path) -> None:
    """A read-only open serves a file as an older release left it, without the marks."""
    async with LocalBackend(db_path, retriever="lexical") as backend:
        await _told(
            backend, ["My daughter Njeri is 10, in Grade 5."], ["Njeri turns 11 soon. Gift ideas?"]
        )
    with sqlite3.connect(db_path) as conn:
        conn.execute("ALTER TABLE entities DROP COLUMN own")
        conn.execute("PRAGMA user_version = 15")
    conn.close()
    async with LocalBackend(db_path, retriever="lexical", read_only=True) as reader:
        rows = reader._engine.read(lambda conn: kin_holders(conn, _graph(conn), ["Njeri"]))
        block = await reader.get_context("t1")
    assert rows == []
    assert block is not None and "Njeri is 10" in block


async def test_a_version_15_file_learns_who_is_the_users_own(db_path: Path) -> None:
    """Step 16 marks the names the user's profile statements gave as family or pets: news told
    by the name after the upgrade joins the profile."""
    async with LocalBackend(db_path, retriever="lexical") as backend:
        await _told(backend, ["My cat Mango is 9, an orange tabby.", "My friend Carla has a cat."])
    with sqlite3.connect(db_path) as conn:
        conn.execute("ALTER TABLE entities DROP COLUMN own")
        conn.execute("PRAGMA user_version = 15")
    conn.close()
    async with LocalBackend(db_path, retriever="lexical") as backend:
        await _told(backend, [], ["Mango has kidney disease.", "Carla has hip dysplasia."])
        profile = await _profile_of(backend)
        version = backend._engine.read(lambda conn: conn.execute("PRAGMA user_version").fetchone())
    assert version[0] == SCHEMA_VERSION
    assert profile["Sam: Mango has kidney disease."] is not None
    assert profile["Sam: Carla has hip dysplasia."] is None


def _graph(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT graph FROM users WHERE user_id = 'u'").fetchone()[0])
