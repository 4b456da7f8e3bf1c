"""Replies to the assistant's questions about the user: read with the question they answer."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from zepkit.core._backend import SearchRequest, UserProfile
from zepkit.core._models import DataType, Message
from zepkit.local import (
    ExtractedStatement,
    LocalBackend,
    ReplyExtractor,
    RetrieverMode,
    RuleExtractor,
)
from zepkit.local.answers import is_fragment, question_to_user
from zepkit.local.embedders import Embedder


@pytest.mark.parametrize(
    ("said", "question"),
    [
        ("Where are you based?", "Where are you based?"),
        ("Nice! And how old are your kids?", "And how old are your kids?"),
        ("Caroline: What do you do for work?", "What do you do for work?"),
        ("Do you have any pets? Just curious.", "Do you have any pets?"),
        ("Any allergies I should know about?", "Any allergies I should know about?"),
        ("Got it. Dietary restrictions?", "Dietary restrictions?"),  # names a kind
        ("Congratulations on the puppy! What breed?", "What breed?"),  # a short follow-up
        (
            "Any allergies, or are you fine with everything?",
            "Any allergies, or are you fine with everything?",
        ),
        # a check on what the user said, though not asked
        (
            "Lovely. So you're vegan and cycling to work - got it!",
            "So you're vegan and cycling to work - got it!",
        ),
        ("Just to confirm, you have two cats.", "Just to confirm, you have two cats."),
        # a choice of what the thing the user just told of is, without "you"
        (
            "How exciting! Is it a garden, patio or balcony, and how much sun does it get?",
            "Is it a garden, patio or balcony, and how much sun does it get?",
        ),
        ("Are they indoor or outdoor cats?", "Are they indoor or outdoor cats?"),
    ],
)
def test_a_question_about_the_user_is_the_last_one_in_the_second_person(
    said: str, question: str
) -> None:
    assert question_to_user(said) == question


def test_a_question_quoting_a_word_is_still_asked() -> None:
    said = 'Did you mean the goldfish called "Sunny"?'
    assert question_to_user(said) == said


def test_only_the_end_of_a_long_message_is_read_for_its_question() -> None:
    prose = "The museum opens at nine and the garden closes at dusk. " * 200  # 11,000 characters
    assert question_to_user(f"Where are you based? {prose}") is None  # asked long before
    assert question_to_user(f"{prose}Where are you based?") == "Where are you based?"


@pytest.mark.parametrize(
    "said",
    [
        "Would you like a recipe for that?",
        "Does that help?",
        "How are you today?",
        "Did you know octopuses have three hearts?",
        "Is there anything else I can help you with?",
        "Want me to draft the email?",
        "Have you tried turning it off and on again?",
        "Is Paris the capital of France?",  # not about the user
        "You have a meeting at noon.",  # no question
        "Great, you'll love it there!",  # no check
        "So here's the plan: pack light.",
        # a question in a text drafted for the user to send, not asked of them
        'Try: "Are you still able to look at the proposal I sent on Monday?"',
        "Here's a nudge: “Could you drop the file in the shared folder by 5?”",
        "",
    ],
)
def test_offers_checks_small_talk_and_trivia_ask_nothing_of_the_user(said: str) -> None:
    assert question_to_user(said) is None


def test_a_reply_is_stored_with_its_question_and_joins_the_profile() -> None:
    extractor = RuleExtractor()
    assert isinstance(extractor, ReplyExtractor)
    [answer] = extractor.extract_reply("Melbourne.", speaker="Kim", question="Where are you based?")
    assert answer.text == 'Kim, asked "Where are you based?": Melbourne.'
    assert "Melbourne" in answer.entities + answer.maybe_entities
    assert answer.profile is not None
    # the kinds the question names weigh in: pets count more than a bare place
    [pets] = extractor.extract_reply(
        "Yep, a bearded dragon called Spike.", speaker="Kim", question="Do you have any pets?"
    )
    assert pets.profile is not None and pets.profile > answer.profile
    assert "Spike" in pets.entities + pets.maybe_entities


def test_a_sentence_about_the_speaker_reads_as_usual_and_bare_yes_or_no_counts() -> None:
    extractor = RuleExtractor()
    found = extractor.extract_reply(
        "I live in Lisbon. Near the river.", speaker="Kim", question="Where do you live?"
    )
    assert [s.text for s in found] == [
        "Kim: I live in Lisbon.",
        'Kim, asked "Where do you live?": Near the river.',
    ]
    assert [s.topics for s in found] == [("home",), ()]  # one of two: no subject of its own
    [berlin] = extractor.extract_reply("Berlin.", speaker="Kim", question="Where do you live?")
    assert berlin.topics == ("home",)  # the whole reply: a newer home ends the older
    [yes] = extractor.extract_reply(
        "Correct.", speaker="Kim", question="Just to confirm, you're allergic to penicillin?"
    )
    assert "penicillin" in yes.text and yes.profile is not None
    [no] = extractor.extract_reply("No.", speaker="Kim", question="Do you have any allergies?")
    assert no.text == 'Kim, asked "Do you have any allergies?": No.'
    assert extractor.extract_reply("Thanks!", speaker="Kim", question="Where do you live?") == []
    thanks = extractor.extract_reply(
        "Thanks, Melanie!", speaker="Kim", question="Where do you live?"
    )
    assert thanks == []  # a name, but with thanks: politeness
    [google] = extractor.extract_reply("At Google.", speaker="Kim", question="Where do you work?")
    assert google.topics == ("work",)  # names alone are the whole reply: a newer job ends it
    assert extractor.extract_reply("Yes.", speaker="Kim", question="Is that all?") == []


@pytest.mark.parametrize(
    ("question", "reply"),
    [
        ("Where do you live?", "It's a small town near York."),
        ("How old are your kids?", "They are 8 and 11."),
        ("How old is your daughter?", "She's four."),
        ("What's your partner's name?", "That would be Jordan."),
        ("What should I call you?", "Alex is fine."),  # the name asked for
        ("What's your name, by the way?", "Priya, nice to meet you."),
        ("How old are you?", "30 next week!"),  # an exclamation with a number
        ("Are you allergic to anything?", "Only penicillin as far as I know."),  # a hedge
        ("Any allergies?", "Peanuts, I think."),
        ("What kind of food do you like?", "Mostly Ethiopian and Korean."),  # only names
        ("Where do you work?", "At Google."),
        # "the" something of theirs, after a yes or a hedge
        (
            "A 2-bed in Heaton might be good value. Are you renting at the moment?",
            "yeah, and the tenancy says no pets without written permission",
        ),
        (
            "Sure! What kit do you have to cook with?",
            "honestly not much, the studio just has a two-ring hob and a microwave",
        ),
        ("Is the party for your son?", "Yes, he's turning 8, loves dinosaurs."),  # after a yes
        ("What are your kids' names?", "Mia is 6 and Theo is 3."),  # the names asked for
        ("what are your kids names", "mia is 6 and theo is 3"),  # typed without capitals
        ("Are you vegetarian, by any chance?", "I am, yes - for about ten years."),  # "I am"
        ("Are you vegetarian?", "I am."),
        ("Do you have kids?", "We do, two of them."),
        ("Do you drive?", "I don't."),
    ],
)
def test_a_reply_standing_for_what_was_asked_is_read_with_the_question(
    question: str, reply: str
) -> None:
    [answer] = RuleExtractor().extract_reply(reply, speaker="Kim", question=question)
    assert answer.text == f'Kim, asked "{question}": {reply}'
    assert answer.profile is not None


def test_a_yes_before_more_is_read_with_the_question() -> None:
    extractor = RuleExtractor()
    yes, more = extractor.extract_reply(
        "Yes! I only started running last year.",
        speaker="Kim",
        question="Is this your first marathon?",
    )
    assert yes.text == 'Kim, asked "Is this your first marathon?": Yes!'
    assert yes.profile is not None
    assert more.text == "Kim: I only started running last year."
    # not when the question asks nothing of the user
    [thanks] = extractor.extract_reply(
        "Yes! I found the form online.", speaker="Kim", question="Is that all?"
    )
    assert thanks.text == "Kim: I found the form online."


@pytest.mark.parametrize(
    ("question", "reply", "answer"),
    [
        # the option an either-or question offers, whatever follows it
        (
            "Do you own or rent the place?",
            "renting, landlord says no nails or screws in the walls",
            "renting, landlord says no nails or screws in the walls",
        ),
        (
            "Do you own or rent the place?",
            "Own it, but it's a listed building so no drilling on the front.",
            "Own it, but it's a listed building so no drilling on the front.",
        ),
        (
            "Is it a garden, patio or balcony, and how much sun does it get?",
            "small balcony, north facing, 3rd floor, and the wind up here is brutal most days",
            "small balcony, north facing, 3rd floor, and the wind up here is brutal most days",
        ),
        # an answer given with doubt, a question mark and no question word
        (
            "What's your current level, roughly?",
            "A2 maybe? I can order food and ask where the bathroom is lol.",
            "A2 maybe?",
        ),
        ("Which city are you in?", "lisbon? for now anyway. we move a lot", "lisbon?"),
        # a name exclaimed to a question asking which or what, before more of theirs
        ("Which language?", "Korean! I've been doing it for about 3 months", "Korean!"),
        ("What team do you support?", "Arsenal! I've had a season ticket for years.", "Arsenal!"),
    ],
)
def test_an_option_picked_or_an_answer_given_with_doubt_is_read_with_the_question(
    question: str, reply: str, answer: str
) -> None:
    found = RuleExtractor().extract_reply(reply, speaker="Kim", question=question)
    assert found[0].text == f'Kim, asked "{question}": {answer}'
    assert found[0].profile is not None


@pytest.mark.parametrize(
    ("question", "reply"),
    [
        ("Which language?", "Great question! I've been wondering too."),  # politeness
        ("Which language?", "OMG! I love that you asked."),  # shouted
        ("Are you excited about it?", "Woo-Hoo! It comes out next month."),  # no which or what
    ],
)
def test_an_exclamation_that_names_nothing_asked_is_no_answer(question: str, reply: str) -> None:
    exclaimed = reply.split("!")[0]
    found = RuleExtractor().extract_reply(reply, speaker="Kim", question=question)
    assert not any(s.text.startswith("Kim, asked") and exclaimed in s.text for s in found)


def test_an_exclaimed_answer_is_read_on_with_what_it_goes_on_about() -> None:
    """ "My dad's got a new obsession." "What is it?" "Birdwatching! He's out every morning.":
    the answer, the sentence it opens and the statement before are one."""
    extractor = RuleExtractor()
    before = "so my dad's got a new obsession since he retired"
    [told] = extractor.extract_reply(
        "birdwatching! he's out at the reservoir every morning with his binoculars",
        speaker="Rhys",
        question="Oh nice, what is it?",
        before=before,
    )
    assert told.text.startswith(f"Rhys: {before} birdwatching! he's out at the reservoir")
    assert told.profile is not None
    # politeness is no answer: only what goes on is read on
    [thanked] = extractor.extract_reply(
        "Thanks! he's out at the reservoir every morning",
        speaker="Rhys",
        question="Oh nice, what is it?",
        before=before,
    )
    assert "Thanks" not in thanked.text


@pytest.mark.parametrize(
    ("question", "reply"),
    [
        ("What did you think of the film?", "It was long."),  # no subject of the profile
        ("Where do you live?", "It's a small town near York. We love it there."),  # not alone
        ("Is Paris nice?", "It is lovely in spring."),  # not a question to the user
        ("Where do you live?", "I think Berlin is lovely."),  # a statement after the hedge
        ("What should I call the file?", "Report is fine."),  # not the user's name
        ("What is the capital called?", "Paris is the capital."),  # nothing of the user's
        ("Are you vegetarian?", "I am going to the shop."),  # "I am" with more of its own
        ("Is that all?", "I do, thanks."),  # a question about the answer, not the user
        ("Do you want tea or coffee?", "Honestly I'd rather not, thanks."),  # no option picked
        ("What's your level?", "Why? I'm just curious."),  # asked back, not answered
        ("How was your weekend?", "the weather was awful so we stayed in"),  # no kind of theirs
        ("Do you want the recipe?", "the one with chicken, please"),
    ],
)
def test_a_reply_that_refers_back_to_nothing_of_the_user_is_not_framed(
    question: str, reply: str
) -> None:
    found = RuleExtractor().extract_reply(reply, speaker="Kim", question=question)
    assert not any(s.text.startswith("Kim, asked") and s.text.endswith(reply) for s in found)


@pytest.mark.parametrize("retriever", ["lexical", "hybrid"])
async def test_a_terse_reply_reaches_a_new_conversation(
    retriever: RetrieverMode, words: type[Embedder]
) -> None:
    if retriever == "hybrid":
        pytest.importorskip("numpy")  # the test embedder's vectors (no model needed)
    backend = LocalBackend(retriever=retriever, embedder=words() if retriever == "hybrid" else None)
    try:
        await backend.ensure_user(UserProfile("kim", first_name="Kim"))
        await backend.ensure_user(UserProfile("lee", first_name="Lee"))
        for thread, user in (("k1", "kim"), ("k2", "kim"), ("l1", "lee"), ("now", "kim")):
            await backend.ensure_thread(thread, user)
        # the question in one write, the reply in the next (as an agent's turns arrive)
        await backend.add_messages("k1", [Message("user", "Hello there!", name="Kim")])
        await backend.add_messages("k1", [Message("assistant", "Hi! Where are you based?")])
        await backend.add_messages("k1", [Message("user", "Melbourne.", name="Kim")])
        # or both in one write
        await backend.add_messages(
            "k2",
            [
                Message("assistant", "How old are your kids?"),
                Message("user", "Eight and eleven.", name="Kim"),
                Message("assistant", "Would you like a quiz for them?"),
                Message("user", "Sure, a quick one about Saturn.", name="Kim"),
            ],
        )
        await backend.add_messages(
            "l1",
            [Message("assistant", "Where are you based?"), Message("user", "Oslo.", name="Lee")],
        )
        block = await backend.add_messages(
            "now", [Message("user", "What's the weather like?", name="Kim")], return_context=True
        )
        assert block is not None
        assert 'Kim, asked "Where are you based?": Melbourne.' in block
        assert 'Kim, asked "How old are your kids?": Eight and eleven.' in block
        assert "Saturn" not in block.split("</USER_PROFILE>")[0]  # an offer frames nothing
        assert "Oslo" not in block  # another user's reply
    finally:
        await backend.aclose()


class PlainExtractor:
    """An extractor without `extract_reply`: every message is read alone."""

    def extract(
        self, text: str, *, speaker: str | None, source: DataType, role: str | None = None
    ) -> Sequence[ExtractedStatement]:
        return [ExtractedStatement(text=f"{speaker}: {text}")]


async def test_an_extractor_without_answers_reads_replies_alone() -> None:
    backend = LocalBackend(extractor=PlainExtractor(), retriever="lexical")
    try:
        await backend.ensure_user(UserProfile("kim"))
        await backend.ensure_thread("t", "kim")
        await backend.add_messages(
            "t", [Message("assistant", "Where are you based?"), Message("user", "Melbourne.")]
        )
        stored = backend._engine._conn.execute("SELECT text FROM statement_rows ORDER BY id")
        assert [text for (text,) in stored] == [
            "assistant: Where are you based?",
            "user: Melbourne.",
        ]
    finally:
        await backend.aclose()


async def test_a_newer_answer_on_home_ends_the_older_one(backend: LocalBackend) -> None:
    await backend.ensure_user(UserProfile("kim", first_name="Kim"))
    for thread in ("t1", "t2", "now"):
        await backend.ensure_thread(thread, "kim")
    for thread, city in (("t1", "Porto"), ("t2", "Berlin")):
        await backend.add_messages(
            thread,
            [Message("assistant", "Which city do you live in?"), Message("user", f"{city}.")],
        )
    block = await backend.add_messages("now", [Message("user", "Hi again!")], return_context=True)
    assert block is not None
    profile = block.split("<USER_PROFILE>")[1].split("</USER_PROFILE>")[0]
    current, ended = profile.strip().splitlines()
    assert "Berlin." in current and current.endswith("- present)")
    assert "Porto." in ended and not ended.endswith("- present)")


@pytest.mark.parametrize(
    ("sentence", "bare"),
    [
        ("Melbourne.", True),
        ("Eight and eleven.", True),
        ("Yep, a bearded dragon called Spike.", True),
        ("Three times a week; it keeps us on track.", True),  # the answer comes first
        ("Yup, we raised a ton!", False),  # a clause of its own
        ("Of course, this was a mutual decision.", False),
        ("Unemployment in our community was the reason.", False),
        ("Near the river, in the old town, next to the market, by the big church tower.", False),
        # a long answer's clause, then a short aside
        ("Only a small north-facing balcony on the fifth floor, so nothing big.", True),
        ("Only a small balcony, so nothing big and nothing with charcoal or gas allowed.", False),
    ],
)
def test_a_bare_answer_has_no_subject_of_its_own(sentence: str, bare: bool) -> None:
    assert is_fragment(sentence) is bare


@pytest.mark.parametrize("reply", ["4 and 7.", "3", "Eight and eleven."])
def test_ages_answered_in_digits_are_kept_like_words(reply: str) -> None:
    [found] = RuleExtractor().extract_reply(reply, speaker="Kim", question="How old are your kids?")
    assert found.text == f'Kim, asked "How old are your kids?": {reply}'
    assert found.profile is not None


async def test_a_long_reply_reads_as_usual() -> None:
    reply = (
        "Thanks! Such a lovely question. Recently, mostly education reform and roads. "
        "Good access to schools matters, and people should be heard in every town hall we hold."
    )
    assert len(reply) > 160
    found = RuleExtractor().extract_reply(reply, speaker="Jo", question="What do you work on?")
    assert found == RuleExtractor().extract(reply, speaker="Jo", source="message", role="user")


async def test_a_search_naming_a_kind_finds_answers_of_that_kind(lexical: LocalBackend) -> None:
    # lexical: no meaning to find them, only the kinds their questions name
    await lexical.ensure_user(UserProfile("kim", first_name="Kim"))
    await lexical.ensure_thread("t", "kim")
    exchange = [
        Message("assistant", "Where are you based?"),
        Message("user", "Melbourne."),
        Message("assistant", "And what do you do for a living?"),
        Message("user", "Nurse, mostly nights."),
    ]
    await lexical.add_messages("t", exchange)
    for query, expected in (("home city", "Melbourne"), ("occupation", "Nurse")):
        found = await lexical.search(SearchRequest(query, user_id="kim", reranker=None))
        assert any(expected in fact.fact for fact in found.edges), query


async def test_a_planning_chat_keeps_what_the_user_answered(lexical: LocalBackend) -> None:
    await lexical.ensure_user(UserProfile("kim", first_name="Kim"))
    for thread in ("plan", "later"):
        await lexical.ensure_thread(thread, "kim")
    turns = [
        ("Hi! I need help planning a trip to Japan.", "When are you going, and for how long?"),
        ("Two weeks in April.", "Great timing. What's your budget, roughly?"),
        ("Around 3000 euros, flights not included.", "Would you like a day-by-day plan?"),
        ("Yes please.", "Here it is: day 1, Tokyo."),
    ]
    for said, reply in turns:
        await lexical.add_messages(
            "plan", [Message("user", said, name="Kim"), Message("assistant", reply)]
        )
    asking = [Message("user", "Suggest a restaurant for tonight.", name="Kim")]
    block = await lexical.add_messages("later", asking, return_context=True)
    assert block is not None
    profile = block.split("<USER_PROFILE>")[1].split("</USER_PROFILE>")[0]
    assert "Two weeks in April." in profile and "Around 3000 euros" in profile
    assert "Yes please" not in block  # the answer to an offer is no fact
