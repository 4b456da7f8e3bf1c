"""A user's statement that denies an older one of theirs: which current statement it ends.

"Turns out I'm not allergic to penicillin after all" says the opposite of "I'm allergic to
penicillin": the same claim, negated. A claim is a statement's content words (stems), without
its negation and the words that only frame it ("turns out", "actually", "anymore"); a negated
statement ends the user's current, not negated, statements whose claim holds all of its own and
at most one word more ("I don't eat meat" ends "I eat meat every day"); a claim of one word ends
only the same claim ("I can't swim" ends "I can swim", but "I don't drink" is no word on "I
drink coffee every morning"). The other way round, a statement that says its claim is so now ("I
like sushi now", "I eat meat again", "Turns out I can swim") ends the older statements denying
it; one without such a word is not read against what came before (a full-text query for every
statement would cost every write). A denial in part ("I don't play tennis as much these days")
or a doubt ("Not sure if I'm allergic to it") denies nothing. Rules over English.
"""

from __future__ import annotations

import re

from zepkit.local.factoring import factored
from zepkit.local.text import STORED_LABEL, stems, words

_NEGATED = re.compile(
    factored(
        r"\b(?:not|never|no longer|cannot|hate[sd]?|hating|dislike[sd]?|disliking|"
        r"detest(?:s|ed)?|loathe[sd]?)\b|n['’]t\b"
    ),
    re.IGNORECASE,
)
"""A statement that says something is not so; disliking is not liking ("I hate running" denies
"I like running")."""

_HEDGED = re.compile(
    r"\b(?:not sure|not certain|no idea|(?:do|did|ca)n['’]?t (?:know|think|remember|recall|"
    r"tell)|(?:do|did) not (?:know|think|remember|recall)|cannot (?:remember|recall|tell)|"
    r"never (?:knew|thought))\b",
    re.IGNORECASE,
)
"""A negation of knowing, not of the claim ("Not sure if I'm allergic to penicillin")."""

_PARTLY = re.compile(
    r"\b(?:much|many|always|often|every|all the time|enough|a lot|lots|very|quite|too|so|as|"
    r"that|usually|normally|with me|right now|at the moment|today|tonight|this week|yet|"
    r"now and then|now and again)\b",
    re.IGNORECASE,
)
"""Words that make a denial partial ("I don't play tennis as much these days", "I don't always
work from home", "I can't run every day"): the older statement still holds."""

_CONTRACTED = re.compile(r"\b(ca|wo|sha)n['’]t\b|n['’]t\b|\bcannot\b", re.IGNORECASE)
_UNCONTRACTED = {"ca": "can", "wo": "will", "sha": "shall"}

_FRAME = re.compile(
    r"\b(?:(?:it )?turns? out|turned out|actually|after all|any ?more|any longer|no longer|"
    r"these days|at all|honestly|really|finally|not|never|either|learn(?:ed|t) (?:how )?to)\b",
    re.IGNORECASE,
)
"""Words that negate a claim or only frame it: a claim and its denial differ by these alone."""

_CHANGED = re.compile(
    r"\b(?:now|again|actually|after all|these days|turns? out|turned out|finally|"
    r"learn(?:ed|t) (?:how )?to)\b",
    re.IGNORECASE,
)
"""Words that say a statement changes what was so ("I like sushi now", "I eat meat again")."""
_CLAUSE = re.compile(r"[,;:—–]|\s-\s|\b(?:but|and|so|because)\b", re.IGNORECASE)

_ASIDE = re.compile(
    r",\s*(?=(?:which|who|as|since|because|so|though|although|but|even|lol|haha)\b)|\s-\s|"
    r"[;—–(]",
    re.IGNORECASE,
)
"""Where a statement turns to an aside, after what it claims."""

MAX_EXTRA_WORDS = 1
"""How many content words more the denied statement may have, for a denial of two or more ("day"
in "I eat meat every day" is one: "every" is a function word)."""


def denied_claim(text: str) -> frozenset[str] | None:
    """The claim a negated statement denies (see the module), else None: for a statement that
    is not negated, or one without a content word."""
    if _NEGATED.search(text) is None:  # most statements: no label to take off first
        return None
    said = STORED_LABEL.sub("", text, count=1)
    if _NEGATED.search(said) is None or _HEDGED.search(said) or _PARTLY.search(said):
        return None
    # only the clause that says "not": "I'm not gluten intolerant after all, turns out it was
    # IBS" denies being gluten intolerant, not IBS
    denying = next((part for part in _CLAUSE.split(said) if _NEGATED.search(part)), said)
    return claim(denying) or None


LIKING = ("like", "love", "enjoy", "adore", "hate", "dislike", "detest", "loathe")
"""Verbs of a taste, for or against: "I love coffee now" takes back "I don't like coffee" and "I
hate coffee" (the last four say "not", `_NEGATED`)."""
_TASTE = re.compile(
    r"\b(?:lik(?:e[sd]?|ing)|lov(?:e[sd]?|ing)|enjoy(?:s|ed|ing)?|ador(?:e[sd]?|ing)|"
    r"hat(?:e[sd]?|ing)|dislik(?:e[sd]?|ing)|detest(?:s|ed|ing)?|loath(?:e[sd]?|ing))\b",
    re.IGNORECASE,
)
"""A form of one of `LIKING`; in a claim each stands as "like"."""
_LIKED = "like"


def claim(text: str) -> frozenset[str]:
    """A statement's content stems, without its negation and framing words (a verb of a taste
    stands as "like")."""
    said = STORED_LABEL.sub("", text, count=1)
    said = _CONTRACTED.sub(lambda m: _UNCONTRACTED.get((m[1] or "").lower(), ""), said)
    return frozenset(stems(_TASTE.sub(_LIKED, _FRAME.sub(" ", said))))


def match_words(text: str, kept: frozenset[str]) -> list[tuple[str, ...]]:
    """The words of `text` that stand for its claim `kept` (stems), each with the words that
    may stand for it in another statement (the verbs of a taste for one of them): what finds the
    statements it may end (each must hold one of each group in some form)."""
    said = _FRAME.sub(" ", STORED_LABEL.sub("", text, count=1))
    groups: set[tuple[str, ...]] = set()
    for word in words(said):
        if _TASTE.fullmatch(word):
            if _LIKED in kept:
                groups.add(LIKING)
        elif any(word.startswith(k) for k in kept):
            groups.add((word,))
    return sorted(groups)


def denies(denied: frozenset[str], text: str) -> bool:
    """Whether a statement, not itself negated, says what a denial (`denied_claim`) denies."""
    said = STORED_LABEL.sub("", text, count=1)
    if _NEGATED.search(said) is not None:
        return False
    extra = MAX_EXTRA_WORDS if len(denied) > 1 else 0
    # the whole statement, or what it says before an aside ("I'm gluten intolerant, which is
    # ironic"); not a part of a list ("I eat meat and fish" says more than "meat")
    for part in (said, _ASIDE.split(said, maxsplit=1)[0]):
        held = claim(part)
        more = held - denied
        # a word more of a list is another item: "I'm not allergic to penicillin" keeps "I'm
        # allergic to shellfish and penicillin"
        if denied <= held and len(more) <= extra and not (more and _LIST.search(part)):
            return True
    return False


_LIST = re.compile(r",|&|\b(?:and|or|as well as|plus)\b", re.IGNORECASE)


def affirmed_claim(text: str) -> frozenset[str] | None:
    """The claim a statement affirms as changed ("I like sushi now", "Actually I can swim"):
    the clause that says so, when it is not negated, else None. It ends the user's older
    statements denying that claim (`denies`, the other way round)."""
    if _CHANGED.search(text) is None:  # most statements: nothing said to have changed
        return None
    said = STORED_LABEL.sub("", text, count=1)
    if _PARTLY.search(said):
        return None
    for clause in _CLAUSE.split(said):
        if _CHANGED.search(clause) is None:
            continue
        if _NEGATED.search(clause) or _HEDGED.search(clause):
            return None
        return claim(clause) or None
    return None


def affirms(affirmed: frozenset[str], text: str) -> bool:
    """Whether a statement denies, in full, what a newer statement affirms (`affirmed_claim`):
    "I don't like sushi" for "I like sushi now"."""
    denied = denied_claim(text)
    if denied is None:
        return False
    extra = MAX_EXTRA_WORDS if len(affirmed) > 1 else 0
    return affirmed <= denied and len(denied - affirmed) <= extra
