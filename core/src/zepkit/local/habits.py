"""Habits given up or taken up again: which of the user's older statements such news ends.

A habit has no one subject the way a home or a job has (a user smokes, runs and drinks coffee
at once), so it is not a single-valued topic. Instead a statement that gives a habit up ("I quit
smoking", "I don't drink anymore", "Gave up coffee") names it, and ends the user's current
statements that say they do it ("I smoke about ten a day"), matched by the word's root; one
that takes it up again ("I started smoking again") ends those that gave it up. Rules over
English, no model.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import NamedTuple

from zepkit.local.factoring import factored
from zepkit.local.text import STOP_WORDS, STORED_LABEL

_CHANGE = re.compile(
    r"\b(?:quit|quitting|stopped|gave up|given up|giving up|kicked|ditched|no longer|"
    r"cut out(?!\s+(?:the|a|an|this|that|some|part)\b)|"
    r"(?:come|came|coming|(?:weaned|tapered)(?: myself)?|"
    r"switched(?= off \S+(?: \S+)? (?:on)?to\b)) off"
    r"(?!\s+(?:(?:my|the|a|his|her)\s+)?(?:bikes?|"
    r"bicycle|horse|ladder|motorbike|scooter|skateboard|board|wall|stage|pitch|field|road|"
    r"motorway|roof|slide|swing|lift|train|bus|plane|phone|call|shift|bench)\b)|"
    r"(?:do not|don['’]?t)(?=\s+[\w'’-]+(?:\s+[\w'’-]+){0,2}\s+any\s?more\b))"
    r"\s+(?:(?:the|my|a|an|all|on)\s+)*(?P<habit>[a-z][\w'’-]*)"
    r"(?:\s+(?P<article>(?:the|my|a|an|our|his|her|their)\s+)?(?P<object>[a-z]\w*))?|"
    r"\b(?:started|began|am|['’]m)\s+(?P<again>[a-z]\w*ing)(?:\s+\w+)?\s+again\b",
    re.IGNORECASE,
)
"""Giving a habit up ("quit smoking", "came off the sertraline"), or taking it up again; `habit`
(or `again`) is the habit's word, `object` the word after it (after an `article`, if any)."""
_CHANGE_ANYWHERE = re.compile(factored(_CHANGE.pattern), re.IGNORECASE)
"""`_CHANGE` as a prefix tree, asked only whether a statement has a change anywhere: most have
none, and are then not split into clauses (a clause's match is one in the whole text)."""
_TAKEN_OFF = re.compile(
    r"\b(?:took|taken|taking|takes?|weaned|weaning|switched|switching|changed|changing|moved|"
    r"moving|swapped|swapping|tapered|tapering) me "
    r"(?:off|from)\s+(?:(?:the|my|all)\s+)*(?P<habit>[a-z][\w'’-]*)",
    re.IGNORECASE,
)
"""Someone else ending the speaker's habit ("The GP took me off sertraline", "my doctor switched
me from Ozempic to Mounjaro"): the "me" makes it theirs whoever says it."""
_CANCELLED = re.compile(
    r"\bcancell?(?:ed|ing) (?:my |our |the )?"
    r"(?!(?:mon|tues|wednes|thurs|fri|satur|sun)day\b)(?P<habit>(?-i:[A-Z])[\w'’-]*)\b",
    re.IGNORECASE,
)
"""A named service or membership cancelled ("Cancelled Cult", "I cancelled my Netflix"): by name
only, as "I cancelled the meeting" gives up no meeting of the user's."""
_GIVEN_UP_SINCE = re.compile(
    r"\b(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a few|a couple "
    r"of|several)\s+(?:weeks?|months?|years?)\s+(?:now\s+)?(?:without|free of|clean of|"
    r"sober from|(?<=months )no|(?<=month )no|(?<=years )no|(?<=year )no)\s+"
    r"(?:any\s+|the\s+|my\s+|(?:a|one)\s+(?:single\s+)?)?(?P<without>[a-z][\w'’-]*)|"
    r"\b(?P<last>smoked|vaped) my (?:very )?last\b",
    re.IGNORECASE,
)
"""A habit given up for so long ("two weeks without cigarettes", "6 months no smokes"), or its
last one had ("smoked my last one"): `without` or `last` is the habit's word. Looked for only
where one of `_SINCE_WORDS` is."""
_DAYS_WITHOUT = re.compile(
    r"\b(?:\d+|a|one|two|three|four|five|six|seven|eight|nine|ten|a few|a couple of)\s+"
    r"(?:days?|weeks?)\s+(?:now\s+)?no\s+(?P<without>cigs?|cigarettes?|ciggies|smokes?|fags?|"
    r"vapes?|vaping|booze|alcohol|drinks?|drinking)\b",
    re.IGNORECASE,
)
"""Days or weeks without what a habit is had with ("2 weeks no cigs"): only those things, as
"Two weeks no sleep lol" gives nothing up."""
_SINCE_WORDS = (
    *("without", "free of", "clean of", "sober from", "month no ", "months no ", "year no "),
    *("years no ", "weeks no ", "week no ", "days no ", "day no ", "my last", "my very last"),
)
_FREE = re.compile(
    r"\b(?:(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|a few|several) "
    r"(?:days?|weeks?|months?|years?) (?:now )?)?"
    r"(?P<habit>[a-z]+)(?:-free\b| free(?=\s*(?:$|[.,!;:]|today|now|for|since)))",
    re.IGNORECASE,
)
"""Free of a habit ("I've been smoke-free for six weeks", "one month smoke free today"; not
"alcohol free beers"), looked for only in a clause that says "free"."""

_LEAD = re.compile(
    r"\W*(?:(?:so|and|then|but|now)\s+)?(?:(?:I|i)(?:['’](?:ve|m)|\s+have|\s+am)?\s+|i(?:ve|m)\s+)?"
    r"(?:(?:just|finally|recently|officially|completely|totally|also|now|have|had|been|"
    r"actually|already)\s+)*",
)
"""What may come before the change for it to be the speaker's own: their "I", or nothing (chat's
dropped "I": "Quit smoking last month!"), with adverbs."""

_LIGHT_VERBS = frozenset(
    {
        *("eat", "have", "use", "take", "play", "go", "do", "watch", "buy", "drink", "get"),
        *("eating", "having", "using", "taking", "playing", "going", "doing", "watching"),
        *("buying", "drinking", "getting"),
    }
)
"""Verbs whose object is the habit when one follows ("stopped eating meat", "I don't drink
soda anymore"); "I quit drinking" is the habit itself."""

_GOING = frozenset({"going", "go", "went"})
_GROUPS = frozenset(
    {
        *("club", "group", "class", "classes", "team", "league", "society", "meetup", "crew"),
        *("squad", "app", "course", "lessons", "membership", "subscription", "challenge"),
    }
)
"""What a habit's word may name instead of the habit ("I quit running club" gives up the club,
not running)."""
_MEMBERSHIPS = frozenset(
    {
        *("band", "choir", "orchestra", "club", "team", "group", "society", "league", "crew"),
        *("squad", "troupe", "ensemble", "committee", "quartet", "quintet", "trio", "chorus"),
    }
)
"""What a user is in rather than does ("I sing in a choir", "I'm on the football team")."""
_LEFT_GROUP = re.compile(
    r"\b(?:left|quit|quitting|leaving|dropped out of|stepped down from|resigned from) "
    r"(?:the|my|our) (?:(?P<kind>[a-z][\w'’-]*) )?(?P<group>"
    + "|".join(sorted(_MEMBERSHIPS))
    + r")\b(?!['’-]|\s+(?!(?:in|at|on|for|after|before|last|this|yesterday|today|and|but|"
    r"because|when|since|to|a|an|the|so|as|over|ago|recently|finally|now|too|for good)\b)"
    r"(?-i:[a-z]))",
    re.IGNORECASE,
)
"""Leaving a group ("I left the band", "Quit my book club"): `kind` says which ("book"); not
a group's doings ("I left the band practice early")."""
_LEAVING_WORDS = ("left", "quit", "leaving", "dropped out", "stepped down", "resigned")
"""A word each way of leaving a group holds: `_LEFT_GROUP` is looked for only where one is."""
_INTO_GROUP = frozenset({"in", "on", "of", "with", "join", "joined", "to"})
"""Words that put the speaker in a group named after them ("I play guitar in a band")."""
_WENT_TO = re.compile(r"\s+to\s+(?:the\s+|my\s+)?(?P<place>[a-z][\w'’-]*)", re.IGNORECASE)
"""Where a habit of going is to ("going to the gym", "going to church"): the habit's word."""
_PARTLY = re.compile(
    r"\s+(?:(?:at|on|in|during|after|before|past|until|till|over|through)\s+(?:the\s+)?"
    r"(?:nights?|weekends?|mornings?|evenings?|afternoons?|lunch(?:time)?|dinner|work|home|"
    r"week(?:days|ends)?|(?:mon|tues|wednes|thurs|fri|satur|sun)days?|midnight|dark|bedtime|"
    r"holidays|rain|cold|heat)\b|"
    r"(?:in|during|over)\s+(?:the\s+)?(?:winters?|summers?|autumns?|fall|spring)\b"
    r"(?!\s+(?:of\b|\d))|"
    r"in bed\b|"
    r"(?:after|before|past)\s+(?:\d|noon|lunch|dinner|work|school)|"
    r"from\s+(?:home|the|a|an|my|our)\b|at\s+(?:the|a|an|my|our)\s+[\w'’-]+|"
    r"(?:late|early|weekends|weeknights|nights|(?:mon|tues|wednes|thurs|fri|satur|sun)days|"
    r"so much|as much|that much|as often|so often|that often|every day|daily|alone|on my own)"
    r"\b)",
    re.IGNORECASE,
)
"""What after a habit's word keeps the rest of the habit ("I no longer drive at night", "I don't
work weekends anymore", "I stopped running in the mornings", "I don't drink so much now"): a
part given up, not the habit ("I quit smoking in March" gives it up)."""
_FIRST_PERSON = frozenset({"i", "i'm", "i’m", "im", "i've", "i’ve", "ive"})
_ADVERBS = frozenset(
    {
        "still",
        "now",
        "also",
        "just",
        "usually",
        "mostly",
        "only",
        "currently",
        "sometimes",
        "occasionally",
        "often",
        "always",
        "never",
        "basically",
        "honestly",
    }
)
_OPENS_A_HABIT = frozenset(
    {
        *_ADVERBS,
        *_LIGHT_VERBS,
        "been",
        "used",
        "started",
        "starting",
        "learning",
        "studying",
        "took",
        "on",
    }
)
"""Words that may open a clause before its habit when the clause has no "I" ("Still smoking a
pack a day.", "Been doing CrossFit for years.", "Started learning the cello."), the rest of the
words before it being words of doing (`_DOING`); not a quantity ("A lot of smoke")."""

_DOING = frozenset(
    {
        *_LIGHT_VERBS,
        *("am", "i'm", "have", "i've", "had", "been", "was", "do", "used", "to", "really"),
        *("love", "like", "enjoy", "a", "an", "heavy", "light", "social", "chain", "big"),
        *("daily", "regular", "bit", "lot", "lots", "of", "few", "couple", "some", "too"),
        *("much", "many", "cup", "cups", "glass", "glasses", "pack", "packs", "pint", "pints"),
        *("bottle", "bottles", "can", "cans", "one", "two", "three", "four", "five", "six"),
        *("seven", "eight", "nine", "ten", "twenty", "half", "on"),
        *("quit", "quitting", "stopped", "gave", "given", "giving", "up", "kicked", "no"),
        *("longer", "don't", "don’t", "dont", "not", "never"),
        *("learning", "studying", "practising", "practicing", "the", "my"),
        *("started", "starting", "began", "took", "taken"),
    }
)
"""Words that may stand between the speaker's "I" and the habit's word when they say whether
they do it ("I drink three cups of coffee", "I'm a heavy smoker", "I've been smoking", "I quit
drinking", "I'm learning Spanish", "I go to the gym"); any other ("I hate the smell of smoke")
says something else."""
_BETWEEN = _DOING | _ADVERBS
_TOKEN = re.compile(r"[\w'’-]+")
_CLAUSE = re.compile(r"[.!?;,]|\s-\s|\bbut\b")


def watches(text: str, habit: str) -> bool:
    """Whether `text` speaks of watching the habit ("I stopped watching tennis on TV", "I watch a
    lot of tennis"): a habit watched and one done are two ("I've been playing tennis" stays)."""
    for before in _before_habit(text, habit):
        for word in reversed(before):  # back over words of doing to a "watch"
            if word in _WATCHING:
                return True
            if word not in _BETWEEN:
                break
    return False


def _before_habit(text: str, habit: str) -> Iterator[list[str]]:
    """For each word of a stored statement with the root `habit`, the lower-cased words before it
    in its clause."""
    body = STORED_LABEL.sub("", text, count=1)
    for clause in _CLAUSE.split(body):
        tokens = _TOKEN.findall(clause.lower())
        for at, token in enumerate(tokens):
            if root(token) == habit:
                yield tokens[:at]


_WATCHING = frozenset({"watch", "watches", "watched", "watching"})


def root(word: str) -> str:
    """A word's root for matching a habit's forms: smoke, smokes, smoker, smoking -> "smok";
    run, runs, running -> "run"."""
    word = word.lower().strip("'’-")
    for suffix in ("ing", "ers", "er", "es", "s", "e"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    if len(word) >= 4 and word[-1] == word[-2] and word[-1] not in "aeiouls":
        word = word[:-1]  # running -> runn -> run
    return _SAME_HABIT.get(word, word)


_SAME_HABIT = {
    **dict.fromkeys(("cigaret", "cig", "ciggi", "ciggy", "fag", "tobacco"), "smok"),
    **dict.fromkeys(("alcohol", "booz"), "drink"),
}
"""Roots of what a habit is had with, as the habit's own ("two months without cigarettes" gives
up smoking; "I've cut out alcohol", drinking)."""


class Habit(NamedTuple):
    """A habit given up or taken up again: its word's root, the root of what it is done to
    when the news names that with an article ("I stopped reading the news": "read", "news"),
    and whether it is taken up again (which ends giving it up, not doing it)."""

    root: str
    thing: str | None = None
    again: bool = False


def changed_habit(text: str) -> Habit | None:
    """The habit a statement by the user gives up or takes up again, else None; none when the
    statement goes on to say they still do it ("I stopped running on the treadmill, I run
    outside now": a part given up)."""
    body = STORED_LABEL.sub("", text, count=1)
    lowered = body.lower()
    since = any(word in lowered for word in _SINCE_WORDS)
    leaving = any(word in lowered for word in _LEAVING_WORDS)
    taken = " me " in lowered and _TAKEN_OFF.search(body) is not None
    cancelled = "cancel" in lowered
    if (
        "free" not in body
        and not since
        and not leaving
        and not taken
        and not cancelled
        and _CHANGE_ANYWHERE.search(body) is None
    ):
        return None
    clauses = _CLAUSE.split(body)
    for at, clause in enumerate(clauses):
        left = _LEFT_GROUP.search(clause) if leaving else None
        if left is not None and _LEAD.fullmatch(clause[: left.start()]) is not None:
            kind = (left["kind"] or "").lower()
            which = kind not in STOP_WORDS and kind not in _ANY_KIND_OF_GROUP
            return Habit(root(left["group"]), root(kind) if kind and which else None)
        found = _CHANGE.search(clause)
        if found is None and since:
            found = _GIVEN_UP_SINCE.search(clause) or _DAYS_WITHOUT.search(clause)
        if found is None and "free" in clause:
            found = _FREE.search(clause)
        if found is None or _LEAD.fullmatch(clause[: found.start()]) is None:
            found = _TAKEN_OFF.search(clause) if taken else None
            if found is None and cancelled:
                found = _CANCELLED.search(clause)
                if found is not None and _LEAD.fullmatch(clause[: found.start()]) is None:
                    found = None
            if found is None:
                continue
        named = found.groupdict()
        last = (named.get("last") or "").lower().removesuffix("d")  # "smoked": "smoke"
        said = named.get("habit") or named.get("again") or named.get("without") or last
        habit = said.lower()
        thing = (named.get("object") or "").lower()
        after = found.end("habit") if named.get("habit") else len(clause)
        done_to = None
        if habit in _LIGHT_VERBS and thing and thing not in STOP_WORDS and thing != "anymore":
            habit, after = thing, found.end("object")
        elif habit in _GOING:  # "stopped going to the gym": the habit is where one went
            went = _WENT_TO.match(clause, found.end("habit"))
            if went is None:  # "going out so much": no habit by name, none of going anywhere
                continue
            habit, after = went["place"].lower(), went.end()
        elif thing in _GROUPS:
            habit, after = thing, found.end("object")
        elif thing and thing not in STOP_WORDS:
            after = found.start("object") - 1  # the object may be the part ("work weekends")
            if named.get("article"):  # "reading the news": not reading before bed
                done_to, after = root(thing), found.end("object")
        if _PARTLY.match(clause, after):
            continue
        if habit not in STOP_WORDS and len(habit) >= 3:
            given_up = Habit(root(habit), done_to, again=named.get("again") is not None)
            others = clauses[:at] + clauses[at + 1 :]
            if any(_STILL.search(other) and does_habit(other, given_up.root) for other in others):
                return None
            return given_up
    return None


_ANY_KIND_OF_GROUP = frozenset({"local", "new", "old", "little", "weekly", "village", "school"})
"""Words before a group that do not say which group it is ("I left the local choir")."""

_STILL = re.compile(r"\b(?:now|still|instead|only|just)\b", re.IGNORECASE)
"""Words of a clause saying the speaker does a habit now, beside news giving a part of it up."""


def names_thing(text: str, thing: str) -> bool:
    """Whether a stored statement names what a habit is done to (`Habit.thing`), by its root."""
    body = STORED_LABEL.sub("", text, count=1)
    return any(root(token) == thing for token in _TOKEN.findall(body.lower()))


def does_habit(text: str, habit: str) -> bool:
    """Whether a statement says its speaker does the habit whose root is `habit`: a word with
    that root after their "I" in the same clause with only words of doing between (`_DOING`), or
    at the start of a clause without one ("Smoke about ten a day.", "Still smoking a pack a
    day.", "Been doing CrossFit for years."; not "Dad smokes.", "I hate the smell of smoke.")."""
    for before in _before_habit(text, habit):
        speaker = max((n for n, word in enumerate(before) if word in _FIRST_PERSON), default=-1)
        if (not before or (before[0] in _OPENS_A_HABIT and _BETWEEN.issuperset(before[1:]))) or (
            speaker >= 0
            and all(word in _BETWEEN or word.isdigit() for word in before[speaker + 1 :])
        ):
            return True
        if speaker >= 0 and _and_then_doing(before[speaker + 1 :]):
            return True
        if habit in _MEMBERSHIP_ROOTS and _in_group(before, speaker):
            return True
    return False


def _and_then_doing(said: list[str]) -> bool:
    """Whether the words after the speaker's "I" go on with "and" to doing the habit, of no one
    else ("I have type 2 diabetes and take metformin", not "I love Tom and he smokes")."""
    if "and" not in said:
        return False
    last = len(said) - 1 - said[::-1].index("and")
    doing = said[last + 1 :]
    return (
        bool(doing)
        and doing[0] in _OPENS_A_HABIT
        and _BETWEEN.issuperset(doing[1:])
        and not _OTHERS.intersection(said)
    )


def says_not(text: str, habit: str) -> bool:
    """Whether a statement says its speaker does not do the habit `habit` (or gave it up, or did
    it once): a word of not doing between their "I" and it ("I don't smoke", "I quit smoking",
    "I used to smoke"). News that gives the habit up leaves such a statement as it is: the two
    agree."""
    for before in _before_habit(text, habit):
        speaker = max((n for n, word in enumerate(before) if word in _FIRST_PERSON), default=-1)
        said = before[speaker + 1 :]
        if _NOT_DOING.intersection(said) or _USED_TO.search(" ".join(said)):
            return True
    return False


_USED_TO = re.compile(r"\bused to\b")
"""A habit of the past ("I used to smoke forty a day"): news giving it up leaves it, as it says
nothing of now."""


_NOT_DOING = frozenset(
    {
        *("don't", "don’t", "dont", "not", "never", "no", "longer", "quit", "quitting"),
        *("stopped", "gave", "given", "giving", "kicked", "without", "off"),
    }
)
_MEMBERSHIP_ROOTS = frozenset(root(word) for word in _MEMBERSHIPS)


def _in_group(before: list[str], speaker: int) -> bool:
    """Whether the words before a group's word put the speaker in it: their "I" (or none, as
    chat drops it), then a word like "in" or "on" among the last four ("I play guitar in a
    band", "I'm on the netball team", "Sing in a choir"), and no one else between."""
    opener = before[0] if before else ""
    if speaker < 0 and opener and opener not in _OPENS_IN_A_GROUP:
        return False
    near = before[max(speaker + 1, len(before) - 4) :]
    return any(word in _INTO_GROUP for word in near) and not _OTHERS.intersection(
        before[speaker + 1 :]
    )


_OPENS_IN_A_GROUP = _OPENS_A_HABIT | {"sing", "singing", "play", "playing", "member", "part"}
_OTHERS = frozenset(
    {
        *("he", "she", "they", "his", "her", "their", "son", "daughter", "husband", "wife"),
        *("sister", "brother", "mum", "mom", "dad", "friend", "partner", "kids", "boyfriend"),
        *("girlfriend", "someone", "everyone"),
    }
)
"""Someone else in the group ("I think my sister sings in a choir")."""
