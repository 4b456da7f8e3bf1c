"""Whether a new message asks back what the assistant said before."""

from __future__ import annotations

import pytest

from zepkit.local.askback import asks_back


@pytest.mark.parametrize(
    "query",
    [
        "what was that trail you suggested near seattle?",
        "which lisbon area did u say to book in",
        "Remind me please which laptop you said me to buy?",
        "What was that command you gave me for finding what's filling up my disk?",
        "whats the free meditation app u told me about",
        "The plant you said would survive in my dark flat, what was it again?",
        "What was the book about emotions you advise for my son?",
        "Can you remind me of your recommendation for a whiskey?",
        "didn't you mention a podcast about sleep?",
    ],
)
def test_asking_back(query: str) -> None:
    assert asks_back(query)


@pytest.mark.parametrize(
    "query",
    [
        "Can you suggest a book about punctuation?",  # a new request
        "What would you recommend for a first hike?",
        "Which laptop should I buy for coding?",
        "Do you know a good stretch for my back?",
        "You're the best, thanks!",
        "My friend said the trail was closed.",  # someone else's words
    ],
)
def test_asking_something_new(query: str) -> None:
    assert not asks_back(query)
