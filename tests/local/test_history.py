"""News told as history ends nothing the user said since; news of now ends as before."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta

import pytest

from zepkit.core._backend import SearchRequest, UserProfile
from zepkit.core._models import Message
from zepkit.local import LocalBackend
from zepkit.local.codec import encode_time
from zepkit.local.history import LONG_AGO_YEARS, told_at

SAID = datetime(2025, 6, 15, 12, 0, tzinfo=UTC)
SAID_AT = encode_time(SAID)
Told = Callable[..., Awaitable[dict[str, datetime | None]]]
T0 = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("sentence", "happened"),
    [
        ("I moved to Leeds back in 2015.", datetime(2015, 12, 31, 23, 59, 59, tzinfo=UTC)),
        ("I left Aldi in March 2024.", datetime(2024, 3, 31, 23, 59, 59, tzinfo=UTC)),
        ("Quit on 3 May 2019, never looked back.", datetime(2019, 5, 31, 23, 59, 59, tzinfo=UTC)),
        ("We split up in the summer of 2018.", datetime(2018, 12, 31, 23, 59, 59, tzinfo=UTC)),
        ("I quit in 2012 and again in 2016.", datetime(2016, 12, 31, 23, 59, 59, tzinfo=UTC)),
        ("I quit my job two years ago.", SAID - timedelta(days=365.25 * 2)),
        ("I gave up coffee a decade ago.", SAID - timedelta(days=365.25 * 10)),
        ("I quit smoking years ago.", SAID - timedelta(days=365.25 * 2)),
        ("We moved a lot growing up.", SAID - timedelta(days=365.25 * LONG_AGO_YEARS)),
        ("I stopped playing as a teenager.", SAID - timedelta(days=365.25 * LONG_AGO_YEARS)),
        ("When I was 20 I quit my job.", SAID - timedelta(days=365.25 * LONG_AGO_YEARS)),
    ],
)
def test_news_placed_in_the_past(sentence: str, happened: datetime) -> None:
    assert datetime.fromisoformat(told_at(sentence, SAID_AT)) == happened


@pytest.mark.parametrize(
    "sentence",
    [
        "I quit smoking last week.",  # recent news is news now
        "I quit smoking two weeks ago.",
        "I got engaged in June 2025!",  # this month: not before it is said
        "I'm moving to Leeds in 2027.",  # a plan
        "I've lived in Leeds since 2015.",  # until now
        "I sold my 2015 Civic.",  # a year as a name
        "I worked there in 2015-now.",
        "I moved to Leeds in 2015 and to York in 2025.",  # the latest is this year
        "As a kid I hated broccoli, now I love it.",  # said of now as well
        "I'm not vegan anymore, as a kid I never was.",
        "I gave up coffee.",
    ],
)
def test_news_of_now(sentence: str) -> None:
    assert told_at(sentence, SAID_AT) == SAID_AT


def test_a_time_before_any_date_is_the_first_one() -> None:
    """ "Like 1000000 years ago lol" is read, not raised on: the earliest moment a date holds."""
    happened = datetime.fromisoformat(told_at("I saw that like 1000000 years ago lol", SAID_AT))
    assert happened == datetime(1, 1, 1, tzinfo=UTC)
    early = encode_time(datetime(50, 6, 1, tzinfo=UTC))  # said in year 50: a century back is none
    assert datetime.fromisoformat(told_at("We moved a lot growing up.", early)).year == 1


def test_a_time_without_an_offset_stays_without_one() -> None:
    naive = encode_time(SAID.replace(tzinfo=None))
    assert told_at("I left in 2019.", naive) == "2019-12-31T23:59:59"


@pytest.mark.parametrize(
    ("told", "history"),
    [
        ("I work at Tesco.", "I quit my job at Aldi years ago."),  # a subject: work
        ("I'm a student at Leeds.", "I graduated from high school in 2015."),  # an outcome
        ("I smoke about ten a day.", "I quit smoking for a year back in 2019."),  # a habit
        ("I have a dog called Rex.", "Our dog Rex died when I was a kid."),  # an ending
    ],
)
async def test_history_ends_nothing_said_since(told_monthly: Told, told: str, history: str) -> None:
    ended = await told_monthly("Tesco Aldi job Leeds student smoke Rex dog", told, history)
    assert ended[told] is None


async def test_history_of_a_subject_gives_way_to_what_was_said_since(told_monthly: Told) -> None:
    """Leeds in 2015 is older than York said in March: York is the home, Leeds is ended by it."""
    told, history = "I live in York.", "I moved to Leeds back in 2015."
    ended = await told_monthly("York Leeds", told, history)
    assert ended[told] is None
    assert ended[history] == T0


async def test_news_dated_after_a_statement_ends_it_when_it_happened(
    backend: LocalBackend,
) -> None:
    """Said in March 2025, ended by news told in May of quitting in April: ended in April."""
    told, news = "I smoke about ten a day.", "I quit smoking in April 2025."
    await backend.ensure_user(UserProfile("ana", first_name="Ana"))
    await backend.ensure_thread("t", "ana")
    await backend.add_messages("t", [Message("user", told, created_at=T0)])
    may = datetime(2025, 5, 20, tzinfo=UTC)
    await backend.add_messages("t", [Message("user", news, created_at=may)])
    found = await backend.search(SearchRequest("smoke smoking", user_id="ana", limit=10))
    ended = {fact.fact.split(": ", 1)[1]: fact.invalid_at for fact in found.edges}
    assert ended[told] == datetime(2025, 4, 30, 23, 59, 59, tzinfo=UTC)
    assert ended[news] is None
