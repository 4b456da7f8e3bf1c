"""Telling chatter from facts: greetings, thanks, questions, requests and acknowledgements.

Chatter stays an episode (raw messages are never lost or changed) but makes no statement, so it
never fills a context block. The rules read one sentence and its speaker's role; they know English
only, and a sentence they are unsure of is kept as a fact.
"""

from __future__ import annotations

import itertools
import re

from zepkit.local.outcomes import outcomes_told
from zepkit.local.profile import (
    OCCUPATIONS,
    SPAN,
    TOLD_KINDS,
    about_someone,
    bio_line,
    goes_on,
    headline,
    is_standing,
    kinds_in,
    names_self,
    names_with_age,
    opens_with_opinion,
    shorthand_of_self,
    speaking_as,
)
from zepkit.local.text import (
    SPEAKER_ABROAD,
    SPEAKER_I,
    SPEAKER_LABEL,
    STOP_WORDS,
    _wordset,
    name_mentions,
    opens_without_subject,
    words,
)

PHATIC_WORDS: frozenset[str] = _wordset(
    """
    absolutely agree agreed alright amazing anytime appreciate appreciated awesome best bye
    beautiful brilliant certainly check cheers congrats congratulations consider considering
    cool correct course definitely enjoy enjoyed enough everything exactly excellent exciting
    fab fair fantastic fine fun glad go good goodbye gorgeous gotcha great guess haha hahaha
    handy happy hear heard hello help helped helpful helps hey hi hmm hope huh idea ideas
    impressive incredible indeed interesting keep kind kk know later legend lol lot love lovely
    luck makes maybe mention mentioned mind neat nice noted nope np perfect please pleasure
    ahh aha classic ha hah ooh trick whoa wild yikes
    first second third fourth
    point problem problems recommendation recommendations right rush see sense shot sorry sound
    sounds super sure sweet tell thank thanks thx think tip tips totally true try ty tysm
    understand understood useful welcome well wonderful worked works worries worry wow yay yep
    yup
    """
)
"""Words that carry politeness, agreement or mood, not information: a sentence of only these and
function words is chatter ("Huh, good to know.", "Thanks, I'll consider it.", "Makes sense.",
"Got it, thanks a lot.", "I'll check it out.")."""

_ACK_OPENERS = re.compile(
    r"^\W*(?:noted|got it|understood|sure|of course|okay|ok|thanks|thank you|welcome|"
    r"you'?re welcome|glad|great|congrat\w*|sounds|no problem|no worries|no rush|absolutely|"
    r"will do|happy to|good luck|i'?ll (?:keep|remember|make sure|note)|i will (?:keep|remember)|"
    r"i see|i understand|makes sense|that'?s (?:great|good|wonderful|amazing|awesome|lovely))\b",
    re.IGNORECASE,
)
"""How an assistant's acknowledgement opens: what follows restates the user or makes small talk."""

_REQUEST_OPENERS = re.compile(
    r"^\W*(?:(?:anyway|anyways|ok|okay|so|also|and|right|alright|oh|hey|hi|btw|next|now)\W+)*"
    r"(?:(?:can|could|would|will) you|please|tell me|give me|show me|help me|"
    r"i(?:['’]d| would)? (?:need|want|like|love) (?:some |a bit of |a little )?(?:help|ideas|"
    r"advice|tips|suggestions|a hand|a second pair of eyes|feedback)(?! (?:from|of) (?:a|an|my|our)"
    r" (?:doctor|gp|therapist|counsell?or|lawyer|solicitor))|"
    r"i need to (?:write|draft|send|prepare|put together|come up with|reply to|respond to|"
    r"answer|summari[sz]e|rewrite|word|format|fix|debug|update|translate|proofread)|"
    r"i need (?:a|an|some) (?:[\w-]+ ){0,3}?(?:ideas?|templates?|drafts?|names?|titles?|"
    r"slogans?|captions?|outlines?|summary|emails?|messages?|letters?|posts?|scripts?|formulas?|"
    r"regex|function|query|checklist|agenda|blurb|bio|tagline) (?:for|to|about|that|which)"
    r")\b|"
    r"^\W*(?:let'?s|"
    r"explain|suggest|recommend|write|draft|list|summari[sz]e|translate|rephrase|describe|"
    r"remind me|find me|make me|plan|create|compare|"
    r"(?:surprise|send|get|walk|talk|quiz|bring|fetch) me)\b",
    re.IGNORECASE,
)
"""How a request opens: asking for something is not saying something."""

_NAMES_TELL = frozenset({"identity", "people", "pets", "health", "diet", "work", "belongings"})
"""Kinds a sentence of only names still tells of ("Half Japanese, half Scottish.", "A Toyota
Corolla."); not the "from" of "Great to hear from you, Sam" (a home)."""

_A_NAMED_THING = re.compile(r"\b(?:is|was|['’]s)\s+(?:a|an)\s+[A-Z0-9]")
"""What something is, told by its make or model ("It is an HP LaserJet Pro.", "Mine's a Pixel
7."): said of a thing, the names are no greeting."""

_PLEASE_AFTER = re.compile(
    r"^\W*(?![^.!?]*\b(?:no|not|without|never|don'?t|only|always|anymore)\b)"
    r"(?:[\w'’-]+\W+){1,4}(?:please|pls|plz)\W*$",
    re.IGNORECASE,
)
"""A short request closed by "please" ("Random fact please.", "Another one pls"); not what the
user will not have or only wants ("No onions please.", "Metric only please.")."""


def _asks_please(text: str) -> bool:
    """A short request closed by "please" that tells nothing of the user (`_PLEASE_AFTER`; not
    "My usual please." nor "Vegan options please.", a diet)."""
    return (
        text.rstrip(" .!").lower().endswith(("please", "pls", "plz"))
        and _PLEASE_AFTER.match(text) is not None
        and _FIRST_PERSON.search(text) is None
        and not kinds_in(text)
    )


_ASKED_OF_YOU = re.compile(r"^\W*(?:please,? )?(?:can|could|would|will) you\b", re.IGNORECASE)
"""A request put as a question: one for every later answer ("Could you always answer in
bullet points?") is a standing instruction all the same."""


_SELF_CLAUSE = re.compile(
    rf"(?:^|[,;:—–-]\s*|\b(?:and|but|so)\s+)(?:{SPEAKER_I}|my|My|we|We|our|Our)\b"
)
"""A clause of the speaker's own after an acknowledgement ("Sounds fun, I'm going too"): a fact."""


_GREETING = re.compile(
    r"\b(?:long time no (?:see|talk|chat|speak)|good (?:morning|afternoon|evening|night)|"
    r"nice to (?:meet|see|hear from) you|how are you|how'?s it going|talk (?:to you )?soon|"
    r"see you|take care|have a (?:good|great|nice) \w+|(?:gotta|got to|have to|must) (?:run|go|"
    r"dash|fly|bounce)|brb|gtg|g2g|ttyl|bbl|afk|catch you later|talk later|"
    r"(?:i['’]?m |im )?(?:done|off) for (?:today|the day|tonight|the night|now)|"
    r"that['’]?s (?:it|all) for (?:today|now|tonight)|(?:signing|logging) off|"
    r"calling it a (?:day|night)|"
    r"(?:i )?owe you (?:one|big time|a (?:coffee|beer|drink|pint|lunch|cake)))\b"
)
"""Greetings and farewells, matched in lower-cased text (faster than IGNORECASE)."""

_CAPITAL_WORD = re.compile(r"\b[A-Z]\w*")
_FIRST_PERSON = re.compile(
    rf"(?<![\w'’])(?:{SPEAKER_I}|my|My|me|we|We|our|Our|[Yy]ours truly|{SPEAKER_ABROAD})\b"
)
_SECOND_PERSON = re.compile(r"\b(?:you|your|yours|you're|you’re|you've|you’ve)\b", re.IGNORECASE)


def asks_of_own_situation(question: str, after: str) -> bool:
    """Whether a user's question, followed in their message by `after`, asks about what `after`
    tells of their own situation ("Is soy sauce safe with coeliac disease?? I'm 3 weeks into the
    diagnosis", "How far can my Nissan Leaf really go in winter? The display says 210 km"): a
    question, not to "you", before a sentence that is no chatter. The two say it together."""
    text = SPEAKER_LABEL.sub("", question.strip(), count=1)
    return (
        (text.rstrip("\"'”’)]*_ ").endswith("?") or _asks_unmarked(text))
        and _SECOND_PERSON.search(text) is None
        and (
            _FIRST_PERSON.search(text) is not None
            or _FIRST_PERSON.search(_HEARSAY.sub(" ", after)) is not None
            or opens_without_subject(after)
        )
        and not is_chatter(after, role="user")
    )


_HEARSAY = re.compile(
    r"\b(?:I|i) (?:think|hear|heard|guess|believe|suppose|reckon|read|gather|imagine)\b"
)
"""The speaker's hedge on what they heard or think ("The food there is amazing, I hear."): no
situation of theirs."""


def is_chatter(sentence: str, *, role: str | None) -> bool:
    """True when `sentence` says nothing worth remembering: a question, a request, a greeting,
    politeness or an acknowledgement. `role` is the speaker's role ("user", "assistant", None for
    data)."""
    said = sentence.strip()
    text = SPEAKER_LABEL.sub("", said, count=1)
    if role == "user" and bio_line(text):
        return False  # "What do you think: 'Sofía | 27 | 🥜 allergy = peanut | ...'": their bio
    if text.rstrip("\"'”’)]*_ ").endswith("?") or (role == "user" and _asks_unmarked(text)):
        return not (
            role == "user"
            and (
                _says_before_asking(text)
                or _speaks_as(text)
                or _tells_while_asking(text)
                or _reveals(text)
                or names_with_age(text)
                or (_ASKED_OF_YOU.match(text) is not None and is_standing(text))
                or _told_with_doubt(text)
                or (opens_with_opinion(text) and _FIRST_PERSON.search(text) is not None)
            )
        )
    if _FOR_A_FRIEND.match(text) or (role == "user" and _reacts(text)):
        return True
    content = _content_words(text)
    rest = [w for w in content if w not in PHATIC_WORDS]
    if not rest:  # politeness, unless it is a number ("4 and 7.": the children's ages asked)
        return _DIGIT.search(text) is None
    if len(rest) <= MAX_AWAY_WORDS and _AWAY.match(text) and _FIRST_PERSON.search(text) is None:
        return True  # "brb, coffee", "gtg, dinner's ready"
    if _FIRST_PERSON.search(text) is None and _only_names(text, rest):
        # names said in passing ("Thanks, Melanie!"), not a heritage or a breed ("Half Italian.")
        # nor what a thing is ("It is an HP LaserJet Pro.", "Mine's a Pixel 7.")
        return _A_NAMED_THING.search(text) is None and not _NAMES_TELL & kinds_in(text)
    if _is_cheer(text, role):
        return not (role == "user" and _SHORT_NEWS.match(text) is not None)
    if role == "user":  # advice taken; a request, unless it stands for every later turn
        return _takes_advice(text) or (
            bool(_REQUEST_OPENERS.match(text) or _asks_please(text))
            and not is_standing(text)
            and not _tells_while_asking(text)
            and not _reveals(text)
        )
    if role == "assistant":
        opener = _ACK_OPENERS.match(said) or _ACK_OPENERS.match(text)
        return opener is not None and not _SELF_CLAUSE.search(opener.string, opener.end())
    return False


_TAKES_ADVICE = re.compile(
    r"^\W*(?:(?:ok(?:ay)?|k|kk|thanks|thank you|thx|ty|cheers|cool|great|perfect|nice|sure|"
    r"right|alright|got it|will do|sounds good|good idea|yes|yeah|yep)\b[\s,.!-]*)+"
    r"(?:(?:i['’]?ll|i will|will|gonna|i['’]?m going to|going to|let me)\s+(?:\w+\s+)?"
    r"(?:try|do|give|use|fill|send|check|look|read|test|keep|run|go with|have a go|ask)\b|"
    r"(?:that|this|it)(?:['’]s| is| was)?\s+(?:really |very |super )?(?:helps?|helped|works?|"
    r"worked|useful|helpful|perfect|great|clear|enough)\b)|"
    r"^\W*(?:i['’]?ll|i will)\s+(?:give it a (?:go|try|shot)|"
    r"try (?:that|this|it|them|those|these|the|your)|"
    r"fill it in|send it (?:round|over|off|out)|look into it|do that|use that|check it out)\b",
    re.IGNORECASE,
)
"""The user taking the assistant's advice or answer ("ok I'll try that tomorrow morning",
"Thanks, that helps me get started.", "I'll fill it in and send it round."): chatter, unless
it tells of a kind of theirs (`TOLD_KINDS`, or exercise), or names someone or somewhere."""
MAX_ADVICE_TAKEN_WORDS = 10


def _takes_advice(text: str) -> bool:
    """A short sentence of the user's taking the assistant's advice (`_TAKES_ADVICE`)."""
    return (
        len(text.split()) <= MAX_ADVICE_TAKEN_WORDS
        and _TAKES_ADVICE.match(text) is not None
        and not kinds_in(_WORK_AS_TIME.sub(" ", text)) & (TOLD_KINDS | {"fitness"})
        and not name_mentions(text)[0]  # "ok, I'll try Lidl for the job then"
    )


_WORK_AS_TIME = re.compile(r"\b(?:after|before|at|from) work\b", re.IGNORECASE)
"""Work as a time of day ("I'll give those a go tomorrow after work"): when advice is tried,
not news of a job."""

_AWAY = re.compile(
    r"^\W*(?:(?:ok|okay|sorry|right|hang on|oops)\W+)*(?:brb|gtg|g2g|afk|bbl|be right back|"
    r"back in (?:a (?:sec|min|bit|moment)|\d+)|one sec|1 sec|(?:gotta|got to|have to|need to|must) "
    r"(?:run|go|dash|bounce))\b",
    re.IGNORECASE,
)
"""The speaker stepping away for a moment, with at most a word or two of why: chatter."""
MAX_AWAY_WORDS = 3

_REACTION = re.compile(r"^\W*(?:sounds|looks|seems)\b", re.IGNORECASE)
MAX_REACTION_WORDS = 5


def _reacts(text: str) -> bool:
    """A short reaction to what was just said ("Sounds fiddly", "Looks tricky.", "Sounds like a
    plan"): nothing of the speaker's own ("Sounds like my dad" is) and no count."""
    return (
        _REACTION.match(text) is not None
        and len(text.split()) <= MAX_REACTION_WORDS
        and _FIRST_PERSON.search(text) is None
        and _DIGIT.search(text) is None
    )


_FOR_A_FRIEND = re.compile(
    r"^\W*(?:(?:i['’]?m |i was |just |only )?asking for (?:a|an|some) (?:friend|mate|pal|"
    r"colleague|coworker|co-worker|relative)\b)(?:\W+(?:lol|haha|ha|lmao|😉|😅))*\W*$",
    re.IGNORECASE,
)
"""The old joke that the question before is someone else's ("Asking for a friend."): it tells
nothing of the user ("Asking for my sister." does: it names someone of theirs)."""

_UNMARKED_QUESTION = re.compile(
    r"^\W*(?:(?:how|what|why|when|where|which|who|whose)(?:['’]?s)?"
    r"(?:\s+(?!(?:i|you|he|she|we|they|it|my|your|his|her|our|their|the|this|that|these|those|"
    r"a|an)\b)[\w'’-]+){0,3}?\s+(?:do|does|did|should|shall|can|could|would|will|is|are|was|were|"
    r"have|has|may|might|must)\b|(?:what|how|where|who)['’]?s\b|"
    r"how (?:to|many|much|long|far|often|big|tall|old)\b(?!\s+(?:i|we|my|our)\b)|"
    r"any (?:ideas?|tips?|suggestions?|recommendations?|advice)\b|"
    r"(?:do|does|did|can|could|would|will|should|is|are|am|have|has)\s+"
    r"(?:you|i|we|it|there|this|that)\b)",
    re.IGNORECASE,
)
"""How a question opens: a wh-word with its verb ("how do i", "how long do i", "which laptop
should i", "whats"; not "when i was"), "any tips" or a verb before its subject ("should i",
"is there")."""

_END_MARK = re.compile(r"[.!?…]\W*$")


def _asks_unmarked(text: str) -> bool:
    """A user's question typed without any end mark, as chat often is ("how do i clean a cast
    iron pan", "whats the capital of peru"): read like one that ends with "?". With a full stop
    or an exclamation mark the sentence is a statement ("What is important to me is family.")."""
    if _END_MARK.search(text) is None:
        return _UNMARKED_QUESTION.match(text) is not None
    return text.rstrip().endswith(".") and _INVERTED_QUESTION.match(text) is not None


_INVERTED_QUESTION = re.compile(
    r"^\W*(?:how|what|why|when|where|which|who)(?:\s+[\w'’-]+){0,2}?\s+"
    r"(?:do|does|did|should|shall|can|could|would|will)\s+(?:i|we|you)\b",
    re.IGNORECASE,
)
"""A question typed with a full stop ("Where do I even start.", "What columns should I use."):
its verb before its subject says it asks, where "What I need is a break." does not."""


_LEAD_CLAUSE = re.compile(r"^(?P<lead>[^,;:—–?]+?)\s*(?:[,;:—–]|\s-\s)\s*\S")
"""A question's first clause, up to a comma, semicolon, colon or dash, when more follows."""

_QUESTION_OPENER = re.compile(
    r"^\W*(?:what|how|why|when|where|which|who|whom|whose|can|could|would|will|should|shall|"
    r"do|does|did|is|are|was|were|have|has|may|might|must|any|anything|please)\b",
    re.IGNORECASE,
)

_ASKING_WORDS = frozenset(
    {"wonder", "wondering", "wondered", "mean", "curious", "ask", "asking", "quick", "question"}
)
"""Words that only lead into the question ("I was wondering, ..."): no fact on their own."""


def _says_before_asking(text: str) -> bool:
    """A question that first says something of the speaker ("Since I'm diabetic, what dessert
    can I have?", "My son is 5, what books would he like?"): the fact is worth keeping."""
    lead = _LEAD_CLAUSE.match(text)
    if lead is None or _QUESTION_OPENER.match(lead["lead"]):
        return False
    clause = lead["lead"]
    content = [w for w in words(clause) if len(w) > 1 and w not in STOP_WORDS]
    has_content = any(w not in PHATIC_WORDS and w not in _ASKING_WORDS for w in content)
    has_content = has_content or _TOLD_IN_NUMBERS.search(clause) is not None
    return has_content and (
        _FIRST_PERSON.search(clause) is not None
        or _THE_OWN.match(clause) is not None
        or names_self(clause)  # "first-time buyer here, what does ... mean?"
        or (_NAMED_LEAD.match(clause) is not None and bool(kinds_in(clause) & _BODY_KINDS))
    )


_NAMED_LEAD = re.compile(r"^\W*(?-i:[A-Z][a-z]+)(?:['’]s| is| has| was| had| gets)\b")
"""A clause opening with someone by name and what they are, have or get ("Linda's on warfarin
for her AFib, does that ...?"): with their health or diet, a fact the question rests on."""
_BODY_KINDS = frozenset({"health", "diet"})


_TOLD_IN_NUMBERS = re.compile(
    r"\b(?:i['’]?m|i am|we['’]re|we are)\s+\d|"
    r"\d\s?(?:kg|lbs?|cm|ft|st|stone|['’\"]|yo|y/o|years?|months?|weeks?)(?!\w)",
    re.IGNORECASE,
)
"""A clause that tells the speaker's age or size in numbers only ("I'm 72", "I'm 6'2", "130
kg"): its words are too short to count as content, yet it says something."""

_THE_OWN = re.compile(
    r"^\W*the (?:car|van|house|flat|boiler|dog|cat|kids|baby|garden)(?:['’]s| is) "
    r"(?:an? |only |just )(?:\d{4} |new |old |little |tiny |big |second-hand )*[\w-]+",
    re.IGNORECASE,
)
"""A thing of the household's told with "the" before a question ("the car's a 2014 skoda
octavia estate, worth a service before winter?"): what it is, not a question of it."""


_ASKED_ANYWHERE = re.compile(
    r"\b(?:what|how|why|when|where|which|who|whom|whose|whats|hows|or|any|anyone|anybody|"
    r"anything|tips?|ideas?|advice|suggestions?|recommendations?|thoughts|normal|ok|okay|"
    r"please|right)\b|"
    # a verb before its subject, not after one or a "not" ("I don't have that many photos")
    r"(?<!n't )(?<!n’t )(?<!not )(?<!\bi )(?<!\bwe )(?<!\bthey )"
    r"\b(?:can|could|would|will|should|shall|do|does|did|is|are|was|were|have|has|may|might|"
    r"must|am)\s+(?:i|u|you|we|he|she|they|it|this|that|there)\b|"
    r"\b(?:i|we)\s+(?:should|shall|can|could|need|must|may|might|have to|gotta|ought|wonder)\b",
    re.IGNORECASE,
)
MIN_DOUBTED_WORDS = 4


def _told_with_doubt(text: str) -> bool:
    """A user's statement typed with a question mark of doubt or wonder, as chat often is
    ("callum's dragged me bouldering 3 times this month n i actually kinda love it??", "i think
    i'm lactose intolerant?"): of the speaker, of a kind, and asking nothing (no question word,
    no inverted verb, no "or", no asking for tips or whether it is normal, not to "you")."""
    return (
        len(text.split()) >= MIN_DOUBTED_WORDS
        and _QUESTION_OPENER.match(text) is None
        and _FIRST_PERSON.search(text) is not None
        and _ASKED_ANYWHERE.search(text) is None
        and _SECOND_PERSON.search(text) is None
        and bool(kinds_in(text))
    )


def _speaks_as(text: str) -> bool:
    """A question asked as what the speaker is (`speaking_as`: "As a nurse on night shifts, how
    do I sleep in the day?", "As a left-hander, what's the trick to writing with a fountain
    pen?"), asking for themselves, not what the listener would do in their place ("As a parent,
    what would you do?")."""
    lead = speaking_as(text)
    return lead is not None and (
        _FIRST_PERSON.search(text, lead.end()) is not None
        or _SECOND_PERSON.search(text, lead.end()) is None
    )


_REMEMBER = re.compile(
    r"^\W*(?:please\s+)?(?:(?:can|could|would|will) you\s+)?(?:please\s+)?(?:just\s+)?"
    r"(?:remember|note|keep in mind|bear in mind|be aware|make a note|take note|don'?t forget)\b",
    re.IGNORECASE,
)
"""A request to remember: what follows is what to remember ("Please remember that I'm vegan")."""

_CLAUSE = re.compile(r"\s*(?:[,;:—–]|\s-\s|\b(?:because|since|as|now that)\b)\s*")


def _tells_while_asking(text: str) -> bool:
    """A request or question that tells something of the user: a request to remember it, a
    clause of the user's own about their health, diet, people, work, home, limits..., one of
    someone's health by name ("park in the street — Graciela's wheelchair needs the space"), or
    one going on about someone of theirs ("a party for my son, he is turning 6")."""
    remember = _REMEMBER.match(text)
    if remember is not None:
        return _FIRST_PERSON.search(text, remember.end()) is not None
    return any(
        (_FIRST_PERSON.search(clause) is not None and bool(kinds_in(clause) & TOLD_KINDS))
        or (_NAMED_LEAD.match(clause) is not None and bool(kinds_in(clause) & _BODY_KINDS))
        or (goes_on(clause) and _FIRST_PERSON.search(before) is not None and about_someone(before))
        for before, clause in itertools.pairwise(_CLAUSE.split(text))
    )


_REVEALING_KINDS = frozenset({"health", "diet", "people", "pets"})


_YOURS = re.compile(r"\byour\b", re.IGNORECASE)

_RECALL = re.compile(
    r"^\W*(?:(?:hey|hi|so|ok|okay|btw|sorry|also|and)\W+)*(?:(?:can|could|would) you )?"
    r"(?:what(?:['’]s| is| are| was| were)? (?:my|our)|"
    r"what did (?:i|we) (?:say|tell|mention|share)|"
    r"(?:what )?(?:do|did|can|could) you (?:still )?(?:remember|recall)|remind me|"
    r"(?:what )?do you know (?:about )?(?:my|our|what|where|when|who|how)|"
    r"did (?:i|we) (?:ever )?(?:mention|tell|say|share)|"
    r"(?:who|where|when|how old) (?:is|are|was|were) (?:my|our))\b",
    re.IGNORECASE,
)
"""A question asking the assistant to recall what the user has told ("What's my dog's name?",
"Remind me what I said about my allergies?"): it tells nothing new."""


def _reveals(question: str) -> bool:
    """A question or request that gives away something of the user's health, diet, people or
    pets ("Is it safe for me to eat sushi while pregnant?", "How do I train my new puppy?", "Write
    a poem for my wife."), their home by its place or their business (`_MINE_NAMED`); not one
    about the listener's, where the user is only "me" ("Your pup is so cute, remind me of its
    name?"), nor one asking to be reminded of their own (`_RECALL`)."""
    mine = {found[0] for found in _FIRST_PERSON.finditer(question)}
    if not mine or (mine == {"me"} and _YOURS.search(question)) or _RECALL.match(question):
        return False
    revealed = kinds_in(question) & _REVEALING_KINDS
    if revealed and mine <= _ASKER | _ME:
        # "How do I make iced coffee at home?", "How do I write a toast for a friend's
        # birthday?": a food or an acquaintance is what the asker's task is about, not theirs
        revealed = frozenset(
            kind
            for kind in revealed
            if (kind != "diet" or _DIET_STATE.search(question))
            and (kind != "people" or not _ANYONES.search(question))
        )
    if revealed:
        return True
    # Typed all in lower case, a place has no capital to tell it by: any word will do there.
    named = _MINE_NAMED if any(ch.isupper() for ch in question) else _MINE_NAMED_LOWER
    return named.search(question) is not None


_ME = frozenset({"me"})
"""The speaker only as the one a request is for ("Can you do one for chasing a colleague who
promised me numbers?"): no one of theirs named either."""
_ASKER = frozenset({"I", "i"})
"""The speaker only as the one asking ("How do I ...", "Can I ..."), not "my", "me", "I'm"."""
_DIET_STATE = re.compile(
    r"\b(?:vegan|vegetarian|pescatarian|gluten|coeliac|celiac|lactose|dairy-free|halal|kosher|"
    r"keto|paleo|fodmap|plant-based|low[- ]carb|teetotal|sober|fasting|allerg\w*|intoleran\w*)\b",
    re.IGNORECASE,
)
"""What a diet is, not what is eaten ("Can I have cake on keto?"; not "How do I make coffee?")."""
_ANYONES = re.compile(
    r"\b(?:an?|some|any|other) (?:\w+ )?(?:friend|colleague|coworker|co-worker|neighbou?r|"
    r"stranger|couple|family|relative|person|guest|boss|toddler|baby|kid|child|teen|teenager|"
    r"newborn)s?\b|\bsomeone\b|\bpeople\b",
    re.IGNORECASE,
)
"""An acquaintance or a child named only by what they are ("a friend's birthday", "get a
toddler to brush their teeth"): no one of the user's."""

_MINE_NAMED_FORM = (
    r"\b(?:my|our) (?:new |own |little |first |upcoming |next |big )?(?:(?:flat|house|apartment|"
    r"home|place) (?:in|near) {place}|bakery|caf[eé]|restaurant|salon|farm|food truck|b&b|"
    r"bnb|guesthouse|(?:own|small|family) business|startup|etsy shop|online shop|"
    r"(?:(?:road |school |work |business |family )?trip|holiday|vacation|honeymoon|move|"
    r"relocation) to {place}|(?:part-time |full-time |weekend )?"
    rf"(?:{OCCUPATIONS}) (?:job|wage|salary|pay|shifts?|role|career|training|course|exams?|"
    r"interview|licen[cs]e))"
)
_MINE_NAMED = re.compile(_MINE_NAMED_FORM.replace("{place}", "(?-i:[A-Z])"), re.IGNORECASE)
"""The user's own home by its place, their own business, a trip they are making or the job
they do, named in a question or request ("Draft an email about the damp in my flat in
Glasgow.", "A name for my new bakery?", "Do I need insurance for my trip to Peru?", "A budget on
my barista wage?")."""
_MINE_NAMED_LOWER = re.compile(
    _MINE_NAMED_FORM.replace("{place}", r"(?!the\b|a\b|an\b|my\b|our\b|see\b|get\b)[a-z]"),
    re.IGNORECASE,
)
"""The same for a question typed all in lower case ("my trip to peru"; not "my move to the
new flat", whose place is not named)."""


def _content_words(text: str) -> list[str]:
    """The words of `text` past its greetings and function words."""
    return [
        w for w in words(_GREETING.sub(" ", text.lower())) if len(w) > 1 and w not in STOP_WORDS
    ]


def names_only(sentence: str) -> bool:
    """Whether a sentence is nothing but names, without a word of politeness ("Mostly Ethiopian
    and Korean.", "At Google."): chatter said in passing, but the answer when it replies to a
    question about the user ("What food do you like?", "Where do you work?")."""
    text = SPEAKER_LABEL.sub("", sentence.strip(), count=1)
    content = _content_words(text)
    return (
        bool(content) and not any(w in PHATIC_WORDS for w in content) and _only_names(text, content)
    )


def _only_names(text: str, rest: list[str]) -> bool:
    """Whether every word in `rest` is part of a name in `text` (names are found only when every
    such word is capitalised there: most sentences skip that work)."""
    capitals = {word.lower() for word in _CAPITAL_WORD.findall(text)}
    if not all(word in capitals for word in rest):
        return False
    opening = _OPENING_VERB.match(text)
    if opening is not None and opening[1].lower() in rest:
        return False  # "Teaching English in Seoul.": capitalised as the sentence opens
    names = {word for name in name_mentions(text)[0] for word in words(name)}
    return all(word in names for word in rest)


_OPENING_VERB = re.compile(r"^\W*([A-Z][a-z]+(?:ing|ed))\b")
"""A sentence's first word when it reads as a verb: its capital is the sentence's, not a name's."""

_DIGIT = re.compile(r"\d")
_SPAN = re.compile(SPAN, re.IGNORECASE)


_DONE = (
    r"fixed|repaired|mended|serviced|replaced|installed|painted|plastered|cleaned|cleared|mowed|"
    r"decorated|renovated|finished|completed|done|built|booked|scheduled|planned|cancell?ed|"
    r"postponed|delayed|renewed|approved|granted|accepted|rejected|declined|confirmed|signed|"
    r"submitted|filed|posted|sent|delivered|arrived|collected|returned|paid|sold|bought|ordered|"
    r"rented|let|moved|packed|unpacked|launched|published|passed|failed|won|lost|stolen|broken|"
    r"cracked|crashed|vaccinated|groomed|stamped|printed|framed|sorted|handed|over"
)
_NOT_NEWS = (
    r"mission|point|lesson|case|job|challenge|bet|problem|question|message|mind|fingers|deal|"
    r"game|hands|crisis|disaster|drama|heart|jaw|curiosity|faith|day|dream|spirits|eyes|soul|"
    r"feedback|info|details|request|note|idea|cheers|love|hugs|kisses|vibes|wishes|prayers|"
    r"congrats|respect|all|everything|nothing|that|this|it|so|well|much|"
    r"very|too|not|just|duly|consider|over|signed|thanks|thank|understood|noted|[a-z]+ly"
)
_SHORT_NEWS = re.compile(
    rf"^\W*(?:the |new )?(?!(?:{_NOT_NEWS})\b)[a-z][\w'’-]*(?: (?!(?:{_DONE})\b)[a-z][\w'’-]*)?"
    rf" (?:(?:finally|all|now|just) )?(?:{_DONE})(?: (?:out|up|off|in|away|back))?"
    r"(?: (?:at last|finally|today|already|again))?"
    r"\W*$",
    re.IGNORECASE,
)
"""The user's short news, told without a subject: a thing and what was done to it ("Boiler
fixed!", "Tax return filed!", "Passport renewed at last!"), not a stock phrase of praise or
assent ("Nicely done!", "Mission accomplished!", "Point taken!", "Jaw dropped!")."""

_STOCK_PHRASE = re.compile(rf"^\W*(?:{_NOT_NEWS}) [\w'’]+\W*$", re.IGNORECASE)
"""Two words of praise or assent ("Job done!", "Nicely done!"), even where the second could
tell an outcome."""


_NAMED_NEWS = re.compile(
    r"^\W*(?:(?:omg|wow|guess what|and|also|so)\W+)?[A-Z][\w'’-]+(?:['’]s|\s+(?:is|was|has|had|"
    r"got|just|finally|passed|broke|started|won))\b"
)
"""A sentence opening with someone's name and what is so of them ("Efua is pregnant!", "Tom got
the job!"), not a name called out ("Nice job, Maria!")."""


def _is_cheer(text: str, role: str | None) -> bool:
    """An exclamation about the listener, not the speaker ("Your garden looks amazing!"); the
    assistant's short report of an errand is one too ("Boiler fixed!" is no news of its own)."""
    if not text.rstrip("\"'”’)]*_ ").endswith("!") or _FIRST_PERSON.search(text):
        return False
    # "Just got engaged!", "Turning 30!", "Two years sober today!"
    if shorthand_of_self(text) or _DIGIT.search(text) or _SPAN.search(text):
        return False
    if _SECOND_PERSON.search(text):
        return True
    if (
        role == "user"
        and _NAMED_NEWS.match(text)
        and any(name_mentions(text))
        and TOLD_KINDS & kinds_in(text)
    ):
        return False  # news of someone by their name: "Efua is pregnant!"
    # news of an outcome is no cheer ("The adoption went through!"), unless a stock phrase
    # ("Nicely done!", "Challenge accepted!")
    return (
        len(text.split()) <= 4
        and not headline(text)
        and (
            role == "assistant" or _STOCK_PHRASE.match(text) is not None or not outcomes_told(text)
        )
    )
