"""Dates a query names: parsed from explicit forms only, and turns from that time rank higher."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone

import pytest

from zepkit.core._backend import SearchRequest, UserProfile
from zepkit.core._models import Message
from zepkit.local import LocalBackend
from zepkit.local.dates import named_periods, within

DAY = (date(2023, 7, 7), date(2023, 7, 7))
JULY = (date(2023, 7, 1), date(2023, 7, 31))


@pytest.mark.parametrize(
    ("text", "periods"),
    [
        ("What happened on 7 July, 2023?", [DAY]),
        ("What happened on July 7, 2023?", [DAY]),
        ("Where was the picture from July 7,2023 taken?", [DAY]),
        ("the 7th of July 2023", [DAY]),
        ("on jul. 7th 2023", [DAY]),
        ("on 2023-07-07", [DAY]),
        ("What did we plan in July 2023?", [JULY]),
        ("In February 2024 and on 2023-07-07", [(date(2024, 2, 1), date(2024, 2, 29)), DAY]),
        ("July 7, 2023 and again 7 July 2023", [DAY]),
    ],
)
def test_explicit_days_and_months_are_read(text: str, periods: list[tuple[date, date]]) -> None:
    assert named_periods(text) == periods


@pytest.mark.parametrize(
    "text",
    [
        "What happened in July?",
        "in 2023",
        "last Monday",
        "May I ask?",
        "on 2023-13-45",
        "",
        "on 7 July, 23",  # no year of four digits: nothing to read, however date-like
        "July 7, 202",
    ],
)
def test_vague_or_impossible_dates_name_nothing(text: str) -> None:
    assert named_periods(text) == []


def test_a_stored_time_counts_on_its_own_calendar_day() -> None:
    late_evening = datetime(2023, 7, 7, 23, 30, tzinfo=timezone(timedelta(hours=-5)))
    assert within(late_evening.isoformat(), [DAY])  # 04:30 on the 8th in UTC, the 7th there
    assert within("2023-07-31T12:00:00", [JULY])
    assert not within("2023-08-01T00:00:00+00:00", [DAY, JULY])


@pytest.mark.parametrize("retriever", ["lexical", "auto"])
async def test_a_named_day_lifts_what_was_said_that_day(retriever: str) -> None:
    backend = LocalBackend(retriever=retriever)  # type: ignore[arg-type]
    try:
        await backend.ensure_user(UserProfile("u"))
        for day in (1, 7, 14):
            await backend.ensure_thread(f"t{day}", "u")
            said = Message(
                "user",
                f"Ana: We cooked lasagna for dinner, take {day}.",
                created_at=datetime(2023, 7, day, 19, tzinfo=UTC),
            )
            await backend.add_messages(f"t{day}", [said])
        query = "What did Ana cook for dinner on 7 July, 2023?"
        episodes = await backend.search(
            SearchRequest(query, user_id="u", scope="episodes", reranker=None)
        )
        assert episodes.episodes[0].thread_id == "t7"
        facts = await backend.search(SearchRequest(query, user_id="u", reranker=None))
        assert "take 7" in facts.edges[0].fact
        undated = await backend.search(
            SearchRequest("What did Ana cook for dinner?", user_id="u", scope="episodes")
        )
        assert {e.thread_id for e in undated.episodes} == {"t1", "t7", "t14"}
    finally:
        await backend.aclose()
