"""Calendar dates a query names ("on 7 July, 2023", "in May 2023", "2023-07-07").

A question that names a day or a month is usually about what was said then, so turns stored in
that period rank higher. Only explicit dates count: "last Monday" needs a "now" the engine does
not have, and a month without a year could be any year.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Sequence
from datetime import date, datetime, timedelta

MONTHS = {name.lower(): n for n, name in enumerate(calendar.month_name) if name}
MONTHS.update({name.lower(): n for n, name in enumerate(calendar.month_abbr) if name})
MONTHS["sept"] = 9
"""Month names and their abbreviations, lower case, to their numbers ("sept": 9)."""
MONTH_NAMES = "|".join(sorted(MONTHS, key=len, reverse=True))
"""`MONTHS`' keys as a pattern's alternatives, the longest first."""
_MONTH = f"({MONTH_NAMES})" + r"\.?"
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(\d{4})"

_ISO = re.compile(rf"\b{_YEAR}-(\d{{2}})-(\d{{2}})\b")
_DAY_MONTH_YEAR = re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH},?\s+{_YEAR}\b", re.IGNORECASE)
_MONTH_DAY_YEAR = re.compile(rf"\b{_MONTH}\s+{_DAY},?\s*{_YEAR}\b", re.IGNORECASE)
_MONTH_YEAR = re.compile(rf"\b{_MONTH},?\s+{_YEAR}\b", re.IGNORECASE)
_ANY_YEAR = re.compile(r"\d{4}")
"""Every form above holds a year: a text without four digits in a row names no date."""

Period = tuple[date, date]
"""First and last day, both included."""


def named_periods(text: str) -> list[Period]:
    """The days and months `text` names explicitly, in order of appearance, each once."""
    if not _ANY_YEAR.search(text):  # most texts: one quick scan instead of four patterns
        return []
    found: dict[Period, int] = {}
    taken: list[tuple[int, int]] = []

    def add(match: re.Match[str], period: Period | None) -> None:
        span = match.span()
        if period is None or any(a < span[1] and span[0] < b for a, b in taken):
            return
        taken.append(span)
        found.setdefault(period, span[0])

    for match in _ISO.finditer(text):
        add(match, _day(int(match[1]), int(match[2]), int(match[3])))
    for match in _DAY_MONTH_YEAR.finditer(text):
        add(match, _day(int(match[3]), MONTHS[match[2].lower()], int(match[1])))
    for match in _MONTH_DAY_YEAR.finditer(text):
        add(match, _day(int(match[3]), MONTHS[match[1].lower()], int(match[2])))
    for match in _MONTH_YEAR.finditer(text):
        add(match, _month(int(match[2]), MONTHS[match[1].lower()]))
    return sorted(found, key=found.__getitem__)


def within(stored: str, periods: Sequence[Period]) -> bool:
    """True when the stored ISO time falls on a day of one of `periods` (its own calendar day)."""
    day = datetime.fromisoformat(stored).date()
    return any(first <= day <= last for first, last in periods)


def _day(year: int, month: int, day: int) -> Period | None:
    try:
        moment = date(year, month, day)
    except ValueError:  # "31 February 2023": no such day (its month may still count)
        return None
    return moment, moment


def _month(year: int, month: int) -> Period | None:
    if not 1 <= month <= 12 or year < 1:
        return None
    first = date(year, month, 1)
    return first, (first + timedelta(days=32)).replace(day=1) - timedelta(days=1)
