"""What a user says about themselves: which statements join their profile, how salient each is,
and which subject it is about when a newer statement on that subject replaces an older one.

Rules over first-person sentences, English only, no model: a profile statement is a sentence
the user says about themselves, their people, pets, home, work, health, plans or tastes. An
extractor backed by a language model fills the same three things (`ExtractedStatement.profile`,
`.topics`, `.ends`), so the store and the block do not care which one ran.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from zepkit.local.dates import MONTH_NAMES
from zepkit.local.factoring import PatternSet, factored
from zepkit.local.outcomes import NOT_TO_LIVE_IN
from zepkit.local.text import (
    SPEAKER_ABROAD,
    SPEAKER_I,
    STOP_WORDS,
    STORED_LABEL,
    SUPPOSED,
    first_clause,
    name_mentions,
    opens_without_subject,
    without_subject,
)

_SELF = re.compile(
    rf"(?<![\w'’])(?:{SPEAKER_I}|[Mm]y|MY|[Mm]e|mine|[Mm]yself|[Yy]ours truly|{SPEAKER_ABROAD})\b"
)
"""The speaker talking about themselves (in chat's spellings too, and in the words of another
language mixed in: "mi esposo", "ich bin")."""

_SAYS_SO = re.compile(
    r"\b(?:btw|by the way|fyi|for your info\w*|just so you know|for (?:some )?context|"
    r"quick context|heads up|for the record|about me)\b|^\W*(?:note|context)\W*:|"
    r"\b\w+\s+here"
    r"(?:\W+(?:lol|haha|tbh|btw|too|also))?\W*$|"
    r"^\W*(?:(?:a )?(?:mom|mum|dad|mother|father|parent|grandma|grandpa|grandmother|"
    r"grandfather|granny|nan|nana) (?:of|to))\b",
    re.IGNORECASE,
)
"""A sentence without "I" that still tells the listener about the speaker ("vegan btw", "FYI:
gluten intolerant.", "Peanut allergy here.", "Mom of two toddlers.", "Grandma to seven"): it
joins the profile when it is short, names a kind of subject a person has (`_PERSONAL_KINDS`)
and no "the" (which points at something else: "FYI the restaurant has vegan options")."""

_PERSONAL_KINDS = frozenset({"health", "diet", "people", "identity", "work", "home"})
_THE = re.compile(r"\bthe\b", re.IGNORECASE)
MAX_SAYS_SO_WORDS = 12


_HERE_I_AM = re.compile(
    r"^\W*(?!(?:same|me|you|right|over|out|in|from|up|down|back|near|not|no|nobody|anyone|"
    r"someone|everyone|hello|hi|hey|welcome|thanks|glad|happy|nothing|everything|all|it|that|"
    r"this|just|so|always)\b)[\w'’-]+(?:\s+[\w'’-]+){0,3}(?<!ing)(?<!ed)(?<!ly)\s+here"
    r"(?:\W+(?:lol|haha|tbh|btw|too|also))?\W*$",
    re.IGNORECASE,
)
"""The speaker naming what they are ("Big Arsenal fan here.", "Night owl here lol"): about
them whatever the subject, when nothing in it has a subject of its own and no verb or adverb
comes before "here" ("Started raining here.")."""


def names_self(sentence: str) -> bool:
    """Whether a sentence names what its speaker is, "X here" (`_HERE_I_AM`), alone or as its
    first clause ("first-time buyer here, scared witless")."""
    return (
        _HERE_I_AM.match(sentence) is not None
        or _HERE_I_AM.match(first_clause(sentence)) is not None
    ) and without_subject(sentence)


def _says_so(sentence: str, kinds: Iterable[str]) -> bool:
    """Whether a sentence without "I" tells the listener about the speaker (`_SAYS_SO`)."""
    if names_self(sentence):
        return True
    return (
        bool(_PERSONAL_KINDS.intersection(kinds))
        and len(sentence.split()) <= MAX_SAYS_SO_WORDS
        and _THE.search(sentence) is None
        and _SAYS_SO.search(sentence) is not None
    )


TOLD_KINDS = frozenset(
    {"health", "diet", "people", "pets", "work", "home", "identity", "constraints", "manner"}
)
"""What a clause of a request may tell about the user and be kept for ("Find me a hotel, my
budget is 100 a night", "Please help me, I'm diabetic"): not tastes or plans, which a request
speaks of in passing ("Write it again, I didn't like it")."""

_SPEAKING_AS = re.compile(
    r"^\W*(?:(?:speaking|asking|writing|talking) as|coming from|as|being) "
    r"(?:an?|someone|somebody|one)\b[^,;:—–?]*(?:[,;:—–]|\s-\s)",
    re.IGNORECASE,
)
_ONCE = re.compile(
    r"^\W*as an? (?:kid|child|teen|teenager|youngster|boy|girl|baby|toddler|student)\b",
    re.IGNORECASE,
)


def speaking_as(sentence: str) -> re.Match[str] | None:
    """The opening clause of a sentence naming what its speaker is ("As a nurse on night shifts,
    ...", "Being a single dad, ...", "Speaking as a sub-3 marathoner, ..."), when it touches a
    kind (work, health, fitness...); not what they were once ("As a kid, ...")."""
    lead = _SPEAKING_AS.match(sentence)
    if lead is None or _ONCE.match(sentence) is not None:
        return None
    return lead if kinds_in(lead[0]) else None


_LEARNING = r"learn(?:ing|ed|t)(?: (?:how )?to)?|taking up|took up"
"""Openers of a pastime being taken up ("Learning to play the piano."): a taste, named bare."""

_NOT_THE_SUBJECT = (
    r"(?![^,.;!?]*\b(?:is|are|was|were|has|have|can|could|might|will|would|makes?|helps?|"
    r"takes?|took|costs?)\b)"
)
"""After an -ing opener: no verb follows in its clause, so the opener is not a subject ("Having a
supportive team is awesome.", "Learning to code is hard." tell a view, not news)."""

_PAYING_OFF = (
    r"paying (?:off|back) (?:(?:my|our|the|a|an|some|all|\w+ of (?:my|our|the)) )?"
    r"(?:[\w'’-]+ ){0,2}(?:loans?|debts?|cards?|credit|mortgage|overdraft|finance|bills|arrears)"
)
"""Money owed being paid back ("Paying off my credit card."), not work "paying off"."""

_INJURED = (
    r"(?:broke|broken|fractured|sprained|twisted|tore|torn|dislocated|pulled) "
    r"(?:my |a |his |her |their )?"
    r"(?:left |right )?(?:arm|leg|wrist|ankle|foot|hand|finger|thumb|toe|collarbone|ribs?|"
    r"hip|knee|back|nose|shoulder|elbow|hamstring|calf|acl|ligament|tendon|muscle|meniscus|"
    r"tibia|fibula|achilles|disc)s?|"
    r"(?:tore|torn|ruptured) the (?:left |right )?(?:meniscus|acl|achilles|ligament|tendon)"
)
"""An injury told ("he fractured his right wrist", "I tore the meniscus")."""

_FAITHS = (
    r"(?:(?:all|both|practi[sc]ing|devout|observant|lapsed|strict|proud|born-again) )?"
    r"(?:muslims?|christians?|catholics?|jew(?:ish|s)?|hindus?|sikhs?|buddhists?|mormons?|"
    r"jehovah['’]?s witness(?:es)?|atheists?|agnostics?|quakers?|pagans?|protestants?|"
    r"evangelicals?|baptists?|methodists?|anglicans?|adventists?|orthodox)"
)
"""A faith or none, said of the speaker ("I'm a practising Catholic", "We're Jehovah's
Witnesses"), lower case: the identity kind reads it only after "I'm", "we're", "as", "raised"
or "born"."""

_IMPLIED_I = re.compile(
    r"^\W*(?:(?:honestly|frankly|seriously|tbh|ngl|ugh|ok|okay|so|ok so|okay so|yo|hey|omg|oh|"
    r"well),?\s+)?"
    r"(?:(?:just|recently|currently|finally|still|also|now|newly|officially|actually|only|"
    r"really|totally|kinda|sort of|mostly|absolutely|genuinely|truly)\s+)*"
    rf"(?:(?:(?:(?:started|starting|been) )?(?:{_LEARNING})|having|renovating|doing up|doing|"
    r"taking|on)"
    rf"{_NOT_THE_SUBJECT}|"
    r"been|(?:got|gotten|getting)(?! (?:home|back|there|here|it|that|this|to)\b)|"
    r"(?:landed|bagged|secured)(?= (?:a|an|my|the)\b)|(?:landed|arrived) in(?= (?-i:[A-Z]))|"
    r"met (?:someone|somebody)\b|"
    r"starting|started|diagnosed|expecting|engaged|married|pregnant|relocat(?:ed|ing)|"
    r"(?:switched|upgraded|swapped|changed)(?: over)? to(?= (?:a|an|the|my|our)\b)|"
    r"settl(?:ed|ing) (?:in|into)(?= (?:a|an|the|my|our|new)\b| (?-i:[A-Z]))|"
    r"rent(?:ed|ing)(?= (?:a|an|our|the) (?:[\w-]+ )?(?:flat|apartment|house|place|room|studio|"
    r"cottage|condo|\d ?bhk|\d-bed\w*)\b)|"
    r"had(?= (?:a|an|the|our|my|some|new)\b[^.!?]{0,40}\b(?:put in|installed|fitted|built)\b)|"
    r"had(?= (?:my|the|a) (?:hip|knee|shoulder|cataracts?|gallbladder|hernia|bunions?|appendix|"
    r"tonsils|wisdom teeth) (?:done|replaced|removed|out|operated on)\b)|"
    r"(?:went|gone|going)(?= (?:vegan|vegetarian|pescatarian|keto|paleo|plant-based|"
    r"gluten-free|dairy-free|sober|teetotal)\b)|"
    r"graduat(?:ed|ing)(?= (?:in|from|last|this|with|today|yesterday|soon|next)\b|\W*$)|"
    r"fluent in|bilingual|"
    r"turn(?:ed|ing) \d+|as (?:someone|somebody) (?:with|who)|not being able to|"
    r"being (?:a|an)|"
    r"mov(?:ing|ed) (?:to|in|into|onto|out|house|abroad|away|back|here|over|from|up to|down to)|"
    r"work(?:ing)? (?:as|at|for|in|from|nights|days|weekends|shifts|two|three|multiple|several|"
    r"full|part|remotely|long|overtime)|"
    r"(?:bought|sold|traded(?= (?:in )?(?:the|my|our)\b))"
    r"(?= (?:a|an|my|our|the|some|two|three|four|in|\d+)\b)|"
    r"raised in (?-i:[A-Z])\w*|(?:originally from|born (?:and raised )?(?:in|on)|"
    r"grew up (?:in|on|near|around|outside)) \w+|"
    r"job[- ]hunting|looking for (?:a )?(?:new )?(?:work|job)|"
    r"saving (?:(?:up|hard|like mad) )?(?:for|towards|to buy) (?!later\b|now\b|last\b)|skint|"
    rf"{_PAYING_OFF}|"
    r"lived(?= (?:in|on|abroad|overseas|near|with|all over)\b)|"
    r"ended up(?= (?:going with|buying|getting|choosing|picking|taking|booking|moving)\b)|"
    rf"training (?:for|to be|as)\b{_NOT_THE_SUBJECT}|"
    rf"(?:gonna|going to|planning (?:to|on)|hoping to|about to)\b{_NOT_THE_SUBJECT}|"
    r"living|studying|allergic|intolerant|retired|retiring|mine(?=['’]s\b| is\b| was\b)|"
    r"based (?:in|near|out of|outside)(?= (?-i:[A-Z]))|"
    rf"promoted{_NOT_THE_SUBJECT}|shortlisted(?= (?:for|at|by)\b)|made redundant|laid off|"
    r"never (?:learned|learnt) to|"
    r"can (?:only )?(?:spend|afford)|on call\b|prefer(?= )|"
    r"(?:only |usually |mostly )?(?:free|available)(?= (?:on|after|before|until|till|most|every|"
    r"weekends|evenings|mornings)\b)|"
    r"from(?= (?-i:[A-Z])[\w'’-]*(?: (?-i:[A-Z])[\w'’-]*)* originally\b)|"
    r"(?:flat|house|home|apartment)[- ]hunting|earn(?:ing)?(?= (?:about|around|roughly|over|"
    r"under|less|more|just|only|[£$€]?\d))|"
    r"renting(?= (?:a|an|our|my) (?:[\w-]+ ){0,2}(?:flat|apartment|studio|house|room|place|"
    r"home|condo|bedsit|cottage)\b)|"
    r"(?:a )?(?:big|huge|massive|lifelong|die-?hard) (?:[\w'’-]+ ){1,3}fan\b|"
    r"(?:drive|own|run)(?= (?:a|an|two|three)\b)|"
    r"(?:a |the )?(?:proud|happy|new|first-time|current) owner of|"
    r"booked(?=:? (?:(?:a|an|my|our|the|us|flights?|tickets?|\d+)\b|(?-i:[A-Z])))|"
    r"(?:did|done|served|spent)(?= (?:a|an|one|two|three|four|five|six|\d+) (?:tours?|years?|"
    r"stints?|terms?)\b)|served(?= (?:in|with) the\b)|"
    r"growing a (?:tiny |little |small |mini )?(?:human|baby|person)|"
    r"(?:big|huge|super|massively) into|love|loving|enjoy|enjoying|hate|hating|into|"
    r"obsessed with|addicted to|crazy about|big on|passionate about|keen on|"
    r"can'?t get enough of|"
    r"adopted|have|had|lost|quit|gave up|given up|giving up|stopped|trying to|on an?|"
    r"not (?:a|much of a) (?:big |huge )?fan|(?:a )?(?:big |huge )?fan of|"
    r"can'?t (?:eat|have|do|drink|stand|swim|drive|cook|walk|dance|sing|ski|skate|ride|lift|"
    r"carry|bend|kneel|climb)|"
    r"don'?t (?:eat|drink|do|like|enjoy|care for)|"
    r"do (?:the|all the|most of the) school (?:run|drop-?offs?|pick-?ups?)|"
    r"not (?:great|good|big) (?:with|on)|(?:scared|terrified|afraid|frightened) of|"
    r"join(?:ed|ing)|divorced|separated|widowed|"
    r"single(?= (?:again|now|mom|mum|dad|parent|after|since|for|at the moment|right now|"
    r"these days|atm)\b)|"
    r"(?:husband|hubby|wife|wifey|partner|boyfriend|girlfriend|fianc[eé]e?|son|daughter|"
    r"mum|mom|dad|toddler|baby|brother|sister|grandma|grandpa|granny|boss|dog|cat|puppy|"
    r"kitten|(?:new )?(?:job|house|flat|apartment)|work|budget|money|cash)(?:(?:'s|’s)(?= )|"
    r"(?= (?:is|was|has|had|just|"
    r"turns|turned|loves|hates|can'?t|doesn'?t|works|lives|birthday|name|starts|started|got|"
    r"gets|left|moved|passed)\b))|"
    r"(?:kids|twins|boys|girls|parents|in-laws)(?= (?:due|(?:are|were) (?:\d|both|all|now|still|"
    r"grown|teens|at|in|away|home|back|off|visiting|coming|staying|going|starting|leaving|"
    r"moving|driving|growing)|turn|turned|start|started|live|just)\b)|"
    r"the (?:kids|twins|wife|hubby|husband|missus|missis|mrs|other half|better half|"
    r"little one|wee one|youngest|eldest|oldest)"
    r"(?:, [^,.;!?]{0,40}\w(?=,))?(?=,? (?:is|are|was|were|has|have|just|both|turns?|"
    r"turned|starts?|started|lives?)\b|['’]s (?:got|been|allergic|\d)\b)|"
    r"baby (?:number|no\.?|#) ?(?:\d|two|three|four)|"
    r"the new (?:job|role|house|flat|apartment|puppy|kitten|baby)"
    r"(?! (?:of|for|posting|postings|ads?|advert|listings?|board|description|market|"
    r"title)\b))\b",
    re.IGNORECASE,
)
"""Chat's dropped "I" or "my" ("Been vegan for 5 years now.", "Recently diagnosed with celiac.",
"Just got engaged!", "Husband is vegetarian.", "Wife's a surgeon.", "Kids are 4 and 7.", "The
kids are 5 and 8.", "The missus is pregnant again.", "Originally from Ghana.", "Baby number two
is due in May!", "The new job at the pharmacy is intense"): a user's sentence opening with a
verb or state only the speaker can be the subject of, or with one of their people, pets or their
job."""

_ANY_KIND = re.compile(
    r"^\W*(?:(?:just|finally|also|now|soon)\s+)?(?:(?:heading|headed|off|flying|driving|"
    r"travell?ing|moving|going)(?: back| over| out)? to|(?:gonna|going to|will) be (?:in|at)|"
    r"visiting|planning (?:a |an |our |my )?(?:\w+ )?(?:trip|visit|holiday|vacation) to|"
    r"(?:(?:got|came|flew|getting|coming) )?back from|new (?:to|in)|back (?:home )?in|"
    r"(?:currently|still|now) (?:in|at)|"
    r"(?:honeymoon(?:ing)?|holiday(?:ing)?|vacation(?:ing)?) (?:in|to)) "
    r"(?-i:[A-Z])|"
    r"^\W*(?:(?:honestly|definitely|totally)\s+)?not (?:really |exactly )?(?:a|an|much of an?) "
    r"(?:[\w-]+ )?(?:person|cook|baker|drinker|eater|reader|sleeper|planner|travell?er|runner|"
    r"swimmer|dancer|driver|talker)\b|"
    r"^\W*(?:an? )?(?:avid|keen|passionate|enthusiastic|amateur|lifelong|die-?hard) "
    r"(?:(?-i:[A-Z])[\w-]* )?[\w-]*(?:er|ist|or|ian|fan|buff|junkie)s?\b|"
    r"^\W*(?:(?:and|so|well|turns out|update)\W+)?(?:it['’]?s|its|it is|they['’]re|they are) "
    r"(?:a (?:baby |little )?(?:boy|girl)|twins|triplets|identical twins|(?:two|2) (?:boys|girls))"
    r"\W*$|"
    r"^\W*(?:(?:tiny|small|little|cramped|cosy|cozy|old|rented|shared|damp|draughty|"
    r"drafty|\d+[- ]?bed(?:room)?|one-bed|two-bed|three-bed|top-floor|ground-floor|basement|"
    r"\d{4}s|victorian|edwardian|georgian|council) )+(?:studio|flat|apartment|house|bungalow|"
    r"condo|bedsit|semi|terrace|cottage|loft|maisonette|townhouse|farmhouse|duplex|houseboat|"
    r"place)(?: flat| apartment)?\s*[,(—–:]",
    re.IGNORECASE,
)
"""Sentences without "I" that are the speaker's whatever their kind: a trip to a named place
("Heading to Barcelona on Friday.", "Off to Iceland next month!", "Gonna be in Tokyo all of next
week.", "Planning a trip to Japan in October.", "Just got back from Japan.", "New to Chicago."),
what kind of person they are not ("Not a morning person.", "Not much of a cook"), what they
keenly are ("Avid reader, mostly sci-fi.", "Keen cyclist."), a baby's news ("it's twins!!",
"It's a girl!") and their home noted ("tiny studio, 22 square metres")."""

_BORN = re.compile(
    r"^\W*(?:(?:so|and|well)\W+)?(?:the|our) (?:baby|twins|triplets|little one)(?: (?:boy|girl|"
    r"boys|girls))? (?:arrived|is here|are here|came|was born|were born)\b",
    re.IGNORECASE,
)
"""A birth told as the household's news ("The twins arrived on the 3rd, a bit early but both
grand, Oisín and Clodagh."): the speaker's, however long."""

_LIFE_WITHOUT_I = re.compile(
    r"^\W*(?:(?:so|and|but|also|now|well|anyway)\W+)?(?:"
    # the household's own, by "the": "The little one starts school in September"
    r"the (?:little one|little ones|baby|toddler|twins|old (?:dog|cat)|missus|wife|hubby|"
    r"other half)(?:['’]s)?\b"
    r"(?! (?:next door|upstairs|downstairs|across|over|from|of|in the|at the|on the|who|that|"
    r"which)\b)|"
    # "theres a toddler in the house now", "There is a cat who owns this apartment"
    r"there(?:['’]?s| is| are)(?: now)? (?:a|an|two|three|four|\d+) (?:[\w-]+ )?(?:bab(?:y|ies)|"
    r"toddlers?|pupp(?:y|ies)|kittens?|cats?|dogs?|kids?|child|children|teenagers?|newborn) "
    r"(?:\([^)]*\) )?(?:in the house|in this house|at home|in the family|who (?:lives|owns))|"
    # where the speaker lives, from the nearest place: "Nearest supermarket is a 2 hour round trip"
    r"(?:the )?(?:nearest|closest) (?:[\w-]+ ){1,3}(?:is|are)\b)",
    re.IGNORECASE,
)
"""A sentence of the speaker's life told without "I" or "my", by its opening: the household's
by "the" ("the little one", "the old dog", "the wife"; not "the kids" or "the puppy", anyone's,
nor "the baby next door"), a child or pet "in the house", the nearest shop."""

_SINCE_THE = re.compile(
    r"\bsince the (?:[\w-]+ )?(?:diagnosis|op|operation|surgery|accident|stroke|heart attack|"
    r"divorce|separation|split|layoff|redundancy|miscarriage|birth|c-section|transplant|breakup|"
    r"break-up|chemo|injury)\b",
    re.IGNORECASE,
)
"""An event of the speaker's after "since the" ("since the coeliac diagnosis", "since the
divorce"): theirs, told without "I"."""


def _life_without_i(sentence: str) -> bool:
    """Whether a sentence tells of the speaker's life without "I" or "my" (`_LIFE_WITHOUT_I`,
    `_SINCE_THE`, read only when "since the" is in it)."""
    return _LIFE_WITHOUT_I.match(sentence) is not None or (
        ("since the" in sentence or "Since the" in sentence)
        and _SINCE_THE.search(sentence) is not None
    )


_TASTE_OPENER = re.compile(
    r"(?:love|loving|enjoy|enjoying|hate|hating|prefer|(?<!moved )(?<!moving )into|"
    r"obsessed with|"
    rf"addicted to|crazy about|big on|passionate about|keen on|can'?t get enough of|"
    rf"{_LEARNING})\W*$",
    re.IGNORECASE,
)
_NAMES_A_TASTE = re.compile(
    r"\s+(?!(?:the|a|an|this|that|these|those|them|his|her|their|our|its|how|when|what|where|"
    r"all|every|some|seeing|hearing|watching|reading|looking|getting|having|being|and|or|is|"
    r"was|can|could|will|would|has|had|makes|made|so|more|something|stuff|things|lots|loads|"
    r"tons)\b)[a-z]",
    re.IGNORECASE,
)
"""After "love", "hate" or "into", a pastime or thing named bare ("Hate cooking.", "Into
woodworking these days."): the speaker's taste; with a determiner or "seeing", "hearing" it is
more often a reaction to what the listener shared ("Love the colours!", "Love seeing this")."""

_POINTS_AWAY = re.compile(
    r"\W*(?:it|that|this(?! (?:week|weekend|month|year|morning|afternoon|evening|summer|spring|"
    r"autumn|fall|winter|term|semester|monday|tuesday|wednesday|thursday|friday|saturday|"
    r"sunday)\b)|when|how|what|the way|fun)\b|"
    r".*\b(?:you|your|you're|you’re|pics?|photos?|pictures?|videos?|posts?(?! office)|"
    r"(?:must|might|would|could) be)\b",
    re.IGNORECASE,
)
"""What follows the opener when the sentence is about something else ("Love that!", "Hate when
that happens.", "Love the way you explain things!"); "Got home late." is ruled out in the
opener."""

_LEARNS = re.compile(rf"(?:{_LEARNING})\W*$", re.IGNORECASE)
_NAMES_A_SUBJECT = re.compile(
    r"\s+(?:the |a |an )(?!(?:lot|bit|few|hard|thing|things|way|lesson|lessons|ropes|basics|"
    r"truth|news|fact|same|rest|other|one|moment|time)\b)[a-z]",
    re.IGNORECASE,
)
"""After "learning" or "took up", a subject with its article ("Started learning the cello.",
"Took up a martial art"): what the speaker takes up, not a reaction; not "learning the hard way",
"a lot" or "the ropes" (no subject named)."""

_FAN = re.compile(r"\bfan\b|can'?t (?:eat|have|drink|stand)|don'?t (?:eat|drink)", re.IGNORECASE)
"""Openers that make any taste the speaker's own; after "love", "hate" or "into" it must be named
bare (`_NAMES_A_TASTE`), and after the other openers it does not count."""

_LASTING = re.compile(
    r"\bfor (?:years|ages|decades|(?:a|two|three|four|five|\d+|many|several|a few|a couple of) "
    r"(?:years|decades))\b|\bsince (?:i was|\d{4}|childhood|school|college|uni)\b",
    re.IGNORECASE,
)
"""A pastime kept for years ("Been playing guitar in a covers band for years."): the speaker's
taste whatever the opener, unlike a passing "Been loving this weather"."""

_IMPLIED_KINDS = frozenset(
    {*_PERSONAL_KINDS, "pets", "belongings", "fitness", "tastes", "constraints"}
)
MAX_IMPLIED_WORDS = 16
_CLAUSE_BREAK = re.compile(r"\s+[—–-]\s+|;\s*|:\s+|\s+[^\w\s,.;:!?'\"’”“()]+\s+")
"""Where a sentence's first clause ends, short of a comma: a dash, a semicolon, a colon, or an
emoji or a sign between spaces ("doing IVF injections this month 💉 stims every night")."""


def says_of_self_without_i(sentence: str, kinds: Iterable[str] | None = None) -> bool:
    """Whether a sentence with chat's dropped "I" (`_IMPLIED_I`) tells of the speaker's health,
    diet, people, pets, work, home, identity, sport, money or tastes; short, as such shorthand
    is."""
    opener = _IMPLIED_I.match(sentence)
    if opener is None:
        return False
    if len(sentence.split()) > MAX_IMPLIED_WORDS:
        # a long sentence is read by its first clause: "the little one's got a thing with
        # eggs — one bite and she comes up in hives, so ...", "started doing keto 3 wks ago,
        # lost 4kg already but feeling v tired in the evenings, is this normal"
        first = _CLAUSE_BREAK.split(sentence, maxsplit=1)[0]
        if first == sentence:
            first = sentence.split(",", 1)[0]
        return first != sentence and says_of_self_without_i(first)
    if _POINTS_AWAY.match(sentence, opener.end()):
        return False
    found = set(kinds_in(sentence) if kinds is None else kinds)
    if _TASTE_OPENER.search(opener[0]):
        # "Hate cooking." names a taste; "Love the chef's special!" reacts to something shown
        named = _NAMES_A_TASTE.match(sentence, opener.end()) is not None or (
            _LEARNS.search(opener[0]) is not None
            and _NAMES_A_SUBJECT.match(sentence, opener.end()) is not None
        )
        return named and bool(_IMPLIED_KINDS.intersection(found))
    if _FAN.search(opener[0]) is None and _LASTING.search(sentence) is None:
        found.discard("tastes")  # "Not a fan of mushrooms"; not "Been loving this weather"
    if opener[0].rstrip().lower().endswith("booked") and "plans" in found:
        return True  # "Booked Kilimanjaro for Feb!!": a trip of theirs, told as news
    return bool(_IMPLIED_KINDS.intersection(found))


def shorthand_of_self(sentence: str) -> bool:
    """Whether a sentence without "I" still tells of its speaker: a dropped "I" or "my"
    (`says_of_self_without_i`), a trip or a kind of person (`of_self_any_kind`), or "X here"
    (`names_self`)."""
    return says_of_self_without_i(sentence) or of_self_any_kind(sentence) or names_self(sentence)


def of_self_any_kind(sentence: str) -> bool:
    """Whether a short sentence without "I" is the speaker's whatever it is about (`_ANY_KIND`),
    or a birth of theirs, however long (`_BORN`)."""
    if _BORN.match(sentence) is not None:
        return True
    opener = _ANY_KIND.match(sentence)
    return (
        opener is not None
        and len(sentence.split()) <= MAX_IMPLIED_WORDS
        and _POINTS_AWAY.match(sentence, opener.end()) is None
    )


_TELEGRAPHIC_KINDS = frozenset({"health", "diet", "people", "pets", "work", "identity"})
MAX_TELEGRAPHIC_WORDS = 12
_REACTION = re.compile(
    r"\b(?:sorry|congrat\w*|hope|wish|luck|glad|happy for|proud of|thanks?|thank you|wow|aww+|omg|"
    r"nice|great|awesome|amazing|cute|lovely|cool|sounds?|looks?|hear|love|loved|pics?|photos?|"
    r"pictures?|videos?|posts?|you|your|you're|you’re)\b",
    re.IGNORECASE,
)
"""Words of a reply to someone else's news ("Congrats on the new job!", "Sorry about your
dog."): a subjectless sentence with them is about the listener, not the speaker."""


SPAN = (
    r"\b(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve) "
    r"(?:days?|weeks?|months?|years?)\b"
)
"""A span of time counted ("Three months smoke-free now!", "2 years sober!"): an exclamation
with one counts a milestone of the speaker's."""

_NOT_A_NOTE = re.compile(
    r"^\W*(?:yeah|yes|yep|yup|no(?! \w)|nope|definitely|totally|absolutely|wow|oh|ouch|haha|"
    r"lol|aw+|ah|"
    r"hmm+|well|ok|okay|sure|true|exactly|indeed|right|bummer|keep|let'?s|enjoy|remember)\b|"
    rf"^\W*\[|^(?!\W*(?:(?:brand )?new|newly|freshly)\b)(?!.*{SPAN}).*!\W*$",
    re.IGNORECASE,
)
"""An interjection, an imperative, a shared picture's caption or an exclamation: talk to the
listener ("Yeah, work can be tough.", "Keep up the good work!"), not a note on the speaker. An
exclamation that heads with "new" is news ("New puppy!!!", "Newly qualified electrician!"), as
one counting a span is a milestone ("Two years sober today!"): its kind decides."""


_ASIDE = re.compile(
    r"(?:(?:so|and|but)\s+)?(?:please\s+)?(?:be (?:careful|mindful|aware)|"
    r"(?:don['’]?t|do not|never) (?:even )?(?:joke|mention|suggest|recommend|offer|show|send|"
    r"bring)\b|"
    r"(?:keep|bear) (?:that|this|it) in mind|"
    r"(?:for what it['’]?s worth|if (?:that|it) matters)\W*$|"
    r"(?:it|that|things|life|everything|(?<=so )[\w'’-]+)"
    r"(?:['’]s| is| was| are| were| has been| have been| can be)"
    r"(?!.*\b(?:the|my|his|her|their|our)\b)(?: [\w'’-]+){1,3}(?: (?:lol|haha|tbh|ngl))?\W*$)",
    re.IGNORECASE,
)
"""A clause after a note that still belongs to it: a caution to the listener or a comment on it
("Shellfish allergy, so be careful with recipes.", "Severe arachnophobia here, don't even
joke.", "Nut allergy, so don't suggest satay.", "Job hunting, it's brutal.", "Going through
a divorce, so things are rough.", "3 kids under 5, so quiet is a distant memory lol")."""


def headline(sentence: str) -> bool:
    """Whether a sentence is a note on the speaker's own news ("New puppy!!!"): `telegraphic`
    for the kinds the sentence touches."""
    return telegraphic(sentence, kinds_in(sentence))


def telegraphic(sentence: str, kinds: Iterable[str]) -> bool:
    """Whether a short sentence without a subject notes the speaker's health, diet, people, pets,
    work or identity ("Diabetic, type 2.", "Nut allergy, severe.", "Two kids, one dog, zero free
    time."), or a routine of theirs ("Gym at 6am most days."): said unprompted by the user, it is
    about them."""
    return (
        len(sentence.split()) <= MAX_TELEGRAPHIC_WORDS
        and (
            bool(_TELEGRAPHIC_KINDS.intersection(kinds))
            or (
                bool(_ROUTINE_KINDS.intersection(kinds))
                and _ROUTINE.search(sentence) is not None
                and _THE.search(sentence) is None  # "Heads up: the gym closes on Sundays."
            )
        )
        and _NOT_A_NOTE.search(sentence) is None
        and _REACTION.search(sentence) is None
        and without_subject(sentence, aside=_ASIDE)
    )


_DAYS = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
_ROUTINE = re.compile(
    rf"\b(?:on {_DAYS}s(?: and {_DAYS}s)?|on (?:weekends|weekdays|weeknights)|"
    rf"every (?:day|morning|evening|night|week|weekend|other (?:day|week)|{_DAYS})|"
    r"most (?:days|mornings|evenings|nights|weekends)|(?:once|twice|\d+ times|three times) a "
    r"(?:day|week|month)|daily|weekly)\b",
    re.IGNORECASE,
)
"""When a habit recurs ("on Wednesdays", "most days", "twice a week")."""

_ROUTINE_KINDS = frozenset({"fitness", "tastes", "work"})
"""A note of a sport, a pastime or work that recurs is the speaker's routine ("Gym at 6am most
days."), where opening hours or a collection day are not."""

_HOUSEHOLD = re.compile(r"(?<![\w'’])(?:we|We|our|Our|us)\b|^\W*[Oo]urs\b")
"""We/our: the speaker's household when the sentence is about people, pets, home, health, diet
or what the household owns ("We have two cats", "Our car is an old Prius"), else too often a
group or the conversation itself (`_of_the_household`)."""

_HOUSEHOLD_KINDS = frozenset({"health", "diet", "people", "pets", "home"})
_CAR_MAKES = (
    r"toyota|honda|volvo|tesla|bmw|audi|subaru|mazda|nissan|hyundai|kia|volkswagen|vw|mercedes|"
    r"chevy|chevrolet|jeep|fiat|peugeot|renault|skoda|prius|lexus|porsche|corolla|camry|ford|"
    r"land rover|range rover|vauxhall|citroen|dacia|polestar|mitsubishi|suzuki|jaguar"
)
"""Cars by their makers' names (and two models as well known), in lower case."""
_OWNED = (
    r"cars?|vans?|trucks?|pickups?|suvs?|minivans?|motorbikes?|motorcycles?|scooters?|mopeds?|"
    r"bikes?|bicycles?|e-?bikes?|boats?|sailboats?|yachts?|canoes?|kayaks?|rvs?|campers?|"
    r"campervans?|caravans?|motorhomes?|cabins?|cottages?|gardens?|backyards?|garages?|"
    r"allotments?|balcon(?:y|ies)|terraces?|patios?|driveways?|hobs?|ovens?|cookers?|aga|"
    r"boilers?|dishwashers?|washing machines?|tumble dryers?|fridges?|freezers?|heat pumps?|"
    r"solar panels?|air fryers?|slow cookers?|pressure cookers?|espresso machines?|"
    rf"{_CAR_MAKES}|harley|ducati|yamaha|kawasaki"
)
"""What a household may own (the kind `belongings`), cars also by their makers' names, in lower
case."""
_DEVICES = (
    r"(?:my|our|a|an|the|new|old|work|\d+ ?gb) (?:[\w-]+ ){0,2}(?:phone|smartphone|laptop|"
    r"tablet|router|printer|e-?reader|smart ?watch|desktop|pc|computer|camera)|iphones?|ipads?|"
    r"macbooks?|chromebooks?|thinkpads?|kindles?|pixel \d\w*|galaxy (?:s|a|z|note|tab) ?\d+\w*|"
    r"oneplus|fairphone"
)
"""Phones, computers and their kin, by a word that owns them ("my phone", "a 2015 laptop") or
by a model's name ("Pixel 7a", "MacBook"): "to phone", "pixels" and "the tablets" (a medicine)
are no device."""
_HOUSEHOLD_OWNS = re.compile(
    rf"(?<![\w'’])(?:our (?:[\w-]+ )?(?:{_OWNED})\b|we(?:['’]ve| have)?(?: just| recently| "
    r"finally| still)? (?:have|has|own|got|bought|drive|keep|ride|sold|traded|swapped)\b|"
    r"we(?:['’]ve| have) (?:just |recently |finally |still |always )?had\b|"
    r"we (?:don['’]?t|do not|no longer) (?:have|own)\b|we (?:haven['’]?t|have not) got\b|"
    r"we(?:['’]re| are) (?:a|an) (?:[\w&'’-]+ ){1,2}household\b|"
    r"we(?:['’]re| are) (?:thinking (?:of|about)|planning (?:on|to)|going to|about to|saving "
    r"(?:up )?(?:for|to)|looking (?:at|into)) (?:buy(?:ing)?|get(?:ting)?)\b)",
    re.IGNORECASE,
)
"""What a household owns ("Our car is an old Prius.", "We have a boat"): "we" with a boat tour
or a rented car is an outing, not a belonging."""


_OUR_CHILDREN = re.compile(r"\bour (?:\w+ )?(?:boys|girls)\b", re.IGNORECASE)
"""The household's children by another name ("We homeschool our two girls."): read only here,
not as a kind, so that every other sentence is spared the pattern."""


_A_NAME_OWNED = re.compile(
    r"\b(?:drive|drives|own|owns|bought|ride|rides) (?:an? |the )?(?:old |new |used |little )?"
    r"(?-i:[A-Z])",
    re.IGNORECASE,
)
"""A thing owned by its maker's name ("We drive a Volvo."): read only for "we", not as a kind."""


OCCUPATIONS = (
    r"nurse|engineer|developer|programmer|designer|lawyer|attorney|accountant|analyst|manager|"
    r"chef|dentist|pharmacist|architect|scientist|researcher|consultant|founder|ceo|cto|cfo|"
    r"electrician|plumber|carpenter|mechanic|pilot|firefighter|paramedic|police officer|"
    r"professor|lecturer|tutor|librarian|journalist|editor|barista|waiter|waitress|cashier|"
    r"farmer|vet|therapist|surgeon|midwife|social worker|auditor|banker|broker|realtor|"
    r"hairdresser|barber|butcher|courier|receptionist|secretary|technician|dietitian|"
    r"nutritionist|physiotherapist|physio|optician|optometrist|paralegal|actuary|economist|"
    r"translator|interpreter|psychologist|psychiatrist|counsell?or|caregiver|carer|nanny|"
    r"janitor|welder|roofer|soldier|hygienist|radiographer|sonographer|baker|builder|gardener|"
    r"painter|decorator|photographer|musician|bartender|florist|tailor|locksmith|plasterer|"
    r"bricklayer|lifeguard|postman|postwoman|illustrator|animator|copywriter|recruiter|"
    r"writer|author|artist|civil servant|treasurer|security guard|childminder|solicitor|"
    r"barrister|postie|"
    r"(?:software |qa )?tester|(?:lorry|truck|bus|taxi|cab|delivery|van|train|hgv) driver|trucker"
)
"""Occupations: a kind of work, and with "I'm a" the user's job."""

_TRADE = (
    r"we(?:['’]re| are)? (?:open|closed|shut)(?= (?:on|from|at|till|until|every|daily|all|"
    r"\d))|we (?:open|close)(?= (?:at|from|every|daily|\d))|we charge|opening hours"
)
"""A business's hours and prices told as "we" ("we open 6am to 2pm every day except thurs",
"We are closed on Mondays", "We charge 35 euros per hour"): work, the user's own trade."""

_OUR_WORKPLACE = re.compile(
    r"\b(?:our (?:[\w-]+ )?(?:company|startup|firm|business|agency|team|stack|codebase|product|"
    r"customers|clients|fiscal year|financial year|shop|store|practice|clinic|restaurant)"
    r"(?:['’]s| is| are| has| have| uses?| sells?| makes?| builds?| runs?| ends?| starts?| "
    r"serves?| spans?)|"
    r"we(?:['’]re| are) (?:a|an) (?:[\w-]+ ){0,3}(?:company|startup|firm|business|agency|team|"
    r"shop|store|practice|clinic|charity|non-?profit|consultancy)|"
    rf"{_TRADE})\b",
    re.IGNORECASE,
)
"""The speaker's workplace as "we", described ("Our stack is Django and React.", "We're a B2B
SaaS company selling to hospitals.", "we open 6am to 2pm", "We charge 35 euros per hour"; not
"Our company just bought a new truck."): read when the sentence is about work, as its kinds
say."""

_MONTH_OR_DAY = f"(?:{MONTH_NAMES}|{_DAYS})"
_OUR_SETUP = re.compile(
    r"\bour (?:[\w-]+ )?(?:team|department|dept|it|security|compliance|legal|company|firm|"
    r"employer|policy|hospital|school|ward|office|client|ceo|cto|manager|boss)"
    r" (?:blocks?|bans?|forbids?|requires?|mandates?|only (?:allows?|lets?)|"
    r"won['’]?t (?:allow|let)|doesn['’]?t (?:allow|let)|does not (?:allow|let))\b|"
    rf"\bwe(?:['’]re| are) (?:all |still |now )?(?:on|running|using) (?!(?i:{_MONTH_OR_DAY})\b)"
    r"(?-i:[A-Z])[\w.-]*\b|"
    rf"\bwe (?:use|run|deploy (?:to|on)|host on) (?!(?i:{_MONTH_OR_DAY})\b)(?-i:[A-Z])[\w.-]*\b|"
    r"\b(?:installed|allowed|blocked|banned|run) on our (?:work |company |office |corporate )?"
    r"(?:machines|laptops|computers|pcs|devices|network|systems)\b",
    re.IGNORECASE,
)
"""The speaker's workplace by its rules or tools ("Our security team blocks ChatGPT plugins",
"we're on GKE autopilot", "we use Xero and Shopify", "Only IT-whitelisted apps can be installed
on our machines"): how their work is set up, whatever the sentence's kinds."""

_WE_EACH = re.compile(
    r"\bwe(?:['’]re| are) (?:all|both)\b(?! (?:going|heading|off|set|ready|here|there|so|too|"
    r"very|really|just|still|in|at|on)\b)",
    re.IGNORECASE,
)
"""What each of a group is, the speaker too ("We're all retired teachers", "We're both huge
Arsenal fans."): any kind of theirs but a plan ("We're all going to the cinema." is an outing)."""

_WE_EACH_WORK = re.compile(
    rf"\bwe(?:['’]re| are) (?:all|both) (?:[\w-]+ ){{0,2}}(?:{OCCUPATIONS})s\b", re.IGNORECASE
)
"""The same with a trade named in the plural ("We're both nurses."), which the kinds leave out:
elsewhere a plural is too often something else ("the game mechanics")."""


_WE_FAITH = re.compile(rf"\bwe(?:['’]re| are) (?:an? )?{_FAITHS}\b", re.IGNORECASE)
"""The household's faith ("We're Muslim, so no pork at the party.")."""


_WE_TRIP = re.compile(
    r"\b(?:we|our)\b(?=[^.?!]*\b(?:holiday|trip|flights?|cruise|getaway|honeymoon|vacation)s?\b)"
    r"(?=[^.?!]*\b(?:booked|going|(?<!got )(?<!get )off to|heading|flying|next|"
    r"this (?:summer|winter|spring|autumn|fall)|"
    r"in (?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)\w*)\b)",
    re.IGNORECASE,
)
"""The household's trip ahead ("We've got a holiday booked to Crete in August."): a trip booked
or coming, not one told of ("Our trip was great.")."""
_WE_GOING = re.compile(
    r"\bwe(?:['’]re| are)(?: just| finally)? (?:going|flying|heading|off|travell?ing|driving|"
    r"sailing) to (?-i:[A-Z])",
    re.IGNORECASE,
)
"""The household on its way to a place by its name ("We're going to Rome for Easter.")."""
_WE_COUPLE = re.compile(
    r"\bwe(?:['’]ve| have)? (?:just |finally |recently |officially )?(?:(?:broke|split) up"
    r"(?! (?:the|a|an|it|them|this|that)\b)|separated|divorced|"
    r"got (?:married|engaged|divorced|hitched)|tied the knot|moved in together)\b",
    re.IGNORECASE,
)
"""The user and their partner, parting or joining ("We broke up last week.", "We got engaged!")."""


_WE_BUDGET = re.compile(
    r"^(?!.*\b(?:marketing|project|team|department|company|client|quarter|q[1-4]|fiscal|"
    r"campaign|advertising|sprint|hiring|board|budget (?:meeting|review|cuts?))\b)"
    r".*\b(?:our (?:[\w-]+ )?budget|we(?:['’]re| are) on (?:an? )?(?:[\w-]+ )?budget|"
    r"we can(?:['’]t|not)? (?:only )?afford|"
    r"we (?:don['’]?t|do not|never) (?:do|take(?: on| out)?|carry|have) (?:any )?"
    r"(?:debt(?![- ](?:collection|recovery|advice|management))|loans?)|"
    r"we(?:['’]re| are) (?:now |finally |completely )?debt[- ]free)\b",
    re.IGNORECASE,
)
"""The household's money ("Our budget for the kitchen is 15k.", "We're on a tight budget.", "we
don't do debt"), not a workplace's ("Our marketing budget for Q3 is 2M.")."""


_WE_SAVE = re.compile(
    r"^(?!.*\b(?:marketing|project|team|department|company|client|quarter|fiscal|campaign|"
    r"sales|revenue|fundraising|charity)\b)"
    r".*\b(?:we(?:['’]re| are|['’]ve been| have been)? (?:now |still )?saving (?:up\b|hard\b|"
    r"money\b|for\b|towards\b|to buy\b|every\b|each\b|[£$€]|\d)|"
    r"our (?:[\w-]+ )?(?:savings|deposit) (?:target|goal|pot)\b|"
    r"our (?:[\w-]+ )?(?:target|goal)\b[^.!?]*[£$€]\s?\d)",
    re.IGNORECASE,
)
"""The household's savings ("We've revised our target down to £15k.", "We're saving £400 a
month for a deposit."), not a workplace's target ("Our sales target is £2M.")."""


def _of_the_household(sentence: str, kinds: Iterable[str]) -> bool:
    """Whether a sentence with "we" or "our" is about the household's people, pets, home, health
    or diet, what it owns (`_HOUSEHOLD_OWNS`), what each of its group is (`_WE_EACH`), the
    speaker's workplace (`_OUR_WORKPLACE`), the household's faith (`_WE_FAITH`), a trip ahead
    (`_WE_TRIP`, `_WE_GOING`), its money (`_WE_BUDGET`, `_WE_SAVE`) or the couple itself
    (`_WE_COUPLE`)."""
    found = set(kinds)
    if _HOUSEHOLD_KINDS & found or _OUR_CHILDREN.search(sentence) or _WE_COUPLE.search(sentence):
        return True
    if (found - {"plans"} and _WE_EACH.search(sentence)) or _WE_EACH_WORK.search(sentence):
        return True
    if ("work" in found and _OUR_WORKPLACE.search(sentence)) or _OUR_SETUP.search(sentence):
        return True
    if "identity" in found and _WE_FAITH.search(sentence):
        return True
    if "plans" in found and (_WE_TRIP.search(sentence) or _WE_GOING.search(sentence)):
        return True
    if "constraints" in found and "work" not in found and _WE_BUDGET.search(sentence):
        return True
    if "work" not in found and _WE_SAVE.search(sentence):
        return True
    return _HOUSEHOLD_OWNS.search(sentence) is not None and (
        "belongings" in found or _A_NAME_OWNED.search(sentence) is not None
    )


_OUR = re.compile(r"(?<![\w'’])(?:our|Our)\b")
_YOU = re.compile(r"\b(?:you|your|you're|you’re|u)\b", re.IGNORECASE)
"""A "we" with "you" in the sentence is the speaker and the listener ("we can get coffee if
you want"), not the speaker's household ("our" still is: "Our son loves your cookies")."""

_HYPOTHETICAL = re.compile(
    r"^\W*(?:hypothetically,? )?(?:if|what if|suppose|imagine|when you|in case)\b"
    r"(?!,? (?:(?:it|that|this)(?:['’]s| is)? )?(?:relevant|matters|helps|important|useful|"
    r"needed)\b|,? you(?:['’]re| are)? (?:need to know|must know|wondering|care|curious)\b)|"
    r"\b(?:would like to know|wonder)\b",
    re.IGNORECASE,
)
"""A sentence about what might be, not what is ("If I moved to Berlin, ..."); an aside that only
offers the fact ("if relevant, I'm lactose intolerant", "in case it helps, we're in Perth", "if
you must know, I'm 67") is none."""

BASE_SALIENCE = 1.0
"""Every self-statement; each kind of subject it touches adds its weight below."""

TOPIC_SALIENCE = 1.5
"""What a self-statement adds when it states one of the user's single-valued subjects (`_TOPICS`:
where they live, their job, their diet): who the user is now, above what their brother does."""

_WHEN_YOU_ANSWER = (
    r"when(?:ever)? you (?:explain|answer|reply|respond|write|talk|describe)"
    r"(?! (?:the|this|that|it|these|those)\b)"
)
"""Every time the assistant answers ("when you explain me things"), not one task ("when you
write the email")."""
_WHEN_YOU_STANDING = re.compile(
    rf"^\W*(?:and |so )?(?:please,? )?{_WHEN_YOU_ANSWER}", re.IGNORECASE
)

_STANDING = (
    r"\b(?:always|never|from now on|going forward|in (?:the )?future|every time|each time|"
    rf"by default|{_WHEN_YOU_ANSWER})\b(?=.*\b(?:you|your|reply|replies|respond|"
    r"answer|answers|write|use|keep|format|explain|call|address|give|include|avoid|skip|stop|"
    r"remember|remind|speak|talk|"
    r"translate|summari[sz]e|sum up)\b|.*\b(?:start|begin|end|open|lead|close)\b[^.!?]{0,30}?"
    r"\bwith (?:a |an |the |your )?(?:tl;?dr|summary|summaries|recap|bottom line|key points?|"
    r"conclusion|short answer|one[- ]liner|one[- ]line))|"
    r"\b(?:call|address|refer to) me (?:as |by )?(?-i:[A-Z])|"
    r"\b(?:from now on|going forward|in (?:the )?future|by default)\b"
    r"(?:(?!\b(?:I|we)\b)[^.!?]){0,40}?\b(?:assume|stick (?:to|with)|default to)\b"
)
"""A standing instruction to the assistant ("Please always reply in Spanish.", "From now on,
keep your answers short.", "Please call me Alex.", "for any code from now on just assume
TypeScript", "when you explain me things, use simple English"; not "when you write the email,
use a formal tone"): how the user wants to be spoken to or answered, worth every later block."""

_ANSWERS_FORM = re.compile(
    r"\b(?:keep|make|write|format|start|end|limit)\b[^.?!]{0,40}?\byour (?:answers|replies|"
    r"responses|explanations)\b|(?:^\W*|\bplease,? |\byou )(?:keep|make|limit) (?:all |any )?"
    r"(?:answers|replies|responses|explanations)\b(?![^.?!]*\b(?:this time|coming)\b)|"
    r"\b(?:in|for|with) your (?:answers|replies|responses|explanations)\b|"
    r"\b(?:don'?t|do not|stop|no more|never|avoid)\s+(?:(?:using|use|adding|add|including|"
    r"include|putting|put|with) )?(?:any |so many |all the |the |too many |too much )?"
    r"(?:(?:abbreviations|acronyms|slang|big words|technical terms|long words)"
    r"(?:,? (?:or|and) (?:tech |technical )?jargon)?|(?:tech |technical )?jargon|emojis?|"
    r"emoticons|bullet points|exclamation marks|markdown)\b|"
    r"\b(?:emojis?|emoticons|jargon|bullet points|markdown|(?:longer|long|detailed|shorter|"
    r"short|brief|full) (?:answers|replies|responses|explanations))(?: (?:are|is))? (?:(?:totally|"
    r"perfectly|absolutely) )?(?:fine|ok|okay|good|great|allowed|welcome)\b|"
    r"\bI (?:now |actually |much |really )*prefer\b[^.!?]{0,20}?\b(?:bullet points|bullets|"
    r"(?:full )?paragraphs|numbered lists)\b|"
    r"\bI (?:now |actually |much |really )*(?:prefer|like|want|need)\b[^.!?]{0,20}?\b(?:"
    r"(?:longer|long|detailed|shorter|short|brief) (?:answers|replies|responses|explanations)|"
    r"(?:answers|replies|responses) in (?:bullet points|bullets|paragraphs|prose))\b",
    re.IGNORECASE,
)
"""A standing instruction without "always" ("Keep your answers short.", "Stop using emojis."):
how every answer is to be given; "Keep replies short." too, the plural saying every one; and a
form allowed or preferred ("Emojis are fine now.", "I prefer bullet points."). Read only where
one of its words is (`_asks_a_form`)."""

MANNER_WEIGHT = 2.0

_NEVER_OFFER = (
    r"^\W*(?:please )?(?:(?:don'?t|do not|never) (?:ever )?(?:suggest|recommend|include|offer)"
    r"(?: me)? (?:anything|any|things?|foods?|dishes|recipes|meals|places|restaurants|"
    r"products|brands|books|films|movies|shows|songs|music)|"
    r"(?:(?:don'?t|do not|never) )?(?:use|give (?:me )?|answer in|reply in|respond in|"
    r"write in|stick to|switch to) (?:the )?(?:metric|imperial|celsius|fahrenheit|"
    r"(?:british|american|uk|us|australian|canadian) (?:english|spellings?|units|"
    r"measurements)|24[- ]?hour (?:time|clock))|"
    r"(?:(?:i(?:['’]d| would) (?:like|prefer|rather have)|i (?:want|need|prefer)) )?"
    r"(?:(?:prices|costs|amounts) in (?:euros|dollars|pounds|sterling|yen|rupees)|"
    r"(?:recipes|measurements|quantities|weights|temperatures) in (?:grams|kilos|ounces|cups|"
    r"metric|imperial|celsius|fahrenheit))|"
    r"(?:reply|respond|answer|write|speak|talk)(?: to me)? in \w+ (?:where|when|whenever|if) "
    r"(?:you can|possible)|"
    r"(?:(?:reply|respond|answer|write|speak|talk|explain(?: things)?)(?: to me)? in|use) "
    r"(?:simple|simpler|plain|easy|basic|everyday) (?:english|words|language|terms|sentences)|"
    r"(?:stop|quit) apologi[sz]ing|skip the (?:pleasantries|small talk|preamble|fluff)|"
    r"be (?:more )?(?:blunt|direct|concise|brief) with me|explain (?:things|everything) like)\b|"
    # how the user wants to be spoken to, said as a complaint or a request to stop
    r"^\W*(?:(?:ok|okay|also|and|oh|lol|ugh|pls|plz|please|seriously|honestly|btw|"
    r"(?:can|could|would|will) (?:you|u))\W+)*"
    # the one-off exclusion is read only where such an instruction may start (it scans on)
    r"(?=(?:don|do|never|stop|quit|no|not|drop|skip|ditch|lose|cut|lay|enough|talk|ur|you|u)\b)"
    r"(?![^.!?]*\b(?:this time|for (?:this|that) (?:one|email|message|post|letter|reply|"
    r"text|essay|piece)|just (?:for )?(?:this|here|now))\b)"
    r"(?:(?:(?:don'?t|do not|never|stop|quit|no need to|not)\s+(?:ever\s+)?(?:"
    r"call(?:ing)? me (?!(?:before|after|at|on|in|by|during|until|till|to|tomorrow|tonight|"
    r"today|back|later|when|if|again|up|out|anymore)\b)|sugar-?coat\w*|morali[sz]\w*|"
    r"lectur\w*|preach\w*(?! to the)|patroni[sz]\w*|judg\w* me|"
    r"(?:add|adding|give|giving|include|including|put|putting|end|ending)(?: me)? (?:all )?"
    r"(?:the |those |these |any |with )?(?:disclaimers|warnings|caveats|follow[- ]up questions)|"
    r"ask(?:ing)?(?: me)? (?:follow[- ]up )?questions at the end|say(?:ing)? [\"'‘“]|"
    r"(?:use|using) (?:emojis?|emoticons|bullet points|markdown|exclamation marks)))|"
    r"(?:drop|skip|ditch|lose|cut(?: out)?|lay off|enough with|no more)\s+(?:the |all the |"
    r"those |these |your )?(?:follow[- ]up questions|disclaimers|warnings|caveats|pep talks?|"
    r"compliments|flattery|praise)|"
    r"talk (?:normal|normally|like a (?:normal )?(?:person|human))|"
    r"(?:ur|you['’]?re|you are|u r) (?:so|too|way too|a bit|kinda) (?:formal|stiff|wordy|"
    r"long-winded|verbose|robotic|preachy|cheesy|chirpy))\b"
)
"""A standing instruction in a request's form, written in lower case: what never to offer
("Please don't suggest anything with mushrooms.") and which units or spelling to use or not
("Please use metric units.", "Please don't use American spellings.", "Prices in euros please.")
and how to speak ("Please stop apologising so much.", "Skip the pleasantries."). Anchored and
apart from `_STANDING`, so a search of either reads only what it must (every sentence is read
against both)."""

_STANDING_LAST = re.compile(
    r"\b(?:use|reply|respond|answer|write|keep|format|give|include|avoid|skip|stop|speak|talk|"
    r"assume|stick (?:to|with)|default to)\b[^.?!]*\b(?:from now on|going forward|by default)"
    r"(?:,? (?:please|thanks|thank you))?"
    r"(?:\W*$|\s*[-–—;:(]|,\s*(?:as|since|because|cause|cos|coz|bc|I|I['’]m|I['’]ve|we)\b)",
    re.IGNORECASE,
)
"""The same with "from now on" last ("Please use bullet points from now on."), or before why
("Please give me measurements in grams from now on, I weigh everything"); read only where
those words are (`_ends_standing`)."""

_STANDING_RULE = re.compile(_STANDING, re.IGNORECASE)
_NEVER_OFFER_RULE = re.compile(_NEVER_OFFER, re.IGNORECASE)


def is_standing(sentence: str) -> bool:
    """Whether a sentence is a standing instruction to the assistant (`_STANDING`,
    `_NEVER_OFFER`, `_ANSWERS_FORM`, `_STANDING_LAST`)."""
    return (
        _STANDING_RULE.search(sentence) is not None
        or _NEVER_OFFER_RULE.match(sentence) is not None
        or _asks_a_form(sentence, sentence.lower())
        or _ends_standing(sentence, sentence.lower())
    )


def _ends_standing(text: str, lowered: str) -> bool:
    """Whether `text` (`lowered`: the same, lower-cased) ends on "from now on" after asking for
    something (`_STANDING_LAST`)."""
    return (
        "from now on" in lowered or "going forward" in lowered or "by default" in lowered
    ) and _STANDING_LAST.search(text) is not None


def _asks_a_form(text: str, lowered: str) -> bool:
    """Whether `text` (`lowered`: the same, lower-cased) asks for a form of every answer
    (`_ANSWERS_FORM`)."""
    return any(word in lowered for word in _FORM_WORDS) and _ANSWERS_FORM.search(text) is not None


_FORM_WORDS = (
    "your ", "emo", "jargon", "bullet", "exclamation", "markdown", "answers", "replies",
    "responses", "explanations", "paragraph", "lists", "abbreviation", "acronym", "slang",
    "big words", "technical terms", "long words",
)  # fmt: skip
"""A word `_ANSWERS_FORM` needs: a sentence without any is not read against it."""


class _Kind(NamedTuple):
    """A kind of subject: its weight, and its words as patterns for the lower-cased text and,
    where a word must be capitalised, for the text as written."""

    name: str
    weight: float
    lowered: re.Pattern[str] | None
    cased: re.Pattern[str] | None

    def touched(self, text: str, lowered: str) -> bool:
        """Whether `text` (`lowered`: the same, lower-cased) touches this kind."""
        return (self.lowered is not None and self.lowered.search(lowered) is not None) or (
            self.cased is not None and self.cased.search(text) is not None
        )


def _kind(name: str, weight: float, lowered: str | None, cased: str | None = None) -> _Kind:
    # Matching lower-cased text without IGNORECASE reads a sentence about twice as fast (every
    # message's sentences are read against all kinds); the two differ only for a few letters
    # whose case folds oddly (the long s, the Kelvin sign), which chat does not use.
    letters = "" if lowered is None else re.sub(r"\\.", "", lowered)  # escapes aside
    if letters != letters.lower() or "(?-i" in letters:
        raise ValueError(f"kind {name!r}: a lower-cased pattern must be written in lower case")
    if lowered is not None and len(lowered) >= _LONG_KIND and lowered.startswith(r"\b(?:"):
        # A long list of words is tried at every position of the text; a letter first lets the
        # engine skip the others (the same matches, a third to a half faster for the longest).
        lowered = f"(?=\\w){lowered}"
    return _Kind(
        name,
        weight,
        None if lowered is None else re.compile(factored(lowered)),
        None if cased is None else re.compile(factored(cased), re.IGNORECASE),
    )


_LONG_KIND = 300


_OWN_ABROAD = (
    r"mis?|nuestr[oa]s?|meus?|minhas?|noss[oa]s?|mio|mia|miei|nostr[oaie]|mon|ma|mes|notre|nos|"
    r"mein(?:e[mnrs]?)?|unser(?:e[mnrs]?)?|mijn|onze|m[oó]j|moj(?:a|e|ego|ej)|nasz(?:a|e|ego)?|"
    r"mer[aie]|h[au]mar[aie]|aking|ang|min|mina"
)
""""My" and "our" in the languages chat mixes into English (see `SPEAKER_ABROAD`), lower-cased;
with Tagalog's "ang" ("ang asawa ko") and Swedish's "min", here only before a family word."""

_FAMILY_ABROAD = (
    r"esposo|esposa|marido|mujer|hij[oa]s?|madre|padre|mam[áa]|pap[áa]|abuel[oa]s?|hermanos?|"
    r"hermanas?|novi[oa]|suegr[oa]|niet[oa]s?|t[ií][oa]|"
    r"mulher|filh[oa]s?|m[ãa]e|pai|pais|av[óô]|irm[ãa]o?|namorad[oa]|sogr[oa]|net[oa]s?|"
    r"marito|moglie|figli[oae]?|mamma|pap[àa]|nonn[oai]|fratello|sorella|suocer[oa]|"
    r"mari|femme|fils|filles?|enfants|m[èe]re|p[èe]re|maman|fr[èe]re|s[œo]e?ur|copain|copine|"
    r"mann|frau|sohn|tochter|kinder|mutter|vater|oma|opa|bruder|schwester|freundin|eltern|"
    r"man|vrouw|zoon|dochter|kinderen|moeder|vader|broer|zus|vriendin|ouders|"
    r"m[ąa][żz]|[żz]ona|syn|c[óo]rka|dzieci|mama|tata|babcia|dziadek|brat|siostra|"
    r"bet[aie]|biwi|pati|patni|maa|papa|dadi|dada|nani|nana|bhai|beh[ae]n|saas|sasur|"
    r"bach+[ae]|asawa|anak|lola|lolo|nanay|tatay|kapatid|istri|suami|ibu|ayah|"
    r"fru|sambo|dotter|mormor|farmor|morfar|farfar|pappa|syster|barn"
)
"""Family words in those languages, lower-cased."""

_WORKPLACES = (
    r"agency|firm|restaurant|bakery|caf[eé]|shop|store|studio|salon|practice|clinic|startup|"
    r"company|warehouse|factory|hotel|pizza place"
)
"""A workplace named by what it is ("quit the agency"), not by its name."""

_KINDS: tuple[_Kind, ...] = tuple(
    _kind(*kind)
    for kind in (
        (
            "health",
            3.0,
            r"\b(?:allerg\w*|intoleran\w*|asthma\w*|diabet\w*|pregnan\w*|coeliac|celiac\w*|disease|"
            r"disorder|syndrome|chronic|pain|injur\w*|surgery|medication|medicine|doctor|"
            r"blood pressure|epipen|condition|migraine\w*|anxiety|depress\w*|sick\w*|"
            r"disab\w*|deaf|blind|wheelchair|(?:arachno|claustro|agora|acro|emeto|trypo|ha?emo|"
            r"cyno|ophidio|nycto|aero|thanato|social )?phobi(?:a|as|c)|fear|afraid (?:of|to|with)|"
            r"(?:very|so|really|terribly) afraid|scared of|"
            r"terrified of|frightened of|can'?t swim|cannot swim|"
            r"dyslex\w*|adhd|autis\w*|therapy|diagnos\w*|recover\w*|colou?rblind|"
            r"(?:short|near|far|long)[- ]?sighted|glasses|contact lenses|hearing aids?|chemo\w*|"
            r"eyesight|(?:poor|bad|failing|low|blurry|blurred) (?:vision|sight)|glaucoma|"
            r"macular|cataracts?|"
            r"cancer|trimester|post-?partum|post-?natal|ocd|ptsd|arthritis|insomnia|ibs|"
            r"smok\w*(?! (?:alarms?|detectors?|signals?|machines?|bombs?|screens?))|"
            r"vap(?:e|es|ing)|"
            r"epilep\w*|seizures?|(?:a|the|my|mini)[- ]?stroke(?! of)|heart (?:attack|condition|"
            r"failure)|cholesterol|thyroid|crohn'?s|colitis|lupus|endometriosis|pcos|"
            r"fibromyalgia|multiple sclerosis|parkinson'?s|alzheimer'?s|dementia|hernia|"
            r"concussion|eczema|psoriasis|tinnitus|vertigo|an(?:a)?emi\w*|hypertension|"
            r"osteoporosis|scoliosis|sciatica|gout|reflux|colic|kidney(?! beans?)|dialysis|"
            r"miscarr\w*|ivf|"
            r"(?:in)?fertility|infertile|(?:organ|marrow|lung|liver|heart|stem cell) transplant|"
            r"(?:peri)?menopaus\w*|hay ?fever|anorexi\w*|bulimi\w*|"
            r"eating disorder|bipolar|panic attacks?|c-? ?section|c(?:a)?esarean|"
            r"t1d|t2d|ckd|copd|gerd|gord|mcas|h?eds|audhd|cpap|me/cfs|cystic fibrosis|hypos?|"
            r"(?:have|with|got|diagnosed with) (?:pots|cf)(?! (?:and|of|for|with|card)\b)|"
            r"(?:got|get|getting|had|needed|need|have) (?:(?:\d+|a few|some|two|three|four|five|"
            r"six|seven|eight|nine|ten|twelve|twenty) )?stitches|"
            r"physiotherapy|physio (?:sessions?|appointments?|exercises?)|rehab|breastfeed\w*|"
            r"biopsy|(?:hip|knee|joint) replacements?|my operation|"
            r"walking (?:frame|sticks?|aids?)|zimmer|crutches|mobility scooter|"
            r"(?:using|uses|use|on|with|needs?|needing|got) (?:a |his |her |my |the )?walker|"
            r"growing a (?:tiny |little |small |mini )?(?:human|baby|person)|bun in the oven|"
            r"aphasia|apraxia|dysarthria|dysphasia|prosthe(?:sis|ses|tic)|amput\w*|"
            r"(?:after|since|post)[- ]stroke|"
            r"(?:sea|car|travel|motion|air)[- ]?sick\w*|"
            r"hives|anaphyla\w*|(?:comes?|came|coming) (?:out|up) in (?:a |hives|spots|a rash)|"
            r"(?:had|having|getting|got) (?:my |the |a |her |his )?(?:hip|knee|shoulder|cataracts?|"
            r"gallbladder|hernia|bunions?|appendix|tonsils|wisdom teeth) (?:done|replaced|removed|"
            r"out|operated on|seen to)|(?:hip|knee|shoulder|back|heart) (?:op|operation)|"
            r"an operation on|(?:appendic|vasec|hysterec|mastec|tonsillec)tomy|warfarin|insulin|"
            r"metformin|statins?|anti-?depressants?|ssris?|sertraline|fluoxetine|prozac|"
            r"ozempic|wegovy|mounjaro|zepbound|saxenda|semaglutide|tirzepatide|"
            r"blood thinners?|inhalers?|steroids?|antibiotics|beta[- ]blockers?|the pill|"
            r"birth control|painkillers?|hrt|levothyroxine|methotrexate|"
            r"cigarettes?|nicotine|bad (?:back|knees?|hips?|shoulders?|ankles?|heart)|"
            r"partially sighted|visually impaired|screen readers?|guide dog|crutches|"
            r"walking stick|hard of hearing|cochlear|pacemaker|stents?|angioplasty|"
            r"(?:heart|coronary|triple|double|quadruple) bypass|stoma|stammer\w*|stutter\w*|"
            # a reading of a test ("ferritin was 8", "HbA1c 52")
            r"ferritin|hba1c|a1c|vit(?:amin)? ?d|b12|ldl|hdl|egfr|glucose|blood sugars?|"
            r"bp(?! (?:oil|shares?|stations?|garages?|petrol))|"
            # the same in the languages chat mixes into English ("soy celíaca", "sono incinta")
            r"diabétic\w*|al[ée]rgic\w*|c[ée]liaque|celíac\w*|celiachia|"
            r"z[öo]liakie|embarazada|gr[áa]vida|gravid|incinta|schwanger|enceinte|zwanger|hamil|buntis|"
            r"asma|astma|silla de ruedas|cadeira de rodas|sedia a rotelle|fauteuil roulant|"
            r"rollstuhl|rolstoel|"
            rf"{_INJURED}|"
            # a condition named by its ending ("hip dysplasia", "tendinitis", "neuropathy")
            r"\w{2,}(?:itis|osis|opathy|plasia))\b",
        ),
        (
            "diet",
            3.0,
            r"\b(?:vegan\w*|vegetari\w*|v[ée]g[ée]tarien\w*|pescatarian\w*|gluten|dairy|lactose|"
            r"halal|kosher|alcohol|sober|lakto[sz]\w*|"
            r"booze|"
            r"teetotal(?:ler)?|tee-total|non-?drinker|"
            r"diet\w*|don'?t eat|do not eat|can'?t eat|don'?t drink|spicy|sugar|meat|nuts?|"
            r"caffeine|coffees?|veggie|keto|paleo|whole30|low[- ]carb|fodmap|plant[- ]based|"
            r"pure[- ]veg|non[- ]veg|eggetarian|"
            r"count(?:ing|s)? (?:the |his |her |their |our |my )?carbs|carb[- ]?count\w*|"
            r"dry (?:january|july|month)|sober (?:october|curious)|"
            r"(?:intermittent )?fasting|(?:i|we) fast(?![- ]?(?:forward|track|food|charg)))\b",
        ),
        (
            "people",
            2.5,
            r"\b(?:wife|wifey|husband|hubby|spouse|sons?|daughters?|kids?|child|children|"
            r"partner(?![ -](?:company|companies|firms?|organi[sz]ations?|agenc(?:y|ies)|brands?|"
            r"schools?|universit(?:y|ies)|programm?e?s?|sites?|networks?|banks?|business(?:es)?|"
            r"accounts?|portals?|apis?|integrations?|stores?|shops?|retailers?|vendors?|charit"
            r"(?:y|ies)|manager|track|level|meeting|call|deck|pitch|deal|contract|agreement))|"
            r"missus|missis|the mrs|other half|better half|"
            r"twins|baby|twin (?:boys|girls|sons|daughters|brothers?|sisters?)|"
            r"(?:two|three|four|\d) (?:little )?(?:boys|girls)\b|"
            r"babies|toddlers?|newborns?|infants?|teenagers?|(?:\d+|one|two|three|four|five|six|"
            r"seven|eight|nine|ten)[- ](?:year|month)[- ]olds?|"
            r"step(?:son|daughter|kid|child|children|mom|mum|dad|mother|father)s?|"
            r"brothers?|sisters?|sibling\w*|mother|mom|mum|father|dad|parents?|grand\w+|cousins?|"
            r"in-laws|inlaws|"
            r"gran|granny|grannie|nana|nanna|(?:my|our) nan|nan(?=['’]s |\s(?:is|was|lives|has|"
            r"had)\b)|"
            r"aunts?|uncles?|nieces?|nephews?|fianc[ée]e?|girlfriend|boyfriend|married|family|"
            r"friend|(?:my|our|best|close|old) friends|best mates?|roommates?|flatmates?|"
            r"colleague|boss|wedding|anniversary|engaged|honeymoon|divorc\w*|tied the knot|"
            r"adoption|fostering|adopting (?:a |an |our |my |two |three )?(?:little |baby |young )?"
            r"(?:boy|girl|child|children|baby|kids?|son|daughter|siblings?)\b|"
            r"got hitched|proposal|pop(?:ped|ping)? the question|"
            r"propos(?:e|ed|ing) to (?!(?:the|a|an|our|their|this|that|it|them)\b)|"
            r"school (?:run|drop-?offs?|pick-?ups?)|home-?school\w*|unschool\w*|"
            r"(?:take|took|taken|taking|pull|pulled|pulling) \w+(?: \w+)? out of (?:school|"
            r"nursery|daycare|day care|preschool|kindergarten)|"
            r"(?:my|our|\d|two|three|four|five|six) (?:little |young |teenage |"
            r"grown-up )?(?:boys|girls)|"
            r"relationship|dating|couple(?! of)|met (?:someone|somebody)|"
            r"(?:i['’]?m|am|been|started|starting) seeing (?:someone|somebody)|"
            r"(?:my|our) (?:youngest|eldest|oldest|middle (?:one|child)|little ones?)|"
            r"the (?:little|wee) ones?|"
            r"widow\w*|empty nesters?|single (?:again|now|mom|mum|dad|parent|after|since|for|"
            r"at the moment|right now|these days|atm)|"
            r"expecting (?:(?:our|my|a|another) (?:first|second|third|fourth|\d(?:st|nd|rd|th)|"
            r"baby|boy|girl|little one)|twins)|expecting(?: again\b|(?=\W*$))|due date|"
            r"baby (?:number|no\.?|#) ?(?:\d|two|three|four)|"
            # one's family named in another language ("mi esposo", "meri beti", "lola ko")
            rf"(?:{_OWN_ABROAD}) (?:{_FAMILY_ABROAD})|(?:{_FAMILY_ABROAD}) (?:ko|saya|aku)|"
            r"eşim|kocam|karım|oğlum|kızım|annem|babam|çocuklarım)\b",
        ),
        (
            "pets",
            2.5,
            r"\b(?:dog|cat|hamster|pet|puppy|pup|kitten|rabbit|bunny|parrot|bird|"
            r"(?:pet|tropical) fish|fish tank|horse|"
            r"tortoise|turtle|guinea pig|lizard|snake|ferret|collie|retriever|terrier|spaniel|"
            r"labrador|poodle|greyhound|beagle|husky|huskie|corgi|pug|dachshund|chihuahua|"
            r"bulldog|rottweiler|labradoodle|goldendoodle|cockapoo|schnauzer|shih tzu|pomeranian|"
            r"doberman|dalmatian|whippet|ragdoll|tabby|budgie|cockatiel|parakeet|gecko|"
            r"chinchilla|goldfish|axolotl|hedgehog|gerbil|pony|ponie|bearded dragon|iguana|"
            r"tarantula|cockatoo|macaw|canary|canarie|mare|stallion|gelding|foal|donkey|alpaca|"
            r"hen(?! (?:do|party|night|weekend)\b))s?\b",
        ),
        (
            "belongings",
            1.5,
            # "We're an Apple household": the brand its things are
            rf"\b(?:{_OWNED}|(?:a|an) (?:[\w&'’-]+ ){{1,2}}household|{_DEVICES})\b",
        ),
        (
            "work",
            2.0,
            r"\b(?:work(?!outs?\b)\w*\b(?!\s+out\b)|jobs?|career|profession|teach\w*|student|"
            r"stud(?:y|ying|ied)|exams?|"
            # the year of a course ("third year architecture at Westminster", "2nd year law
            # student"), not of anything else ("second year in a row", "first year of marriage")
            r"(?:first|second|third|fourth|fifth|final|1st|2nd|3rd|4th|5th)[- ]year (?!(?:in|of|at|"
            r"on|with|and|or|is|was|old|olds|running|anniversary|now|ago|so|but)\b)[a-z]+"
            r"(?: [a-z]+)? (?:student|undergrad|here|at)|"
            r"wfh|commut\w*|(?:parental|maternity|paternity) leave|secondment|"
            r"(?:on|doing) (?:a |my )?placement|rotations? (?:in|at)|"
            r"shortlisted|(?:got|get|have|had|landed|bagged) (?:an?|my|the) (?:[\w-]+ )?interview|"
            r"(?:final|second|first|panel|job|phone) interviews?|final[- ]round|"
            rf"{_TRADE}|"
            r"tours? of duty|(?:two|three|four|five|\d) tours (?:in|of)|(?:in|with|joined|left) "
            r"the (?:army|navy|"
            r"air force|raf|marines|military|armed forces|reserves)|"
            r"degree|phd|master'?s|bachelor'?s|universit\w*|college|school|dissertation|thesis|"
            r"msc|bsc|mba|mphil|pgce|cfa|acca|cima|cpa|"
            r"supervis(?:e|es|ing|or|ors)|(?:on|do|doing|work|working) nights|"
            r"(?:\d|two|three|four|five) on,? (?:\d|two|three|four|five) off|"
            r"manag(?:e|es|ing) (?:a|the|my|our) (?:[\w-]+ )?team|direct reports|"
            r"compan(?:y|ies)|office|"
            r"retir\w*|business|employer|intern\w*|shift\w*|hired|promot\w*|salary|for a living|"
            r"startup|firm|freelanc\w*|self-employed|unemployed|colleagues?|coworkers?|"
            r"sole (?:trader|proprietor(?:ship)?)|(?:independent |self-employed |building )"
            r"contractor|"
            r"bootcamp|apprenticeship|traineeship|"
            r"(?:\d(?:st|nd|rd|th)|first|second|third|fourth|final) year (?:at|of|student)|"
            r"furlough\w*|signed off|sick leave|(?:new|first|current) role|role (?:as|at)|"
            r"on call|"
            r"earn(?:s|ing)? (?:about |around |roughly |over |under )?[£$€]?\d[\d,.]*k?|"
            r"(?:run|runs|running|own|owns|opened) (?:a|an|my|our) (?:[\w'-]+ ){0,2}(?:shop|store|"
            r"caf[eé]|restaurant|pub|salon|bakery|studio|practice|agency)|"
            rf"(?:quit|left|resigned from) (?:the|my) (?:[\w'-]+ )?(?:{_WORKPLACES})|"
            r"redundan\w*|laid off|(?:got|been|was|were) (?:fired|sacked)|"
            r"clients?|customers?|(?:our|my|tech|software) stack|codebase|monorepo|"
            r"(?:fiscal|financial) year|(?:fully|all) remote|b2b|saas|"
            rf"graduat\w*|{OCCUPATIONS})\b",
            r"\b(?:start(?:ed|ing)|join(?:ed|ing)) (?:at |with )?(?-i:[A-Z])|"
            r"\bfirst (?:day|week|shift) (?:at|with) (?:the )?(?-i:[A-Z])",
        ),
        (
            "home",
            2.0,
            r"\b(?:live|lived|living|moved|moving|relocat\w*|flat|apartment|house|home|renovat\w*|"
            r"neighbou?rhood|rent\w*|grew up|born|raised (?:in|on)|from(?! now on)|based in|"
            r"off[- ]grid|"
            # living somewhere, in the languages chat mixes into English ("moro em Curitiba")
            r"moro (?:em|no|na)|vivo (?:en|a|in)|abito (?:a|in)|j'habite|ich wohne|ik woon|"
            r"mieszkam w|"
            # how the home is connected ("We only have satellite internet out here")
            r"satellite internet|broadband|fib(?:re|er) (?:broadband|internet)|starlink|"
            r"(?:no|poor|bad|patchy|terrible) (?:mobile |phone |cell )?(?:signal|reception)|"
            r"bungalow|semi-detached|(?:end|mid)[- ]terrace|terrace(?:d)? house|townhouse|"
            r"town house|condo|duplex|bedsit|maisonette|houseboat|weatherboard|tiny house|"
            r"mobile home|council (?:house|flat|estate)|tower block|high[- ]rise|granny flat|"
            r"row ?house|brownstone|walk-?up|farmhouse|studio (?:flat|apartment)|"
            r"(?:tiny|small|little|cramped|one-room) studio|"
            r"(?:\d{4}s|a|our|my) semi(?!-| (?:finals?|pro|professional|automatic|retired|"
            r"permanent|formal|regular|skimmed|colon|circle|trucks?)\b)|"
            r"\d+(?:[.,]\d+)? ?(?:square (?:metres?|meters?|feet|foot)|sq\.? ?(?:m|ft|feet|metres|"
            r"meters)|m²|m2|sqm|sqft)|"
            r"on the (?:\d+(?:st|nd|rd|th)|ground|top|first|second|third|fourth|fifth|sixth|"
            r"seventh|eighth|ninth|tenth|\w+teenth) floor|no (?:lift|elevator)|"
            r"zone \d{1,2}[ab]?|"
            r"asbestos|subsidence|dry rot|rising damp|hoa|strata|body corporate|"
            r"power (?:cuts|outages)|load[- ]?shedding|septic tank|"
            r"landlord|landlady|letting agent|tenancy|(?:signed|signing) (?:a|the|our) lease|"
            r"\d ?bhk|(?:bought|buying|leas(?:ed|ing)) (?:a|an|our|my|the) (?:[\w-]+ )?place|"
            r"(?:redo(?:ing)?|redid|re-doing|doing up|did up|remodel\w*|refurb\w*|refit\w*|"
            r"extending) (?:(?:the|our|my|an?) )?(?:(?:old|new|little|whole) )?(?:kitchen|"
            r"bathroom|house|flat|loft|attic|basement|garden|living room|bedroom|garage|"
            r"farmhouse|cottage|barn|cabin|home|place|property))\b|"
            r"\bwhere (?:\w+ ){0,3}based\b",
            # "Finally settled in Kitsilano!": a place's name, not a month or a day
            rf"\bsettl(?:ed|ing) in(?:to)? (?:the )?(?!(?i:{_MONTH_OR_DAY})\b)(?-i:[A-Z])|"
            # a bio's pin on a place: "📍 Phoenix AZ", "📍Lagos → Toronto"
            r"📍 ?(?-i:[A-Z])",
        ),
        (
            "identity",
            2.0,
            r"\b(?:my name|i'?m called|call me|calls me|go(?:es)? by|known as|nickname|years old|"
            r"speak\w*|language|native|nationality|fluent|bilingual|trilingual|multilingual|"
            r"mother tongue|"
            r"citizen|religio\w*|pronouns?|he/him|she/her|they/them|trans (?:man|woman)|"
            r"transgender|non-?binary|(?:left|right)[- ]?hand(?:ed|ers?)|ambidextrous|"
            rf"(?:i['’]?m|i am|we['’]?re|we are|as|raised|born) (?:an? )?(?:{_FAITHS})|"
            r"(?:go|goes|going|went) to (?:the )?(?:mosque|church|synagogue|temple|gurdwara|mass)|"
            r"(?:keep|keeps|keeping|kept|observe|observes|observing) (?:the )?(?:shabbat|shabbos|"
            r"sabbath|lent|ramadan)|fast(?:s|ing)? (?:for|during|on) (?:ramadan|lent|yom kippur)|"
            r"pray(?:s|ing)? (?:five|5) times|"
            r"turn(?:ed|ing|s)? \d+(?= (?:today|tomorrow|yesterday|next|last|this|on|in|soon)\b|"
            r"\W*$)|turn(?:ed|ing) \d+(?= (?:and|but)\b|,)|"
            r"in (?:my|his|her|their) (?:early |mid |mid-|late )?(?:[1-9]0s|teens|twenties|"
            r"thirties|forties|fifties|sixties|seventies|eighties|nineties)|"
            rf"^\W*(?:(?:an? )?{_FAITHS}(?=\W*$|,| (?:and|but|so|here|myself|by)\b)|"
            r"(?:early|mid|late)[- ]?(?:[2-9]0s|twenties|thirties|forties|fifties|sixties|"
            r"seventies|eighties|nineties))|"
            r"(?:nearly|almost) [1-9]\d(?=\W*$|,| and\b| now\b| years\b| myself\b))\b",
            # a mixed heritage ("Half Japanese, half Scottish."), led by a literal for speed
            r"(?-i:alf[- ][A-Z])(?<=\b[Hh]alf[- ][A-Z])",
        ),
        (
            "plans",
            1.5,
            r"\b(?:going to|planning|plan|trip|travel\w*|visit\w*|fly|flying|flights?|booked|"
            r"marathon|race|"
            r"festival|holiday|vacation|deadline|due|next (?:week|month|year)|tomorrow|"
            r"preparing|training|appointment|interview|concert|birthday|conference|"
            r"hosting(?! (?:costs?|providers?|company|companies|plans?|services?|fees?)\b)|"
            r"head(?:ing|ed) (?:back )?to|off to|(?:on|this|next) (?:monday|tuesday|wednesday|"
            r"thursday|friday|saturday|sunday|weekend)|congress|symposium|keynote|"
            r"graduation|audition|tournament|"
            # a day of the calendar ("on March 18", "July 30 and 31", "the 3rd of May"; not
            # "may 5", which may be the verb)
            rf"(?!may\b)(?:{MONTH_NAMES})\.? \d{{1,2}}(?:st|nd|rd|th)?|"
            rf"\d{{1,2}}(?:st|nd|rd|th)? (?:of )?(?:{MONTH_NAMES}))\b",
        ),
        (
            "constraints",
            1.5,
            r"\b(?:budget|afford|money|loans?|debt|savings?|no more than|at most|can'?t|cannot|"
            r"\d{1,2}(?::\d\d)? ?[ap]m ?(?:to|till|until|-|–) ?\d{1,2}(?::\d\d)? ?[ap]m|"
            r"\d{1,2}(?::\d\d)? ?(?:[ap]m)? ?(?:til|till) ?\d{1,2}(?::\d\d)?(?: ?[ap]m)?|"
            r"spend up to|(?:free|available) (?:on|at|in|after|before|"
            r"until|till|most|every|weekends|evenings|mornings)|"
            r"unable|avoid|never|only|without|don'?t (?:drive|fly)|do not (?:drive|fly)|skint|"
            r"(?:stopped|gave up|given up|giving up|quit) driving|no longer drive|"
            r"(?:driving|driver'?s?) licen[cs]e|"
            rf"overdraft|credit (?:score|rating|history)|fico|{_PAYING_OFF})\b",
        ),
        (
            "fitness",
            1.5,
            r"\b(?:gym|workouts?|work(?:s|ed|ing)? out\b(?!\s+(?:what|how|whether|if|why|when|"
            r"where|which|who|the|a|an|my|your|our|his|her|their|it|this|that|fine|well|ok|okay|"
            r"great|perfectly|badly|nicely|alright|better|for the best|in the end)\b)|exercis\w*|"
            r"fitness|running|jog\w*|cycling|cycle|biking|"
            r"swim\w*|yoga|pilates|hik(?:e|es|ed|ing)|climbing|boulder\w*|sports?|football|"
            r"soccer|tennis|judo|karate|taekwondo|jiu[- ]?jitsu|kickboxing|martial arts|"
            r"black belt|"
            r"basketball|crossfit|triathlons?|ironman|couch to 5k|half[- ]marathons?|marathon"
            r"(?<!movie marathon)(?<!gaming marathon)(?<!film marathon)(?<!tv marathon)"
            r"(?<!binge marathon)(?<!reading marathon)s?|parkrun|rugby|netball|"
            r"badminton|volleyball|hockey|baseball|skiing|snowboarding|surfing|kayaking|"
            r"weightlifting|powerlifting|zumba|spin class(?:es)?|muay thai|"
            r"weight|(?:lose|lost|losing|gain|gained|put on) (?:\w+ ){0,2}"
            r"(?:kg|kilos?|lbs?|pounds|stone)|"
            r"i run (?=\d|(?:about|around|every|daily|most|marathons?|half|regularly|a lot)\b))\b",
        ),
        (
            "tastes",
            1.0,
            r"\b(?:love|like|enjoy|hate|dislike|prefer|favou?rite|fans?|into|can'?t stand|"
            r"hobby|hobbies|play|plays|playing|learning|collect\w*|obsessed|addicted|"
            r"learn(?:ed|t) (?:how )?to|"
            r"(?:taking|took|taken) up(?! (?:(?:the|my|our|your|his|her|their) )?(?:whole|"
            r"entire|rest|time|day|days|evening|weekend|all|most|much|so much|too much|space|"
            r"room|a lot)\b)|"
            r"crazy about|big on|passionate|keen|avid|can'?t get enough|supporters?|volunteer\w*|"
            r"(?:is|are) the worst|(?:is|are) (?:so |totally |massively )?overrated|nemesis|"
            r"season[- ]tickets?|"
            r"(?:pianos?|guitars?|violins?|violas?|cellos?|double bass|drums|drum kits?|ukuleles?|"
            r"banjos?|mandolins?|harps?|flutes?|clarinets?|oboes?|bassoons?|saxophones?|sax|"
            r"trumpets?|trombones?|tubas?|french horns?|accordions?|harmonicas?|synths?|"
            r"synthesi[sz]ers?|bagpipes))\b",
            r"\blearn(?:ed|t) (?-i:[A-Z])",  # "learned Hangul last month": a skill taken up
        ),
        ("manner", MANNER_WEIGHT, _NEVER_OFFER, _STANDING),
    )
)
"""Kinds of subject a statement about the user touches, each with the weight it adds to the
statement's salience."""

_LOWERED = PatternSet({kind.name: kind.lowered for kind in _KINDS if kind.lowered is not None})
"""The kinds' lower-cased patterns, asked together: every sentence a user writes is read for
all of them."""


_DEPENDANTS = _kind(
    "dependants",
    1.5,
    r"\b(?:wife|husband|hubby|partner|spouse|fianc[ée]e?|missus|other half|better half|kids|"
    r"children|sons?|daughters?|twins|bab(?:y|ies)|toddlers?|newborns?|infants?|"
    r"step(?:son|daughter|kid|child|children)s?|(?:my|our) (?:\w+ )?(?:kid|child)|"
    r"single (?:mom|mum|dad|parent)|pregnan\w*|expecting (?:our|my|a|another|twins)|"
    r"(?:my|our|\d|two|three|four|five|six) (?:little |young |teenage |grown-up )?"
    r"(?:boys|girls)|(?:my|our) (?:youngest|eldest|oldest|little ones?)|carer for|"
    r"caring for (?:my|our))\b",
)
"""Read for weight only, and only where a person or health is touched (each of its words is
one): the people the user lives with and answers for (a partner, children, a baby on the way)
shape most of the advice they ask for, so they rank above a friend or a niece."""
_HOLDS_DEPENDANTS = frozenset({"people", "health"})


def _named_patterns(named: Iterable[tuple[str, str]]) -> tuple[tuple[str, re.Pattern[str]], ...]:
    """(name, pattern) pairs compiled case-blind: the rules' tables of named patterns."""
    return tuple((name, re.compile(pattern, re.IGNORECASE)) for name, pattern in named)


_ASKED = _named_patterns(
    (
        (
            "health",
            r"\b(?:allerg\w*|health\w*|medical|medications?|conditions?|illness\w*|diseases?|"
            r"disabilit\w*|injur\w*|diagnos\w*|vision|eyesight|sight|hearing|mobility)\b",
        ),
        ("diet", r"\b(?:diet\w*|foods?|eats?|eating|meals?|cuisine|restrictions?)\b"),
        (
            "people",
            r"\b(?:family|families|relatives?|partners?|spouse|kids|children|friends?|"
            r"relationships?|people)\b",
        ),
        ("pets", r"\b(?:pets?|animals?)\b"),
        ("belongings", r"\b(?:cars?|vehicles?|belongings|possessions|property|properties)\b"),
        (
            "work",
            r"\b(?:jobs?|occupation|profession|career|work|works|employer|company|for a living|"
            r"linkedin|(?:my|a|the|new) (?:cv|résumé|resume)|cover letter|"
            r"skills?|(?:what|things?) I['’]?m good at|side (?:hustle|gig|income)|"
            r"(?:extra|more) (?:money|income|cash)|(?:my|our) (?:line )?(?:manager|boss|"
            r"colleagues?|co-?workers?|team ?lead)|performance review|(?:annual|yearly|quarterly|"
            r"mid-year|end-of-year) review|appraisal|promotion|pay rise|"
            r"(?:my|our) (?:own |small |little )?(?:business|shop|store|bakery|caf[eé]|restaurant|"
            r"salon|studio|practice|agency|firm))\b",
        ),
        (
            "home",
            r"\b(?:lives?|living|home|address|location|city|town|hometown|country|resides?)\b|"
            r"\bwhere (?:\w+ ){0,3}based\b",
        ),
        ("identity", r"\b(?:name|age|languages?|nationality|background)\b"),
        ("plans", r"\b(?:plans?|trips?|upcoming|events?|schedule|travels?|travell?ing)\b"),
        (
            "constraints",
            r"\b(?:budgets?|constraints?|limits?|restrictions?|afford\w*|worth (?:buying|the "
            r"money)|(?:which|what) (?:\w+ ){0,2}should (?:I|we) (?:buy|get|choose|pick))\b",
        ),
        (
            "fitness",
            r"\b(?:exercis\w*|fitness|sports?|workouts?|training|physical activit\w*|gym|active)\b",
        ),
        (
            "tastes",
            r"\b(?:hobb(?:y|ies)|interests?|likes|dislikes?|preferences?|favou?rites?|tastes?)\b",
        ),
        ("manner", r"\b(?:preferences?|instructions?|style|format\w*|tone|language)\b"),
    )
)
"""The words a search uses to ask for a kind of profile statement ("allergies", "pets",
"hobbies", "where does she live"): a model's memory search often names the kind, not the fact."""
_ASKED_RULES = PatternSet(dict(_ASKED))
"""The same, asked together (every assistant question before a user's message is read for all)."""

_NO_LONGER = r"no longer "
"""A negation that still speaks of the subject ("I no longer live in Porto"): it ends the older
statement all the same. A "don't" counts only with "anymore" (`_not_anymore`): "I don't live far
from the sea" says nothing new about where."""


def _not_anymore(verb: str) -> str:
    """The pattern of "I don't <verb> in/at/as/for ... anymore"."""
    return rf"\bI (?:don['’]?t|do not) {verb} (?:as|at|for|in)\b[^.!?]*\bany ?more\b"


_NO_OBJECT = (
    r"(?!\s+(?:the|a|an|it|them|this|that|these|those|some|all|everything|our|my|his|her|their|"
    r"your)\b)"
)
"""After "moved": not a thing moved ("I moved the meeting to Friday" says nothing of a home)."""
_NOT_A_HOME_MOVED = (
    r"(?!\s+(?:teams?|desks?|jobs?|departments?|roles?|offices?|schools?|banks?|seats?|classes|"
    r"groups?|positions?|careers?|companies|sides|on|forward|ahead|over|things|stuff|furniture|"
    r"money|funds|savings|gyms?|doctors?|gps?|dentists?|providers?|suppliers?|networks?|phones?|"
    r"broadband|tables?|shifts?|dates?|appointments?|meetings?|plans?|churches|clubs?|leagues?|"
    r"divisions?|levels?|grades?|courses?|universities|unis?|labs?|projects?|branches|stores?)\b)"
    r"(?!\s+(?:on ?to|to|into)\s+(?:(?:the|a|an|my|our|new|different|another|permanent|"
    r"full-time|part-time)\s+)*"
    r"(?:(?:night|day|early|late|evening|weekend)\s+)?(?:shifts?|nights|days|earlies|lates|teams?|"
    r"rotas?|roles?|jobs?|positions?|departments?|wards?|schedules?|hours|contracts?|plans?|"
    r"versions?|platforms?|systems?|projects?)\b)"
)
"""After "moved", what is no home: a team, a job, a desk, a provider ("I moved teams at work"),
also after "to" or "onto" ("I moved onto night shifts", "moved to the day team")."""

_PLACE = r"(?:the )?(?-i:[A-Z])"
"""A place's or an employer's name ("in Porto", "in the Bay Area", "at Google"), which says
where, where "I live with two roommates" or "I'm a volunteer at the food bank" does not. A
sentence typed without capitals has its words' capitals restored first (`_topics_of`)."""

_DWELLING = (
    r"(?:flat|house|apartment|room|place|home|studio|cottage|bungalow|condo|bedsit|maisonette|"
    r"townhouse|loft|duplex|houseboat|(?:one|two|three|four|[1-4])[- ]bed(?:room)?)"
)
"""What one lives in: "I'm renting a flat in Hackney" is a home, "We're renting a car in
Spain" is not."""

_JUDGED = (
    r"(?:terrible|awful|bad|good|great|decent|brilliant|amazing|rubbish|lousy|poor|hopeless|"
    r"amateur|hobby|aspiring|wannabe|budding|failed|frustrated|keen|secret|closet|weekend|"
    r"part-time hobby)\b"
)
"""Words that make "I'm a terrible artist" a judgement or a pastime, not the user's job."""

_DIET_DROPPED = (
    r"(?:just )?(?:gave up|quit|stopped|dropped|came off) (?:the )?"
    r"(?:keto|paleo|whole30|vegan|vegetarian|veganism|vegetarianism|pescatarian)\b"
)
_STARTED_DATING = (
    r"(?:just |finally |recently )?started (?:seeing|dating) (?:someone\b|(?-i:[A-Z])|(?:a|an) "
    r"(?:\w+ )?(?:guy|girl|man|woman|lad|bloke|lass)\b)"
)

_JOINED_AS = (
    r"(?:just |finally |officially |recently )?joined (?-i:[A-Z])[\w&.'’-]*"
    r"(?: (?-i:[A-Z])[\w&.'’-]*)*(?: (?:today|yesterday|this week|last week|on \w+))? "
    r"(?:as (?!(?:a |an |the )?(?:member|guest|volunteer|customer|patient)s?\b)\w|"
    rf"in (?!(?:the|a|an|my|our|{_MONTH_OR_DAY})\b)(?-i:[a-z]))"
)
"""Joining an employer in a role or a department ("Joined PayNest today as backend engineer",
"since I joined Novacare Pharma in regulatory affairs"), said with "I" or without it (two
branches: one opening with "I" shares the prefix tree of the others)."""
_HIRED = r"(?:just |finally |officially )?(?:got|been|was) hired (?:at|by) \w"
_PHONE = (
    r"(?:iphone|pixel|galaxy|samsung|oneplus|motorola|moto|nokia|xiaomi|huawei|oppo|fairphone|"
    r"xperia|blackberry)\b"
)
"""A phone by its make."""
_STACK = (
    r"\b(?:we(?:['’]re| are)|(?:our|my) (?:[\w-]+ ){0,3}(?:team|company|org|department|"
    r"employer|workplace|firm|shop)(?:['’]s| is)) (?:a|an|all|purely|strictly|basically) "
    r"(?:(?:[\w-]+ )?(?-i:[A-Z.#+])[\w#+.-]*|(?-i:[A-Z.#+])[\w#+.-]* \w+) shop\b|"
    r"\b(?:our|my|the) (?:tech |team['’]s |company['’]s |work |whole )?stack is\b|"
    r"\bwe (?:only |mostly |all |just )?(?:write|code in|program in|develop in|build in) "
    r"(?!(?i:it|everything|all|our|the|a|an)\b)(?-i:[A-Z.#+])[\w#+.-]*"
)
"""The languages and tools the user's work is done in ("our whole backend team is a Kotlin
shop", "our stack is Django and Postgres", "we write Go"): what code asked for is written in."""
_STACK_TOLD = re.compile(_STACK, re.IGNORECASE)

_CAMERA = (
    r"(?:canon|nikon|sony|fuji(?:film)?|olympus|lumix|panasonic|pentax|leica|gopro|ricoh|dslr|"
    r"mirrorless)\b(?! (?:printers?|tvs?|headphones|speakers?|playstation|microwave)\b)"
)
"""A camera by its make, or what kind it is."""
_LAPTOP = (
    r"(?:macbook|thinkpad|chromebook|dell|lenovo|asus|acer|razer|surface|hp|mac)\b"
    r"(?! (?:printers?|monitors?|keyboards?|mouse|mice|tablets?|ink|screens?|chargers?)\b)"
)
"""A laptop by its make (not the make's printer or screen)."""


_GOT_FOR = (
    r"(?:my |our )?(?:son|daughter|kids?|child|children|wife|husband|partner|mum|mom|dad|mother|"
    r"father|sister|brother|nan|gran|grandma|grandad|friend|boyfriend|girlfriend|him|her|them)\b"
)
"""Someone a thing may be got for ("an iPhone for my son": not the user's own)."""


def _device(nouns: str, makes: str) -> str:
    """The pattern of a device the user has (`nouns`: what it is called, `makes`: its makes):
    "my phone is a Pixel 7", "I have a Pixel", "I switched to an iPhone", "Got a new phone"; not
    one got for someone else ("I got an iPhone for my son"), nor what it is like ("my phone's a
    mess")."""
    new = (
        rf"(?:just |finally )?(?:got|bought) (?:a|an|myself a) new (?:{nouns})\b"
        rf"(?![^.!?;]*\bfor {_GOT_FOR})"
    )
    return (
        rf"\bmy (?:new |current |work )?(?:{nouns})(?: is|['’]s) (?:a|an|the) "
        r"(?:(?:new|old|used|refurbished|second-hand|cheap|basic|budget|\d{4}) )*"
        rf"(?:(?-i:[A-Z0-9])|{makes})|"
        r"\bI (?:now |still |currently |just |finally )?(?:have|use|own|got|bought) (?:a|an|the) "
        rf"(?:new |used |refurbished |old |second-hand )?{makes}(?![^.!?;]*\bfor {_GOT_FOR})|"
        r"\bI(?:['’]ve| have)? (?:just |finally |recently |now )?(?:switched|changed|upgraded) "
        r"(?:back )?(?:over )?(?:from (?:an? |my |the )?[\w-]+(?: [\w-]+){0,2} )?to "
        rf"(?:an? |the )?(?:new )?{makes}|"
        rf"\bI {new}|^\W*{new}|"
        rf"\bmy (?:{nouns}) (?:was|got|has been) (?:stolen|snatched|nicked|pinched)\b|"
        rf"\b(?:gave|handed|passed) me (?:her|his|their|an?) (?:old |spare |used )?{makes}"
    )


_NOT_SINCE = (
    r"(?:(?<!since )(?<!after )(?<!before )(?<!until )(?<!till )|"
    r"(?=\w+(?:['’]ve| have)? (?:\w+ )?(?:moved|relocated) (?:back )?(?:to|into) ))"
)
"""Not a move told as the time of something else without where to ("Antek is scared of the
dark since we moved"): told before, it ends no home for being mentioned again; "ever since I
moved to Oslo" still says where. Written after a look for the word it stands before
(`\b(?=I)`), so its look-behinds are read there only, not at every position of a sentence."""

_SHIFTS = (
    r"(?:(?:permanent|regular|fixed|rotating|the|\d+-hour|twelve-hour|long|overnight) )*"
    r"(?:nights|evenings|weekends|earlies|lates|days(?! off\b)|"
    r"(?:night|day|early|late|evening|graveyard|overnight|rotating|swing|split|weekend)"
    r"[- ]?shifts?)\b"
)
"""A pattern of shifts one works ("night shifts", "permanent nights", "earlies")."""

_TOPICS = _named_patterns(
    (
        (
            "home",
            rf"\b(?:I(?:['’]?m| am|['’]ve been| have been)?|"
            rf"we(?:['’]re| are|['’]ve been| have been)?) "
            rf"(?:just |recently |now |finally |currently |still )?"
            rf"(?:live|living) (?!for\b)(?:[\w'’-]+ ){{0,8}}?(?:in|on) {_PLACE}|"
            r"\b(?:my|our) new (?:place|house|flat|apartment|home)\b|\band (?:just )?moved in\b|"
            r"\b(?:been|settled|moved) in(?:to)? (?:the|our|my) new (?:place|house|flat|apartment|"
            r"home|condo)\b|"
            rf"\bI(?:['’]?m| am) (?:an? )?(?:[\w-]+ ){{1,5}}?living (?:in|on) {_PLACE}|"
            r"\bfirst (?:night|day|week) in (?:my|our) (?:own |new )+(?:place|house|flat|apartment|"
            r"home|studio)\b|"
            rf"\b(?=I){_NOT_SINCE}I(?:['’]?ve| have)? (?:just |recently |finally |now )?"
            rf"(?:moved|relocated){_NO_OBJECT}{_NOT_A_HOME_MOVED}(?! (?:here|there)\b)\b|"
            r"\bI no longer live\b|\bI'?m based in\b|\bmy (?:new )?home is\b|"
            rf"\b(?:I|we)(?:['’]ve| have)? (?:just |recently |finally |now )?settled in(?:to)? "
            rf"(?!(?:the )?(?i:{_MONTH_OR_DAY})\b){_PLACE}|"
            rf"\b(?:I|we)(?:['’]m| am|['’]re| are) now in (?:a|an|our|my) (?:[\w'’-]+ ){{0,3}}?"
            rf"{_DWELLING} (?:in|on) {_PLACE}(?![^.!?]*\b(?:for the|this week|on holiday|hotel|"
            r"airbnb)\b)|"
            rf"\b(?:I|we)(?:['’]m| am|['’]re| are)? (?:now |still |currently )?(?:rent|renting) "
            rf"(?:a|an|our|my) (?:[\w'’-]+ ){{0,3}}?{_DWELLING} (?:in|on) {_PLACE}|"
            rf"\bgot the keys (?:to|for) (?:a|an|our|my|the) (?:[\w'’-]+ ){{0,3}}?{_DWELLING} "
            rf"(?:in|on) {_PLACE}|"
            r"\b(?:I|we)(?:['’]ve| have)? (?:just |finally |recently )?bought (?:a|an|our|my) "
            r"(?:first |own |new |forever |dream )*(?:home|house|flat|apartment|cottage|bungalow)\b"
            + NOT_TO_LIVE_IN
            + r"|"
            rf"\b(?=we){_NOT_SINCE}we(?:'ve| have)? (?:just |recently |finally )?"
            rf"(?:moved|relocated){_NO_OBJECT}{_NOT_A_HOME_MOVED}\b|" + _not_anymore("live"),
        ),
        (
            "work",
            rf"\bI (?:now |still |currently |{_NO_LONGER})?work "
            r"(?:\w+ly |full[- ]time |part[- ]time )?(?:as|at|for|in)\b|"
            r"\bI(?:['’]?m| am) (?:now |not |no longer )?(?:a|an) "
            r"(?!(?:freshman|sophomore|junior|senior|fresher|student|undergrad|member|regular|"
            r"patient|customer|volunteer|guest) (?:at|for)\b)\w+(?: (?!of\b)\w+){0,2} "
            rf"(?:(?:at|for) {_PLACE}|by profession\b)|"
            r"\bI(?:['’]?m| am) (?:now |not |no longer )?(?:a|an) "
            rf"(?:(?!of\b|{_JUDGED})[\w-]+ ){{0,3}}"
            rf"(?:{OCCUPATIONS}|teacher|doctor)\b|"
            r"\bmy new (?:job|employer)\b|\bmy (?:current )?job is (?:at|as|with)\b|"
            r"\bmy (?:current )?employer is\b|"
            rf"(?:\bmy |^\W*)first (?:day|week|shift) (?:at|with) {_PLACE}|"
            r"\bI(?:['’]?m| am|['’]ve been| have been) (?:now |currently |still )?working "
            rf"(?:(?:at|for) {_PLACE}|as (?:a|an)\b)|"
            rf"\bI (?:just |finally |recently |officially )?started (?:work |working |my new job |"
            rf"a new job |my new role )?(?:at|with) {_PLACE}|"
            r"\bI (?:just |finally |recently |officially )?started (?:my new job |work |working )?"
            rf"as (?:an? )?(?:[\w-]+ ){{1,4}}?(?:at|with|for) {_PLACE}|"
            r"\bI (?:just )?(?:started|got|took|quit|left|lost) (?:a |my |the )?(?:new )?job\b"
            r"(?! (?:offer|interview|application))|"
            r"\bI(?:['’]?m| am) (?:now )?retired\b|\bI (?:now )?teach\b|"
            r"\bI(?:['’]ve| have)? (?:just |finally |recently |now |officially )?retired\b"
            r"(?! (?:my|the|our|a|an|it|them|this|that|those|these)\b)|"
            r"\b(?:changed|switched) (?:careers?|jobs?)\b|"
            r"\bnot (?:at|with) (?-i:[A-Z])[\w&.-]*(?: (?-i:[A-Z])[\w&.-]*)* any ?more\b|"
            r"\bjoined (?:a |an )?(?:[\w-]+ )?(?:startup|company|firm|agency|practice|bank|"
            r"consultancy) (?:called|named) (?-i:[A-Z])|"
            rf"\bI {_JOINED_AS}|^\W*{_JOINED_AS}|"
            rf"\bI(?:['’]ve| have)? {_HIRED}|^\W*{_HIRED}|"
            r"\bI (?:was|got|['’]ve been|have been) (?:just )?(?:laid off|fired|let go|"
            r"made redundant)\b|"
            r"\bI (?:just |finally |recently )?(?:quit|left|gave up|stopped) (?:nursing|teaching|"
            r"accounting|accountancy|banking|law|medicine|consulting|engineering|journalism|"
            r"retail|hospitality|finance|marketing|sales|academia|social work|the (?:army|navy|"
            r"military|police|nhs|civil service))(?=\s*(?:$|[,.;:!—–-]|(?:for|after|in|last|"
            r"this|to|and|at|when|because|since|years?|months?|ago)\b))|"
            r"\bI(?:['’]?m| am) (?:now )?retraining (?:as|to be(?:come)?) (?:a|an)\b|"
            + _not_anymore("work"),
        ),
        (
            "diet",
            r"\bI(?:['’]?m| am) (?:now |not |no longer )?(?:an? )?"
            r"(?:vegan|vegetarian|pescatarian)\b|"
            r"\bI stopped being (?:an? )?(?:vegan|vegetarian|pescatarian)\b|"
            r"\bI(?:['’]?m|['’]ve| have)? (?:just )?(?:going|gone|went|turned|became|become) "
            r"(?:fully )?(?:vegan|vegetarian|pescatarian)\b|"
            r"\bI(?: (?:now )?(?:follow|eat|started|keep|am on)|['’]m (?:now )?on) "
            r"(?:a |an |the )?[\w-]+(?: [\w-]+)? diet\b|"
            r"\bI(?:['’]ve| have)? (?:just |now |recently )?(?:stopped|started|quit) eating "
            r"(?:(?:red |white )?meat|fish|seafood|poultry|dairy|eggs|animal products)\b|"
            r"\bI eat (?:meat|fish)\b|"
            r"\bI(?:['’]ve| have)? (?:been |now |started )?eating (?:meat|fish|seafood|chicken|"
            r"dairy|eggs) again\b|"
            r"\bI(?:['’]?m| am)? (?:now |no longer )?(?:on|doing) (?:keto|paleo|whole30)\b|"
            rf"\bI {_DIET_DROPPED}",
        ),
        (
            "diet",
            rf"^\W*(?:{_DIET_DROPPED}|(?:(?:strict|lifelong|fully|mostly|now|still|proud) )?"
            r"(?:vegan|vegetarian|pescatarian)\b(?!['’-]| (?:food|foods|restaurants?|recipes?|"
            r"options?|dish|dishes|meals?|places?|caf[eé]s?|menus?|friendly|version|cheese|"
            r"alternatives?|sausages?|burgers?|is|are|was|were)\b))",
        ),
        (
            "relationship",
            r"\b(?:I(?:['’]?m| am|['’]ve been| have been)|we(?:['’]re| are|['’]ve been| have been)|"
            r"and I are) (?:now |not |no longer )?"
            r"(?:single|married|divorced|engaged(?! (?:in|with)\b)|separated|widowed|"
            r"in a relationship)\b|"
            r"\b(?:we(?:['’]re| are)?|and I(?: are)?) (?:now |finally )?back together\b|"
            r"\b(?:we|and I)(?:['’]re| are)(?:n['’]t| not) together any ?more\b|"
            r"\b(?:we|and I)(?:['’]re| are) no longer together\b|"
            r"\b(?:I|we|\w+ and I)(?:['’]ve| have)? (?:just |finally )?(?:got married|got hitched|"
            r"tied the knot|"
            r"got engaged|got divorced|(?:broke|split) up(?! (?:the|a|an|it|them|this|that)\b)|"
            r"divorced|separated)\b|"
            r"\bI (?:now )?have a (?:new )?(?:girlfriend|boyfriend|partner)\b|"
            r"\bI(?:['’]ve| have)? (?:now |finally |just )?got a (?:new )?"
            r"(?:girlfriend|boyfriend)\b|"
            r"\bI(?:['’]?m| am|['’]ve been| have been) (?:now )?"
            r"(?:dating (?:someone\b|(?-i:[A-Z]))|seeing (?:someone|somebody)\b)|"
            rf"\b(?:I|we)(?:['’]ve| have)? {_STARTED_DATING}|"
            r"\bwe(?:['’]ve| have)? (?:just |finally |recently )?started "
            r"(?:dating|going out|seeing each other)\b|"
            r"\bwe(?:['’]ve| have) been (?:dating|going out|seeing each other) (?:since|for)\b|"
            r"\b(?:we|and I)(?:['’]ve| have)? (?:just |finally |recently |now )?"
            r"moved in together\b",
        ),
        (
            # A pattern that opens with "^" is tried at the start only; in the one above, such a
            # branch would have the whole pattern tried at every character.
            "relationship",
            rf"^\W*(?:I )?(?:(?:still |happily |newly )?single\b|{_STARTED_DATING})",
        ),
        (
            "age",
            r"(?:\bI(?:['’]?m| am) (?:now )?|(?:\bI |^\W*)(?:just |finally |recently )?turned )"
            r"\d{1,3}(?: years? old| y\.?o\.?)?(?: (?:now|today|yesterday|this week|last week|"
            r"this month|last month|lol|haha|btw|tbh|fyi))*[\W_]*$|"
            r"\b(?:it was|it['’]s|today is|today was|yesterday was) my \d{1,3}(?:st|nd|rd|th) "
            r"birthday\b|"
            r"\bI (?:just |finally |recently )?(?:had|celebrated) my \d{1,3}(?:st|nd|rd|th) "
            r"birthday\b",
        ),
        (
            "age",
            r"^\W*(?:just |finally |recently )?(?:had|celebrated) my \d{1,3}(?:st|nd|rd|th) "
            r"birthday\b",
        ),
        (
            "car",
            r"\bI (?:now |still |currently |just )?drive (?:a|an) (?:(?:old|new|used|little|tiny|"
            r"big|second-hand|electric|hybrid|red|blue|black|white|silver|grey|green) )*"
            r"(?:(?-i:[A-Z0-9])|(?:car|van|truck|pickup|suv|hatchback|minivan|convertible)\b)|"
            r"\b(?:my|our) (?:only |new |family )?car is (?:a|an)\b|"
            r"\b(?:I|we) (?:just |finally |recently )?(?:sold|scrapped|got rid of|wrote off|"
            r"crashed|totall?ed) (?:my|our|the) (?:old )?car\b|"
            r"\b(?:I|we) (?:no longer|don['’]?t|do not) (?:have|own) a car\b|"
            r"\b(?:I|we) (?:just |finally )?(?:bought|got) (?:a|an|my first|our first) "
            r"(?:new |used |second-hand |electric )?car\b(?![ -](?:seats?|park|wash|insurance|"
            r"charger|mats?|keys?|boot|port|pool|share|sick|alarm|radio|stereo|cover|wax|"
            r"battery)\b)|"
            # "We have an old diesel VW Passat", "We traded the Passat in for a Kia EV6"
            r"\b(?:I|we)(?:['’]ve| have)? (?:now |still |currently |just |finally |recently )?"
            r"(?:have|own|drive|got|bought|leased?|(?:traded|swapped|part[- ]exchanged) "
            r"(?:[\w-]+ ){1,4}?(?:in )?for) (?:a|an) (?:(?:old|new|used|little|second-hand|"
            rf"electric|hybrid|diesel|petrol|\d{{4}}) )*(?:{_CAR_MAKES})\b"
            rf"(?![^.!?;]*\bfor {_GOT_FOR})",
        ),
        ("camera", _device("camera", _CAMERA)),
        ("stack", _STACK),
        (
            # what the kitchen lacks ("there is no oven, only a two-burner hob"), or now has
            "kitchen",
            r"\b(?:there['’]?s|there is|I have|we have|(?:it|my \w+|our \w+) has|with) no "
            r"(?:proper |real |working |actual )?(?:oven|stove|cooker|hob|freezer|kitchen)\b|"
            r"\b(?:I|we) (?:don['’]?t|do not) (?:have|own) (?:an?|any) (?:proper |real |working )?"
            r"(?:oven|stove|cooker|freezer)\b|"
            r"\bonly (?:have )?(?:a |an |one |two |2 )?(?:(?:single|tiny|small|little|one|two|2|"
            r"camping|portable)[- ])*(?:burner|ring|hob|cooktop|hot ?plate|stovetop|induction|"
            r"camping stove|microwave)|"
            r"\b(?:my|our) (?:new )?(?:tiny|small|little|galley|shared|minuscule) kitchen\b|"
            r"\b(?:I|we)(?:['’]ve| have)? (?:finally |just |now )?(?:got|bought|have) "
            r"(?:an?|a new|a proper) oven\b(?! (?:thermometer|gloves?|mitts?|trays?|dish)\b)",
        ),
        (
            "phone",
            _device("phone|mobile|cell", _PHONE)
            + r"|\bI(?:['’]?m| am) (?:now |still )?on (?:an? )?(?:iphone|android)\b",
        ),
        ("laptop", _device("laptop|computer", _LAPTOP)),
        (
            "schedule",
            rf"\bI(?:['’]?m| am) (?:now |still |currently |back |mostly |only |not |no longer )?"
            rf"(?:on|doing|working) {_SHIFTS}(?! (?:off|tonight|tomorrow|today)\b)|"
            rf"\bI (?:now |still |currently |mostly |mainly |only |usually |no longer )?"
            rf"(?:work|do) {_SHIFTS}|"
            r"\bI(?:['’]ve| have)? (?:just |recently |finally )?(?:switched|moved|changed|gone|"
            rf"went|been put|got put) (?:back )?(?:to|onto|on to|on) {_SHIFTS}|"
            r"\bmy (?:work )?(?:shifts? (?:is|are|runs?|starts?)|working hours are|hours are) "
            r"(?:\w+ )?\d|"
            r"\bI (?:usually |normally |now )?(?:start|finish) work at \d|"
            rf"\bI (?:now |still |only |usually |normally )?work (?:from )?{_DAYS}s? "
            rf"(?:to|through|till|until|-) {_DAYS}|"
            r"\bI (?:now |still |only |usually |normally )?work (?:\d|one|two|three|four|five|six)"
            r"[- ](?:days?|nights?|shifts?) (?:a|per) week\b",
        ),
    )
)
"""Subjects that hold one value at a time (a subject may have more than one pattern): a newer
statement on one ends the older ones. Only what states or changes the value counts: a move ahead
("I'm moving to Berlin next month") is a plan, and the user still lives where they do; "I love
my job" or a job offer keeps the job."""
_TOPIC_RULES = PatternSet({n: rule for n, (_, rule) in enumerate(_TOPICS)})
"""The topics' patterns asked together (a self statement is read for all of them)."""

_ENDED = re.compile(
    r"\b(?:died|passed away|(?:was|were|had to be|has been|have been) put (?:down|to sleep)|"
    r"(?:put|ha(?:d|ve|ving)(?= \w+ put\b)) (?:him|her|them|(?-i:[A-Z])\w+) (?:put )?"
    r"(?:down|to sleep)|"
    r"ran away|rehomed|had to rehome|"
    r"broke up|split up|divorced)\b|"
    r"\b(?:we|I)(?:['’](?:ve|re)| have| had| are| were)? (?:just |recently |finally |officially )?"
    r"(?:got |been )?separated\b(?! (?:(?-i:[A-Z])\w*|the|him|her|them|it|my|our|his|their)\b)|"
    r"\b(?:we|i) lost (?:(?:my|our) (?:\w+ )?)?(?-i:[A-Z])(?!\w*['’]s\b)|"
    r"\b(?:sold|got rid of|gave away|traded in|scrapped|wrote off) (?:the |my |our )?"
    r"(?:old |little )?(?-i:[A-Z])(?!\w*['’]s\b)|"
    r"\btraded (?:the |my |our )?(?:old )?(?-i:[A-Z])[\w-]*(?: [\w-]+)? in\b|"
    r"\bgave (?:the |my |our )?(?:old )?(?-i:[A-Z])[\w-]*(?: [\w-]+)? (?:away|to)\b|"
    r"\bhad to let (?:him|her|(?-i:[A-Z])\w*) go\b|"
    r"\b(?:the|my|our) (?:old )?(?-i:[A-Z])[\w-]* (?:has |had )?(?:finally )?(?:gone|went) to "
    r"(?:a |my |our |the |its )?"
    r"(?:new )?(?:buyer|owner|home|nephew|niece|son|daughter|cousin|friend|brother|sister|"
    r"scrapyard|scrappers?)\b|"
    r"\b(?<![\w'’] )(?:goodbye|bye bye|farewell|rip|r\.i\.p\.?)[,!]? "
    r"(?:my |our |the |old |sweet |dear |little )*(?-i:[A-Z])",
    re.IGNORECASE,
)
"""A statement that ends what was true of the names it mentions (a pet that died or was put to
sleep; "we lost Pepper", not "I lost Pepper's leash"; a car sold, traded in or given away, "Sold
the Fiesta", not "sold candles on Etsy"; a farewell opening a clause, "RIP Max", "goodbye Seat!",
not "say goodbye to Tom for me")."""


def tells_an_ending(sentence: str) -> bool:
    """Whether a sentence tells that what was true of the names it mentions has ended ("My dog
    Rex died.", "Mochi passed away this morning."; `_ENDED`); not when what died is something
    of theirs ("Harold's phone died", "Sam's mum passed away": Harold and Sam go on)."""
    lowered = sentence.lower()
    if not any(cue in lowered for cue in _ENDING_CUES):  # most sentences: no pattern run
        return False
    return any(
        _OF_SOMEONE.search(sentence, 0, found.start()) is None
        and SUPPOSED.search(sentence, 0, found.start()) is None
        for found in _ENDED.finditer(sentence)
    )


_ENDING_CUES = (
    *("died", "passed", "put", "ran away", "rehome", "broke up", "split up", "divorced"),
    *("separated", "lost", "sold", "got rid", "gave", "traded", "scrapped", "wrote off"),
    *("let", "gone", "went", "bye", "farewell", "rip", "r.i.p"),
)
"""A piece of each way `_ENDED` has of telling an ending, in lower case."""
_OF_SOMEONE = re.compile(r"\b(?-i:[A-Z])\w*['’]s (?:[\w-]+ ){1,3}$")
"""Something of someone named just before an ending ("Harold's phone " died; not "my
neighbour's cat Luna ")."""


_OWNED_BY = re.compile(
    r"\b(?:(?:my|our) ([\w-]+)|((?-i:[A-Z])[\w-]+))['’]s (?:[\w-]+ ){0,2}?(?-i:[A-Z])[\w'’-]*",
    re.IGNORECASE,
)
"""A name said as someone else's ("my friend's dog Max", "Sam's cat Mochi"): its owner."""


def owner_named(news: str) -> str | None:
    """Whose a name in `news` is said to be ("My friend's dog Max died": "friend"), lower-cased,
    else None: such news ends only the statements naming that owner too ("My friend's dog Max
    is 12", not "I have a dog called Max")."""
    owned = _OWNED_BY.search(news)
    return None if owned is None else (owned[1] or owned[2]).lower()


@dataclass(frozen=True)
class SelfStatement:
    """A sentence's place in its speaker's profile: salience, single-valued subjects, and whether
    it ends what was said before about the names it mentions."""

    salience: float
    topics: tuple[str, ...] = ()
    ends_mentions: bool = False


MIN_NAMED_SELF_WORDS = 3


def named_self_statement(sentence: str, name: str) -> SelfStatement | None:
    """The profile reading of a sentence its speaker writes with their own name in it, as a
    signature, a letter's header or in the third person ("From: Siobhan Doyle, Head of Modern
    Foreign Languages", "Bram | '09 Honda Jazz 1.4"); None without the name, or of no kind (a
    sign-off: "Best regards, Yuki Tanaka")."""
    if len(sentence.split()) < MIN_NAMED_SELF_WORDS or not names_own(sentence, name):
        return None
    kinds = kind_weights(sentence)
    if not kinds:
        return None
    return SelfStatement(BASE_SALIENCE + sum(kinds.values()), (), tells_an_ending(sentence))


def names_own(sentence: str, name: str) -> bool:
    """Whether `sentence` has the speaker's `name` (a first name) as a word of its own."""
    at = sentence.find(name)
    while at >= 0:
        end = at + len(name)
        before = sentence[at - 1 : at] if at else " "
        after = sentence[end : end + 1] or " "
        if not (before.isalnum() or before in "'’") and not (after.isalnum() or after in "'’"):
            return True
        at = sentence.find(name, end)
    return False


def kinds_asked(query: str) -> frozenset[str]:
    """The kinds of profile statement a search names (`_ASKED`), often none."""
    return frozenset(_ASKED_RULES.matching(query))


_FOOD_HEALTH = re.compile(
    r"\b(?:allerg\w*|intoleran\w*|coeliac|celiac|diabet\w*|epipen|anaphyla\w*)\b", re.IGNORECASE
)
"""Health statements a question about diet also asks for ("dietary restrictions" and a shellfish
allergy): they stay health for their salience, and join diet only when diet is asked."""


HEED_WORDS = ("allerg", "intoleran", "coeliac", "celiac", "diabet", "anaphyla", "epi")
"""Parts of words every sentence `must_heed` reads holds one of (the upgrade to schema 17 reads
only the statements that do): "allerg" for allergic, allergy and allergies, "epi" for EpiPen
and epi-pen."""

_HEED = re.compile(
    r"\b(?:allergic\b|allerg(?:y|ies) (?:to|is|are)\b|"
    r"(?!(?:about|any|no|for|of|the|an?|this|that|what)\b)\w+ allergy\b|allergies:|"
    r"intoleran(?:t|ce)\b|coeliac|celiac|"
    r"(?:pre-?)?diabet(?:ic|es)\b|anaphyla\w*|epi-?pens?\b)",
    re.IGNORECASE,
)


HEED_TOPIC = "heed"
"""The mark, among a profile statement's topics, of one that `must_heed` reads: a mark, not a
single-valued subject (a second allergy ends no first), so no newer statement ends it for it."""

STANDING_MARK = "manner-asked"
"""The mark, among a profile statement's topics, of a standing instruction on no subject the
rules name (`asked_to_keep`): carried in every block with the others (`manner-`), but a mark,
not a subject: "always give me the cheapest option first" ends no "assume TypeScript"."""

LIMIT_MARK = "limit"
"""The mark, among a profile statement's topics, of a limit any plan of outings, travel or
exercise must heed (`limits_plans`); a mark, not a subject: a fear of heights ends no motion
sickness."""

_HOUSEHOLD_KIN = (
    r"(?:my|our|the) (?:little |youngest |eldest |oldest |older |younger |elderly )?(?:kids?|"
    r"children|son|daughter|boys|girls|baby|toddler|twins|wife|husband|partner|fianc[eé]e?|"
    r"boyfriend|girlfriend|mum|mom|mother|dad|father|parents)"
)
"""The people a household's plans include: the user's children, partner and parents (not the
relatives who live their own lives: "my sister is pregnant" plans nothing of the user's)."""

_LIMIT = re.compile(
    r"\b(?=[imot])(?<!what )(?<!that )(?:I(?:['’]m|['’]ve|['’]d)?|me|"
    rf"{_HOUSEHOLD_KIN})\b[^.!?;,—–]{{0,40}}?\b(?:"
    r"(?:scared|afraid|terrified|frightened|petrified) (?:to death )?of|fear of|"
    r"\w+phobi[ac]|claustrophobic|vertigo|"
    r"(?:can['’]?t|cannot|can not|don['’]?t know how to|never learned to|never learnt to) swim|"
    r"non-?swimmer|(?:motion|travel|car|sea|air)[- ]?sick(?:ness)?|"
    r"wheelchair|crutches|mobility (?:scooter|issues?|problems?)|walking (?:stick|frame)|"
    r"(?:can['’]?t|cannot|can not) (?:walk|stand) (?:far|long|for long|more than)|"
    r"(?:bad|dodgy|weak|busted|wrecked|stuffed|injured|arthritic) (?:knees?|back|hips?|ankles?)|"
    r"(?:knee|hip) (?:surgery|replacement)|pregnant|"
    r"(?:don['’]?t|do not|can['’]?t|cannot|never learned to|never learnt to) drive|"
    r"(?:don['’]?t|do not) (?:have|own) a car|no (?:driving )?licen[cs]e|"
    r"(?:can['’]?t|cannot|can not|shouldn['’]?t|mustn['’]?t) (?:lift|carry)|"
    r"(?:herniated|slipped|bulging|prolapsed) discs?|"
    rf"{_INJURED})\b|"
    r"\b(?:stress fracture|fracture|sprain|torn \w+|injury) (?:in|of|to) my\b",
    re.IGNORECASE,
)

LIMIT_WORDS = (
    *("scared", "afraid", "terrified", "frightened", "petrified", "fear", "phobi", "vertigo"),
    *("swim", "sick", "wheelchair", "crutches", "mobility", "walk", "stand"),
    *("knee", "back", "hip", "ankle", "pregnant", "drive", "car", "licen", "broke", "fractur"),
    *("sprain", "twisted", "tore", "torn", "ruptur", "dislocated", "pulled", "injur"),
    *("lift", "carry", "disc"),
)
"""Words each statement `limits_plans` reads holds one of (lower case)."""


def limits_plans(sentence: str) -> bool:
    """Whether a profile statement tells of a limit that any plan of outings, travel or
    exercise must heed, the user's or their household's (`_HOUSEHOLD_KIN`): a fear ("I'm scared
    of heights"), not swimming, motion sickness ("the kids get carsick"), getting about ("I use a
    wheelchair", "my mum uses a wheelchair now", "I don't drive"), an injury ("I tore the
    meniscus", "stress fracture in my left tibia"), a pregnancy; not a relative's with a life of
    their own ("My sister is pregnant")."""
    lowered = sentence.lower()  # most statements hold none of the words: spared the search
    return any(word in lowered for word in LIMIT_WORDS) and _LIMIT.search(sentence) is not None


_NEEDS_LIMITS = re.compile(
    r"\b(?:plan(?:s|ning)? (?:a|an|the|our|my|for|out|some)\b|itinerar\w*|days? out|outings?|"
    r"(?:day )?trips?|travel(?:ling|ing)?|holidays?|vacation|getaways?|excursions?|"
    r"activit(?:y|ies)|things to do|what (?:to|should|can|could) (?:we|I) do|hik(?:e|es|ing)|"
    r"tours?|sightseeing|weekend away|theme park|beach|walks?|swimming|cruise|ferry|boat|"
    r"flights?|road trip|workouts?|training plan|exercises?|get fit|in shape|gym|"
    r"what to (?:see|do)|where to (?:stay|go)|places to (?:go|see|visit|stay)|"
    r"visit(?:s|ing)?|(?:spend|spending) (?:a|\w+) (?:days?|nights?|weekend|week) in)\b",
    re.IGNORECASE,
)


def needs_limits(message: str) -> bool:
    """Whether a user's message plans outings, activities, travel or exercise, which the limits
    they told of (`limits_plans`) decide ("Plan the whole day for us in Singapore", "How should I
    travel from Milan to Venice?", "a home workout plan for the next 4 weeks")."""
    return _NEEDS_LIMITS.search(message) is not None


MARKS = frozenset({HEED_TOPIC, STANDING_MARK, LIMIT_MARK})
"""The topics that mark a statement rather than name a single-valued subject: they end nothing."""

_ASKED_TO_KEEP = re.compile(
    r"\b(?:can|could|would|will) you (?:please |pls |just )?(?:always|never|from now on)\b|"
    r"\bplease,? (?:always|never)\b|"
    r"^\W*(?:[\w ]{1,20}:\s*)?(?:(?:and|oh and|also|btw|so|ok|okay)\W+)*(?:please,? )?"
    r"(?:always|never) (?:give|use|add|include|show|put|write|start|end|tell|remind|ask|suggest|"
    r"recommend|keep|make|list|mention|check|assume)\b|"
    r"\b(?:from now on|going forward|by default|in (?:the )?future)\b"
    r"(?:(?!\b(?:I|we|he|she|they)\b)[^.!?]){0,60}?\b(?:you|your|please|assume|use|give|add|"
    r"include|keep|write|show|stick (?:to|with)|default to)\b|"
    r"\b(?:give|use|add|include|keep|write|show|assume|stick (?:to|with)|default to)\b[^.!?]*"
    r"\b(?:from now on|going forward|by default)\b",
    re.IGNORECASE,
)
"""A standing request put to the assistant ("can you always give me the cheapest option
first?", "Always give me recipes like that please", "for any code from now on just assume
TypeScript"); not "I'm always here for you" nor "you always give me good ideas"."""


def asked_to_keep(sentence: str, subjects: Collection[str]) -> bool:
    """Whether a profile statement of a standing instruction (`subjects`: the topics the rules
    gave it) asks the assistant to keep doing something on no subject of `_MANNER_SUBJECTS`."""
    return (
        not any(topic.startswith("manner-") for topic in subjects)
        and _ASKED_TO_KEEP.search(sentence) is not None
    )


STANDING_WORDS = ("always", "never", "from now on", "going forward", "by default", "future")
"""Words each statement `asked_to_keep` reads holds one of."""


def standing_marks(sentence: str) -> tuple[str, ...]:
    """`STANDING_MARK` for a stored profile statement of a standing instruction on no subject
    the rules name (rules newer than its file may read it), else ()."""
    if "manner" not in kind_weights(sentence):
        return ()
    return (STANDING_MARK,) if asked_to_keep(sentence, manner_subjects(sentence)) else ()


def must_heed(sentence: str) -> bool:
    """Whether a profile statement tells of an allergy, intolerance or condition that any
    suggestion of food or medicine must heed ("I'm allergic to penicillin", "Peanut allergy
    here", "I'm coeliac"); not a mention ("the form asks about allergies")."""
    return _HEED.search(sentence) is not None


def of_kinds_asked(sentence: str, asked: frozenset[str]) -> bool:
    """Whether a profile statement is of a kind the search asks for (`kinds_asked`)."""
    if kinds_of(sentence) & asked:
        return True
    return "diet" in asked and _FOOD_HEALTH.search(sentence) is not None


@lru_cache(maxsize=8192)
def kinds_of(sentence: str) -> frozenset[str]:
    """The kinds of subject a profile statement touches (health, diet, people, pets, ...).

    Cached: a search naming a kind reads every profile statement of its user, the same texts
    search after search, and a dozen patterns per text cost more than the rest of the search."""
    return kinds_in(sentence)


def heaviest_kind(sentence: str) -> float:
    """The weight of the weightiest kind a profile statement touches (0.0 for none): health
    or diet outweighs people, which outweighs plans (`kinds_of`, cached)."""
    return max((_KIND_WEIGHTS[kind] for kind in kinds_of(sentence)), default=0.0)


def kinds_in(text: str) -> frozenset[str]:
    """The kinds of subject `text` touches, uncached: for new text (a message being written),
    which would only push stored statements out of `kinds_of`'s cache."""
    return frozenset(kind_weights(text))


def kind_weights(text: str) -> dict[str, float]:
    """The kinds of subject `text` touches, each with its weight (`kinds_in`, uncached)."""
    lowered = text.lower()
    touched = _LOWERED.matching(lowered)
    found: dict[str, float] = {}
    for name, weight, _, in_cased in _KINDS:
        if name in touched or (in_cased is not None and in_cased.search(text) is not None):
            found[name] = weight
    if not _HOLDS_DEPENDANTS.isdisjoint(found) and _DEPENDANTS.touched(text, lowered):
        found[_DEPENDANTS.name] = _DEPENDANTS.weight
    if "manner" not in found and (_asks_a_form(text, lowered) or _ends_standing(text, lowered)):
        found["manner"] = MANNER_WEIGHT
    return found


def salience(sentence: str) -> float:
    """How much a statement about the user weighs in their profile, by the kinds of subject it
    touches, in whatever person it is written (a model writes "Maya is allergic to peanuts")."""
    return BASE_SALIENCE + sum(kind_weights(sentence).values())


def answer_salience(question: str, reply: str) -> float:
    """The profile weight of a reply to the assistant's question about the user: the kinds of
    subject the two touch together ("How old are your kids?" "Eight and eleven.") and the kinds
    the question names ("Do you have any allergies?")."""
    kinds = kinds_in(f"{question} {reply}") | kinds_asked(question)
    return BASE_SALIENCE + sum(kind.weight for kind in (*_KINDS, _DEPENDANTS) if kind.name in kinds)


_ASKED_TOPICS = ("home", "work")
"""The single-valued subjects a question can name for its reply ("Where do you live now?"); diet
is left out: "Any dietary restrictions?" is answered by allergies as often as by a diet."""


def answer_topics(question: str) -> tuple[str, ...]:
    """The single-valued subjects (`_TOPICS`) a question about the user asks about."""
    return asked_topics(kinds_asked(question))


def asked_topics(asked: Collection[str]) -> tuple[str, ...]:
    """The single-valued subjects among kinds asked for (`kinds_asked`): home and work."""
    return tuple(topic for topic in _ASKED_TOPICS if topic in asked)


_NEEDS_HOME = re.compile(
    r"\b(?:near (?:me|us|here)|nearby|around here|in my area|day[- ]trips?|getaways?)\b",
    re.IGNORECASE,
)
"""What only where the user lives answers ("day trips by train, an hour each way", "a vet
nearby"), in a message, not in the assistant's question (a reply to "Any spots nearby?" is no
home)."""


_NEEDS_SCHEDULE = re.compile(
    r"\b(?:what time|time of (?:the )?day|best time|when (?:should|could|can|would) (?:I|we)|"
    r"when (?:do|does|are) (?:these|they|those|the \w+|most \w+) (?:\w+ ){0,2}(?:meet|run|happen|"
    r"start|open)|sleep\w*|naps?|napping|insomnia|jet ?lag|schedul\w*|routines?|timetable|"
    r"(?:weekly|daily|week|day) plan|plan (?:out )?(?:my|a|the|our) (?:week|day|days)|"
    r"meal (?:plan|prep|timing|times)|mornings? or (?:evenings?|nights?)|"
    r"(?:evenings?|nights?) or mornings?)\b",
    re.IGNORECASE,
)
"""What the hours the user works answer: when to train, sleep or eat, a plan for the week, when
a club meets ("When is the best time of day for me to go?" to someone on night shifts)."""


_NEEDS_THINGS = _named_patterns(
    (
        (
            "car",
            r"\b(?:drive|driving|road ?trips?|(?:the|my|our) car|charging|petrol|fuel|"
            r"towing|roof ?(?:box|rack)|parking)\b",
        ),
        ("phone", r"\b(?:(?:smart|cell ?|mobile )?phones?|iphones?|android|ios)\b"),
        ("laptop", r"\b(?:laptops?|computers?|pcs?|macbooks?|chromebooks?)\b"),
        (
            "stack",
            r"\b(?:code|coding|script|snippet|endpoints?|apis?|microservices?|implement|"
            r"refactor\w*|unit tests?|backend|frontend|pipelines?|deploy\w*|sql|database)\b",
        ),
        ("camera", r"\b(?:cameras?|lens(?:es)?|photos?|photograph\w*|pictures|pics|shutter)\b"),
        (
            "kitchen",
            r"\b(?:recipes?|bak(?:e|es|ing)|cook(?:s|ing)?|cakes?|roast\w*|menus?|meal prep|"
            r"desserts?|bread|cookies|casseroles?|ovens?|dinner part(?:y|ies))\b",
        ),
        (
            "relationship",
            r"\b(?:anniversary|date nights?|valentine['’]?s?|(?:my|our) first date)\b",
        ),
    )
)
"""What a message about a thing needs to know of the user's own: the car for a drive, the phone
or laptop for what to do on it, the languages of their work for code, the camera for photos,
what the kitchen has for a recipe, the partner for an anniversary."""
_NEEDS_THING_RULES = PatternSet(dict(_NEEDS_THINGS))


def needed_topics(message: str) -> tuple[str, ...]:
    """The single-valued subjects a user's message asks about (`asked_topics`) or needs the
    value of to be answered: home for a day trip or what is near, the hours they work for when
    to do something, the things of theirs it is about (`_NEEDS_THINGS`)."""
    asked = asked_topics(kinds_asked(message))
    if "home" not in asked and _NEEDS_HOME.search(message) is not None:
        asked = (*asked, "home")
    if _NEEDS_SCHEDULE.search(message) is not None:
        asked = (*asked, "schedule")
    things = _NEEDS_THING_RULES.matching(message)
    return (*asked, *(name for name, _ in _NEEDS_THINGS if name in things and name not in asked))


_GOES_ON = re.compile(
    r"^\W*(?:[\w'’-]+,\s+|an?\s+(?:[\w'’-]+\s+){0,3}[\w'’-]+,\s+|"
    r"(?:[\w'’-]+\s+){0,2}[\w'’-]+!+\s+|"
    r"(?:one thing(?: tho| though| is)?|the (?:thing|problem|catch) is|to be (?:fair|honest)|"
    r"mind you|that said|oh and|at the moment|right now|these days|nowadays|lately|currently|"
    r"at the minute|for now)[,:]?\s+)?(?:he|she|they|his|her|their)\b",
    re.IGNORECASE,
)
"""He, she, they... opening a sentence, after a word and a comma, what they are ("A retired
racing greyhound, his name is Pilot"), a short exclamation, or a phrase that only leads in
("Dumpling, she's 2", "Yeah, he's four", "Birdwatching! he's out every morning", "One thing tho,
she hates sauces", "At the moment he only eats plain rice and nuggets")."""

MAX_JOINED_CHARS = 400
"""A profile statement grows by the sentences that go on about its subject up to this length."""


def goes_on(sentence: str) -> bool:
    """Whether a sentence opens with he, she, they, his, her or their (`_GOES_ON`; see
    `continues`)."""
    return _GOES_ON.match(sentence) is not None


def continues(sentence: str, before: str) -> bool:
    """Whether `sentence`, said right after the profile statement `before` about someone (a
    person or a pet), goes on about them: it opens with he, she, they, his, her or their ("I
    have a dog. His name is Rex."), is their name alone ("I've started seeing someone. Theo."),
    or tells of their health or diet with he or she further on and nothing of the speaker's
    ("My daughter has epilepsy. Seizures mostly controlled on keppra but flashing lights set
    her off.")."""
    if len(before) + len(sentence) >= MAX_JOINED_CHARS:
        return False
    if goes_on(sentence) or names_only_someone(sentence):
        return about_someone(before)
    pronoun = _HE_OR_SHE.search(sentence)
    return (
        pronoun is not None
        and _SELF.search(sentence) is None
        and _HOUSEHOLD.search(sentence) is None
        and not _CARED_FOR_KINDS.isdisjoint(kinds_in(sentence))
        and not about_someone(sentence[: pronoun.start()])  # "Dad had his knee done": Dad's
        and about_someone(before)
    )


_BARE_NAME = re.compile(r"^\W*[A-Z][\w'’-]+(?: [A-Z][\w'’-]+)?\W*$")


def names_only_someone(sentence: str) -> bool:
    """Whether a sentence is a name and nothing else ("Theo.", "Biscuit!"): right after a
    statement about someone ("I've started seeing someone. Theo."), the name of whom it told."""
    if _BARE_NAME.match(sentence) is None:
        return False
    names, maybe = name_mentions(sentence)
    return bool(names or maybe)


_HE_OR_SHE = re.compile(r"(?<![\w'’])(?:he|she|him|her|his|hers)\b", re.IGNORECASE)
_CARED_FOR_KINDS = frozenset({"health", "diet"})


_DATED = re.compile(
    rf"\b(?:\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:{MONTH_NAMES})\b|"
    rf"(?:{MONTH_NAMES})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?\b|the \d{{1,2}}(?:st|nd|rd|th)\b|"
    rf"{_DAYS}\b)",
    re.IGNORECASE,
)
_A_SUBJECT = re.compile(r"\b(?:i|i['’]m|we|you|he|she|they|it|it['’]s)\b", re.IGNORECASE)
MAX_DATED_NOTE_WORDS = 12


def dated_note(sentence: str) -> bool:
    """Whether a short sentence, said right after a statement of the speaker's, only dates what
    that statement told ("Moving day is April 28.", "Exam is 14 June in Kraków.", "rotator cuff
    repair on the 14th, right shoulder."): no subject of its own, and a day or a date."""
    return (
        len(sentence.split()) <= MAX_DATED_NOTE_WORDS
        and _DATED.search(sentence) is not None
        and _A_SUBJECT.search(sentence) is None
    )


MAX_UNFINISHED_WORDS = 12
_UNFINISHED_ENDS = ("...", "…", ",", ";", ":", "-", "–", "—")
"""A message's last marks that leave it open; an end mark, an emoji or a sign closes it."""
_OWN_SUBJECT = re.compile(
    r"^\s*\*|^\W*(?:i|i['’](?:m|ve|d|ll)|im|ive|we|we['’](?:re|ve|d|ll)|you|u|he|she|they|it|its|"
    r"it['’]s|my|our|your|his|her|their|this|that|these|those|there|here|who|what|how|why|when|"
    r"where|which|can|could|would|should|do|does|did|is|are|was|were|will|ok|okay|oh|so|and|"
    r"but|or|anyway|also|btw|thanks|thank|yes|yeah|yep|no(?=\W*$)|nope|not|lol|haha|sorry)\b",
    re.IGNORECASE,
)
"""A sentence opening that makes it a statement (or a word to the listener) of its own; or a
starred word, a correction (`corrections`) read on its own."""


def carries_on(sentence: str, before: str) -> bool:
    """Whether a message's first sentence carries on the user's previous message, sent before
    it was finished: that one ends short and without an end mark ("I'm doing a PhD", "landlord
    is super strict"), and this one opens with no subject of its own ("marine biology, coral
    bleaching in the Caribbean.", "no nails in the walls, it's in the contract.")."""
    return (
        (before.rstrip()[-1:].isalnum() or before.rstrip().endswith(_UNFINISHED_ENDS))
        and len(before.split()) <= MAX_UNFINISHED_WORDS
        and _OWN_SUBJECT.match(sentence) is None
        and len(before) + len(sentence) < MAX_JOINED_CHARS
    )


_THERE = re.compile(
    r"^\W*(?:(?:and|so|but|actually|well),?\s+)?(?:i|we)\b[^.!?]{0,40}?\bthere\b"
    r"(?!['’](?:s|re|ll|d)\b|\s+(?:is|are|was|were|will|would|might|may|must|should|could|can|"
    r"seems?|has|have|had|isn|aren|wasn|weren)\b)[^.!?]{0,50}\W*$",
    re.IGNORECASE,
)
"""A speaker's sentence with "there" for a place, not "there is" ("I just moved there.", "I'm
going there for my honeymoon.", "We've been there twice but want something new.")."""
MAX_THERE_WORDS = 12


def points_back_there(sentence: str) -> bool:
    """Whether a short sentence of the speaker's says "there" for the place the sentence before
    it named ("Any good dentists near Clapham? I just moved there.", "I work there."): alone it
    names no place, with that sentence it tells where."""
    return (
        "there" in sentence.lower()  # most sentences: no pattern to run
        and len(sentence.split()) <= MAX_THERE_WORDS
        and _THERE.match(sentence) is not None
    )


_SOMEONE = frozenset({"people", "pets"})


def about_someone(text: str) -> bool:
    """Whether `text` touches a person or a pet (the kinds people and pets)."""
    return bool(kinds_in(text) & _SOMEONE)


_LEAD_IN = re.compile(r"\s*(?:[\w'’-]+\s+){0,4}[\w'’-]+\s*[,:;—–]\s*")
"""A short opening clause before what is said ("Sorry for the late reply, ", "Update: ")."""
MAX_LEAD_INS = 2


def _said_after_lead_in(sentence: str) -> str | None:
    """What follows one or two short opening clauses without a subject, when it opens with chat's
    dropped "I" or a trip ("Sorry for the late reply, just got back from Japan.", "Ok so,
    moving to Berlin next month.", "Sorry, typing one-handed, just had surgery."), else None."""
    end = 0
    for _ in range(MAX_LEAD_INS):
        lead = _LEAD_IN.match(sentence, end)
        if lead is None or not opens_without_subject(sentence[end:]):
            return None
        end = lead.end()
        rest = sentence[end:]  # the openers anchor at the start of what they read
        if _IMPLIED_I.match(rest) or _ANY_KIND.match(rest):
            return rest
    return None


_WHOLLY_QUOTED = re.compile(r"^\s*[\"“'‘].*[\"”'’][.!?…]*\s*$", re.DOTALL)
"""A sentence wholly in quotes: words the speaker quotes (a text to edit, someone's saying)."""

_OPINION_LEAD = r"(?:(?:ok(?:ay)?|so),?\s+)?(?:(?:unpopular|controversial) opinion|hot take)\b"
"""How a speaker opens their own view ("Unpopular opinion but ...", "ok hot take: ...")."""
_OPINION = re.compile(rf"^\W*{_OPINION_LEAD}", re.IGNORECASE)


def opens_with_opinion(sentence: str) -> bool:
    """Whether `sentence` opens as the speaker's own view (`_OPINION_LEAD`): a question mark
    after it is incredulity ("hot take: raw tomatoes are my nemesis ... raw slices??")."""
    return _OPINION.match(sentence) is not None


_CONTEXT_GIVEN = re.compile(
    r"^\W*(?:for (?:some |more )?(?:context|background|reference)|(?:some |quick )?"
    r"(?:context|background)\s*[:—–-]|(?:some |quick |key |basic )?(?:info|facts|details|stats|"
    rf"about me|me|moi|yo|ich)\s*:|{_OPINION_LEAD}|(?:a )?confession\s*:)",
    re.IGNORECASE,
)
"""An opening that gives the listener the speaker's circumstances ("For context it's 38 square
meters, one main room.", "facts: 36, vegan for 10 yrs, iron deficient", "moi: 20 ans,
étudiante en droit, allergique aux chats") or their own taste ("Unpopular opinion but avocado
is the worst", "hot take: raw tomatoes are my nemesis")."""


_NUMBER_WORD = r"(?:\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
_SOMEONE_NAMED = re.compile(
    r"(?:^|[—–:;,]\s*|\b(?:and|but|so|yeah|yes|well|btw|also|because|since|though|oh)\s+)"
    r"(?:he|she|(?!(?:it|he|she|they|that|this|there|who|which|what|everyone|everybody|someone|"
    r"somebody|nobody|one|i|you|we|mine|yours|each|neither|either|none|all|both)\b)"
    r"[A-Za-z][a-z]+)"
    r"(?:(?:['’]s| is| was| has been|['’]s been)\s+(?:(?:now|also|still|quite|very|severely|"
    r"mildly|really|super|so|just|recently|newly)\s+)?(?:allergic to|intolerant|lactose "
    r"intolerant|(?:pre-?)?diabetic|asthmatic|coeliac|celiac|autistic|epileptic|dyslexic|"
    r"in a wheelchair|on (?:insulin|warfarin|chemo)\b|diagnosed with|"
    rf"{_NUMBER_WORD} and in (?:year|grade|class) \w+|in (?:year|grade|class) {_NUMBER_WORD}\b|"
    r"in reception\b|in kindergarten\b)|"
    r"(?:['’]s| has)? (?:used|uses|been using|needs) a wheelchair|"
    r" (?:got|was) diagnosed with|"
    r" (?:has|had|['’]s got|has got) (?:adhd|autism|asthma|diabetes|epilepsy|dementia|"
    r"cancer|coeliac|celiac|crohn['’]?s|a (?:stroke|heart attack|(?:\w+ )?allergy)|"
    r"(?:a )?(?:bad|dodgy) (?:back|knee|hip|heart))\b|"
    r" can['’]?t (?:do|have|eat|drink|tolerate) (?:\w+ ){0,2}?(?:dairy|gluten|nuts?|eggs?|"
    r"wheat|lactose|cheese|milk|cream|butter|parmesan|soy|shellfish|seafood|fish|meat|pork|"
    r"beef|sugar|caffeine|alcohol|spicy food)\b|"
    rf" (?:just )?(?:turned|turns|is turning) {_NUMBER_WORD}\b(?! ?(?:am|pm|o['’]?clock|%|"
    r"percent|degrees|minutes|hours|times|dollars|pounds|euros|quid|bucks))|"
    r" (?:just )?(?:started|starts|starting|goes|going|is going) (?:to )?(?:school|nursery|"
    r"preschool|daycare|kindergarten|reception|secondary|primary|high school|middle school)\b|"
    r"(?:['’]s| is) (?:now |also |still )?(?:a|an) (?:(?!of\b)[\w-]+ ){0,2}?"
    rf"(?:{OCCUPATIONS}|teacher|doctor)\b(?!['’])(?! (?:friend|mate|colleague)\b))",
    re.IGNORECASE,
)
"""Someone named alone, or "he" or "she", whose health, diet, age, school or trade is told
("anika is allergic to sesame", "Dev can't do parmesan, he's lactose intolerant", "he was
diagnosed with ADHD last year", "sofia turns five in three weeks", "Anika's 8 and in year 3",
"Dana's at work till late, she's a pastry chef"): a child, partner or parent of the user's, as
no one else's would be told to their assistant this way."""


_AGED_NAME = re.compile(
    r"\b(?-i:[A-Z])[a-z]+(?:,? who(?:['’]s| is) (?:just |nearly |almost )?"
    r"(?:1\d|[1-9]|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\b"
    r"(?! ?(?:am|pm|o['’]?clock|%|minutes|hours|times|feet|foot|ft|cm|kg|months? late))|"
    r" \((?:[^(),]{1,30}, )?(?:aged? )?\d{1,2}(?:, [^(),]{1,30})?\))",
    re.IGNORECASE,
)
"""Someone young named with their age beside the name ("Cillian, who's 6, and Nora, who's 3",
"Mia (4)", "Toast (poodle mix, 3)"): a child or a pet of the user's household, told even
inside a request."""


def names_with_age(sentence: str) -> bool:
    """Whether `sentence` names someone with their age beside the name (`_AGED_NAME`)."""
    return _AGED_NAME.search(sentence) is not None


_MY_DROPPED = re.compile(
    r"^\W*(?:(?:the )?(?:landlord|landlady|letting agent|boss|flatmate|housemate|commute|rent|"
    r"mortgage)|car|van|the (?:whole|entire) (?:flat|apartment|house|place)|flat|apartment|"
    r"house|kitchen|"
    r"garden|backyard|yard|allotment|lawn|roof|driveway|garage|balcony|bedroom|"
    r"living room|lounge|bathroom|oven|hob|boiler|salary|budget|goal|aim|dream|ambition)"
    r"(?: (?:in|at|on|out) [\w'’-]+)?"
    r"(?:['’]s| is| was| has| says| said| won['’]?t| doesn['’]?t| only| basically)\b",
    re.IGNORECASE,
)
"""A sentence about the speaker's home, household, work or aims with chat's dropped "my"
("landlord was really clear, no drilling", "kitchen is one counter and a two-ring hob", "the
whole flat is tiny", "car is finally paid off", "backyard in perth is pure sand", "goal is a
sub-3 marathon next year"): theirs, as no one else's would be told this way. With "the", only
what is always someone's own ("the landlord says no pets"; "the house is ..." may be a
rental's)."""


_MY_READING = re.compile(
    r"^\W*(?:(?:last|latest|recent|most recent|new|current) )?"
    r"(?:ferritin|iron (?:levels?|stores)|vit(?:amin)? ?[a-z]\d{0,2}|b12|hba1c|a1c|"
    r"blood (?:sugars?|pressure)|bp|cholesterol|ldl|hdl|"
    r"triglycerides|tsh|thyroid|bmi|resting (?:heart rate|hr)|rhr|heart rate|credit (?:score|"
    r"rating)|fico(?: score)?|(?:eye|glasses|lens) prescription|glucose|egfr|psa|"
    r"ha?emoglobin|vo2 ?max)(?: (?:levels?|score|reading|results?|count))?"
    r"(?: (?:is|was|were|are|came back(?: at)?|of|at|runs?|running|sits?|sitting|around|about|"
    r"now|still|only|just))*\s?[:=~≈]?\s?[-+]?\d",
    re.IGNORECASE,
)
"""A reading of the speaker's own with chat's dropped "my" ("ferritin was 8, gp says iron
tablets", "credit score is 580 after the divorce", "Vit D 18 nmol/L", "BP runs about 150/95"):
no one else's reading is told this way."""

_TOLD_OF_ELSEWHERE = re.compile(
    r"\b(?:movies?|films?|shows?|series|books?|novels?|episodes?|characters?|story|stories|"
    r"documentar(?:y|ies)|podcasts?|articles?|news|videos?|celebrit(?:y|ies)|actors?|actress|"
    r"singers?|players?|president|prime minister)\b",
    re.IGNORECASE,
)
"""Where someone told of by name or pronoun is no one of the user's ("He was diagnosed with
cancer in the movie.")."""

_KIND_WEIGHTS = {kind.name: kind.weight for kind in (*_KINDS, _DEPENDANTS)} | {
    "manner": MANNER_WEIGHT
}
_PEOPLE_WEIGHT = next(kind.weight for kind in _KINDS if kind.name == "people")
_PLANS_WEIGHT = next(kind.weight for kind in _KINDS if kind.name == "plans")

_TRIP_TOLD = re.compile(
    rf"^\W*(?:(?:{_NUMBER_WORD}|a|a couple of|a few|fourteen|ten) (?:days?|nights?|weeks?|months?)|"
    r"a (?:long )?weekend|(?:a |our |my )?(?:honeymoon|holiday|vacation|road ?trip|getaway|"
    r"city break)) (?:in|on|to|around|across|through|touring|exploring|backpacking "
    r"(?:in|around|across|through)) (?:the )?(?-i:[A-Z])",
    re.IGNORECASE,
)
"""A stay somewhere told without a subject ("Two weeks in Vietnam in October!", "A long weekend
in Lisbon."): said by the user, it is their trip."""


_PICKED = re.compile(
    r"^\W*(?:ok(?:ay)?\W+|oh\W+|yes\W+|hmm+\W+)?(?:i|we)\s+(?:(?:really|quite|also|do|think i|"
    r"think we)\s+)?(?:like|love|prefer|liked|loved|preferred)\s+(?:the\s+)?"
    r"(?:#?\d+|number \d+|no\.? ?\d+|first|second|third|fourth|fifth|last|other|latter|former|"
    r"(?:(?:sound|look|idea|thought) of )?(?:that|this|it|them|those|these)|both|option \w+|"
    r"version \w+)"
    r"(?:\s+(?:one|ones|option|options|version|idea|ideas|draft|suggestion|list))?"
    r"(?=\W*$|\s+(?:very much|a lot|best|most|more|better|too|tbh|but|and|though)\b|\s*[,.!;:)])",
    re.IGNORECASE,
)
"""A taste that is a pick among options just shown ("I like the third one very much.", "I like
3.", "I like that"): it says which, not what the user likes, apart from what was shown."""


_CODE = re.compile(
    r"`|\b[a-z]\w*_\w+\b|\b\w+\([^)]*\)|[{}]|\s==?\s|\\[wdsb]|"
    r"\b\w+\.(?:py|js|ts|tsx|jsx|rb|go|rs|java|c|cpp|h|sh|sql|csv|json|ya?ml|toml|xml|html|"
    r"css|md|txt|log|jpe?g|png|gif|pdf|docx?|xlsx?|zip)\b|\b\w*(?:Error|Exception)\b",
)
"""Code, file names and error names in a sentence ("orders(id, customer_id, total)", "my
pattern in backticks", "holiday_001.jpg", "ModuleNotFoundError"): talk of the task at hand; a
sentence of no kind with them is no fact about the user for every later turn."""


_BIO = re.compile(r"(?<![|\w])[^\s|·•][^|·•\n]{0,40}(?:\s[|·•]\s+[^|·•\n]{1,40}){2,}")
"""A profile's bio line: three short parts or more between bars or dots ("dad of 3 👦👦👧 |
nurse 🏥 | runner 🏃 | Bristol", "Software QA 🧪 | Arsenal till I die ⚽ | 📍Lagos → Toronto"); not
a table's row, which opens with its bar."""


def bio_line(sentence: str) -> bool:
    """Whether a sentence holds a bio line of some kind of the profile: the user's own
    description of themselves, even when quoted for editing ("Help me fix my twitter bio:
    '...'"); a run of values ("Ping | 20ms | ok") is none."""
    return (
        ("|" in sentence or "·" in sentence or "•" in sentence)
        and not sentence.lstrip().startswith("|")
        and _BIO.search(sentence) is not None
        and bool(kinds_in(sentence))
    )


_DIAGNOSIS = re.compile(
    r"^\W*(?:(?:so|well|and|turns out|apparently|confirmed|officially|results? (?:are )?in)"
    r"[,:!.]? )*it(?:['’]s| is|['’]s been| was) (?:confirmed |officially |definitely )?"
    r"(?:an? )?(?:[\w'’-]+ ){0,3}?(?:disease|syndrome|disorder|coeliac|celiac|diabetes|asthma|"
    r"arthritis|endometriosis|\w+itis|\w+osis|cancer|lupus|crohn['’]s|epilepsy|migraines?|"
    r"adhd|autism)(?:,? (?:type [12]|apparently|after all|then|confirmed))?\W*$",
    re.IGNORECASE,
)
"""A diagnosis told as what "it" is, the whole sentence ("Got the results back. It's coeliac
disease."): the speaker's, as "I have coeliac disease" would be."""

_KITCHEN_LACKS = re.compile(
    r"\bthere(?:['’]s| is) no (?:proper |real |working )?(?:oven|stove|cooker|hob)\b"
    r"(?! (?:needed|required|necessary)\b)",
    re.IGNORECASE,
)
"""What the user's kitchen lacks, said without "I" ("there is no oven, only a two-burner hob")."""


def self_statement(sentence: str) -> SelfStatement | None:
    """The profile reading of a sentence its speaker says about themselves, else None.

    The caller has already ruled out chatter (questions, requests, politeness)."""
    bio = bio_line(sentence)
    if (_HYPOTHETICAL.search(sentence) and not _WHEN_YOU_STANDING.match(sentence)) or (
        _WHOLLY_QUOTED.match(sentence) and not bio
    ):
        return None  # "When you explain things, use simple English" stands: no hypothesis
    if sentence.lstrip()[:1] in ("'", "‘"):
        # the first sentence of a passage in single quotes (a draft of the user's own to edit)
        # reads as one in double quotes does: "'I am allergic to penicillin. I take ..."
        sentence = sentence.lstrip()[1:]
    trip = _TRIP_TOLD.match(
        sentence if any(ch.isupper() for ch in sentence) else _capitals_restored(sentence)
    )
    own = (
        _SELF.search(sentence) is not None
        or _MY_DROPPED.match(sentence) is not None
        or _MY_READING.match(sentence) is not None
        or speaking_as(sentence) is not None
        or _CONTEXT_GIVEN.match(sentence) is not None
        or trip is not None
        or _BORN.match(sentence) is not None
        or bio
        or (_life_without_i(sentence) and _YOU.search(sentence) is None)
        or _KITCHEN_LACKS.search(sentence) is not None
        or _STACK_TOLD.search(sentence) is not None
        or _DIAGNOSIS.match(sentence) is not None
    )
    someone = (
        not own
        and (_SOMEONE_NAMED.search(sentence) is not None or names_with_age(sentence))
        and _TOLD_OF_ELSEWHERE.search(sentence) is None
    )
    own = own or someone
    whole = sentence  # the news of an ending may be the lead-in: "Rex died, the kids are gutted."
    after_lead_in = None
    if not (
        own
        or _HOUSEHOLD.search(sentence)
        or _SAYS_SO.search(sentence)
        or _IMPLIED_I.match(sentence)
        or _ANY_KIND.match(sentence)
        or is_standing(sentence)
        or (
            len(sentence.split()) <= MAX_TELEGRAPHIC_WORDS
            and without_subject(sentence, aside=_ASIDE)
        )
    ):
        after_lead_in = _said_after_lead_in(sentence)
        if after_lead_in is None:
            return None  # no way to be about the speaker: the kinds need not be read
    kinds = kind_weights(sentence)
    if kinds.keys() == {"tastes"} and _PICKED.match(sentence):
        return None  # "I like the third one.": a pick among the assistant's options
    if not kinds and _CODE.search(sentence):
        return None  # "I have orders(id, customer_id, total).": the task, not the user
    dropped: tuple[str, ...] = ()  # the subjects read with a dropped "I", when that made it so
    if someone and "people" not in kinds:
        kinds["people"] = _PEOPLE_WEIGHT  # "sofia turns five in three weeks": one of theirs
    if trip and "plans" not in kinds:
        kinds["plans"] = _PLANS_WEIGHT
    read = sentence
    if not (
        own
        or (
            _HOUSEHOLD.search(sentence)
            and _of_the_household(sentence, kinds.keys())
            and (_OUR.search(sentence) or _YOU.search(sentence) is None)
        )
        or _says_so(sentence, kinds)
        or "manner" in kinds
    ):
        if not (
            says_of_self_without_i(sentence, kinds)
            or telegraphic(sentence, kinds)
            or of_self_any_kind(sentence)
            or (dropped := _subjects_changed_without_i(sentence))
        ):
            if after_lead_in is None:
                after_lead_in = _said_after_lead_in(sentence)
            if after_lead_in is None or not (
                says_of_self_without_i(after_lead_in) or of_self_any_kind(after_lead_in)
            ):
                return None
            sentence = after_lead_in
        read = f"I {sentence.lstrip()}"  # "Just moved to Leeds!" moves the user's home
    typed_lower = not any(ch.isupper() for ch in sentence)
    topics = (
        dropped
        or _topics_of(read, typed_lower=typed_lower)
        or _coordinated_topics(read, typed_lower=typed_lower)
    )
    if read is not sentence:
        topics = tuple(dict.fromkeys(topics + _dropped_topics(sentence.lstrip(), typed_lower)))
    salience = BASE_SALIENCE + sum(kinds.values()) + (TOPIC_SALIENCE if topics else 0.0)
    named = favourites_named(read)
    if "manner" in kinds:
        named += manner_subjects(read)
        named += (STANDING_MARK,) if asked_to_keep(read, named) else ()
    return SelfStatement(salience, topics + named, tells_an_ending(whole))


def _coordinated_topics(sentence: str, *, typed_lower: bool) -> tuple[str, ...]:
    """The single-valued subjects a clause after "and" states with the speaker left out ("I quit
    Aldi and started at Lidl", "We sold the flat and moved to Bristol", "finally caved and went
    vegan"): read with the sentence's own "I" or "we" put back; () when it opens with someone
    else or the clause opens with another subject ("and my wife moved")."""
    if " and " not in sentence:
        return ()
    lead = _LED_BY_SPEAKER.match(sentence)
    if lead is None:
        return ()
    subject = "We" if lead[1].lower() == "we" else "I"
    found: tuple[str, ...] = ()
    for joint in _AND_CLAUSE.finditer(sentence, lead.end()):
        right = sentence[joint.end() :]
        first = right.split(" ", 1)[0]
        if (
            not first.isalpha()
            or (first[0].isupper() and not typed_lower)  # "and Sam moved to Leeds"
            or (first.lower() in STOP_WORDS and first.lower() not in _AND_OPENERS)
        ):
            continue
        found += _topics_of(f"{subject} {right}", typed_lower=typed_lower)
    return tuple(dict.fromkeys(found))


_LED_BY_SPEAKER = re.compile(
    r"^\W*(?:(?:so|and|but|well|ok|okay|also|then|anyway|finally|yesterday|today|recently|"
    r"last (?:week|month|year|night))\W+)*(I|we)\b(?!['’]d\b)",
    re.IGNORECASE,
)
"""A sentence whose first clause the speaker (or their household) is the subject of."""
_AND_CLAUSE = re.compile(r",? and (?:then |so |finally |just |now |also )?", re.IGNORECASE)


def _subjects_changed_without_i(sentence: str) -> tuple[str, ...]:
    """The single-valued subjects of the speaker's that a sentence with chat's dropped "I"
    gives a value ("switched to a Samsung Galaxy S23 last month", "Started at Lidl on
    Monday"), though no kind's word is in it; () when it gives none."""
    if _IMPLIED_I.match(sentence) is None or len(sentence.split()) > MAX_IMPLIED_WORDS:
        return ()
    typed_lower = not any(ch.isupper() for ch in sentence)
    return _topics_of(f"I {sentence.lstrip()}", typed_lower=typed_lower)


def _dropped_topics(sentence: str, typed_lower: bool) -> tuple[str, ...]:
    """The subjects of a sentence said without its "I" read as a state ("Based in Leeds." is
    "I'm based in Leeds.") or, opening with "the" or "first" ("The new job at the pharmacy is
    intense.", "First day at Infineon."), as the speaker's ("My new job ...")."""
    topics = (
        ()
        if _SOMEONE_ACTS.match(sentence)
        else _topics_of(f"I'm {_first_lowered(sentence)}", typed_lower=typed_lower)
    )
    if sentence[:4].lower() == "the ":
        topics += _topics_of(f"My {sentence[4:]}", typed_lower=typed_lower)
    elif sentence[:6].lower() == "first ":
        topics += _topics_of(f"My {_first_lowered(sentence)}", typed_lower=typed_lower)
    return topics


_SOMEONE_ACTS = re.compile(
    rf"^\W*(?:an?|the) (?:[\w-]+ ){{0,2}}?(?:{OCCUPATIONS}|teacher|doctor) "
    r"(?:[a-z]+(?<![su'’])s|said|told|reckoned|charged|quoted|will|would|can|could|should|"
    r"might|may|must|is|was|has|had)\b",
    re.IGNORECASE,
)
"""A sentence whose worker does something ("A broker costs money though.", "A physio said no
running."): someone met or hired, not the speaker's job as "I'm a ..." would read it."""


def _first_lowered(text: str) -> str:
    """`text` without its opening capital (kept on a first word in capitals: "NHS nurse")."""
    first = text.split(" ", 1)[0]
    return text if first.isupper() and len(first) > 1 else text[:1].lower() + text[1:]


DEVICE_WORDS = (
    *("phone", "mobile", "cell", "laptop", "computer", "iphone", "pixel", "galaxy", "samsung"),
    *("oneplus", "motorola", "moto", "nokia", "xiaomi", "huawei", "oppo", "fairphone", "xperia"),
    *("blackberry", "macbook", "thinkpad", "chromebook", "dell", "lenovo", "asus", "acer"),
    *("razer", "surface", "hp", "mac"),
)
"""A word each phone or laptop statement holds (its noun or a make)."""


def device_topics(sentence: str) -> tuple[str, ...]:
    """The phone and laptop subjects of a stored profile statement (rules newer than its file
    may read them)."""
    return _stored_topics(sentence, ("phone", "laptop"))


THING_TOPICS = ("car", "camera", "kitchen", "phone", "relationship", "work", "stack")
"""The subjects schema 19's rules read in more forms: a car or camera by its make, what the
kitchen lacks, the languages of the work, a phone given, a partner seen since, an employer
joined in a department."""
THING_WORDS = (
    *_CAR_MAKES.split("|"),
    *("canon", "nikon", "sony", "fuji", "olympus", "lumix", "panasonic", "pentax", "leica"),
    *("gopro", "ricoh", "dslr", "mirrorless", "camera", "oven", "stove", "cooker", "hob"),
    *("freezer", "kitchen", "burner", "ring", "cooktop", "plate", "induction", "microwave"),
    *("gave me", "handed me", "passed me", "each other", "dating", "going out", "joined"),
    *("shop", "stack", "write", "code in", "program in", "develop in", "build in"),
)
"""Words each statement of `THING_TOPICS` that the rules read anew holds one of (lower case)."""


def thing_topics(sentence: str) -> tuple[str, ...]:
    """The subjects of `THING_TOPICS` a stored profile statement states (rules newer than its
    file may read them)."""
    return _stored_topics(sentence, THING_TOPICS)


SCHEDULE_WORDS = ("shift", "night", "evening", "weekend", "earlies", "lates", "day", "hour", "work")
"""Words each statement of the hours the user works holds (`schedule_topics`): "day" for days
and the days of the week, "work" for "I start work at 6"."""


def schedule_topics(sentence: str) -> tuple[str, ...]:
    """The schedule subject of a stored profile statement: the hours or shifts the user works
    (rules newer than its file may read it)."""
    return _stored_topics(sentence, ("schedule",))


def _stored_topics(sentence: str, wanted: Collection[str]) -> tuple[str, ...]:
    """The topics among `wanted` that a stored profile statement states, read as it was written
    (with "I" put back when chat dropped it)."""
    typed_lower = not any(ch.isupper() for ch in sentence)
    return tuple(
        topic
        for topic in _topics_of(
            f"I {sentence}" if _IMPLIED_I.match(sentence) else sentence, typed_lower=typed_lower
        )
        if topic in wanted
    )


def added_topics(sentence: str) -> tuple[str, ...]:
    """The topics of a stored profile statement that rules newer than its file may add: the
    subjects of a standing instruction, and favourites (`self_statement` gives them with the
    rest when a statement is written)."""
    subjects = manner_subjects(sentence)
    if subjects and "manner" not in kind_weights(sentence):
        subjects = ()
    return favourites_named(sentence) + subjects


_FAVOURITE = re.compile(
    r"\bmy (?:new |current |all-time |absolute |very )*(?:favou?rite|fave|fav) "
    r"([a-z]+(?: [a-z]+)?) (?:is|are|has to be|would be|at the moment is|right now is)\b|"
    r"\b(?:is|are) (?:now |still )?my (?:new |current |all-time |absolute |very )*(?:favou?rite|"
    r"fave|fav) ([a-z]+(?: (?!(?:these|now|nowadays|at|right|too|and|but|of|by|ever|lately|for|"
    r"in|this)\b)[a-z]+)?)\b",
    re.IGNORECASE,
)


def favourites_named(sentence: str) -> tuple[str, ...]:
    """The user's favourites a sentence names, each a subject of one value at a time of its own
    ("My favourite band is Muse": "favourite-band"; a newer favourite band ends it). They weigh
    nothing more in the profile: a favourite is a taste, not what shapes the user's days."""
    return tuple(
        dict.fromkeys(
            "favourite-" + "-".join((found[1] or found[2]).lower().split())
            for found in _FAVOURITE.finditer(sentence)
        )
    )


_LANGUAGES = (
    "english|spanish|french|german|italian|portuguese|dutch|polish|russian|ukrainian|arabic|"
    "hindi|urdu|bengali|punjabi|tamil|chinese|mandarin|cantonese|japanese|korean|turkish|greek|"
    "swedish|norwegian|danish|finnish|icelandic|czech|slovak|hungarian|romanian|bulgarian|serbian|"
    "croatian|hebrew|persian|farsi|thai|vietnamese|indonesian|malay|tagalog|filipino|swahili|"
    "welsh|irish|gaelic|catalan|basque|galician|latvian|lithuanian|estonian|slovenian|afrikaans"
)
_IN_UNITS = r"\b(?:in|into|use|using|give|convert (?:it |them )?to|switch to|stick to) (?:[\w-]+ )?"
"""What comes before a unit or language an instruction asks for ("in km", "use Celsius", "into
French"), where "Never suggest runs over 10 miles" names one in passing."""
_ANSWERS = r"(?:answers?|repl(?:y|ies)|responses?|explanations?|messages?|summar(?:y|ies))"
_MANNER_SUBJECTS = _named_patterns(
    (
        (
            "manner-language",
            rf"{_IN_UNITS}(?:{_LANGUAGES})\b|\b(?:speak|talk|write|reply|respond|answer)"
            rf"(?: to me| back)? (?:only )?(?:in )?(?:{_LANGUAGES})\b",
        ),
        ("manner-units", r"\b(?:metric|imperial)\b"),
        ("manner-distance", rf"{_IN_UNITS}(?:miles|kilometres|kilometers|km)\b"),
        ("manner-weight", rf"{_IN_UNITS}(?:kilos|kilograms|kg|lbs|pounds|stone)\b"),
        ("manner-temperature", r"\b(?:celsius|fahrenheit|centigrade)\b"),
        ("manner-emojis", r"\b(?:emojis?|emoticons|smileys)\b"),
        ("manner-name", r"\b(?:call|address|refer to) me\b|\bI go by\b"),
        (
            "manner-length",
            rf"\b{_ANSWERS}\b[^.!?]{{0,24}}?\b(?:short|shorter|brief|briefer|concise|succinct|"
            r"long|longer|lengthy|detailed|in detail|to the point)\b|"
            r"\b(?:short|shorter|brief|briefer|concise|succinct|long|longer|lengthy|detailed|"
            rf"full|one[- ](?:line|sentence|paragraph)) (?:[\w-]+ )?{_ANSWERS}\b|"
            r"\b(?:be|keep it|keep things) (?:more |less |very )?(?:short|brief|concise|succinct|"
            r"detailed|to the point)\b|\b(?:more|less) detail\b",
        ),
        (
            "manner-format",
            r"\b(?:bullet points?|bullets|numbered lists?|paragraphs?|prose)\b",
        ),
        (
            "manner-tone",
            r"\b(?:be|keep it|sound|stay) (?:more |less |very )?(?:formal|informal|casual|friendly|"
            r"professional|polite|blunt)\b|\b(?:formal|informal|casual|friendly|professional|"
            r"polite|blunt) (?:tone|language|style|voice|register)\b",
        ),
    )
)
"""The subjects of a standing instruction, each with one value at a time: the language of the
answers, their units (of measure, distance, weight, temperature: each apart), length, format
(bullets or paragraphs) and tone, emojis, the name the user goes by. A newer
instruction on one ends the older ("Reply in English from now on" ends "Always reply in
Spanish"; "Emojis are fine now" ends "Don't use emojis")."""


_MANNER_SUBJECT_RULES = PatternSet(dict(_MANNER_SUBJECTS))
"""The subjects' patterns asked together: a file's upgrade reads every profile statement."""


def manner_subjects(sentence: str) -> tuple[str, ...]:
    """The subjects a standing instruction sets (`_MANNER_SUBJECTS`), as topics of their own."""
    found = _MANNER_SUBJECT_RULES.matching(sentence)
    return tuple(name for name, _ in _MANNER_SUBJECTS if name in found) if found else ()


def subjects_apart(sentence: str) -> tuple[str, str] | None:
    """A self statement as two clauses joined by "and" (or a comma before "I", or "living in"
    a place), one on a single-valued subject and the other on another subject or on none ("I live
    in Austin and work as a nurse": "I live in Austin.", "I work as a nurse."; "I'm divorced, I
    have a daughter, Ellie"; "I'm a nurse living in Leeds"), else None. Apart, news on one
    subject ("I moved to Denver", "I started seeing someone") ends its clause and keeps the
    other; the second clause's "I" is restored when it was left out."""
    if (
        " and " not in sentence
        and ", I" not in sentence
        and ", i" not in sentence
        and " living " not in sentence
    ):
        return None
    lower = not any(ch.isupper() for ch in sentence)
    for joint in _JOINT.finditer(sentence):
        left, right = sentence[: joint.start()].rstrip(" ,;"), sentence[joint.end() :]
        if not left:
            continue
        own_i = _SUBJECT_I.match(right) is not None
        if not own_i:
            first = right.split(" ", 1)[0].lower()
            if not first.isalpha() or (first in STOP_WORDS and first not in _CLAUSE_OPENERS):
                continue  # "and my wife...", "and the kids...": another subject
            said = "i'm " if first.endswith("ing") else "i "  # "and living in Leeds"
            right = (said if lower else said.capitalize()) + right
        left = left if left[-1:] in ".!?" else f"{left}."
        readings = self_statement(left), self_statement(right)
        if readings[0] is None or readings[1] is None:
            continue
        mine, other = set(readings[0].topics), set(readings[1].topics)
        if mine & other or not (mine or other):
            continue
        alone = (right, readings[1]) if mine else (left, readings[0])
        # "and I" joins two clauses when the first has its own "I": "My husband Tom and I
        # live in Leeds" is one subject
        own_i = own_i and _SPEAKER.search(left) is not None
        if (mine and other) or ((joint[0] == ", " or own_i) and _stands_alone(*alone)):
            return left, right
    return None


_QUOTED = re.compile(r'"[^"]*"|“[^”]*”')
"""Words the speaker quotes, which say nothing of them."""


def _stands_alone(clause: str, reading: SelfStatement) -> bool:
    """Whether a clause without a single-valued subject (`reading` is its self statement) says
    something of its own about the speaker (their people, pets, health...), not a remark that
    leans on the other clause ("I love it here", "I love my job")."""
    return (
        reading.salience > BASE_SALIENCE
        and len(clause.split()) >= MIN_ALONE_WORDS
        and _LEANS_BACK.search(clause) is None
        and not points_back_there(clause)
    )


MIN_ALONE_WORDS = 3
_LEANS_BACK = re.compile(
    r"\b(?:it|there|here|that|this|them|those|these|so|too|also|(?:my|the|our) (?:job|work|"
    r"role|home|place|flat|house|area|city|town|life|new \w+))\b",
    re.IGNORECASE,
)
"""Words of a clause that lean on the clause before ("I love my job", "I love it here")."""
_JOINT = re.compile(
    r",? and (?:then |also )?|, (?=I\b|I['’]|i\b|i['’])|(?<=\w) (?=living (?:in|on) (?-i:[A-Z]))"
)
_SUBJECT_I = re.compile(r"I\b|I['’]", re.IGNORECASE)
_SPEAKER = re.compile(r"\b[Ii](?:['’]|\b)")
_CLAUSE_OPENERS = frozenset({"am", "was", "have", "had", "just", "recently", "now", "still"})
"""Stop words that may open a clause whose "I" was left out ("and am a nurse", "and just
moved to Oslo")."""
_AND_OPENERS = _CLAUSE_OPENERS | {"got", "get"}
"""Stop words that may open a clause after "and" whose subject was left out ("and got a Pixel")."""


def _topics_of(sentence: str, *, typed_lower: bool) -> tuple[str, ...]:
    """The single-valued subjects `sentence` states or changes (`_TOPICS`), outside what it
    quotes ('how do I say "I'm pescatarian" in French' changes no diet). A sentence typed
    without capitals ("i live in lisbon now") has its names' capitals restored first: every
    word that is not a stop word."""
    if '"' in sentence or "“" in sentence:
        sentence = _QUOTED.sub(" ", sentence)
    if typed_lower:
        sentence = _capitals_restored(sentence)
    found = _TOPIC_RULES.matching(sentence)
    return tuple(dict.fromkeys(name for n, (name, _) in enumerate(_TOPICS) if n in found))


_LOWER_WORD = re.compile(r"\b[a-z][\w'’]*")


def _capitals_restored(sentence: str) -> str:
    """A sentence typed without capitals with every word that is not a stop word capitalised,
    so its names read as names ("i quit wendys": "i Quit Wendys")."""
    return _LOWER_WORD.sub(
        lambda word: word[0] if word[0] in STOP_WORDS else word[0].capitalize(), sentence
    )


def _as_named(text: str) -> str:
    """A stored statement without its speaker's label, its capitals restored when it was typed
    without any."""
    said = STORED_LABEL.sub("", text, count=1)
    return said if any(ch.isupper() for ch in said) else _capitals_restored(said)


_ORGANISATION = r"((?-i:[A-Z])[\w'’&-]+(?: (?-i:[A-Z])[\w'’&-]+)*)"
"""An employer's or a place's name, captured: capitalised words, "&" allowed ("M&S")."""

_VALUES = {
    "home": re.compile(
        r"\b(?:live|living|moved|relocated|based|rent|renting|keys)\b[^.!?;]*?\b(?:in|to|on) "
        r"(?:the )?((?-i:[A-Z])[\w'’-]+(?: (?-i:[A-Z])[\w'’-]+)*)",
        re.IGNORECASE,
    ),
    "work": re.compile(
        r"\b(?:work|working)\b[^.!?;]*?\b(?:(?:at|for|with) (?:the )?"
        + _ORGANISATION
        + r"|as an? ([\w-]+))",
        re.IGNORECASE,
    ),
    "relationship": re.compile(r"\b(single|married|divorced|engaged|separated|widowed)\b", re.I),
    "phone": re.compile(
        rf"\b({_PHONE}(?: (?:galaxy |pixel )?[a-z]{{0,3}}\d+[a-z]*)?"
        r"(?: (?:pro|max|plus|mini|ultra|a))*)",
        re.IGNORECASE,
    ),
    "laptop": re.compile(
        rf"\b({_LAPTOP}(?: (?:air|pro|inspiron|xps|latitude|yoga|ideapad|zenbook|\d+\w*))*)",
        re.IGNORECASE,
    ),
    "diet": re.compile(r"\b(vegan|vegetarian|pescatarian|keto|paleo)\b", re.IGNORECASE),
    "age": re.compile(
        r"\b(?:I['’]?m|I am|turned)(?: now| a)? (\d{1,3})\b|"
        r"\bmy (\d{1,3})(?:st|nd|rd|th) birthday\b",
        re.IGNORECASE,
    ),
}
_NEGATED = re.compile(
    r"\b(?:not|no longer|never|stopped|quit|gave up|given up|came off|dropped)\b|n['’]t\b",
    re.IGNORECASE,
)


def left_value(text: str) -> str | None:
    """The place or employer a statement says its speaker left ("I left Google last month":
    "google"; "We moved away from Leeds": "leeds"; "quit the agency": "agency"), else None. It
    ends only the home or work statements naming it (`names_left`): a name left says nothing of
    where the user is now."""
    lowered = text.lower()
    if not any(word in lowered for word in _LEAVING_WORDS):  # most statements: no pattern run
        return None
    said = _as_named(text)  # "i quit wendys" names Wendys
    found = _LEFT.search(said)
    if found is None and ("last" in lowered or "final" in lowered):
        found = _LAST_DAY.search(said) or _FINAL_DAY.search(said)
    if found is None:
        found = _LEFT_WORKPLACE.search(said)
    return found[1].lower() if found else None


_LEAVING_WORDS = ("left", "quit", "moved", "resigned", "last", "final")
"""A word each way of leaving holds (`_LEFT`, `_LAST_DAY`, `_FINAL_DAY`, `_LEFT_WORKPLACE`)."""
_LEFT_WORKPLACE = re.compile(
    r"(?:\bI(?:['’]ve| have)? (?:just |finally |recently |officially )?|"
    r"^\W*(?:just |finally |officially )?)(?:quit|left|resigned from) (?:the|my) "
    rf"(?:[\w'’-]+ )?({_WORKPLACES})\b"
    r"(?!\s+(?:early|late|at|for|after|before|around|tonight|today|yesterday|this|with|and)\b)",
    re.IGNORECASE,
)
"""Leaving a workplace named by what it is ("Quit the agency.", "I left the restaurant"), not
for the day ("I left the café at five")."""


def names_left(topic: str, text: str, left: str) -> bool:
    """Whether a home or work statement names `left` (a `left_value`) as the place lived in or
    the employer ("I'm a nurse at St Mary's" names "st mary's")."""
    if topic == "work":
        found = _EMPLOYER.search(_as_named(text))
        if found is not None and found[1].lower() == left:
            return True
        return re.fullmatch(_WORKPLACES, left) is not None and (
            re.search(
                rf"\b(?:at|for|with|in) (?:a|an|the|my|our) (?:[\w'’-]+ ){{0,3}}{left}\b",
                text,
                re.I,
            )
            is not None
        )
    return topic == "home" and topic_value("home", text) == left


_EMPLOYER = re.compile(
    r"\b(?:work|working|I['’]m an?|I am an?)\b[^.!?;]*?\b(?:at|for|with) (?:the )?" + _ORGANISATION,
    re.IGNORECASE,
)


_LEFT = re.compile(
    r"\b(?:I|we)(?:['’]ve| have)? (?:just |finally |recently |now )?"
    r"(?:left|quit|moved (?:out of|away from)|resigned from) (?:the )?" + _ORGANISATION,
    re.IGNORECASE,
)
"""Leaving a place or an employer by its name ("I left Google", "We moved away from Leeds")."""
_LAST_DAY = re.compile(
    r"\b(?:was|finished|did|worked) my last (?:day|shift|week) (?:at|with) (?:the )?"
    + _ORGANISATION,
    re.IGNORECASE,
)
"""A last day at a place by its name, past ("Today was my last day at Google"; one ahead, "My
last day at Google is Friday", is a plan): read only where "last" is."""
_FINAL_DAY = re.compile(
    r"(?:^\W*|\bmy )(?:last|final) (?:day|shift|week) (?:at|with) (?:the )?"
    + _ORGANISATION
    + r"(?= (?:was|ended|today|yesterday)\b|[.!]*\s*$)",
    re.IGNORECASE,
)
"""A last day told by its time ("Final day at Desert Smiles was Friday.", "Last shift at
Boots today"; not "My last day at Google is Friday")."""


def negated_value(topic: str, text: str) -> str | None:
    """The value a statement says is no longer so, when it names no other ("I no longer live in
    Hackney": "hackney"; "I'm not vegetarian anymore, I eat fish now": "vegetarian"), else None:
    such news ends only the statements giving that value, not a newer home or diet."""
    rule = _VALUES.get(topic)
    if rule is None:
        return None
    negated = None
    for found in rule.finditer(text):
        if not _NEGATED.search(text, _clause_start(text, found.start()), found.start()):
            return None  # a value said plainly: "I don't live in London, I live in Kent"
        negated = negated or next(group for group in found.groups() if group).lower()
    return negated


def topic_value(topic: str, text: str) -> str | None:
    """The value a statement gives a single-valued subject, when it names one plainly ("I'm
    married with two kids": "married"; "I've been living in Denver since 2015": "denver"; "I've
    been working as a chef since I was 19": "chef"), else None. Two statements giving the same
    value do not end each other: "We got married in Goa" keeps "I'm married to Tom"."""
    rule = _VALUES.get(topic)
    found = rule.search(text) if rule else None
    if found is None or _NEGATED.search(text, _clause_start(text, found.start()), found.start()):
        return None  # "I gave up on Apple and got a Pixel 8" gives the Pixel
    return next(group for group in found.groups() if group).lower()


def _clause_start(text: str, at: int) -> int:
    """Where the clause holding `text[at]` starts: after the last comma, semicolon, "but" or
    "and" before it (a "not" there negates another clause's value)."""
    return 1 + max(text.rfind(mark, 0, at) for mark in (",", ";", " but ", " and "))
