"""Habits given up or taken up again end the user's statements that they do them."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta

import pytest

from zepkit.core._backend import SearchRequest, UserProfile
from zepkit.core._models import Message
from zepkit.local import LocalBackend
from zepkit.local.habits import Habit, changed_habit, does_habit, names_thing, root, watches

Told = Callable[..., Awaitable[dict[str, datetime | None]]]
T0 = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("words", "same"),
    [
        (("smoke", "smokes", "smoker", "smoking", "smokers"), True),
        (("run", "runs", "running"), True),
        (("coffee", "coffees"), True),
        (("vape", "vaping"), True),
        (("smoke", "smile"), False),
    ],
)
def test_a_habit_is_matched_by_its_root(words: tuple[str, ...], same: bool) -> None:
    assert (len({root(word) for word in words}) == 1) is same


@pytest.mark.parametrize(
    ("text", "habit"),
    [
        ("Ana: I quit smoking three weeks ago.", "smok"),
        ("Ana: Quit smoking last month!", "smok"),  # chat's dropped "I"
        ("Ana: I'm no longer a smoker.", "smok"),
        ("Ana: I don't drink anymore.", "drink"),
        ("Ana: I don't drink coffee any more.", "coffe"),  # the verb's object is the habit
        ("Ana: I stopped eating meat.", "meat"),
        ("Ana: Gave up coffee last week, feeling great.", "coffe"),
        ("Ana: I started smoking again, sadly.", "smok"),  # taken up again
        ("Ana: I've quit Instagram for good.", "instagram"),
        ("Ana: I've come off the sertraline now.", "sertralin"),  # a medicine stopped
        ("Ana: Came off my antidepressants last month.", "antidepressant"),
        ("Ana: I've been smoke-free for six weeks!", "smok"),
        ("Ana: The restaurant was smoke-free.", None),  # a place, not the speaker
        ("Ana: I came off my bike yesterday.", None),  # a fall
        ("Ana: I came off the phone to my mum.", None),
        ("Ana: My dad quit smoking.", None),  # someone else's habit
        ("Ana: I stopped by the shop.", None),
        ("Ana: I quit.", None),
        ("Ana: I gave up on Spanish, too hard.", "spanish"),
        ("Ana: I quit the gym in March.", "gym"),
        ("Ana: I stopped going to the gym.", "gym"),  # the habit is where one went
        ("Ana: Quit going to church years ago.", "church"),
        ("Ana: I stopped going out so much.", None),  # no place: nothing given up by name
        ("Ana: I've cut out coffee completely.", "coffe"),
        ("Ana: Ditched sugar in January.", "sugar"),
        ("Ana: I cut out the middle part of the video.", None),  # an edit, not a habit
        ("Ana: I smoke about ten a day.", None),
        # a part of the habit given up keeps the rest: a time, a place, how much
        ("Ana: I no longer drive at night.", None),
        ("Ana: I don't work weekends anymore.", None),
        ("Ana: I no longer work late.", None),
        ("Ana: I no longer work from the café.", None),
        ("Ana: I stopped running in the mornings.", None),
        ("Ana: I don't drink so much anymore.", None),
        ("Ana: I quit smoking at work.", None),
        ("Ana: I stopped drinking coffee after 3pm.", None),
        ("Ana: I quit running club.", "club"),  # the club, not running
        ("Ana: I stopped going to the gym on Mondays.", None),
        # the time of the change is no part
        ("Ana: I stopped running in March.", "run"),
        ("Ana: I quit smoking in the summer of 2019.", "smok"),
        # a season without its year is the part of the year given up
        ("Ana: I stopped cycling in the winter, too dark.", None),
        ("Ana: I quit smoking after my surgery.", "smok"),
        ("Ana: I stopped playing the piano.", "piano"),  # a light verb's object, its article
        ("Ana: 2 weeks without smoke, I am angry all day.", "smok"),  # time without it
        ("Ana: Six months without booze now.", "drink"),
        ("Ana: Two weeks off work with flu.", None),  # time off, not work given up
        ("Ana: Two days without my phone, it was bliss.", None),  # days: a break, no habit
        ("Ana: My dad went 3 years without smoking.", None),
        ("Ana: 6 months no smokes.", "smok"),
        ("Ana: Two weeks no sleep lol", None),  # weeks of no: a complaint
        ("Ana: smoked my last one paddys day.", "smok"),
        ("Ana: My dad smoked his last one.", None),
        # a part given up beside the rest still done
        ("Ana: I stopped running on the treadmill, I run outside now.", None),
        ("Ana: I quit smoking, I only vape now.", "smok"),  # vaping is another habit
    ],
)
def test_what_a_statement_gives_up(text: str, habit: str | None) -> None:
    found = changed_habit(text)
    assert (found.root if found else None) == habit


@pytest.mark.parametrize(
    ("text", "habit"),
    [
        ("Ana: I left the band.", Habit("band")),  # a group left
        ("Ana: Quit my book club last month.", Habit("club", "book")),
        ("Ana: I left the local choir.", Habit("choir")),
        ("Ana: I left the football team after ten years.", Habit("team", "football")),
        ("Ana: My son left the band.", None),
        ("Ana: I left the band practice early.", None),  # the group's doings
        ("Ana: I left the club early.", None),
        ("Ana: I left my bag at the club.", None),
        ("Ana: I stopped reading the news.", Habit("read", "new")),
        ("Ana: I quit checking my emails at night.", None),  # a part: when
        ("Ana: I quit smoking cigarettes.", Habit("smok")),  # no article: the habit's kind
        ("Ana: I stopped reading in bed.", None),
    ],
)
def test_what_a_habit_is_done_to(text: str, habit: Habit | None) -> None:
    """A habit given up that names what it is done to, with an article, gives up only that."""
    assert changed_habit(text) == habit


@pytest.mark.parametrize(
    ("text", "group", "member"),
    [
        ("Ana: I sing in a choir.", "choir", True),
        ("Ana: I play guitar in a band.", "band", True),
        ("Ana: I'm on the netball team.", "team", True),
        ("Ana: I'm a member of the chess club.", "club", True),
        ("Ana: Sing in a choir on Mondays.", "choir", True),
        ("Ana: My son plays in a band.", "band", False),
        ("Ana: I saw a band last night.", "band", False),
    ],
)
def test_who_is_in_a_group(text: str, group: str, member: bool) -> None:
    assert does_habit(text, group) is member


def test_a_statement_names_what_a_habit_is_done_to() -> None:
    assert names_thing("Ana: I read the news every morning.", "new")
    assert not names_thing("Ana: I read before bed every night.", "new")


@pytest.mark.parametrize(
    ("text", "does"),
    [
        ("Ana: I smoke about ten a day.", True),
        ("Ana: Still smoking a pack a day.", True),
        ("Ana: I have a glass of wine, then I smoke one.", True),
        ("Ana: Dad smokes.", False),
        ("Ana: My sister smokes a lot.", False),
        ("Ana: I'm a heavy smoker.", True),
        ("Ana: I've been smoking since college.", True),
        ("Ana: I hate the smell of smoke.", False),  # the word, not the habit
        ("Ana: I'm allergic to smoke.", False),
        ("Ana: Used to smoke a lot, still do.", True),  # a clause without "I" opens with it
        ("Ana: A lot of smoke came from the kitchen.", False),  # a quantity, not a doing
    ],
)
def test_who_does_the_habit(text: str, does: bool) -> None:
    assert does_habit(text, "smok") is does


@pytest.mark.parametrize(
    ("text", "habit", "does"),
    [
        ("Ana: I'm learning Spanish.", "spanish", True),  # a pursuit given up ends too
        ("Ana: I'm studying Spanish at night school.", "spanish", True),
        ("Ana: I go to the gym every morning.", "gym", True),
        ("Ana: I play the guitar in a band.", "guitar", True),
        ("Ana: My husband is learning Spanish.", "spanish", False),
        ("Ana: I hate the gym.", "gym", False),
        ("Ana: I met my wife at the gym.", "gym", False),
        ("Ana: Been doing CrossFit four times a week.", "crossfit", True),
        ("Ana: Playing tennis on Sundays.", "tenni", True),
        ("Ana: Started learning the cello in January.", "cello", True),
        ("Ana: I started learning the cello in January.", "cello", True),
        ("Ana: The cello is a lovely instrument.", "cello", False),  # no doing before it
        ("Ana: I've taken up the guitar, badly.", "guitar", True),
        ("Ana: Took up running last year.", "run", True),
    ],
)
def test_who_does_a_pursuit(text: str, habit: str, does: bool) -> None:
    assert does_habit(text, habit) is does


@pytest.mark.parametrize(
    ("text", "watched"),
    [
        ("Ana: I stopped watching tennis on TV.", True),
        ("Ana: I watch a lot of tennis.", True),
        ("Ana: I watch football and play tennis.", False),  # tennis is played
        ("Ana: I've been playing tennis for years.", False),
    ],
)
def test_a_habit_watched(text: str, watched: bool) -> None:
    assert watches(text, "tenni") is watched


async def _said(backend: LocalBackend, *messages: str) -> dict[str, datetime | None]:
    """Each message told a month after the one before; every fact's end time by its text."""
    await backend.ensure_user(UserProfile("ana", first_name="Ana"))
    for n, text in enumerate(messages):
        await backend.ensure_thread(f"t{n}", "ana")
        when = T0 + timedelta(days=30 * n)
        await backend.add_messages(f"t{n}", [Message("user", text, created_at=when)])
    found = await backend.search(SearchRequest("smoking smoke", user_id="ana", limit=10))
    return {fact.fact.split(": ", 1)[1]: fact.invalid_at for fact in found.edges}


async def test_giving_up_a_habit_ends_doing_it(backend: LocalBackend) -> None:
    ended = await _said(backend, "I smoke about ten a day.", "I quit smoking in January!")
    assert ended["I smoke about ten a day."] == T0 + timedelta(days=30)
    assert ended["I quit smoking in January!"] is None


async def test_taking_it_up_again_ends_giving_it_up(backend: LocalBackend) -> None:
    ended = await _said(backend, "I quit smoking.", "I started smoking again, sadly.")
    assert ended["I quit smoking."] == T0 + timedelta(days=30)
    assert ended["I started smoking again, sadly."] is None


async def test_taking_it_up_again_keeps_doing_it(told_monthly: Told) -> None:
    """Cycling again after a winter off ends the winter off, not cycling to work."""
    told = "I cycle to work every day."
    news = ["I stopped cycling in the winter, too dark.", "I've started cycling again!"]
    ended = await told_monthly("cycling cycle", told, *news)
    assert ended[told] is None


async def test_giving_it_up_keeps_saying_it_is_not_done(told_monthly: Told) -> None:
    """ "I don't smoke" agrees with "2 weeks without smoke": it stays; "I smoke" is ended."""
    told = ["I smoke like 10 a day.", "I'm so angry all day but I don't smoke."]
    ended = await told_monthly("smoke smoking", *told, "3 weeks without smoking now.")
    assert ended[told[0]] == T0 + timedelta(days=60)
    assert ended[told[1]] is None


async def test_a_habit_of_the_past_is_left_by_giving_it_up(told_monthly: Told) -> None:
    """ "I used to smoke forty a day" is true after the news: only doing it now ends."""
    told = ["I smoke about ten a day.", "I used to smoke forty a day in my twenties."]
    ended = await told_monthly("smoke", *told, "Three weeks without a single cigarette today!")
    assert ended[told[0]] == T0 + timedelta(days=60)
    assert ended[told[1]] is None


async def test_someone_elses_habit_ends_nothing(backend: LocalBackend) -> None:
    ended = await _said(backend, "I smoke a pack a day.", "My dad quit smoking last year.")
    assert ended["I smoke a pack a day."] is None


async def test_giving_up_a_pursuit_ends_doing_it(told_monthly: Told) -> None:
    told = ["I'm learning Spanish for my trip.", "I go to the gym every morning."]
    ended = await told_monthly("Spanish gym", *told, "I gave up on Spanish, too hard.")
    assert ended[told[0]] == T0 + timedelta(days=60)
    assert ended[told[1]] is None


async def test_no_longer_going_somewhere_ends_going_there(told_monthly: Told) -> None:
    """Stopping going to the gym gives up the gym, and going out gives up nothing: "I'm going
    to Paris" is no habit of going."""
    told = ["I go to the gym every morning.", "I'm going to Paris in June."]
    news = ["I stopped going out so much.", "I stopped going to the gym."]
    ended = await told_monthly("gym Paris", *told, *news)
    assert ended[told[0]] == T0 + timedelta(days=90)
    assert ended[told[1]] is None


async def test_giving_up_one_thing_ends_only_doing_that(told_monthly: Told) -> None:
    """The piano given up is not the guitar, the news not reading before bed."""
    told = ["I play guitar in a band.", "I read before bed every night.", "I read the news daily."]
    news = ["I stopped playing the piano.", "I stopped reading the news."]
    ended = await told_monthly("guitar read news piano", *told, *news)
    assert ended[told[0]] is None
    assert ended[told[1]] is None
    assert ended[told[2]] == T0 + timedelta(days=120)


async def test_leaving_a_group_ends_being_in_it(told_monthly: Told) -> None:
    """The band left ends playing in it; the book club left is not the running club."""
    told = ["I play guitar in a band.", "I'm in a running club.", "I'm in a book club."]
    news = ["I left the band last month.", "I quit my book club."]
    ended = await told_monthly("band club", *told, *news)
    assert ended[told[0]] == T0 + timedelta(days=90)
    assert ended[told[1]] is None
    assert ended[told[2]] == T0 + timedelta(days=120)


async def test_a_part_given_up_with_the_rest_kept_ends_nothing(told_monthly: Told) -> None:
    told = "I go running every morning."
    news = "I stopped running on the treadmill, I run outside now."
    ended = await told_monthly("running treadmill", told, news)
    assert ended[told] is None


async def test_a_habit_watched_and_one_done_are_two(told_monthly: Told) -> None:
    """Watching tennis given up ends watching it, not playing it."""
    told = ["I've been playing tennis for years.", "I watch a lot of tennis on TV."]
    ended = await told_monthly("tennis", *told, "I stopped watching tennis.")
    assert ended[told[0]] is None
    assert ended[told[1]] == T0 + timedelta(days=60)


@pytest.mark.parametrize(
    ("text", "habit"),
    [
        ("Ana: My psychiatrist took me off Vyvanse.", "vyvans"),
        ("Ana: The GP switched me from sertraline to citalopram.", "sertralin"),
        ("Ana: The cardiologist has moved me from warfarin onto apixaban.", "warfarin"),
        ("Ana: doc swapped me off Coversyl onto Micardis", "coversyl"),
        ("Ana: Three weeks without a single cigarette today!", "smok"),
        ("Ana: I've cut out alcohol.", "drink"),
        ("Ana: My doctor took Tom off his statins.", None),  # someone else's
        ("Ana: He took me to the pub.", None),
        ("Ana: 2 weeks no cigs, patches are doing their job.", "smok"),  # a smoker's things
        ("Ana: one month smoke free today", "smok"),
        ("Ana: Any decent alcohol free beers?", None),  # a thing, not a habit given up
        ("Ana: Switched off the warfarin onto Eliquis.", "warfarin"),
        ("Ana: I switched off the lights.", None),
        ("Ana: I missed rehearsals, so I have left the choir.", "choir"),
        ("Ana: Cancelled Cult, wasn't going anyway.", "cult"),  # a service by its name
        ("Ana: I cancelled my Amazon Prime.", "amazon"),
        ("Ana: I cancelled the meeting.", None),  # no service: "I meet friends" stays
        ("Ana: Cancelled my Monday appointment.", None),
        ("Ana: My wife cancelled Netflix.", None),
    ],
)
def test_a_habit_ended_by_someone_else_or_by_what_it_is_had_with(
    text: str, habit: str | None
) -> None:
    """A doctor taking the speaker off a medicine ends its taking (the "me" makes it theirs); a
    habit's things ("cigarettes", "alcohol") stand for the habit."""
    found = changed_habit(text)
    assert (found.root if found else None) == habit


@pytest.mark.parametrize(
    ("text", "does"),
    [
        ("Ana: I have type 2 diabetes and take metformin twice a day.", True),
        ("Ana: on metformin for my diabetes.", True),  # said without "I"
        ("Ana: I love Tom and he takes metformin.", False),
        ("Ana: I married Tom and we both take metformin.", False),
    ],
)
def test_doing_a_habit_after_and(text: str, does: bool) -> None:
    """ "and" goes on with the speaker's own doing, unless someone else is in the sentence."""
    assert does_habit(text, "metformin") is does


async def test_a_habit_given_up_without_i_ends_doing_it(told_monthly: Told) -> None:
    """ "Quit the choir" says no one's name: the user's own, as chat drops the "I"; a medicine
    the doctor switched ends taking it; news of someone else's ends nothing."""
    told = ["I sing in a choir.", "I take Vyvanse for my ADHD.", "I smoke about ten a day."]
    news = [
        "Quit the choir, too much drama.",
        "My psychiatrist took me off Vyvanse.",
        "My sister quit smoking.",
    ]
    ended = await told_monthly("choir Vyvanse smoke", *told, *news)
    assert ended[told[0]] == T0 + timedelta(days=90)
    assert ended[told[1]] == T0 + timedelta(days=120)
    assert ended[told[2]] is None
