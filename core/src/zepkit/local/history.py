"""When told news happened: the moment it is said, unless the sentence places it earlier.

"I quit my job at Aldi years ago", said today, ends nothing the user has said of their work
since; "I moved to Leeds back in 2015" is no newer than "I live in York" said last month. So an
ending weighs news by when it happened: a past year or month it names ("in 2015", "back in
March 2024"), so many years ago, or the speaker's childhood ("as a kid", "growing up"), which
is before anything they are likely to have told. Rules over English, no model.
"""

from __future__ import annotations

import calendar
import re
from datetime import datetime, timedelta

from zepkit.local.codec import decode_time, encode_time
from zepkit.local.dates import MONTH_NAMES, MONTHS

_DATED = re.compile(
    r"\b(?:in|during|around|circa|on)\s+"
    r"(?:(?:the\s+)?(?:early|late|mid|spring|summer|autumn|fall|winter|end|start|beginning)"
    r"(?:\s+of)?[\s-]+)?"
    rf"(?:(?:\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?)?(?P<month>{MONTH_NAMES})\.?"
    r"(?:\s+\d{1,2}(?:st|nd|rd|th)?)?,?\s+)?"
    r"(?P<year>(?:19|20)\d\d)\b(?!\s*(?:-|–|to|until|till)\s*(?:\d|now|today|present))",
    re.IGNORECASE,
)
"""A year the news happened in, with its month when named: "in 2015", "back in March 2024",
"on 3 May 2019", "in the summer of 2018"; not a year as a name ("my 2015 Civic"), not "since
2015" (until now), not a span running to now ("in 2015-now")."""

_AGO = re.compile(
    r"\b(?P<count>\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|twenty|thirty|"
    r"a few|a couple of|a couple|several|many|some)?\s*(?P<unit>years?|decades?)\s+"
    r"(?:ago|back)\b",
    re.IGNORECASE,
)
"""So many years ago ("two years ago", "years back", "a decade ago")."""

_LONG_AGO = re.compile(
    r"\b(?:as an? (?:kid|child|teen|teenager|boy|girl|youngster)|when I was (?:an? )?(?:kid|"
    r"child|teen|teenager|boy|girl|little|young|younger|small|baby|toddler|\d+)|"
    r"growing up|back in the day|(?:ages|eons|donkey['’]s years) ago|"
    r"in my (?:youth|childhood|teens|teenage years|school days|student days))\b",
    re.IGNORECASE,
)
"""The speaker's childhood and youth, or long ago with no count."""

_COUNTS = {
    **{word: n for n, word in enumerate(("one", "two", "three", "four", "five"), 1)},
    **{"six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "twenty": 20, "thirty": 30},
    **{"a": 1, "an": 1, "a couple": 2, "a couple of": 2, "a few": 3, "several": 4},
    **{"some": 3, "many": 10},
}
_UNSAID_COUNT = 2  # "years ago": at least two
_YEAR_DAYS = 365.25
LONG_AGO_YEARS = 100
"""How far back childhood and "ages ago" place news: before anything the user has told."""
_CUES = re.compile(r"\d|\b(?:ago|back|as an?|when I was|growing up|in my)\b", re.IGNORECASE)
"""Words without which a sentence names no earlier time (most sentences: one quick scan)."""
_NOW = re.compile(
    r"\b(?:now|nowadays|these days|any ?more|today|currently|this (?:year|month|week))\b",
    re.IGNORECASE,
)
"""News said of the present as well ("As a kid I hated broccoli, now I love it"): not history."""


def told_at(sentence: str, said_at: str) -> str:
    """When the news `sentence` tells happened, as stored ISO text: `said_at` (when it is said),
    or the end of the latest past period the sentence names when every one it names is past."""
    if _CUES.search(sentence) is None or _NOW.search(sentence):
        return said_at
    said = decode_time(said_at)
    ends = [_period_end(found, said) for found in _DATED.finditer(sentence)]
    ends += [_years_before(said, _years(found)) for found in _AGO.finditer(sentence)]
    if _LONG_AGO.search(sentence):
        ends.append(_years_before(said, LONG_AGO_YEARS))
    if not ends or max(ends) >= said:
        return said_at
    return encode_time(max(ends))


def _years_before(said: datetime, years: float) -> datetime:
    """`said` so many years back, or the first moment a datetime holds when that is before it
    ("a million years ago")."""
    try:
        return said - timedelta(days=_YEAR_DAYS * years)
    except OverflowError:
        return said.replace(year=1, month=1, day=1, hour=0, minute=0, second=0, microsecond=0)


def _period_end(found: re.Match[str], said: datetime) -> datetime:
    """The last moment of the year or month `found` names, in the time zone of `said`."""
    year = int(found["year"])
    month = MONTHS[found["month"].lower()] if found["month"] else 12
    last = calendar.monthrange(year, month)[1]
    return said.replace(
        year=year, month=month, day=last, hour=23, minute=59, second=59, microsecond=0
    )


def _years(found: re.Match[str]) -> float:
    """How many years ago `found` says ("two years ago": 2; "a decade ago": 10)."""
    count = (found["count"] or "").lower()
    number = int(count) if count.isdigit() else _COUNTS.get(" ".join(count.split()), _UNSAID_COUNT)
    return number * (10 if found["unit"].lower().startswith("decade") else 1)
