"""A user's message that corrects a word of their previous one ("*Galway lol, autocorrect").

Chat marks a fixed typo with an asterisk: the corrected word alone, or with a few words after
it ("*Maja with a j"), sent right after the message it fixes. Alone it names a word and says
nothing; read into the sentence it fixes, it tells what that sentence meant to say.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher

from zepkit.local.text import sentences

_STARRED = re.compile(
    r"^\s*(?:\*(?P<lead>[^\W\d_][\w'’-]*)(?![\w'’*-])|"
    r"(?P<tail>[^\W\d_][\w'’-]*)\*(?=\s|$|[.,!]))"
)
"""A message opening with a word marked as a correction: "*Galway", "Galway*"; not an action
("*sighs*") nor bold ("**Note**")."""

MIN_WORD_CHARS = 3
MIN_LIKENESS = 0.7
"""How alike a typo and its fix must be (difflib's ratio): "Galwya" and "Galway" are 0.83,
"Maya" and "Maja" 0.75, "Porto" and "Paris" 0.2."""

_WORD = re.compile(r"[^\W\d_][\w'’-]*")


def corrected(text: str, before: str) -> tuple[str, str] | None:
    """When `text` opens by correcting a word of `before` (the user's previous message), the
    sentence of `before` with that word fixed and the rest of `text` after the correction's
    first sentence; None when it does not (no marked word, or none in `before` alike enough
    and different)."""
    marked = _STARRED.match(text)
    if marked is None:
        return None
    fix = marked["lead"] or marked["tail"]
    if len(fix) < MIN_WORD_CHARS:
        return None
    best: tuple[float, str, re.Match[str]] | None = None
    for sentence in sentences(before):
        for word in _WORD.finditer(sentence):
            typed = word[0]
            if typed.lower() == fix.lower() or len(typed) < MIN_WORD_CHARS:
                continue
            likeness = SequenceMatcher(None, typed.lower(), fix.lower()).ratio()
            if likeness >= MIN_LIKENESS and (best is None or likeness > best[0]):
                best = (likeness, sentence, word)
    if best is None:
        return None
    _, sentence, word = best
    if any(found[0].lower() == fix.lower() for found in _WORD.finditer(sentence)):
        return None  # the sentence has the fixed word already: the typo was another one's
    fixed = f"{sentence[: word.start()]}{fix}{sentence[word.end() :]}"
    said = sentences(text)
    return fixed, " ".join(said[1:])
