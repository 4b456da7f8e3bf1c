"""Turning an ingested text into statements (facts), the entity names they mention and what
they add to the speaker's profile.

The `Extractor` protocol is the plug-in point (an LLM-backed extractor can replace the default);
`RuleExtractor` is the default, needs no model and is deterministic. Chatter (greetings, thanks,
questions, requests, acknowledgements) makes no statement: its message stays an episode.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol, runtime_checkable

from zepkit.core._models import DataType
from zepkit.local.answers import (
    MAX_FRAGMENT_WORDS,
    MAX_REPLY_CHARS,
    after_yes_or_no,
    is_bare_reply,
    is_elliptic,
    is_fragment,
    names_the_user,
    picks_an_option,
    refers_back,
    unhedged,
)
from zepkit.local.chatter import PHATIC_WORDS, asks_of_own_situation, is_chatter, names_only
from zepkit.local.corrections import corrected
from zepkit.local.profile import (
    MAX_JOINED_CHARS,
    TOLD_KINDS,
    answer_salience,
    answer_topics,
    carries_on,
    continues,
    dated_note,
    goes_on,
    kinds_asked,
    kinds_in,
    named_self_statement,
    points_back_there,
    self_statement,
    subjects_apart,
    tells_an_ending,
)
from zepkit.local.text import (
    ROLE_NAMES,
    STOP_WORDS,
    has_words,
    name_mentions,
    sentences,
    words,
)


@dataclass(frozen=True)
class ExtractedStatement:
    """One fact to store: its text as it will be shown and the entity names it mentions.

    `maybe_entities` link the statement only to entities the graph already has. When the
    speaker is the user and the statement is about themselves, `profile` is its salience (it
    joins the user's profile, which every context block considers), `topics` name the subjects
    that hold one value at a time (a newer statement on one ends the older ones: "home",
    "work", "diet", "relationship", "car", "age"), and `ends` says it ends what was true of the
    entities it mentions (a pet that died; when the statement is not in the profile, "Mochi
    passed away", only the user's profile statements about someone)."""

    text: str
    entities: tuple[str, ...] = ()
    maybe_entities: tuple[str, ...] = ()
    profile: float | None = None
    topics: tuple[str, ...] = ()
    ends: bool = False


@runtime_checkable
class Extractor(Protocol):
    """Finds the statements in one message or data item; must be pure and thread-safe."""

    def extract(
        self, text: str, *, speaker: str | None, source: DataType, role: str | None = None
    ) -> Sequence[ExtractedStatement]:
        """The statements of `text` said by `speaker` (None for data); `source` says its kind and
        `role` the speaker's role in a thread ("user", "assistant"; None for data)."""
        ...


@runtime_checkable
class ReplyExtractor(Protocol):
    """An extractor that can also read a user's message with what came just before it in the
    thread: the assistant's question ("Where are you based?" "Melbourne.") and the user's own
    previous message ("I have a dog." "Nice!" "His name is Rex."); optional: an `Extractor`
    without it reads every message alone."""

    def extract_reply(
        self, text: str, *, speaker: str | None, question: str | None, before: str | None
    ) -> Sequence[ExtractedStatement]:
        """The statements of the user's message `text`; `question`: the assistant's question about
        the user it replies to; `before`: the user's previous message, when no more than the
        assistant's reply lies between (either may be None)."""
        ...


@runtime_checkable
class FollowUpExtractor(Protocol):
    """An extractor that can also read a user's message sent right after their own previous one,
    with no reply between: chat sends a thought in pieces ("I'm doing a PhD", then "marine
    biology, coral bleaching in the Caribbean"). Optional, as `ReplyExtractor` is; such a
    message is otherwise read by `extract_reply` (or alone)."""

    def extract_follow_up(
        self, text: str, *, speaker: str | None, before: str
    ) -> Sequence[ExtractedStatement]:
        """The statements of the user's message `text`; `before`: their message just before."""
        ...


class RuleExtractor:
    """The default extractor: `"<speaker>: <sentence>"` statements for every sentence that is not
    chatter, proper-noun runs as entities, the user's sentences about themselves as profile."""

    # JSON is flattened to `key.path: value` leaves first, so facts never carry braces and quotes.

    def extract(
        self, text: str, *, speaker: str | None, source: DataType, role: str | None = None
    ) -> Sequence[ExtractedStatement]:
        """See `Extractor.extract`."""
        if source == "json":
            return [
                self._statement(f"{path}: {sentence}" if path else sentence, sentence)
                for path, value in json_leaves(json.loads(text))
                for sentence in sentences(value)
            ]
        prefix = f"{speaker}: " if speaker else ""
        if role == "user":
            return [statement for _, statement in self._read(text, prefix, None)]
        kept = self._kept(text, prefix, role)
        return [self._said(sentence, prefix, role) for sentence in kept]

    def extract_reply(
        self,
        text: str,
        *,
        speaker: str | None,
        question: str | None = None,
        before: str | None = None,
    ) -> Sequence[ExtractedStatement]:
        """See `ReplyExtractor.extract_reply`: a bare answer ("Melbourne.", "Eight and eleven.",
        "I am, yes.", and "No." when nothing else is said) of a short reply is stored with the
        question and joins the user's profile; an opening sentence that goes on about the person
        or pet of the user's previous statement ("His name is Rex.") is stored joined to it; the
        rest reads as usual."""
        prefix = f"{speaker}: " if speaker else ""
        read = self._read(text, prefix, before, question)
        if question is None or len(text) > MAX_REPLY_CHARS:
            return [statement for _, statement in read]
        asked = f'{speaker}, asked "{question}": ' if speaker else f'Asked "{question}": '
        found = []
        for at, (sentence, statement) in enumerate(read):
            hedged = unhedged(sentence)
            elliptic = is_elliptic(hedged) and names_the_user(question)
            if (statement.profile is None or hedged != sentence or elliptic) and (
                elliptic
                or is_fragment(hedged)
                or (len(read) == 1 and _answers(sentence, question))
                or (at == 0 and picks_an_option(hedged, question))
            ):
                statement = self._answer(asked + sentence, sentence, question, alone=len(read) == 1)
            found.append(statement)
        if not names_the_user(question):  # "Is that all?" "Yes." says nothing of the user
            return found
        said = sentences(text)
        if found:
            if said and said[0] not in dict(read) and is_bare_reply(said[0]):
                # "Is this your first marathon?" "Yes! I only started last year.": the yes
                # tells what the question asks, the rest reads as usual
                return [self._answer(asked + said[0], said[0], question, alone=False), *found]
            return found
        if len(said) == 1 and names_only(said[0]):  # "Mostly Ethiopian and Korean."
            return [self._answer(asked + said[0], said[0], question, alone=True)]
        bare = [sentence for sentence in said if is_bare_reply(sentence) or is_elliptic(sentence)]
        if not bare and len(said) == 1 and _answers(said[0], question):
            bare = said  # "That would be Jordan." reads as politeness alone
        return [self._answer(asked + bare[0], bare[0], question, alone=False)] if bare else []

    def extract_follow_up(
        self, text: str, *, speaker: str | None, before: str
    ) -> Sequence[ExtractedStatement]:
        """See `FollowUpExtractor.extract_follow_up`: a first sentence that carries on the
        previous message, sent unfinished (`carries_on`), is one statement with its end; the
        rest reads as `extract_reply` reads a message after the user's own."""
        prefix = f"{speaker}: " if speaker else ""
        return [statement for _, statement in self._read(text, prefix, before, follows=True)]

    def _read(
        self,
        text: str,
        prefix: str,
        before: str | None,
        question: str | None = None,
        *,
        follows: bool = False,
    ) -> list[tuple[str, ExtractedStatement]]:
        """A user's message as (sentence, statement) pairs; when its first sentence goes on about
        the subject of the last profile statement of `before` (the user's previous message), that
        statement and the sentence are one; when it corrects a word of `before` ("*Galway"),
        the sentence of `before` it fixes is read, fixed, in its place; when `before` came
        right before it (`follows`) unfinished, its first sentence ends it. `question`: the one the
        message replies to, whose answer may come first as an exclamation ("Birdwatching! He's
        out every morning", "Korean! I've been at it three months." to "Which language?") or
        with a question mark of doubt ("A2 maybe? I can order food.")."""
        if before is not None and (fix := corrected(text, before)) is not None:
            # "*Galway lol": the previous message's sentence as it was meant, then the rest
            fixed, rest = fix
            kept = self._kept(fixed, prefix, "user") + self._kept(
                listed_inline(rest), prefix, "user"
            )
            return self._joined(kept, prefix)
        kept = self._kept(listed_inline(text), prefix, "user")
        if question is not None and ("?" in text or "!" in text or (kept and goes_on(kept[0]))):
            said = sentences(text)
            first = said[0].removeprefix(prefix) if said else ""
            if first and (not kept or first != kept[0]):  # the first sentence was chatter
                if kept and goes_on(kept[0]) and _exclaimed_answer(first):
                    kept[0] = f"{first} {kept[0]}"  # read on with what it goes on about
                elif _unsure_answer(first) or (
                    _WHICH.match(question) is not None and _named_answer(first)
                ):
                    kept.insert(0, first)
        if follows and before is not None and kept and sentences(text)[:1] == kept[:1]:
            unfinished = sentences(before[-MAX_JOINED_CHARS:])[-1:]
            if unfinished and carries_on(kept[0], unfinished[0]):
                return self._carried_on(unfinished[0], kept, prefix)
        if before is None or not kept or not goes_on(kept[0]):
            return self._joined(kept, prefix)
        # only its last statement counts, and a joined statement is short: a long message's
        # tail is read, not the whole of it again
        tail = before[-2 * MAX_JOINED_CHARS :]
        earlier = self._joined(self._kept(listed_inline(tail), prefix, "user"), prefix)
        if not earlier or earlier[-1][1].profile is None:
            return self._joined(kept, prefix)
        seed = earlier[-1][0]
        read = self._joined([seed, *kept], prefix)
        return read[1:] if read[0][0] == seed else read  # not joined: the seed is stored already

    def _carried_on(
        self, unfinished: str, kept: list[str], prefix: str
    ) -> list[tuple[str, ExtractedStatement]]:
        """A message whose first sentence carries on the user's unfinished previous one (see
        `carries_on`): the two are one statement, the profile's when the previous one was."""
        seed = self._said(unfinished, prefix, "user")
        if seed.profile is None:
            return self._joined(kept, prefix)
        # "landlord is super strict, no nails ...", but "my husband is in the navy"
        last = words(unfinished)[-1:]
        joined = f"{unfinished}{' ' if last and last[0] in STOP_WORDS else ', '}{kept[0]}"
        said = self._said(joined, prefix, "user")
        if said.profile is None:
            said = replace(said, profile=seed.profile, topics=seed.topics)
        return [(joined, said), *self._joined(kept[1:], prefix)]

    def _joined(self, kept: list[str], prefix: str) -> list[tuple[str, ExtractedStatement]]:
        """A user's kept sentences read as statements, a sentence that goes on about the subject
        of the profile statement before it ("I have a dog. His name is Rex.") joined to it: apart,
        the second names no one and would not join the profile."""
        read: list[tuple[str, ExtractedStatement]] = []
        for sentence in kept:
            if (
                read
                and points_back_there(sentence)
                and len(read[-1][0]) + len(sentence) < MAX_JOINED_CHARS
            ):  # "My sister lives in Lisbon. I'm visiting there in May.": one statement
                joined = f"{read[-1][0]} {sentence}"
                read[-1] = (joined, self._said(joined, prefix, "user"))
                continue
            if (
                read
                and read[-1][1].profile is None
                and read[-1][1].entities
                and goes_on(sentence)
                and len(read[-1][0]) + len(sentence) < MAX_JOINED_CHARS
            ):  # "It's for Marisol's role. She's our events coordinator ...": she is Marisol
                joined = f"{read[-1][0]} {sentence}"
                read[-1] = (joined, self._said(joined, prefix, "user"))
                continue
            if (
                read
                and read[-1][1].profile is not None
                and (
                    continues(sentence, read[-1][0])
                    or (
                        dated_note(sentence) and len(read[-1][0]) + len(sentence) < MAX_JOINED_CHARS
                    )
                )
            ):  # "I have a dog. His name is Rex.", "Surgeon rang. Knee op on the 14th."
                joined = f"{read[-1][0]} {sentence}"
                said = self._said(joined, prefix, "user")
                if said.profile is None:  # a note without a subject led ("New kitten! Her ...")
                    first = read[-1][1]
                    said = replace(said, profile=first.profile, topics=first.topics)
                read[-1] = (joined, said)
                continue
            said = self._said(sentence, prefix, "user")
            parts = subjects_apart(sentence) if said.topics else None  # most have none
            if parts is None:
                read.append((sentence, said))
            else:  # "I live in Austin and work as a nurse": news of one keeps the other
                read += [(part, self._said(part, prefix, "user")) for part in parts]
        return read

    def _said(self, sentence: str, prefix: str, role: str | None) -> ExtractedStatement:
        """A kept sentence's statement, with its profile reading when the user says it (also
        when it has their own name: a signature, a letter's header)."""
        statement = self._statement(prefix + sentence, sentence)
        reading = self_statement(_as_read(sentence)) if role == "user" else None
        if reading is None and role == "user" and (name := own_name(prefix)) is not None:
            reading = named_self_statement(sentence, name)
        if reading is None:
            named = statement.entities or statement.maybe_entities
            if role == "user" and named and tells_an_ending(sentence):
                return replace(statement, ends=True)
            return statement
        return replace(
            statement, profile=reading.salience, topics=reading.topics, ends=reading.ends_mentions
        )

    def _answer(self, text: str, sentence: str, question: str, alone: bool) -> ExtractedStatement:
        """A bare answer's statement; only an answer that is the whole reply ("Berlin.") speaks
        to the question's single-valued subject (a newer one ends the older), not a bare yes or
        no ("Do you work from home?" "No.") nor one of several sentences."""
        return replace(
            self._statement(text, sentence),
            profile=answer_salience(question, sentence),
            topics=answer_topics(question) if alone else (),
        )

    @staticmethod
    def _kept(text: str, prefix: str, role: str | None) -> list[str]:
        """The sentences of `text` that are not chatter, without the speaker's prefix; a user's
        question that the next sentence says is about them ("What's a good hobby for someone
        who works from home? Asking for me lol") is kept with it."""
        name = own_name(prefix) if role == "user" else None
        if name is not None:
            text = signed_inline(text, name)
        said = [
            sentence.removeprefix(prefix) if prefix else sentence for sentence in sentences(text)
        ]
        kept: list[str] = []
        at = 0
        while at < len(said):
            sentence = said[at]
            if not is_chatter(_as_read(sentence), role=role) or (
                name is not None and named_self_statement(sentence, name) is not None
            ):
                kept.append(sentence)
            elif (
                role == "user"
                and at + 1 < len(said)
                and (
                    (
                        sentence.rstrip().endswith("?")
                        and (_FOR_ME.match(said[at + 1]) or points_back_there(said[at + 1]))
                    )
                    or asks_of_own_situation(_as_read(sentence), _as_read(said[at + 1]))
                )
            ):
                at += 1
                kept.append(f"{sentence} {said[at]}")
            at += 1
        return kept

    @staticmethod
    def _statement(text: str, sentence: str) -> ExtractedStatement:
        names, maybe = name_mentions(sentence)
        return ExtractedStatement(text=text, entities=tuple(names), maybe_entities=tuple(maybe))


MAX_EXCLAIMED_ANSWER_WORDS = 4


def _exclaimed_answer(sentence: str) -> bool:
    """Whether a short exclamation, told without its mark, says something ("Birdwatching!",
    "Pottery classes!"; not "Thanks!", "Wow!"): after a question, the answer."""
    bare = sentence.rstrip().rstrip("!")
    return (
        bare != sentence.rstrip()
        and len(bare.split()) <= MAX_EXCLAIMED_ANSWER_WORDS
        and not is_chatter(f"{bare}.", role="user")
    )


MAX_NAMED_ANSWER_WORDS = 3


def _named_answer(sentence: str) -> bool:
    """Whether a short exclamation of capitalised words, none of politeness, answers the
    question before it by naming what was asked ("Which language?" "Korean! I've been at it
    three months."; not "Great question!", "OMG!")."""
    bare = sentence.rstrip().rstrip("!")
    named = [word for word in bare.split() if word.lower() not in _JOINING]
    return (
        bare != sentence.rstrip()
        and 0 < len(named) <= MAX_NAMED_ANSWER_WORDS
        and not bare.isupper()
        and all(word[:1].isupper() and word.lower() not in PHATIC_WORDS for word in named)
        and _exclaimed_answer(sentence)
    )


_JOINING = frozenset({"and", "or", "&"})
_WHICH = re.compile(r"^\W*(?:which|what)\b", re.IGNORECASE)
"""A question asking for something named ("Which language?", "What breed is she?")."""

MAX_UNSURE_ANSWER_WORDS = 4

_ASKS_BACK = re.compile(
    r"^\W*(?:what|how|why|when|where|who|whom|whose|which|can|could|would|will|shall|should|do|"
    r"does|did|is|are|was|were|am|have|has|had|may|might|must|any|really|seriously|sorry|you|u|"
    r"and|or|so|huh|eh)\b",
    re.IGNORECASE,
)


def _unsure_answer(sentence: str) -> bool:
    """Whether a short sentence with a question mark, opening with no question word, answers the
    question before it with doubt ("A2 maybe?", "Lisbon?", "around 300?"), not asks back
    ("Why?", "Do I have to?", "Sorry?")."""
    bare = sentence.rstrip()
    return (
        bare.endswith("?")
        and len(bare.split()) <= MAX_UNSURE_ANSWER_WORDS
        and _ASKS_BACK.match(bare) is None
        and not is_chatter(f"{bare.rstrip('?')}.", role="user")
    )


def _as_read(sentence: str) -> str:
    """A sentence shouted in capitals ("WE GOT ENGAGED!!") as the rules read it: typed in lower
    case, which they read as chat (capitals there say nothing of names)."""
    return sentence.lower() if sentence.isupper() else sentence


_FOR_ME = re.compile(
    r"^\W*(?:(?:i['’]?m |just )?asking for (?:me|myself)|(?:that|this|it)(?:['’]s| is) (?:me|my "
    r"situation|my life)|(?:that|this) describes me|"
    r"(?:yep,? |yes,? |well,? )?me,? (?:apparently|obviously|lol|haha|lmao|that['’]?s who)|"
    r"(?:yep,? |yes,? )?guilty(?: as charged)?)\b",
    re.IGNORECASE,
)
"""A sentence saying the question before it is about the speaker ("Asking for me", "who takes
up the cello at 52, right? me apparently")."""

_NAME_ASKED = re.compile(
    r"\b(?:call you|your (?:first |full |real )?name|name do you|go by)\b", re.IGNORECASE
)
_THEIR_NAMES_ASKED = re.compile(r"\b(?:names?|called)\b", re.IGNORECASE)
"""A question asking what the user's people or pets are called."""
_OPENS_WITH_A_NAME = re.compile(r"^\W*[A-Z][a-z]+\b(?! I\b)")
MAX_NAME_REPLY_WORDS = 6


def _opens_with_a_name(sentence: str) -> bool:
    """Whether a reply opens with a name: a capitalised word, or, typed without capitals, a word
    that is no pronoun or function word ("mia is 6 and theo is 3")."""
    if _OPENS_WITH_A_NAME.match(sentence):
        return True
    first = words(sentence)[:1]
    return sentence == sentence.lower() and bool(first) and first[0] not in STOP_WORDS


def _answers(sentence: str, question: str) -> bool:
    """Whether a reply's only sentence answers a question to the user by standing for what it
    asks about ("Where do you live?" "It's a small town near York."), on a subject of their
    profile (the two together touch a kind: home, people, health...), or gives the name asked
    for ("What should I call you?" "Alex is fine.")."""
    if (
        _NAME_ASKED.search(question)
        and _OPENS_WITH_A_NAME.match(sentence)
        and len(sentence.split()) <= MAX_NAME_REPLY_WORDS
    ):
        return True
    if (  # "What are your kids' names?" "Mia is 6 and Theo is 3."
        _THEIR_NAMES_ASKED.search(question)
        and names_the_user(question)
        and _opens_with_a_name(sentence)
        and len(sentence.split()) <= MAX_FRAGMENT_WORDS
    ):
        return True
    if not names_the_user(question):
        return False
    if refers_back(sentence):
        return bool(kinds_in(f"{question} {sentence}") | kinds_asked(question))
    # "Are you renting?" "yeah, and the tenancy says no pets": "the" is theirs
    return (
        _THE_USERS.match(after_yes_or_no(sentence)) is not None
        and len(sentence.split()) <= MAX_DEFINITE_REPLY_WORDS
        and bool(kinds_in(sentence) & _OWN_KINDS)
    )


_THE_USERS = re.compile(
    r"^\W*(?:(?:honestly|well|um+|hmm+|not (?:much|really|yet)|sadly|unfortunately|actually)"
    r"\W+)*(?:(?:and|but|so|though)\s+)?the\s+\w",
    re.IGNORECASE,
)
"""A reply that opens (after any yes or no, and a hedge) with "the" something: what was asked
of."""
MAX_DEFINITE_REPLY_WORDS = 20
_OWN_KINDS = TOLD_KINDS | {"belongings"}


def own_name(prefix: str) -> str | None:
    """The first word of the speaker's name in a statement's prefix ("Siobhan Doyle: ", "Dr
    Amal Haddad: "), when it is a person's: capitalised, and not a role ("user")."""
    names = [word for word in prefix.removesuffix(": ").split() if word.lower() not in _TITLES]
    first = names[0] if names else ""
    if len(first) < MIN_OWN_NAME_CHARS or not first[0].isupper() or not first.isalpha():
        return None
    return None if first.lower() in _NO_NAMES else first


MIN_OWN_NAME_CHARS = 2
_NO_NAMES = ROLE_NAMES | {"human", "ai", "bot"}
_TITLES = frozenset({"dr", "dr.", "mr", "mr.", "mrs", "mrs.", "ms", "ms.", "mx", "mx.", "prof"})
MAX_SIGNATURE_LINES = 5
MAX_SIGNATURE_LINE_WORDS = 12
MAX_SIGNED_NAME_WORDS = 4


def signed_inline(text: str, name: str) -> str:
    """A signature block as one line: a line that is the speaker's name alone ("Aroha Ngata")
    and the short lines under it ("Kaiako · Te Kura Kaupapa Māori o Te Rito", "Flat 3, 14
    Harbour Row", "Cobh, Co. Cork") are read as one when together they are of a kind of the
    profile; each alone would name no one, the name says whose they are."""
    if name not in text:
        return text
    lines = text.split("\n")
    out: list[str] = []
    at = 0
    while at < len(lines):
        line = lines[at].strip()
        tokens = line.split()
        if tokens and tokens[0] == name and len(tokens) <= MAX_SIGNED_NAME_WORDS:
            block = [line]
            while (
                at + 1 < len(lines)
                and len(block) <= MAX_SIGNATURE_LINES
                and 0 < len(lines[at + 1].split()) <= MAX_SIGNATURE_LINE_WORDS
                and not lines[at + 1].rstrip().endswith((".", "!", "?", ":"))
            ):
                at += 1
                block.append(lines[at].strip())
            signed = " · ".join(block)
            if len(block) > 1 and named_self_statement(signed, name) is not None:
                out.append(signed)
            else:  # a name of no kind of theirs: the lines as they were
                out.extend(lines[at - len(block) + 1 : at + 1])
        else:
            out.append(lines[at])
        at += 1
    return "\n".join(out)


_LISTED = re.compile(
    r"^(?P<head>[^\n]{1,80}:)[ \t]*\n"
    r"(?P<items>(?:[ \t]*(?:[-*•]|\d{1,2}[.)])[ \t]+[^\n]{1,80}(?:\n|$))+)",
    re.MULTILINE,
)
_ITEM = re.compile(r"^[ \t]*(?:[-*•]|\d{1,2}[.)])[ \t]+", re.MULTILINE)


def listed_inline(text: str) -> str:
    """A user's short list under a heading, as one line ("About me:" then "- 34", "- nurse" is
    "About me: 34; nurse."): each item alone would name no one, the heading says whose it is."""

    def inline(found: re.Match[str]) -> str:
        items = [item.strip().rstrip(".;,") for item in _ITEM.sub("", found["items"]).splitlines()]
        return f"{found['head']} {'; '.join(item for item in items if item)}.\n"

    return _LISTED.sub(inline, text)


def json_leaves(value: Any, path: str = "") -> Iterator[tuple[str, str]]:
    """The scalar leaves of a parsed JSON value as (dotted key path, text); list items share it."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from json_leaves(item, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list):
        for item in value:
            yield from json_leaves(item, path)
    elif value is not None:
        text = value if isinstance(value, str) else json.dumps(value)
        if has_words(text):
            yield path, text
