"""The user's replies to the assistant's questions about them: "Where are you based?" then
"Melbourne." says where the user lives, though the reply alone names no one.

Rules over English, no model: a question about the user is the last question of an assistant
message, in the second person, naming a kind of profile statement ("Any allergies I should
know about?") or short enough to follow up on what the user said ("What breed?"), that is not
an offer, a request, a check or small talk. The reply's sentences are then read with that
question (`extraction.RuleExtractor.extract_reply`), and with the user's previous message when
only the assistant's reply lies between (`Lead`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from zepkit.local.profile import kinds_asked
from zepkit.local.text import (
    SPEAKER_LABEL,
    first_clause,
    opens_without_subject,
    sentences,
    stem,
    words,
)

_YOU = re.compile(
    r"\b(?:you|your|yours|yourself|you're|you’re|you've|you’ve|you'd|you’d|u|ur)\b",
    re.IGNORECASE,
)

_NOT_ABOUT_USER = re.compile(
    r"^\W*(?:(?:can|could|may|shall|should) (?:I|we)\b|(?:can|could|would|will) (?:you|u)\b|"
    r"do you want|want me|how (?:can|may) I|is there anything|(?:does|did|do) (?:that|this|it) |"
    r"sounds? good|how(?: are|'re| r) (?:you|u)\b|how(?:'ve| have) (?:you|u) been|"
    r"how'?s (?:it|everything|your (?:day|week|weekend|morning|evening))|"
    r"how (?:is|was) your (?:day|weekend|morning|evening)|are you (?:sure|still there|ready)|"
    r"shall we|did you know|have you (?:heard|seen|tried|considered|thought)|you know what)|"
    r"\b(?:(?:like|want|need) me to|help you|anything else|make sense|suggestions?|tips|ideas|"
    r"recommendations?|advice)\b|\byou know\W*$",
    re.IGNORECASE,
)
"""Questions that ask nothing of the user's life: offers of help, requests, checks on an answer,
small talk, trivia and asks for suggestions."""

MAX_REPLY_CHARS = 160
"""A longer reply is talk of its own: its sentences are read alone, as any message's."""

MAX_FOLLOW_UP_WORDS = 5
"""A question without "you" and without a kind counts when it is this short: a follow-up."""

MAX_QUESTION_CHARS = 200
"""A longer "question" is prose that happens to end in one: too loose to frame a reply."""

_BARE = re.compile(
    r"^\W*(?:yes|yeah|yep|yup|no|nope|nah|not really|not at all|never|sometimes|"
    r"definitely|absolutely|of course|a little|a lot|correct|that['’]?s (?:right|correct)|"
    r"exactly|spot on)\b",
    re.IGNORECASE,
)
"""A reply's opening yes or no: on its own chatter, but in answer to a question about the user it
says something ("Do you have kids?" "No.")."""


@dataclass(frozen=True)
class Lead:
    """What came just before a user's message in its thread: the assistant's question about the
    user that it replies to, and the user's own previous message when no more than the
    assistant's reply lies between ("I have a dog." "Lovely!" "His name is Rex."); `follows`:
    that message came right before this one, with no reply between."""

    question: str | None = None
    before: str | None = None
    follows: bool = False


def lead_of(history: Sequence[tuple[str, str]]) -> Lead | None:
    """The lead of a user message from the thread's messages before it, as (role, content), oldest
    first (only the last two are read); None when there is none."""
    last = history[-1] if history else None
    if last is None:
        return None
    if last[0] == "user":
        return Lead(before=last[1], follows=True)
    if last[0] != "assistant":
        return None
    question = question_to_user(last[1])
    earlier = history[-2] if len(history) > 1 else None
    before = earlier[1] if earlier is not None and earlier[0] == "user" else None
    return Lead(question, before) if question is not None or before is not None else None


QUESTION_TAIL_CHARS = 4000
"""Only a message's last characters are read for its question: one asked earlier, with this
much said after it, is not what the user's next message answers (and a long message is not
split into sentences every turn)."""


_CHECK = re.compile(
    r"^\W*(?:(?:so|ok|okay|right|great|perfect|just to (?:confirm|check)|to confirm|"
    r"(?:it )?sounds like|if I understand (?:you )?(?:correctly|right))\W+)+"
    r"(?:you(?:['’]re| are|['’]ve| have)|you (?:live|work|have|own|eat|drive))\b",
    re.IGNORECASE,
)
"""An assistant's restating of what it took the user to say, as a check though not asked ("So
you're vegan and cycling to work - got it!"): the user's "Yep!" confirms it."""


def _quoted(question: str) -> bool:
    """Whether a sentence's question mark is inside quotation marks: a question in a text the
    assistant drafted for the user to send ('Try: "Are you still able to look at the
    proposal?"'), not one it asks them ('Did you mean "Sunny"?' is asked)."""
    before = question[: question.rfind("?")]
    return before.count('"') % 2 == 1 or before.count("“") > before.count("”")


def question_to_user(text: str) -> str | None:
    """The question an assistant's message asks the user about themselves (or the check it
    ends on, `_CHECK`), else None."""
    if "?" not in text:
        return _check_ended_on(text)
    tail = sentences(text[-QUESTION_TAIL_CHARS:])
    if len(text) > QUESTION_TAIL_CHARS:
        tail = tail[1:]  # the first sentence may be cut
    asked = [
        SPEAKER_LABEL.sub("", sentence, count=1)
        for sentence in tail
        if sentence.rstrip("\"'”’)]*_ ").endswith("?") and not _quoted(sentence)
    ]
    if not asked:
        return None
    question = asked[-1].strip()
    if len(question) > MAX_QUESTION_CHARS or _NOT_ABOUT_USER.search(question):
        return None
    if names_the_user(question) or _CHOICE_OF_THEIRS.match(question):
        return question
    # a short follow-up on what the user just said ("What breed?", "How old is he?")
    return question if len(words(question)) <= MAX_FOLLOW_UP_WORDS else None


_CHOICE_OF_THEIRS = re.compile(
    r"^\W*(?:(?:and|so|ok(?:ay)?)\W+)?(?:is|was|are|were) (?:it|they|he|she|that|this)\b[^?]*"
    r"\bor\b",
    re.IGNORECASE,
)
"""A choice of what the thing the user just told of is ("Is it a garden, patio or balcony?",
"Are they indoor or outdoor cats?"): asked of theirs, though it says no "you"."""


def _check_ended_on(text: str) -> str | None:
    """The check an assistant's message without a question ends on (`_CHECK`), else None; only
    its last sentence is read, and only when the message's end speaks to "you"."""
    end = text[-MAX_QUESTION_CHARS:]
    if _YOU.search(end) is None:
        return None
    said = sentences(end)
    last = SPEAKER_LABEL.sub("", said[-1], count=1).strip() if said else ""
    return last if _CHECK.match(last) else None


def names_the_user(question: str) -> bool:
    """Whether a question speaks to the user ("you") or names a kind of thing about them ("Any
    allergies I should know about?"): then even a bare yes or no answers it."""
    return _YOU.search(question) is not None or bool(kinds_asked(question))


def is_bare_reply(sentence: str) -> bool:
    """Whether the sentence opens with a plain yes or no (or "sometimes", "a little")."""
    return _BARE.match(sentence) is not None


MAX_FRAGMENT_WORDS = 12
"""A longer opening clause without a subject is prose, not a bare answer."""
MAX_FRAGMENT_TAIL_WORDS = 8
"""What may follow a bare answer's clause ("Only a small north-facing balcony on the fifth
floor, so nothing big.")."""


_REFERS_BACK = re.compile(
    r"^\W*(?:it|it's|it’s|its|they|they're|they’re|their|he|he's|he’s|she|she's|she’s|that|"
    r"that's|that’s|this|there|those|these)\b",
    re.IGNORECASE,
)


def refers_back(sentence: str) -> bool:
    """Whether a short sentence opens, after any yes or no, with a word that stands for what was
    just asked about ("It's a small town near York.", "They are 8 and 11.", "Yes, he's turning
    8."): alone it names nothing, with the question it answers it."""
    rest = after_yes_or_no(sentence)
    return _REFERS_BACK.match(rest) is not None and len(words(rest)) <= MAX_FRAGMENT_WORDS


_ELLIPTIC = re.compile(
    r"^(?:i|we)\s*(?:(?:am|['’]m|are|['’]re|was|were)(?: not)?|(?:do|did|have|had|will|can|could|"
    r"would)(?: not|n['’]?t)?|don['’]?t|didn['’]?t|haven['’]?t|won['’]?t|can['’]?t|cannot|"
    r"wasn['’]?t|weren['’]?t|aren['’]?t|never (?:have|had|did|do|was|will))"
    r"(?=\s*(?:$|[,;:.!—–-]|\s(?:yes|yeah|indeed|actually|though|too|still|already|now|"
    r"definitely|absolutely|sadly|unfortunately|luckily|sometimes|always)\b))",
    re.IGNORECASE,
)


def is_elliptic(sentence: str) -> bool:
    """Whether a sentence opens, after any yes or no, with a subject and an auxiliary that stand
    for what was just asked ("Are you vegetarian?" "I am, yes - for ten years."; "We do, two of
    them."): alone it says nothing of what, with the question it answers it."""
    return _ELLIPTIC.match(after_yes_or_no(sentence).lstrip()) is not None


def after_yes_or_no(sentence: str) -> str:
    """The sentence after its opening yes or no, if any."""
    return (
        _BARE.sub("", sentence, count=1).lstrip(" ,;:!.-") if is_bare_reply(sentence) else sentence
    )


_HEDGE = re.compile(
    r"\s*,?\s*\b(?:as far as I know|I think|I guess|I believe|I suppose|I'd say|I reckon)\b\s*,?",
    re.IGNORECASE,
)
"""A speaker's hedge, no statement of its own: "Only penicillin, as far as I know." is a bare
answer all the same."""


def unhedged(sentence: str) -> str:
    """The sentence without its hedges ("I think", "as far as I know")."""
    return _HEDGE.sub(" ", sentence).strip()


def picks_an_option(sentence: str, question: str) -> bool:
    """Whether a reply opens with one of the options an either-or question offers ("Do you own or
    rent?" "renting, landlord says no nails."): a short first clause sharing a word with the
    question answers it, whatever the clauses after it say."""
    first = words(first_clause(after_yes_or_no(sentence)))
    if not first or len(first) > MAX_OPTION_WORDS:
        return False
    options = _options(question)
    return any(stem(word) in options for word in first)


MAX_OPTION_WORDS = 3
"""An option picked is named in a few words ("renting", "a small balcony")."""

_OR = re.compile(r"\s+or\s+", re.IGNORECASE)
_NO_OPTION = frozenset({"a", "an", "the", "not", "no", "something", "else"})


def _options(question: str) -> set[str]:
    """The stems of the options an either-or question offers: the word after each "or", and the
    last word of each item of the list before it ("a garden, patio or balcony")."""
    found: set[str] = set()
    for match in _OR.finditer(question):
        found.update([w for w in words(question[match.end() :]) if w not in _NO_OPTION][:1])
        for item in reversed(question[: match.start()].split(",")):
            said = words(item)
            if said:
                found.add(said[-1])
            if len(said) != 1:
                break  # the list's first item, with the words that lead to it
    return {stem(word) for word in found - _NO_OPTION}


def is_fragment(sentence: str) -> bool:
    """Whether the sentence is a bare answer: after any yes or no, its first clause has no
    subject and no auxiliary verb of its own and is short, as is what follows it."""
    rest = after_yes_or_no(sentence)
    said = words(rest)
    first = words(first_clause(rest))
    return (
        bool(said)
        and len(first) <= MAX_FRAGMENT_WORDS
        and len(said) - len(first) <= MAX_FRAGMENT_TAIL_WORDS
        and opens_without_subject(rest)
    )
