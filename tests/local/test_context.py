"""Thread context: searched with the latest messages over the user's whole graph."""

from __future__ import annotations

import sqlite3

import pytest

from zepkit.core._backend import UserProfile
from zepkit.core._models import Message
from zepkit.local import LocalBackend
from zepkit.local.profile import HEED_WORDS, must_heed
from zepkit.local.retrieval import (
    HEEDED_SHOWN,
    LIMITS_SHOWN,
    ProfileRow,
    StatementHit,
    heeded,
    limits,
)
from zepkit.local.search import DENSE_RELEVANCE_FLOOR, PROFILE_FACTS, pick_profile


async def test_a_new_user_gets_no_context(backend: LocalBackend) -> None:
    await backend.ensure_user(UserProfile("new"))
    await backend.ensure_thread("t", "new")
    assert await backend.get_context("t") is None
    first = [Message("user", "Hi, I'm Priya and I live in Pune.")]
    assert await backend.add_messages("t", first, return_context=True) is None


async def test_context_leaves_out_what_the_latest_messages_said(alice: LocalBackend) -> None:
    await alice.add_messages("a1", [Message("user", "I adopted a puppy named Biscuit.")])
    assert await alice.get_context("a1") is None


async def test_context_finds_facts_from_another_thread(alice: LocalBackend) -> None:
    await alice.add_messages(
        "a1",
        [
            Message("user", "I adopted a puppy named Biscuit."),
            Message("assistant", "Congratulations on Biscuit!"),
            Message("user", "My dentist appointment is on Friday."),
        ],
    )
    context = await alice.add_messages(
        "a2", [Message("user", "How should I train Biscuit?")], return_context=True
    )
    assert context is not None
    assert "user: I adopted a puppy named Biscuit." in context
    assert "How should I train Biscuit?" not in context
    # The user's own statements are their profile, in every block; the relevant one leads it.
    profile = context.split("<USER_PROFILE>")[1].split("</USER_PROFILE>")[0].splitlines()
    assert "Biscuit" in profile[1] and "dentist" in profile[2]
    assert "Congratulations" not in context  # an acknowledgement is not a fact
    assert context == await alice.get_context("a2")


async def test_context_uses_only_the_last_four_messages(alice: LocalBackend) -> None:
    await alice.add_messages("a1", [Message("assistant", "Saffron comes from crocus flowers.")])
    await alice.add_messages("a2", [Message("user", "Saffron risotto was on the menu.")])
    await alice.add_messages("a2", [Message("user", f"filler {n}") for n in range(4)])
    assert await alice.get_context("a2") is None
    context = await alice.get_context("a1")
    assert context is not None and "user: Saffron risotto was on the menu." in context


async def test_the_profile_comes_whatever_the_query_says(alice: LocalBackend) -> None:
    await alice.add_messages("a1", [Message("user", "I'm allergic to bee stings.")])
    context = await alice.add_messages("a2", [Message("user", "Hi!")], return_context=True)
    assert context is not None and "bee stings" in context.split("</USER_PROFILE>")[0]


async def test_context_never_mixes_users(backend: LocalBackend) -> None:
    for user in ("a", "b"):
        await backend.ensure_user(UserProfile(user))
        await backend.ensure_thread(f"{user}-1", user)
        await backend.ensure_thread(f"{user}-2", user)
    await backend.add_messages("b-1", [Message("user", "My locker code is 4471 at Fitzroy gym.")])
    await backend.add_messages("a-1", [Message("user", "What is the Fitzroy gym locker code?")])
    context = await backend.get_context("a-1")
    assert context is None or "4471" not in context


async def test_a_turn_is_one_entry_with_its_sentences_in_order(alice: LocalBackend) -> None:
    said = "The Berlin marathon starts near the Brandenburg Gate. Its course is flat and fast."
    await alice.add_messages("a1", [Message("user", said)])
    await alice.add_messages("a2", [Message("user", "Where does the Berlin race start?")])
    context = await alice.get_context("a2")
    assert context is not None
    [entry] = [line for line in context.splitlines() if "Berlin marathon" in line]
    assert f"user: {said} (Date range:" in entry


async def test_an_assistants_turn_shows_its_opening_and_best_statements(
    alice: LocalBackend,
) -> None:
    """What the assistant said takes little of the block's room, so the user's words fill it:
    its opening statement (most often the answer it gave) and the one that best matches; but
    the best ranked of its turns reads from its start (the answer is seldom the sentence that
    shares the question's words)."""
    said = (
        "I'd go with the Berlin marathon. It starts near the Brandenburg Gate. Its course is "
        "flat and fast. Registration for the race opens in May."
    )
    best = (
        "Registration for a big race opens months ahead. Some use a ballot. Registration for a "
        "popular race opens and closes within hours."
    )
    await alice.add_messages("a1", [Message("assistant", said)])
    await alice.add_messages("a1", [Message("assistant", best)])
    await alice.add_messages("a2", [Message("user", "When does registration open for that race?")])
    context = await alice.get_context("a2")
    assert context is not None
    entries = [line for line in context.splitlines() if "assistant:" in line]
    shown = "I'd go with the Berlin marathon. Registration for the race opens in May."
    assert any(f"assistant: {shown} (Date" in entry for entry in entries)
    assert any(f"assistant: {best} (Date" in entry for entry in entries)


async def test_asked_back_every_assistants_turn_reads_from_its_start(alice: LocalBackend) -> None:
    """Asked what it suggested, every assistant's turn shows its sentences as said, up to an
    entry's room: the pick sits anywhere in the first few and seldom shares the question's
    words."""
    knots = (
        "Congrats to your brother! The four-in-hand knot is the easiest, but it comes out narrow "
        "and lopsided. I'd learn the half-Windsor: it's symmetrical and most people get it after "
        "a few tries. Practise it the night before. "
        + " ".join(f"Detail {n} of the knot is worth a look." for n in range(20))
    )
    ties = "A tie knot sits best with a spread collar. Pick a silk tie, a tie knot holds in silk."
    await alice.add_messages(
        "a1", [Message("user", "Which tie knot should I learn?"), Message("assistant", knots)]
    )
    await alice.add_messages("a1", [Message("assistant", ties)])
    await alice.add_messages("a2", [Message("user", "What tie knot did you say I should do?")])
    context = await alice.get_context("a2")
    assert context is not None
    [entry] = [line for line in context.splitlines() if "four-in-hand" in line]
    assert "half-Windsor" in entry
    assert "Detail 19" not in entry  # an entry's room, as for any long turn
    # asked something new, the turn that is not the best shows its opening and best only
    await alice.ensure_thread("a3", "alice")
    await alice.add_messages(
        "a3", [Message("user", "Which tie knot suits a silk tie and a spread collar?")]
    )
    context = await alice.get_context("a3")
    assert context is not None
    [entry] = [line for line in context.splitlines() if "four-in-hand" in line]
    assert "half-Windsor" not in entry


async def test_only_the_users_words_ask_back(alice: LocalBackend) -> None:
    """The assistant's own "as you mentioned" in the thread asks nothing back: the turn that is
    not the best still shows its opening and best statements only."""
    knots = (
        "The four-in-hand knot is the easiest, but it comes out narrow. I'd learn the "
        "half-Windsor: it's symmetrical. Practise it the night before."
    )
    ties = "A tie knot sits best with a spread collar. Pick a silk tie, a tie knot holds in silk."
    await alice.add_messages("a1", [Message("assistant", knots), Message("assistant", ties)])
    await alice.add_messages(
        "a2",
        [
            Message("user", "I have a wedding on Saturday."),
            Message("assistant", "As you mentioned, the wedding is on Saturday."),
            Message("user", "Which tie knot suits a silk tie and a spread collar?"),
        ],
    )
    context = await alice.get_context("a2")
    assert context is not None
    [entry] = [line for line in context.splitlines() if "four-in-hand" in line]
    assert "half-Windsor" not in entry
    # the same said by the user asks back
    await alice.add_messages("a2", [Message("user", "Which tie knot did you say I should learn?")])
    context = await alice.get_context("a2")
    assert context is not None
    [entry] = [line for line in context.splitlines() if "four-in-hand" in line]
    assert "half-Windsor" in entry


async def test_a_message_of_new_words_finds_the_facts_of_the_two_it_shares(
    lexical: LocalBackend,
) -> None:
    """The block's query is the thread's latest messages, already written: words only they
    hold must not push out the two the user's history shares (by words alone: no vectors)."""
    alice = lexical
    await alice.ensure_user(UserProfile("alice"))
    for thread in ("a1", "a2"):
        await alice.ensure_thread(thread, "alice")
    await alice.add_messages(
        "a1",
        [
            Message("user", "I need one novel for my long flight to Singapore."),
            Message("assistant", "I'd pick Station Eleven by Emily St. John Mandel."),
        ],
    )
    said = (
        "Hey!! I'm at the airport gate, boarding soon, and my brain has totally blanked, ugh, "
        "honestly, quick: what was that novel for the flight?"
    )
    context = await alice.add_messages("a2", [Message("user", said)], return_context=True)
    assert context is not None and "Station Eleven" in context
    # nothing shared at all: the profile alone, and no error
    await alice.ensure_thread("a3", "alice")
    context = await alice.add_messages(
        "a3", [Message("user", "Zyzzyva quuxling frobnicate.")], return_context=True
    )
    assert context is not None and "novel" in context.split("</USER_PROFILE>")[0]


async def test_a_long_document_shows_its_best_statements_only(alice: LocalBackend) -> None:
    filler = " ".join(f"Clause {n} covers shipping zone {n}." for n in range(60))
    await alice.add_data(
        f"{filler} Refunds for damaged parcels take five days.", type="text", user_id="alice"
    )
    await alice.add_messages(
        "a2", [Message("user", "How long do refunds for damaged parcels take?")]
    )
    context = await alice.get_context("a2")
    assert context is not None
    [entry] = [line for line in context.splitlines() if "Refunds for damaged" in line]
    assert len(entry) < 600


async def test_stray_words_do_not_push_the_most_salient_facts_out_of_the_profile(
    alice: LocalBackend,
) -> None:
    """Many weak statements share a word with the query; the user's health still leads the
    block, after them (`SALIENT_FACTS`), and the profile grows by it rather than losing one."""
    await alice.add_messages("a1", [Message("user", "I use an insulin pump, type 1 diabetic.")])
    weak = [
        "my phone storage is full again",
        "i need a new theme for my slides",
        "my car got parked in again",
        "my desk is a mess most days",
        "i pack my lunch on workdays",
        "my inbox is full of junk",
        "i want a darker theme in my editor",
        "my bag strap broke",
    ]
    for text in weak:
        await alice.add_messages("a1", [Message("user", text)])
    context = await alice.add_messages(
        "a2",
        [Message("user", "What should I pack in my bag for a full day at the theme park?")],
        return_context=True,
    )
    assert context is not None
    profile = context.split("<USER_PROFILE>")[1].split("</USER_PROFILE>")[0]
    assert "insulin" in profile
    assert len(profile.strip().splitlines()) == PROFILE_FACTS + 1


async def test_the_weightiest_kind_leads_among_the_most_salient(alice: LocalBackend) -> None:
    """Salience adds the kinds a statement touches, so chatty sentences about the user's people
    and plans outweigh "Type 2 diabetes."; among the most salient, health or diet still leads."""
    await alice.add_messages("a1", [Message("user", "Type 2 diabetes, on metformin.")])
    chatty = [
        "My grandson Tom got picked for the rugby squad at his school and we're going to "
        "every match this season, my daughter is driving us.",
        "My sister and her husband are visiting from Leeds next month for my birthday and we "
        "booked a table at the Italian place.",
        "Our neighbour's kids are starting at my old school in September, my wife is thrilled.",
    ]
    weak = [f"my {thing} is full again" for thing in ("inbox", "phone", "freezer", "diary")]
    for text in [*chatty, *weak]:
        await alice.add_messages("a1", [Message("user", text)])
    context = await alice.add_messages(
        "a2", [Message("user", "Is my diary or my inbox more full this week?")], return_context=True
    )
    assert context is not None
    assert "diabetes" in context.split("</USER_PROFILE>")[0]


LATER_STATEMENTS = [
    "I'm vegetarian and I started cross-country skiing three times a week.",
    "My parents in Leipzig want me home for Christmas.",
    "Our cat Pelle has hairballs twice a week, he's a Norwegian forest cat.",
    "I'm a marine biologist, originally from Leipzig.",
    "My sister Anke is expecting twins in March.",
    "I have a bad knee from an old football injury.",
    "We're flying to Lisbon for my brother's wedding in June.",
    "My husband Jonas works night shifts at the hospital.",
    "I'm allergic to penicillin and I have mild asthma.",
    "My son Emil is 4 and starts kindergarten in August.",
    "I'm training for a half marathon in May.",
    "Our flat is tiny, just one bedroom.",
]
"""A dozen statements about the user, told after the one a test looks for."""


async def _told(alice: LocalBackend, *said: str) -> None:
    """Alice tells each of `said` in thread "a1", one message each."""
    for text in said:
        await alice.add_messages("a1", [Message("user", text)])


async def _block_for(alice: LocalBackend, thread: str, said: str) -> str:
    """The block a new thread gets for Alice's message `said`."""
    await alice.ensure_thread(thread, "alice")
    context = await alice.add_messages(thread, [Message("user", said)], return_context=True)
    assert context is not None
    return context


def _lead(block: str) -> str:
    """The block up to the end of `<USER_PROFILE>`."""
    return block.split("</USER_PROFILE>")[0]


async def test_where_the_user_lives_leads_when_the_message_asks_about_it(
    lexical_alice: LocalBackend,
) -> None:
    """The current statement of a single-valued subject the message asks about ("where I live")
    answers it, however long ago it was told and however much more came after (lexically: no
    meaning links "where I live" to "moved to")."""
    alice = lexical_alice
    await _told(alice, "I moved to Tromsø in August for a postdoc.", *LATER_STATEMENTS)
    asked = "What vegetables would do well where I live this summer?"
    assert "Tromsø" in _lead(await _block_for(alice, "a2", asked))
    # a message that names no such subject leaves the profile to salience and recency
    other = "What should I knit for the twins?"
    assert "Tromsø" not in _lead(await _block_for(alice, "a3", other))


async def test_where_the_user_lives_leads_when_only_it_answers_the_message(
    lexical_alice: LocalBackend,
) -> None:
    """A day trip or what is nearby needs where the user lives, though the message does not
    ask it; a later mention of the move as a time ("since we moved") ends no home."""
    alice = lexical_alice
    await _told(
        alice,
        "We moved to Rotterdam three weeks ago.",
        *LATER_STATEMENTS,
        "Emil is scared of the dark since we moved, he wakes up crying.",
    )
    asked = "Any ideas for Saturday day trips by train, an hour each way?"
    assert "Rotterdam" in _lead(await _block_for(alice, "a2", asked))


async def test_the_hours_the_user_works_lead_when_a_message_asks_when(
    lexical_alice: LocalBackend,
) -> None:
    """When to train, sleep or eat needs the hours the user works (their husband's night shifts
    are not theirs), however long ago told; a newer schedule ends the older."""
    alice = lexical_alice
    await _told(alice, "I'm on permanent nights now.", *LATER_STATEMENTS)
    asked = "When should I go to the gym?"
    assert "permanent nights" in _lead(await _block_for(alice, "a2", asked))
    other = "What should I knit for the twins?"
    assert "permanent nights" not in _lead(await _block_for(alice, "a3", other))
    await _told(alice, "I'm back on day shifts since Monday.")
    profile = _lead(await _block_for(alice, "a4", asked))
    assert "back on day shifts" in profile and "permanent nights" not in profile


async def test_the_limits_of_the_user_lead_when_a_message_plans_an_outing(
    lexical_alice: LocalBackend,
) -> None:
    """A fear, a bad knee or motion sickness decides any day out or journey: the newest
    `LIMITS_SHOWN` the user told of lead a block that plans one, however little they share with
    it, and not a block about something else."""
    alice = lexical_alice
    await _told(
        alice,
        "I'm scared of heights, even glass floors make my legs shake.",
        *LATER_STATEMENTS,  # "I have a bad knee from an old football injury."
    )
    carried = alice._engine.read(lambda conn: limits(conn, _graph_of(conn, "alice")))
    assert [row.hit.text for row in carried] == [
        "user: I have a bad knee from an old football injury.",
        "user: I'm scared of heights, even glass floors make my legs shake.",
    ]
    assert len(carried) == LIMITS_SHOWN
    profile = _lead(await _block_for(alice, "a2", "Can you plan a full day for us in Singapore?"))
    assert "scared of heights" in profile and "bad knee" in profile
    other = "What should I knit for the twins?"
    assert "scared of heights" not in _lead(await _block_for(alice, "a3", other))


async def test_the_limits_of_the_household_lead_when_a_message_plans_a_trip(
    lexical_alice: LocalBackend,
) -> None:
    """The children's motion sickness decides a family's drive as the user's own would; a
    friend's fear plans nothing of the user's."""
    alice = lexical_alice
    await _told(
        alice,
        "The kids get carsick on anything windy, even the school bus.",
        "My friend Tom is scared of dogs.",
        *LATER_STATEMENTS,
    )
    carried = alice._engine.read(lambda conn: limits(conn, _graph_of(conn, "alice")))
    assert [row.hit.text for row in carried] == [
        "user: I have a bad knee from an old football injury.",
        "user: The kids get carsick on anything windy, even the school bus.",
    ]
    asked = "Can you plan a week at the coast for all of us in July?"
    assert "carsick" in _lead(await _block_for(alice, "a2", asked))


async def test_the_users_things_lead_when_a_message_is_about_them(
    lexical_alice: LocalBackend,
) -> None:
    """What the kitchen lacks decides a recipe, the car a long drive, the languages of the
    user's work the code asked for: the current one leads, however long ago told, and a newer
    car ends the older."""
    alice = lexical_alice
    await _told(
        alice,
        "My flat has no oven, just a two-burner hob.",
        "We have an old diesel VW Passat.",
        "Our whole backend team is a Kotlin shop.",
        *LATER_STATEMENTS,
    )
    cake = _lead(await _block_for(alice, "a2", "Which chocolate cake recipe should I make?"))
    assert "no oven" in cake and "Passat" not in cake
    code = "Sketch a service that reads payment events into Postgres, just the core code."
    assert "Kotlin" in _lead(await _block_for(alice, "a3", code))
    await _told(alice, "We traded the Passat in for a Kia EV6 last week.")
    drive = _lead(await _block_for(alice, "a4", "How should we plan the drive to Lyon?"))
    assert "Kia EV6" in drive and "diesel VW Passat" not in drive


async def test_standing_requests_on_no_named_subject_come_in_every_block(
    lexical_alice: LocalBackend,
) -> None:
    """A standing request on a subject no rule names ("assume TypeScript", "the cheapest option
    first") holds for every answer as the named ones do; two such requests end neither."""
    alice = lexical_alice
    await _told(
        alice,
        "oh and btw for any code from now on just assume TypeScript with strict mode",
        *LATER_STATEMENTS,
        "Small thing: can you always give me the cheapest option first?",
    )
    profile = _lead(await _block_for(alice, "a2", "How do I debounce a search input in React?"))
    assert "assume TypeScript" in profile and "cheapest option first" in profile


async def test_standing_instructions_come_in_every_block(lexical_alice: LocalBackend) -> None:
    """How to answer holds for every answer: a standing instruction told among many statements
    leads the profile of a block whose message shares nothing with it, besides the rest."""
    alice = lexical_alice
    await _told(
        alice, "Small request going forward: keep answers short, bullets please.", *LATER_STATEMENTS
    )
    asked = "Can you explain how index funds work?"
    profile = _lead(await _block_for(alice, "a2", asked))
    assert "keep answers short" in profile
    assert len(profile.split("<USER_PROFILE>")[1].strip().splitlines()) > PROFILE_FACTS
    # a newer instruction on the same subject ends it: only the newer one comes
    await _told(alice, "Long detailed answers are fine now.")
    profile = _lead(await _block_for(alice, "a3", asked))
    assert "detailed answers are fine" in profile and "keep answers short" not in profile


async def test_allergies_and_conditions_to_heed_come_in_every_block(
    lexical_alice: LocalBackend,
) -> None:
    """An allergy told once among many weightier statements leads the profile of a block whose
    message shares no word with it (a Lebanese menu and sesame): every suggestion of food or
    medicine must heed it. The newest `HEEDED_SHOWN` come, and a form's question about
    allergies is none."""
    alice = lexical_alice
    await _told(
        alice,
        "Skip the seeds on top, I'm allergic to sesame.",
        *(text for text in LATER_STATEMENTS if "allergic" not in text),
        "I'm filling in the travel form, it asks about allergies.",
    )
    asked = "Never had Lebanese food, what should I order on Friday?"
    assert "allergic to sesame" in _lead(await _block_for(alice, "a2", asked))
    carried = alice._engine.read(lambda conn: heeded(conn, _graph_of(conn, "alice")))
    assert [row.hit.text for row in carried] == [
        "user: Skip the seeds on top, I'm allergic to sesame."
    ]
    await _told(alice, "I'm lactose intolerant.", "I'm coeliac, diagnosed in May.")
    context = await _block_for(alice, "a3", asked)
    carried = alice._engine.read(lambda conn: heeded(conn, _graph_of(conn, "alice")))
    assert len(carried) == HEEDED_SHOWN  # the newest
    assert [row.hit.text for row in carried] == [
        "user: I'm coeliac, diagnosed in May.",
        "user: I'm lactose intolerant.",
    ]
    assert all(row.hit.text.removeprefix("user: ") in context for row in carried)


@pytest.mark.parametrize(
    ("sentence", "heed"),
    [
        ("I'm allergic to penicillin, got hives.", True),
        ("Peanut allergy here, severe.", True),
        ("I'm lactose intolerant.", True),
        ("Got diagnosed with coeliac disease last month.", True),
        ("I have type 2 diabetes.", True),
        ("She carries an EpiPen.", True),
        ("I always carry an epi-pen.", True),
        ("I'm pre-diabetic.", True),
        ("The form asks about allergies.", False),
        ("The allergy clinic called back.", False),
        ("Any allergy info on the menu?", False),
    ],
)
def test_what_every_suggestion_of_food_or_medicine_must_heed(sentence: str, heed: bool) -> None:
    assert must_heed(sentence) is heed
    # the upgrade to schema 17 reads only the statements holding one of these
    assert not heed or any(word in sentence.lower() for word in HEED_WORDS)


def _graph_of(conn: sqlite3.Connection, user_id: str) -> int:
    return int(conn.execute("SELECT graph FROM users WHERE user_id = ?", (user_id,)).fetchone()[0])


def _profile_row(key: int, text: str, salience: float) -> ProfileRow:
    hit = StatementHit(key, f"u{key}", text, "user", "2026-01-01", "2026-01-01", None, key, 0.0)
    return ProfileRow(hit, salience)


def test_with_dense_retrieval_a_weak_match_counts_as_none() -> None:
    """Dense retrieval finds every turn somewhat near the query: a statement whose relevance is
    under `DENSE_RELEVANCE_FLOOR` of the best one's is ranked by salience and recency alone."""
    rows = [  # newest first, as `profile_statements` gives them
        _profile_row(4, "user: I'm a freelance translator.", 3.0),
        _profile_row(3, "user: I'm allergic to penicillin.", 7.0),
        _profile_row(2, "user: I play padel on Fridays.", 2.5),
        _profile_row(1, "user: I'm training for a half marathon.", 2.5),
    ]
    relevance = {1: 1.0, 4: 0.4}  # the best match, and one near it only as everything is
    unread = sqlite3.connect(":memory:")  # the candidates are given: nothing is read

    def order(floor: float) -> list[str]:
        ranked, _ = pick_profile(
            unread, 0, relevance, exclude=(), said=(), candidates=rows, floor=floor
        )
        return [hit.text for hit, _ in ranked]

    assert order(0.0).index("user: I'm a freelance translator.") < order(0.0).index(
        "user: I'm allergic to penicillin."
    )
    floored = order(DENSE_RELEVANCE_FLOOR)
    assert floored[0] == "user: I'm training for a half marathon."  # the real match still leads
    assert floored.index("user: I'm allergic to penicillin.") < floored.index(
        "user: I'm a freelance translator."
    )
    unread.close()
