"""Plain-text helpers for the local engine: query terms, sentences and proper-noun spans.

Everything here is pure and deterministic, so extraction and retrieval tokenise the same way.
"""

from __future__ import annotations

import functools
import re


def _wordset(text: str) -> frozenset[str]:
    """The whitespace-separated words of `text`: word lists stay readable in source."""
    return frozenset(text.split())


STOP_WORDS: frozenset[str] = _wordset(
    """
    a about above across after again against ah all almost along already also although always am
    among an and another any anyone anything are aren around as at be because been before being
    below beside besides between both but by can cannot could couldn did didn do does doesn doing
    don done down during each either else even ever every few for from further get gets getting
    got gotten had hadn has hasn have haven having he her here hers herself him himself his how
    however i if in into is isn it its itself just let ll me might mine more most much must mustn
    my myself neither no nor not now of off oh ok okay on once one only onto or other others our
    ours ourselves out over own quite rather re really same shall she should shouldn since so some
    something still such than that the their theirs them themselves then there these they thing
    things this those though through thus to too toward towards um under until up upon us ve very
    via was wasn we were weren what whatever when where whether which while who whom whose why will
    with within without won would wouldn yeah yes yet you your yours yourself yourselves
    """
)
"""English function words dropped from queries: they match nearly everything and rank nothing."""

_COMMON_STARTERS: frozenset[str] = _wordset(
    """
    absolutely actually add admittedly afterwards agreed anyway apparently ask awesome basically
    book bought bring buy bye call came can certainly check cheers clearly congrats cool could
    currently definitely describe did do does earlier email eventually exactly explain feel
    feeling finally find fine finished first following fortunately found frankly generally give
    glad go going good goodbye grab great guess happily happy has have hello help hey hi hmm
    honestly hope hopefully how imagine indeed initially interestingly ironically is just keep
    know last lately later let lets like likewise listen literally look looking love luckily made
    make maybe meanwhile meet met most moved my naturally need never next nice note nothing
    obviously of often okay oops order originally perfect perhaps personally pick please plus
    probably recently remember remind right rip sadly saw schedule see send seriously should show
    sometimes soon sorry sounds start started still suddenly sure surprisingly take tell text
    thank thankfully thanks that think thinking today tomorrow tonight took tragically true try
    trying ultimately unfortunately usually visit visited want was welcome well went were what
    when where which who why will wish wonderful would wow yep yesterday
    """
)
"""Words that often open a sentence with a capital letter without naming anything."""

_CALENDAR: frozenset[str] = _wordset(
    """
    january february march april may june july august september october november december
    monday tuesday wednesday thursday friday saturday sunday
    """
)
"""Month and weekday names: capitalised, but dates rather than entities."""

_CONNECTORS: frozenset[str] = frozenset({"of", "de", "da", "del", "der", "van", "von", "la", "le"})
"""Lower-case words allowed inside a name when capitalised words surround them ("Bank of Spain")."""

_ABBREVIATIONS: frozenset[str] = frozenset(
    {"mr", "mrs", "ms", "mx", "dr", "prof", "st", "jr", "sr", "vs", "e.g", "i.e", "approx", "dept"}
)

_WORD = re.compile(r"\w+")

SPEAKER_I = (
    r"I(?:['’](?:m|ve|d|ll))?|i(?:['’](?:m|ve|d|ll))?(?= [a-z\d])|"
    r"(?:[Ii]m|[Ii]ve)(?= [a-z]| \d+(?![.\d]))|[Aa]h['’](?:m|ve|d|ll)(?= [a-z])"
)
"""The speaker's "I" as chat writes it too ("i'm", "im", "ive", Scots "Ah'm"; the lowercase
forms only before a lowercase word, or a number for "i'm 72", and the apostrophe-less ones only
before a lowercase word or a number that is no ordinal ("im 6 months postpartum"), so "i.e." is
no one and neither is German's "im Garten" or "im 3. Stock"): a regex alternative, to be bounded
by the pattern using it."""
_NAMED = r" (?:is|was|has|had|and|or|loves?|likes?|said|says|will|would|can|did|does|went|got)\b"
"""An English verb after a word that is also a first name ("Saya is ...", "Aku said ...")."""
SPEAKER_ABROAD = (
    # "my" and "our" before a word (not "5 mi run", "mon to fri", "el mes pasado", nor the
    # Hindi "mein" and the Arabic "ma" that chat writes in lower case); grouped by first letter,
    # as every word of every sentence is tried against them
    r"(?:[Mm](?:(?<!\d m)(?<!\d M)is?|eus?|inhas?|iei|eine[mnrs]?|ijn|[oó]j|oj(?:a|e|ego|ej|im)|"
    r"er[ai]|(?<!el m)(?<!un m)(?<!este m)(?<!cada m)(?<!al m)(?<!por m)es)|"
    r"M(?:a|ein)|m(?:io|ia|on|a(?= (?:m[èe]re|femme|fille|copine|s[œo]e?ur|maman|tante)\b))|"
    r"Mon(?= (?:fils|mari|copain|p[èe]re|fr[èe]re|chien|chat|patron|chef|m[ée]decin|b[ée]b[ée]|"
    r"ami|compagnon|conjoint|appart\w*|travail|boulot)\b)|"
    r"[Nn](?:uestr[oa]s?|oss[oa]s?|ostr[oaie]|otre|asz(?:a|e|ego|ej)?)|[Uu]nser(?:e[mnrs]?)?|"
    r"[Oo]nze|[Hh][au]mar[aie]|[Aa]king)"
    r"(?= (?!(?:to|and|or|is|was|are|the|a|an|of|in|on|at|for|from|till|until|thru|n)\b)"
    r"[^\W\d_])|"
    # "I" and "I am", "I have", "I live" ("soy" not the bean: "soy celíaca", not "soy sauce");
    # Tagalog's "my" after its noun ("asawa ko")
    r"[Jj](?:e|['’](?=(?:ai|habite|suis|aime|adore|travaille|étais|avais)\b)|estem|"
    r"ag(?= (?:är|har|bor|jobbar|heter|kan)\b)|eg(?= (?:er|har|bor|jobber|heter|kan)\b))|"
    r"[Ii](?:ch|k(?= (?:ben|heb|woon|werk|zit|ga|kom|hou)\b))|"
    r"[Ss](?:oy(?= (?!(?:chorizo|queso|pasta|formula|mocha|chai|soda|salsa)\b)[^\W\d_]+[ao]s?\b)|"
    rf"aya(?!{_NAMED})|ono(?= [^\W\d_]))|"
    # "I live", "I work" where a place or a job follows ("moro em Curitiba", "trabajo como")
    r"[Mm]oro(?= (?:em|no|na|perto|sozinh[oa]|com)\b)|[Vv]ivo(?= (?:en|a|in|con|sol[oa])\b)|"
    r"[Aa]bito(?= (?:a|in|con|da)\b)|[Tt]raba(?:jo|lho)(?= (?:en|em|como|de|na|no|desde|para)\b)|"
    r"[Ll]avoro(?= (?:in|come|a|da|per|presso)\b)|"
    rf"[Ee]sto[yu]|[Tt]en(?:go|ho)|[Mm](?:ieszkam|ujh(?:e|ko))|[Aa]k[uo](?!{_NAMED})|[Bb]enim|"
    r"(?:[Aa](?:sawa|nak)|[Ll]ol[ao]|[Nn]anay|[Tt]atay|[Kk]apatid) ko"
)
"""The speaker's "my", "our" and "I" in the languages chat mixes into English ("mi esposo works
nights", "a minha mãe tem Alzheimer", "ich bin Veganerin", "soy celíaca"): a regex alternative,
to be bounded by the pattern using it; the look-alikes of English words only where English
would not have them."""
_HAS_WORD = re.compile(r"[^\W_]")
_FACES = (
    "\U0001f600-\U0001f64f\U0001f910-\U0001f92f\U0001f970-\U0001f97a\U0001fae0-\U0001fae8☹☺"
    "🎉🎊🔥💀👍👎👏💪✨💯❤"
)
"""Emoji of faces, hands and cheers, which chat puts where a full stop would be before a
question ("... still completely empty 😅 what are the essentials?", "moving next week 🎉 can
you make me a checklist?"); before a statement they stay in its sentence, as news told alone
("finally unpacked the last box in Denver 🎉") reads as a cheer."""
_BEFORE_A_QUESTION = r"(?=[^.!?\n]*\?)"
_FACE_END = f"[{_FACES}\U0001f3fb-\U0001f3ff\ufe0f]"
"""How a face's emoji ends: itself, a skin tone, or the emoji selector (after a gender joined
on, or any emoji shown as one); one class, so a split tries one more look back at a space."""
_BOUNDARY = re.compile(
    r"(?:(?<=[.!?…])|(?<=\.[\"'”’)\]])|(?<=[!?…][\"'”’)\]])(?!\s+[a-z])|"
    + f"(?<={_FACE_END}){_BEFORE_A_QUESTION}"
    + r")\s+|(?<=[。！？])|\s*\n\s*"
)
"""Where sentences part: the spaces after an end mark (and a closing quote or bracket, unless a
quoted exclamation or question goes on in lower case: "stop saying 'Great question!' every
time") or after a face's emoji before a question, right after a full-width end mark, and line
breaks with the spaces around them."""
_SPACE_BOUNDARY = re.compile(
    r"\s(?:(?<=[.!?…]\s)|(?<=\.[\"'”’)\]]\s)|(?<=[!?…][\"'”’)\]]\s)(?!\s*[a-z])|(?<=\n)|"
    r"(?=\s*\n)|" + f"(?<={_FACE_END}\\s){_BEFORE_A_QUESTION}" + r")\s*"
)
"""`_BOUNDARY` for a text without full-width end marks: the same splits, each read from the
first space of a run (the engine skips to the next space; `_BOUNDARY` tries every position
against every branch, three times as slow on chat)."""
_FULL_WIDTH_MARKS = ("。", "！", "？")
# `re` has no \p{Lu}: spell out the upper-case letters of the Basic Multilingual Plane (~5 ms).
_UPPERCASE = "".join(re.escape(chr(c)) for c in range(0x10000) if chr(c).isupper())
_CAPITALISED = re.compile(rf"(?<![\w'’-])[{_UPPERCASE}][\w'’-]*")
_INITIAL_MARKS = frozenset(":;\"“”'‘([–—.!?")
_CONNECTOR_GAP = re.compile(rf"\s+({'|'.join(sorted(_CONNECTORS))})\s+")
_POSSESSIVE = ("'s", "’s")
_APOSTROPHE = re.compile(r"['’]")
SPEAKER_LABEL = re.compile(r"^\s*[A-Z][\w.'’-]*(?: [A-Z][\w.'’-]*){0,2}\s*:\s+")
"""A transcript's "Name: " before what was said."""
STORED_LABEL = re.compile(r"^[^:\n]{1,60}?:\s+")
"""A stored statement's "<speaker>: " (any name, "user" too)."""
SUPPOSED = re.compile(r"\b(?:if|suppose|supposing|imagine|hypothetically|whether)\b", re.I)
"""A word that makes what follows it in its sentence a supposition, not news ("Hypothetically,
if Tom and I separated, ...")."""
_TURN = re.compile(r"^\s*([^\W\d_][\w.'’-]*(?: [\w.'’-]+){0,3})\s*:\s+(\S.*)$")
ROLE_NAMES = frozenset({"user", "assistant", "system", "tool", "function"})
"""The roles a thread's turns are spoken in, which are no person's name."""
_SUFFIXES = ("ing", "ed", "es", "s")
MAX_QUERY_TERMS = 32
MAX_NAME_WORDS = 6


def words(text: str) -> list[str]:
    """The lower-cased word tokens of `text`, in order."""
    return _WORD.findall(text.lower())


def query_terms(text: str, *, cap: int = MAX_QUERY_TERMS) -> list[str]:
    """Distinct content words of `text` in order of appearance: no stop words, no 1-char tokens."""
    terms: dict[str, None] = {}
    for word in words(text):
        if len(word) > 1 and word not in STOP_WORDS and word.strip("_"):
            terms.setdefault(word, None)
            if len(terms) >= cap:
                break
    return list(terms)


def token_set(text: str) -> frozenset[str]:
    """The content words of `text` as a set, for Jaccard similarity."""
    return frozenset(w for w in words(text) if len(w) > 1 and w not in STOP_WORDS)


def has_words(text: str) -> bool:
    """True when `text` holds at least one letter or digit."""
    return _HAS_WORD.search(text) is not None


def sentences(text: str) -> list[str]:
    """Split `text` into sentences at end punctuation and line breaks; keep ones with words."""
    if len(text) > _KEPT_SPLIT_CHARS:  # a document: split once, not worth keeping
        return list(_split(text))
    return list(_kept_split(text))


_KEPT_SPLIT_CHARS = 4096


def _split(text: str) -> tuple[str, ...]:
    """The sentences of `text` (see `sentences`)."""
    found: list[str] = []
    pending = ""
    full_width = any(mark in text for mark in _FULL_WIDTH_MARKS)
    for piece in (_BOUNDARY if full_width else _SPACE_BOUNDARY).split(text):
        piece = piece.strip()
        if not piece:
            continue
        pending = f"{pending} {piece}" if pending else piece
        if pending.endswith(".") and (
            _ends_with_abbreviation(pending) or _ends_with_ordinal(pending)
        ):
            continue
        if found and pending[0].isdigit() and _ends_with_numbering(found[-1]):
            found[-1] = f"{found[-1]} {pending}"  # "Chopin Ballade No." and "1 and a ..."
        else:
            found.append(pending)
        pending = ""
    if pending:
        if found and pending[0].isdigit() and _ends_with_numbering(found[-1]):
            found[-1] = f"{found[-1]} {pending}"
        else:
            found.append(pending)
    return tuple(sentence for sentence in found if has_words(sentence))


def _ends_with_numbering(sentence: str) -> bool:
    """Whether a sentence ends on an abbreviation that a number follows ("No.", "Op.", "p.")."""
    return sentence.endswith(".") and sentence.rsplit(None, 1)[-1].rstrip(".").lower() in _NUMBERING


_NUMBERING = frozenset({"no", "nos", "nr", "op", "vol", "pt", "fig", "p", "pp", "ch", "art"})
"""Abbreviations before a number ("No. 1", "Op. 23", "p. 4"); "No." alone is an answer."""


_kept_split = functools.lru_cache(maxsize=256)(_split)
"""`_split` kept for the last texts of chat's length: writing a message splits it two or three
times (its statements, its counted terms, the question it may answer), and the split's pattern
tries every position."""


def _ends_with_ordinal(text: str) -> bool:
    """Whether `text` ends on an article and an ordinal written as a number with its dot, as
    German and other languages write them ("in the 2. Lehrjahr", "in der 3. Etage"): the
    sentence goes on."""
    if not text[-2:-1].isdigit():
        return False
    last = text.rsplit(None, 2)
    return (
        len(last) == 3
        and len(last[2]) <= 3
        and last[2][:-1].isdigit()
        and last[1].lower() in _BEFORE_ORDINALS
    )


_BEFORE_ORDINALS = frozenset(
    {"the", "der", "die", "das", "dem", "den", "zum", "zur", "ins", "vom", "beim"}
)
"""Articles before such an ordinal; not German's "im" and "am", which are English's "I'm" and
"am" ("I am 78. Should I ...")."""


def _ends_with_abbreviation(text: str) -> bool:
    last = text.rsplit(None, 1)[-1].rstrip(".").lower()
    return last in _ABBREVIATIONS


def normalise_name(name: str) -> str:
    """The key that makes two spellings of a name one entity: collapsed spaces, case-folded."""
    return " ".join(name.split()).casefold()


def proper_nouns(sentence: str) -> list[str]:
    """Runs of capitalised words that look like names ("Alice", "New York", "Bank of Spain")."""
    return name_mentions(sentence)[0]


def name_mentions(sentence: str) -> tuple[list[str], list[str]]:
    """(names, maybe-names) of `sentence`: a single capitalised word that opens the sentence is
    only a maybe ("Noted", "Lisbon"): capitals there say nothing, so it names an entity only when
    the graph already knows one by that name."""
    if sentence.isupper():
        return [], []  # shouting: capitals say nothing about names
    names: dict[str, None] = {}
    maybe: dict[str, None] = {}
    run: list[str] = []
    run_end = 0
    run_initial = False
    for match in _CAPITALISED.finditer(sentence):
        word, start = match.group(), match.start()
        before = sentence[:start].rstrip()
        initial = not before or before[-1] in _INITIAL_MARKS
        joint = _joint(sentence[run_end:start]) if run and not initial else None
        if joint is None:
            _close_run(run, maybe if run_initial else names)
        elif joint:
            run.append(joint)
        possessive = word.endswith(_POSSESSIVE)
        token = word[:-2] if possessive else word
        if _is_name_word(token, initial=initial):
            if not run:
                run_initial = initial
            elif run_initial:
                run_initial = False  # "New York": a run of two is a name wherever it stands
            run.append(token)
        else:
            _close_run(run, maybe if run_initial else names)
        if possessive:  # "Alice's brother": the name ends here
            _close_run(run, maybe if run_initial else names)
        run_end = match.end()
    _close_run(run, maybe if run_initial else names)
    return list(names), [name for name in maybe if name not in names]


def _joint(gap: str) -> str | None:
    """What joins two capitalised words into one name: "" (spaces), a connector, or None."""
    if gap.isspace():
        return ""
    connector = _CONNECTOR_GAP.fullmatch(gap)
    return connector.group(1) if connector else None


def _is_name_word(token: str, *, initial: bool) -> bool:
    if not token[0].isupper():
        return False
    base = _APOSTROPHE.split(token, maxsplit=1)[0].lower()  # "I'm" -> "i", "O'Brien" -> "o"
    if len(token) < 2 or base in STOP_WORDS or base in _CALENDAR:
        return False
    return not (initial and base in _COMMON_STARTERS)


def _close_run(run: list[str], names: dict[str, None]) -> None:
    """Move a finished run into `names`, minus trailing connectors; empty `run` in place."""
    while run and run[-1] in _CONNECTORS:
        run.pop()
    if run and len(run) <= MAX_NAME_WORDS:
        names.setdefault(" ".join(run), None)
    run.clear()


def split_turns(text: str) -> list[tuple[str | None, str]]:
    """Read "Name: content" lines as turns of a transcript; other lines continue the turn."""
    turns: list[tuple[str | None, str]] = []
    for line in text.splitlines():
        match = _TURN.match(line)
        if match and (match.group(1)[0].isupper() or match.group(1).lower() in ROLE_NAMES):
            turns.append((match.group(1), match.group(2)))
        elif turns:
            speaker, said = turns[-1]
            turns[-1] = (speaker, f"{said}\n{line}")
        else:
            turns.append((None, line))
    return [(speaker, said) for speaker, said in turns if said.strip()]


@functools.lru_cache(maxsize=65_536)
def stem(word: str) -> str:
    """A crude stem so plurals and tenses share counts (matching itself uses FTS5's porter)."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def stems(text: str) -> set[str]:
    """The stems of the content words of `text`, each once."""
    return {stem(word) for word in words(text) if len(word) > 1 and word not in STOP_WORDS}


@functools.lru_cache(maxsize=65_536)
def fact_key(text: str) -> str:
    """Two statements with this key say the same thing (case, spacing and end marks aside)."""
    return " ".join(text.casefold().rstrip(".!…").split())


_CLAUSE_END = re.compile(r"[,;:—–!?]|\s-\s")

_SUBJECTS_AND_AUXILIARIES = _wordset(
    """
    i im ive me my we our us you your he his she her it its they their them what who which
    is are was were am be been being has have had do does did
    don doesn didn isn aren wasn weren won will would can could should shall may might must
    """
)
"""Words that make a clause say something on its own ("we raised a ton", "it was great"), as
`words` splits them ("don't" is "don", "t"); a clause without them ("Melbourne", "Eight and
eleven", "Nut allergy") needs a question, or its speaker, to mean anything."""


_NO_SUBJECTS = re.compile(r"\b(?i:she|he|they)/(?i:her|him|them|they|she|he)\b|\bUS\b")
"""Pronouns named, not used ("Trans woman, she/her."), and the country ("Dual citizen, US and
UK."): no subject of a clause."""

_POINTING = _wordset("this that these those there here")
"""Subjects only where a clause starts ("That was great"); later, determiners ("this week")."""


def first_clause(text: str) -> str:
    """`text` up to its first comma, colon, dash, exclamation or question mark."""
    return _CLAUSE_END.split(text.strip(" ,"), maxsplit=1)[0]


def opens_without_subject(text: str) -> bool:
    """Whether the first clause of `text` has no subject and no auxiliary verb: a bare answer
    ("A beagle called Rex", "Berlin, near the river")."""
    return _without_subject(words(first_clause(text)))


def without_subject(text: str, *, aside: re.Pattern[str] | None = None) -> bool:
    """Whether no clause of `text` has a subject or an auxiliary verb: a telegraphic note ("Nut
    allergy, severe.", "Two kids, one dog, zero free time."). A clause after the first that
    `aside` matches may have one ("Nut allergy, so be careful.", "Job hunting, it's brutal.")."""
    first, *rest = _CLAUSE_END.split(_NO_SUBJECTS.sub(" ", text).strip(" ,"))
    return _without_subject(words(first)) and all(
        _without_subject(words(clause)) or (aside is not None and aside.match(clause.strip()))
        for clause in rest
    )


def _without_subject(clause: list[str]) -> bool:
    if clause and clause[0] in _POINTING:
        return False  # "That was great": a subject; "Sober 2 years this week": a determiner
    return not any(word in _SUBJECTS_AND_AUXILIARIES for word in clause)
