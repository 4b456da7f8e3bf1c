"""Whether a new message asks back what the assistant said before ("what was that trail you
suggested?"): the block then shows the assistant's replies as they were read, not one sentence."""

from __future__ import annotations

import re

_ASKS_BACK = re.compile(
    r"\b(?:you|u|ya)\s+(?:\w+\s+){0,2}?(?:said|suggested|recommended|told|gave|advised|"
    r"mentioned|picked|chose|proposed|came up with|showed|sent|wrote|named)\b|"
    r"\b(?:did|didn['’]?t|have|haven['’]?t)\s+(?:you|u)\s+(?:\w+\s+)?(?:say|suggest|recommend|"
    r"tell|give|advise|mention|pick|choose|propose|show|send|write|name)\b|"
    r"\byour (?:suggestion|recommendation|pick|advice|tip|idea|answer|list)s?\b|"
    r"\bwhat was (?:the|that|this|those|these)\b[^.!?\n]*\b(?:you|u)\b",
    re.IGNORECASE,
)
"""The assistant's words asked for again ("which laptop did you say", "the recipe you gave me",
"your recommendation", "what was the book you advise for my son"), where "can you suggest a
book" asks for something new."""


def asks_back(query: str) -> bool:
    """Whether `query` asks what the assistant said, suggested or gave before (`_ASKS_BACK`)."""
    return _ASKS_BACK.search(query) is not None
