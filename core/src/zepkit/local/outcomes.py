"""States that end with their outcome: which of the user's older statements a piece of news
closes.

A pregnancy ends with the birth, a job search with the job got, exams with the results, time off
work with the return to it. Such a state is not a single-valued subject (a user can be job
hunting and pregnant at once), so each kind of state has its own pair of rules: the news that
tells its outcome, and the statements that say the user is in it. Kinds whose words are general
("waiting for", "recovering from", "in the middle of") also need the news and the state to share
a content word, the user's own: "Visa approved!" ends "I'm waiting for my visa", not "I'm waiting
for my results", and "My sister's visa got approved" neither. News that denies its outcome ("The
visa wasn't approved") closes nothing. Rules over English, no model: they read the forms they
know, and a state told in other words stays current beside its news.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from zepkit.local.factoring import PatternSet
from zepkit.local.text import STOP_WORDS, STORED_LABEL, SUPPOSED, words


class Outcome(NamedTuple):
    """A kind of state: its name, the news of its outcome, the statements of being in it, the
    words (lower case) of which news of the outcome holds one (`cues`: a sentence without any is
    not searched, which spares most sentences every pattern), whether
    the state and the news must share a content word (`shared`), and whether that word must
    stand by the outcome in the news (`near`: "We bought a house!", not "We bought a cake stand
    for the wedding" after "I'm saving for a wedding"), and whether the news closes one
    statement only (`one`: of two interviews ahead, "The interview at Google went well" closes
    the one at Google, and "The interview went well" neither), and whether the state is the life
    of someone close, closed only by news that that one is gone (`kin`: "My dad passed away"
    closes "My dad has dementia", not "My mum lives in Leeds"; "We split up" closes "My boyfriend
    Cian is turning 25")."""

    name: str
    outcome: re.Pattern[str]
    state: re.Pattern[str]
    cues: frozenset[str]
    shared: bool = False
    near: bool = False
    one: bool = False
    kin: bool = False


def _words(cues: str) -> frozenset[str]:
    """Cue words, given as one string."""
    return frozenset(cues.split())


_BIRTH = re.compile(
    r"\b(?:I|we)(?: just| finally| have| had|['’]ve)? (?:gave birth|had (?:the|our|my|a) "
    r"(?:baby|babies|twins|little ones?)|welcomed (?:our|a|baby))\b|"
    r"\b(?:our|my) (?:[\w-]+ ){0,2}(?:baby|son|daughter|boy|girl|twins|little one)\b"
    r"[^.!?]{0,40}?\b(?:was|were|is|are|got|has|have) (?:finally |just )?(?:born|here|arrived)\b|"
    r"\b(?:our|my) (?:[\w-]+ ){0,2}(?:baby|son|daughter|boy|girl|twins|little one)\b"
    r"[^.!?]{0,30}?\barrived\b|"
    r"^\W*(?:the )?(?:baby|babies|twins|triplets)(?: number \w+| no\.? ?\d)? "
    r"(?:is |are |has |have )?(?:finally )?(?:here|arrived|(?:was|were) born)\b",
    re.IGNORECASE,
)
_PREGNANCY = re.compile(
    r"\bpregnan\w*|\bexpecting\b|\bdue (?:in|on|date|any day)\b|\btrimester\b|"
    r"\bweeks? (?:along|pregnant)\b|\bbaby (?:number|no\.?|#)|\bbump\b",
    re.IGNORECASE,
)
_JOB_GOT = re.compile(
    r"(?:\b(?:I|I['’]ve|I have|I['’]m|I am)\s+|^\W*)(?:just |finally |now |officially )?"
    r"(?:(?:got|landed|accepted|started|found|secured) (?:a |an |the |my )?(?:[\w-]+ ){0,3}?"
    r"(?:job|position|role)\b"
    r"(?! (?:offer|interview|application|done|finished|of|ads?|adverts?|listings?|postings?|"
    r"boards?|sites?|fairs?|contracts?|descriptions?|titles?|specs?|centres?|centers?|market|"
    r"security|satisfaction|hunt|search|share|seekers?)\b)|"
    r"accepted (?:a|an|the) (?:job )?offer\b|"
    r"started (?:at|with) (?-i:[A-Z])|working (?:at|for) (?-i:[A-Z])|(?:got |been |was )?hired\b|"
    r"start(?:ing)? (?:at|with) (?-i:[A-Z])[^.!?]*\b(?:on|next|tomorrow|in) |"
    r"(?<=I['’]m )(?:now |finally )?(?:working|employed) (?:at|for|as) (?:a|an) "
    r"(?!(?:desk|table|computer|laptop)\b)[\w'’-]+[^.!?;]*\bnow\b)|"
    r"\bmy (?:first (?:day|week) (?:at|with) (?-i:[A-Z])|new job\b)",
    re.IGNORECASE,
)
_JOB_SEARCH = re.compile(
    r"\b(?:looking|searching|hunting|applying) (?:for|to) (?:a |an |another |new |my first )*"
    r"(?:jobs?|work|positions?|roles?)\b|\bjob[- ]?(?:hunting|searching|seeking|hunt|search)\b|"
    r"\bbetween jobs\b|\bout of work\b|\bunemployed\b|\binterviewing (?:for|with|at)\b",
    re.IGNORECASE,
)
_GRADUATED = re.compile(
    r"(?:(?:\bI(?:['’]?m| am|m)? (?:(?:now|finally|officially) )?|^\W*(?:(?:finally|officially) )?)"
    r"done with (?:uni|university|college|grad school|my degree|my studies)\b"
    r"(?!\s+(?:applications?|apps|essays?|homework|assignments?|work|exams?|for)\b))|"
    r"(?:\bI |^\W*)(?:just |finally |recently |officially )?(?:graduated|dropped out|"
    r"finished (?:uni|university|college|my (?:[\w-]+ )?(?:degree|studies|course(?! of)|phd|"
    r"masters?|dissertation))|(?:got|completed) my (?:[\w-]+ )?(?:degree|studies|course(?! of)|"
    r"phd|masters?)|passed my viva|defended my (?:thesis|dissertation|phd))\b|"
    r"\b(?:college|uni|university|grad school|my degree|my studies|the degree|the mba|my mba|"
    r"the masters|my masters) is (?:finally |officially )?(?:over|done|finished|behind me)\b",
    re.IGNORECASE,
)
_STUDYING = re.compile(
    r"\bI(?:['’]?m| am) (?:currently |now |still )?(?:studying|doing (?:a|my) (?:[\w-]+ )?"
    r"(?:degree|masters?|phd|ba|bsc|ma|msc|mba))\b|\bI(?:['’]?m| am) (?:a |an )?(?:[\w-]+ )?"
    r"(?:student|undergrad(?:uate)?|postgrad(?:uate)?|fresher)\b|\bI(?:['’]?m| am) in my "
    r"(?:first|second|third|fourth|final|last) year\b|\bI(?:['’]?m| am) (?:currently |now |"
    r"still )?(?:at|in) (?:uni|university|college|grad school|law school|med school|medical "
    r"school)\b|\bI(?:['’]?m| am|m) (?:a |an )?(?:freshman|sophomore|junior|senior|"
    r"(?:first|second|third|fourth|final)[- ]year) (?:at|in|studying|doing)\b",
    re.IGNORECASE,
)
_BY_ME = (
    r"(?:\b(?:I|we)(?:['’](?:ve|m|re))?(?: have| am| are)? |^\W*)"
    r"(?:(?:just|finally|now|officially|recently|already) )*"
)
"""The speaker's own news: their "I" or "we", or nothing before it (chat's dropped "I":
"Passed my driving test!"), with adverbs."""

_CONCEIVED = re.compile(
    r"\b(?:I|we)(?:['’]re|['’]m| am| are) (?:finally |now |officially )?(?:pregnant|expecting)\b|"
    r"^\W*(?:finally |officially )?pregnant\b|"
    r"\b(?:I|we) (?:got|had) (?:a|our|my) (?:first )?(?:positive|BFP)\b",
    re.IGNORECASE,
)
_TRYING = re.compile(
    r"\btrying (?:for (?:a|another|our first) (?:baby|child)|to (?:conceive|get pregnant|"
    r"have (?:a|another) (?:baby|child)))\b|\bTTC\b|\b(?:going through|doing|having|started|"
    r"starting) (?:a round of |our (?:first |second |third |last )?round of )?IVF\b",
    re.IGNORECASE,
)
_TAKEN = re.compile(
    _BY_ME + r"(?:passed|finished|completed|aced|nailed)\b(?! (?:my |the |an? )?"
    r"(?:first|second|next|one|another)\b)(?![^.!?]*\b(?:mocks?|practice|trial)\b)|"
    r"\b(?:I|we) got (?:my|the|our) (?:\w+ )?results\b|^\W*got (?:my|the) (?:\w+ )?results\b",
    re.IGNORECASE,
)
_TESTED = re.compile(
    r"\blearning to drive\b|\bI (?:don['’]t|do not|can['’]t|cannot|never learn(?:ed|t) to) "
    r"drive\b(?! (?:on|at|in|to|after|before|when|with|during|far|long|much|often)\b)|"
    r"\bnever(?<![\w'’] never) learn(?:ed|t) to drive\b|"
    r"\b(?:driving|theory|bar|board|citizenship|entrance) (?:test|exams?)\b|"
    r"\b(?:revising|studying|cramming|preparing|prepping|practi[sc]ing|learning [\w'’-]+(?: "
    r"[\w'’-]+)?) for (?:my |the |our )?(?:[\w'’-]+ ){0,3}?"
    r"(?:exams?|tests?|finals|boards|bar|gcses|a[- ]levels|highers|sats|resits?|grade \d+)\b|"
    r"\bI(?:['’]?m| am) (?:doing|sitting|taking|retaking) (?:my |the )?(?:[\w'’-]+ ){0,2}?"
    r"(?:exams?|tests?|finals|gcses|a[- ]levels|highers|sats|resits?)\b|"
    r"\b(?:my|the) (?:[\w'’-]+ ){0,2}?(?:exams?|test|finals|gcses|a[- ]levels) (?:is|are) "
    r"(?:on|in|next|this|coming|tomorrow|soon)\b",
    re.IGNORECASE,
)
_HOUSED = re.compile(
    _BY_ME + r"(?:(?:got|picked up|collected) (?:the|our|my) keys\b|moved out\b|"
    r"moved in with (?:my|our) (?!(?:parents|mum|mom|dad|folks|in-laws|family)\b)[\w-]+|"
    r"(?:found|bought|completed on|moved into|signed (?:for|the lease on)|got) (?:a|an|our|my|"
    r"the) (?:new |first |dream |own |lovely |little )*(?:house|flat|home|apartment|place|room|"
    r"bungalow|cottage|condo)\b)",
    re.IGNORECASE,
)
_HOUSE_HUNTING = re.compile(
    r"\b(?:house|flat|home|apartment|property)[- ]?hunting\b|"
    r"\b(?:looking|searching|hunting) (?:for|at) (?:a |an |our |my )?(?:new |bigger |smaller |"
    r"first |cheaper )*(?:houses?|flats?|homes?|apartments?|places? to (?:live|rent)|rooms? to "
    r"rent|rentals?|properties)\b|\btrying to (?:buy|find) (?:a |our |my )?(?:first )?"
    r"(?:house|flat|home|place)\b|\b(?:I|we) (?:still )?(?:live|living) (?:at home )?with (?:my |"
    r"our )?(?:parents|mum and dad|mom and dad|folks|mum|mom|dad|in-laws)\b|"
    r"\bI(?:['’]?m| am) (?:still )?living at home\b|\b(?:look|looking|search|searching) for "
    r"(?:somewhere|a place) to (?:buy|live|rent)\b",
    re.IGNORECASE,
)
NOT_TO_LIVE_IN = (
    r"(?![ -](?:plants?|part(?:y|ies)|warming|sitt\w*|keys|cleaner|hunting|prices?|insurance|"
    r"guests?|rules|boat|white|screen|pack|cap|shoes|tyre|bread|wine)\b)"
    r"(?![^.!?;]*\b(?:holidays?|vacation|second|investment|buy[- ]to[- ]let|to let|"
    r"let (?:it )?out|rent (?:it )?out|to do up|for (?:the )?(?:summers?|weekends|retirement|my|"
    r"our|his|her|their))\b)"
)
"""What, after a home bought, makes it none the buyer lives in ("a house plant", "a flat
white", "a flat to let", "a cottage for the summers", "a house for my mum", "a second home")."""
_HOME_BOUGHT = re.compile(
    _BY_ME + r"(?:(?:bought|purchased|completed on|closed on) (?:a|an|our|my|the) (?:new |first |"
    r"own |dream |lovely |little )*(?:house|flat|home|apartment|place|bungalow|cottage|condo)|"
    r"got the keys to (?:our|my) (?:very )?own (?:house|flat|home|apartment|place)|"
    r"(?:home ?owners|property owners|on the property ladder))\b"
    + NOT_TO_LIVE_IN
    + r"(?![^.!?;]*\b(?:next|tomorrow|soon|hopefully)\b)",
    re.IGNORECASE,
)
_RENTING = re.compile(
    r"\b(?:I|we)(?:['’](?:re|m)| are| am)? (?:still |currently |now |only )?(?:rent|renting)\b"
    r"(?! (?:out|it out|a car|a van|bikes?|skis|equipment|a boat)\b)|"
    r"\b(?:I|we)(?:['’](?:re|m)| are| am) (?:still |currently )?(?:a )?(?:tenants?|renters?)\b|"
    r"\b(?:my|our) (?:landlord|landlady|letting agent|tenancy|lease|rent)\b",
    re.IGNORECASE,
)
"""Renting one's home (a renter's landlord too), which buying one's own ends (not a holiday
home, nor one bought to let or for someone else); not renting something out, nor a car."""
_IN_THE_OFFICE = re.compile(
    _BY_ME + r"(?:(?:have to |need to |must )?(?:be )?(?:back (?:in|at|to) the office|"
    r"(?:go|going|commute|commuting) (?:in|into|to) the office (?:\w+ days a week|every day|"
    r"full[- ]time|again|now)|(?:went|gone|been|returned|moved) back to the office|"
    r"(?:no longer|don['’]t|do not) work (?:from home|remotely)))\b"
    r"(?![^.!?;]*\b(?:next|tomorrow|soon)\b)(?! (?:on|from) (?:mon|tues|wednes|thurs|fri)day)",
    re.IGNORECASE,
)
_WORKING_REMOTELY = re.compile(
    r"\b(?:I|we)(?:['’](?:re|m)| are| am)? (?:both |all |currently |now |still |mostly |fully )*"
    r"(?:work|working) (?:from home|remotely)\b|\bmy (?:job|work|role) is (?:fully )?remote\b|"
    r"\bI(?:['’]?m| am) (?:a )?(?:fully )?remote (?:worker|employee)\b",
    re.IGNORECASE,
)
"""Working from home, which a return to the office ends ("I'm back in the office full time
now", "We have to go into the office five days a week now"; not a return ahead)."""
_BACK_AT_WORK = re.compile(
    _BY_ME + r"(?:back (?:at|to|in) (?:work|the office|my desk)|back at my desk|"
    r"(?:went|gone|been|got|returned) back to "
    r"work|returned to work)\b(?![^.!?;]*\b(?:next|tomorrow|soon)\b)(?! from\b)"
    r"(?! (?:in|on) (?:a |an |two |three |\d|(?:mon|tues|wednes|thurs|fri|satur|sun)day|jan|"
    r"feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|the new year))|"
    r"(?:\bmy |^\W*)first (?:day|week|shift) back(?: (?:at|to|in) (?:work|the office))?\b"
    r"(?! (?:at|to|in|is|will|starts?|on)\b)(?![^.!?;]*\b(?:next|tomorrow|soon)\b)",
    re.IGNORECASE,
)
_OFF_WORK = re.compile(
    r"\bI(?:['’]?m| am|['’]ve been| have been) (?:currently |still |now )?(?:on (?:my )?"
    r"(?:maternity|paternity|parental|sick|medical|compassionate|adoption|mat|pat|long[- ]term "
    r"sick) leave|off (?:work|sick)|signed off|on (?:a )?(?:career break|sabbatical|furlough))\b|"
    r"\bI(?:['’]?m| am) (?:a |now a )?(?:stay[- ]at[- ]home|full[- ]time) (?:mum|mom|dad|"
    r"parent)\b",
    re.IGNORECASE,
)
_HEALED = re.compile(
    r"\b(?:fully |finally |completely )?(?:healed|recovered)\b|"
    r"\b(?:crutches|cast|sling|boot|brace|stitches|splint) (?:is|are|came|come) (?:off|out|gone)\b|"
    r"\b(?:off|out of) (?:the |my )?(?:crutches|cast|sling|boot|brace)\b|"
    r"\bgot (?:the |my )?(?:cast|sling|boot|brace|stitches|splint) (?:off|out|removed)\b|"
    r"\bback to (?:normal|running|full fitness|the gym|training|walking|football)\b|"
    r"\bback (?:on|at|in) (?:the|my) \w+|\b(?:good|as good) as new\b|"
    r"\b(?:off|out of) (?:the |my )?(?:plaster|bandages?|wheelchair|physio)\b|"
    r"\bwalking (?:normally|again|unaided|fine)\b|\ball clear\b|"
    r"\b(?:is|are|feels?|feeling) (?:(?:much|so much|a lot|loads|way) )?(?:fine|better|okay|ok|"
    r"good|normal|great) (?:now|again)\b|"
    r"\b(?:does(?:n['’]t| not)|no longer) (?:hurt|ache)s?\b",
    re.IGNORECASE,
)
_OPENING_INJURIES = "|".join(
    rf"{word}(?<![\w'’] {word})"
    for word in (
        "broken",
        "broke",
        "fractured",
        "sprained",
        "torn",
        "tore",
        "ruptured",
        "dislocated",
    )
)
"""An injury opening a sentence without its "I" ("Broke my wrist climbing"): each word checked
after it for a word before it, so the scan keeps to words that start with its letters."""
_RECOVERING = re.compile(
    r"\bI(?:['’]?m| am) (?:still |currently |slowly )?(?:recovering from|on crutches|in a (?:cast|"
    r"sling|boot|brace|splint)|laid up with|getting over)\b|"
    rf"\b(?:{_OPENING_INJURIES}) my\b|"
    r"\bI(?:['’]ve| have)? (?:just )?(?:broken|broke|fractured|sprained|torn|tore|ruptured|"
    r"dislocated) my\b|"
    r"\bon(?<![\w'’] on) crutches\b|\bin(?<![\w'’] in) a (?:cast|sling|boot|brace|splint)\b|"
    r"\bI(?:['’]ve| have) (?:got )?(?:a )?(?:broken|fractured|sprained|torn|bad) \w+|"
    r"\bI(?:['’]?m| am) (?:in a wheelchair|on crutches) (?:while|until|after|for now|for (?:a|the) "
    r"(?:few|next|time being))\b|"
    r"\bmy (?:left |right |lower |upper |bad )?(?:knee|back|shoulder|hip|ankle|wrist|neck|foot|"
    r"leg|arm|elbow|hamstring|calf|achilles) (?:hurts|aches|(?:is|has been|['’]s been) (?:still |"
    r"slowly )?(?:sore|painful|injured|swollen|killing me|recovering|healing|on the mend))\b",
    re.IGNORECASE,
)
_ILLNESS = (
    r"(?:(?:head |chest |summer |winter |heavy |streaming )?cold|(?:man |stomach |tummy )?flu|"
    r"covid(?:-19)?|coronavirus|fever|temperature|cough|sore throat|(?:chest|throat|ear|sinus|"
    r"kidney|eye|water) infection|uti|sinusitis|(?:stomach |tummy |vomiting |winter )?bug|virus|"
    r"food poisoning|norovirus|gastro|strep(?: throat)?|tonsillitis|bronchitis|laryngitis|"
    r"pneumonia|conjunctivitis|pink eye|chickenpox|shingles|glandular fever|mono|migraine|"
    r"headache|hangover|earache|toothache|lurgy|sniffles)"
    r"(?![\w-]|['’](?!s\b)|\s+(?!(?:and|so|but|again|today|tonight|now|at|right|since|for|"
    r"this|all|which|that|too|as|from|of|with|still|coming|going|on|off|lol|ugh|yesterday|last|"
    r"is|are|was|were|has|have|had|will|won['’]?t|seems?|seemed|came|hit|got|gets|just|finally|"
    r"really)\b)[a-z])"
)
"""An illness that passes (a cold, the flu, a stomach bug, a migraine), as its word ends a
phrase: not "a cold drink", "the flu jab" or "a bug in my code"."""
_ILL_SHADES = (
    r"(?:(?:a|the|this|that|some)\s)?(?:(?:really |very |pretty )?(?:bad|nasty|horrible|awful|"
    r"terrible|stinking|mild|slight|horrendous|rotten|killer|bit of a|touch of(?: the)?)\s)?"
)
_ILL_BY = (
    r"(?:caught|picked up|come down with|came down with|got|been struck down with|"
    r"tested positive for|down with) "
)
_ILL = re.compile(
    r"\bI(?:['’]ve| have)(?: got)?(?: just)? " + _ILL_SHADES + _ILLNESS + r"|"
    r"\bI(?:['’]ve| have)? (?:just |finally )?" + _ILL_BY + _ILL_SHADES + _ILLNESS + r"|"
    r"\bI(?:['’]?m| am|['’]ve been| have been)(?: (?:still|currently|a bit|a little|really|very|"
    r"so|quite|feeling|pretty|off|home|at home|in bed|now))* (?:ill|sick|unwell|poorly|"
    r"under the weather|laid up|bedridden|full of (?:a |the )?cold)"
    r"(?![\w'’-]|\s+(?:of|and tired|to (?:my|the) stomach|about|with worry)\b)|"
    r"\bI(?:['’]ve| have)? (?:just )?tested positive\b|"
    r"^\W*(?:just |finally )?(?:" + _ILL_BY + _ILL_SHADES + _ILLNESS + r"|tested positive\b)",
    re.IGNORECASE,
)
"""The user ill with something that passes ("I have a bad cold", "Came down with the flu", "I'm
sick", "Tested positive this morning"); not sick of something, nor sick and tired."""
_BETTER = (
    r"better(?=\W*$|\s*[,;.!?…)]|\s+(?:now|today|tonight|again|already|thanks|thank|though|and|"
    r"but|so|since|after|finally|at last|lol)\b)"
)
"""Better as the end of what is said of oneself ("I'm better now", "Feeling better, thanks"):
not better at, than, off or about something."""
_WELL_AGAIN_WORDS = (
    r"(?:" + _BETTER + r"|well again|fine again|"
    r"back to normal|on the mend|(?:like )?(?:myself|me|my old self) again|human again|"
    r"back on my feet|recovered|"
    r"over (?:my|the|that|this) " + _ILL_SHADES + _ILLNESS + r")"
)
_MORE = (
    r"(?:(?:so|so much|much|a lot|loads|heaps|way|lots|a bit|a little|far|all|fully|completely) )?"
)
_WELL_AGAIN = re.compile(
    r"\bI(?:['’]?m| am)(?: (?:now|finally|already|definitely|feeling))* "
    + _MORE
    + _WELL_AGAIN_WORDS
    + r"|"
    r"\bI (?:feel|felt)(?: (?:now|finally|already|definitely))* " + _MORE + _WELL_AGAIN_WORDS + r"|"
    r"^\W*(?:(?:now|finally|already|definitely) )*(?:feeling|feel) "
    + _MORE
    + _WELL_AGAIN_WORDS
    + r"|^\W*(?:(?:now|finally|already) )*(?:all|much|loads|way|so much) "
    + _BETTER
    + r"|"
    r"^\W*(?:(?:now|finally|already|fully|completely) )*(?:recovered|on the mend|back on my feet|"
    r"over (?:the|my|that|this) " + _ILL_SHADES + _ILLNESS + r")|"
    r"(?:\b(?:my|the|this|that) " + _ILL_SHADES + r"|^\W*)" + _ILLNESS + r"(?:['’]s| (?:is|has))"
    r" (?:finally |completely |totally |now |all |pretty much )?(?:gone|cleared(?: up)?|passed|"
    r"over|better|disappeared)\b|"
    r"(?:\bI(?:['’]ve| have)? |^\W*)(?:finally |just )?(?:shook|shaken|kicked|beat|beaten) "
    r"(?:off )?(?:the|my|this|that) " + _ILL_SHADES + _ILLNESS + r"|"
    r"(?:\bI(?:['’]ve| have)? |^\W*)(?:finally |just )?tested negative\b|"
    r"\b(?:my|the) fever (?:has )?(?:finally )?(?:broke|broken)\b",
    re.IGNORECASE,
)
"""The user well again after an illness ("Feeling much better now", "The cold is gone", "I'm
over the flu", "Tested negative!"); not better at something, better than something, or someone
else's recovery ("My son is feeling better")."""
_CAME_THROUGH = re.compile(
    r"(?:\b(?:approved|granted|came through|come through|arrived|went well|been done|confirmed|"
    r"issued|accepted|started|(?:been|were|was|got) given|been offered)\b|"
    r"\bhad (?:my|the|our) (?:[\w'’-]+ ){0,3}?(?:done|operation|op|surgery|"
    r"appointment|interview|scan|replacement|transplant|procedure|treatment|assessment|"
    r"consultation|hearing|test|tests|jab|vaccine|vaccination|injection)\b|"
    r"\bgot (?:my|the|our) [\w'’-]+)"
    r"(?![^.!?]*\b(?:still|pending|not yet|no news|waiting)\b)",
    re.IGNORECASE,
)
_WAITING = re.compile(
    r"\b(?:waiting|still waiting|on the waiting list|on a waiting list|on the list) (?:for|on) |"
    r"\bwaiting to hear (?:about|back|from|on|if|whether)\b"
    r"(?!(?:you|him|her|them|the (?:bus|train|kettle))\b)",
    re.IGNORECASE,
)
_ADMITTED = re.compile(
    r"\b(?:got|received|accepted|had) (?:an?|the|my|our) (?:[\w'’-]+ )?(?:offer|place)\b|"
    r"\b(?:been |was |got |is |were )?(?:approved|granted)\b|"
    r"\bgot (?:in|into|onto|accepted)\b|\b(?:been |was |got )accepted (?:at|to|into|onto|by)\b|"
    r"\bI(?:['’]?m| am) (?:now )?officially\b",
    re.IGNORECASE,
)
_APPLYING = re.compile(
    r"\bI(?:['’]?m| am|['’]ve been| have been) (?:currently |still |now )?(?:applying|"
    r"waiting to hear back) (?:to|for|from)\b",
    re.IGNORECASE,
)
_RACED = re.compile(
    _BY_ME + r"(?:ran|did|finished|completed|raced|walked|climbed|swam|cycled|rode|won|smashed|"
    r"survived) (?:the|my|our|a|an|it)\b(?![^.!?]*\b(?:train|practi[cs]e))",
    re.IGNORECASE,
)
_IN_TRAINING = re.compile(
    r"\b(?:training|in training|preparing) for (?:a |an |the |my |our )?(?:[\w'’-]+ ){0,3}?"
    r"(?:marathon|half|10k|5k|triathlon|ironman|race|ultra|sportive|swim|climb|trek|challenge|"
    r"fight|bout|competition|tournament|championships?|match|games)\b",
    re.IGNORECASE,
)
_QUALIFIED = re.compile(
    _BY_ME + r"(?:qualified|passed my (?:bar|finals|boards|exams)|got my (?:licen[cs]e|certificate|"
    r"qualification|ticket|wings))\b|\bI(?:['’]?m| am) (?:now )?(?:a )?(?:fully )?qualified\b",
    re.IGNORECASE,
)
_TRAINEE = re.compile(
    r"\bI(?:['’]?m| am) (?:a |an )?(?:trainee|apprentice|student|probationary) [\w-]+|"
    r"\b(?:training|studying|retraining) (?:to be(?:come)?|as) (?:a|an)\b|"
    r"\bI(?:['’]?m| am) (?:currently |still |now )?studying (?!for\b)[\w-]+",
    re.IGNORECASE,
)
_DISCHARGED = re.compile(
    _BY_ME + r"(?:(?:been|got|was) )?(?:discharged|out of hospital|home from (?:the )?hospital|"
    r"left hospital)\b|\b(?:let|sent|allowed) me (?:go )?home\b",
    re.IGNORECASE,
)
_IN_HOSPITAL = re.compile(
    r"\bI(?:['’]?m| am|['’]ve been| have been) (?:still |currently )?(?:in|stuck in|back in) "
    r"(?:the )?hospital\b|\bI(?:['’]ve| have) been (?:admitted|kept in)\b",
    re.IGNORECASE,
)
_DONE = re.compile(
    r"(?:\b(?:I|we)(?:['’](?:ve|m|re))?(?: have| am| are)? |^\W*(?:[\w'’-]+ ){0,2}|"
    r"\b(?:my|our|the) \w+(?: \w+)? )"
    r"(?:(?:just|finally|now|officially|all|completely|been) )*(?:(?:is|are|was|were|has been|"
    r"have been|got) )?(?:(?:just|finally|now|officially|all|completely) )*"
    r"(?:finished(?! \w+ing\b)(?! (?:a|an|another)\b)|completed|complete|(?<!well )done(?! for)|"
    r"handed in|submitted|sold|bought|hit|reached|achieved|"
    r"over(?! (?:the|a|an|my|our|there|here|to|at|in|by|it)\b)|final|through|paid off|"
    r"came through|went through|tied the knot|moved in)\b"
    r"(?![^.!?]*\b(?:chapters?|drafts?|parts?|steps?|stages?|phases?|halves|half|modules?|"
    r"rounds?|sessions?|levels?|episodes?|sections?|pages?|first|mocks?|practice|to go|so far|"
    r"halfway|nearly|almost)\b)",
    re.IGNORECASE,
)
_UNDER_WAY = re.compile(
    r"\b(?:I|we)(?:['’]m|['’]re| am| are) (?:currently |still |now )?(?:in the (?:middle|process|"
    r"midst) of|saving (?:up )?(?:for|to)|writing (?:my|a|the|our)|renovating|doing up|building|"
    r"trying to (?:lose|sell|buy|pay off|finish|get rid of|save)|going through (?:a|the|my|our)|"
    r"selling (?:our|my|the)|paying off|(?:on|taking|doing) a course of)\b|"
    r"\b(?:our|my) (?:house|flat|home|car|business|company|shop|place) is (?:on the market|up for "
    r"sale|for sale)\b",
    re.IGNORECASE,
)

_REPAIRED = r"(?:fixed|repaired|mended|sorted|serviced|patched up|replaced)\b"
_FIXED = re.compile(
    r"(?:(?:\b(?:is|are|was|were|been|got|now|finally|all|just|properly|fully)|"
    r"\b(?:got|had) (?:it|them|(?:the|my|our) [\w'’-]+(?: [\w'’-]+)?)|"
    r"\b(?:I|we)(?:['’]ve| have)?(?: just| finally| now)?|"
    r"^\W*(?!(?:need|needs|want|wants|get|getting|have|having)\b)(?:(?:the|my|our) )?"
    r"[\w'’-]+(?: [\w'’-]+)?) " + _REPAIRED + r"|"
    r"^\W*(?:just |finally |now )?" + _REPAIRED + r"|"
    r"\b(?:working|works|running|going|starts|charging) (?:fine |properly |perfectly )?again\b|"
    r"\b(?:up and running|back on the road|good as new)\b|"
    r"\bback from (?:the )?(?:garage|shop|menders|mechanics?|repair shop|repairers?)\b|"
    r"(?:\b(?:I|we)(?:['’]ve| have)? |^\W*)(?:just |finally )?(?:got|bought) (?:a |an )?"
    r"(?:new|replacement)\b)"
    r"(?![^.!?;]*\b(?:tomorrow|next|soon|hopefully|fingers crossed)\b)",
    re.IGNORECASE,
)
_OUT_OF_ORDER = (
    r"(?:still |completely |totally |now )?(?:broken|bust|busted|kaput|faulty|out of order|"
    r"on the blink|playing up|acting up|leaking|not working|cracked|smashed)"
)
_BROKEN = re.compile(
    r"\b(?:broke down(?! (?:in tears|crying))|has broken down|have broken down|"
    + "|".join(
        f"{verb} {_OUT_OF_ORDER}"
        for verb in ("is", "are", "was", "were", "has been", "have been", "got", "went")
    )
    + r"|isn['’]?t working|aren['’]?t working|wasn['’]?t working|weren['’]?t working|"
    r"stopped working|quit working|has stopped working|have stopped working|"
    r"won['’]?t (?:start|turn on|charge|boot)|wouldn['’]?t (?:start|turn on|charge|boot)|"
    r"keeps? (?:crashing|breaking down|leaking|cutting out)|packed (?:up|in)|conked out|"
    r"gave up the ghost|died on (?:me|us)|sprang a leak)\b",
    re.IGNORECASE,
)
"""A thing of the user's broken ("My car broke down", "The boiler is leaking"); read only in
what the user says of their own life, so its subject need not be asked."""

_PLACE_NAME = r"(?-i:[A-Z])[\w'’-]*(?: (?-i:[A-Z])[\w'’-]*)*"
_HOME_AGAIN = re.compile(
    r"(?<!\bbe )(?<!\bnot )\b(?:back|home|returned|flew back|got back|came back|"
    r"landed back) from (?:(?:my|our|the|a) (?:[\w'’-]+ ){0,2}?(?:trip|holiday|vacation|"
    r"honeymoon|visit|week|weekend|break|stay) (?:in|to) )?"
    + _PLACE_NAME
    + r"(?![^.!?;]*\b(?:tomorrow|next|soon|tonight)\b)",
    re.IGNORECASE,
)
_WE_OR_I = ("I['’]m", "I am", "we['’]re", "we are")
_AWAY = re.compile(
    r"\b(?:"
    + "|".join(
        f"{subject} (?:going|flying|heading|travell?ing|off|driving|sailing) (?:back )?to "
        r"(?-i:[A-Z])|"
        rf"{subject} (?:planning|booking|organi[sz]ing) (?:a|an|our|my) (?:[\w'’-]+ )?"
        r"(?:trip|holiday|vacation|visit|break|honeymoon) to (?-i:[A-Z])|"
        rf"{subject} (?:in|visiting|staying in) {_PLACE_NAME} "
        r"(?:for|until|till) (?:the |a |two |three |four |\d+ )?"
        r"(?:week|weekend|days?|few days|month|nights?|holidays?)\b"
        for subject in _WE_OR_I
    )
    + r"|my (?:[\w'’-]+ )?(?:flight|trip|holiday|vacation|honeymoon|visit|cruise) to (?-i:[A-Z])"
    + r"|our (?:[\w'’-]+ )?(?:flight|trip|holiday|vacation|honeymoon|visit|cruise) to (?-i:[A-Z]))",
    re.IGNORECASE,
)
"""A trip the user is on or about to make, to a place by its name ("I'm going to Buenos Aires
in November", "My flight to Tokyo is on the 3rd", "I'm in Lisbon for the week"), ended by
coming back from that place ("Back from Tokyo!"; not "I'll be back from Tokyo on Monday")."""

_AWAY_FOR = (
    r"(?:for (?:work|business|a (?:conference|wedding|meeting|course|funeral|break)) )?"
    r"(?:(?:for|until|till) (?:the |a |this |two |three |four |a few |\d+ )?(?:week|weekend|"
    r"days?|few days|month|nights?|holidays?|end of the (?:week|month)|monday|tuesday|wednesday|"
    r"thursday|friday|saturday|sunday)|this (?:week|weekend|month))\b"
)
_AWAY_NOW = re.compile(
    r"\b(?:I['’]m|I am|we['’]re|we are) (?:currently |now |still )?(?:"
    r"(?:on (?:a |my |our )?(?:holiday|vacation|honeymoon|trip|break|getaway)|away|travell?ing) "
    r"(?:in|around|across|through) " + _PLACE_NAME + r"|"
    r"(?:in|visiting|staying in|over in|out in) " + _PLACE_NAME + " " + _AWAY_FOR + r"|"
    r"away (?:on (?:a |my |our )?(?:holiday|vacation|trip|break|honeymoon)|" + _AWAY_FOR + r"))",
    re.IGNORECASE,
)
"""The user away from home now ("I'm in Lisbon for the week", "We're on holiday in Crete",
"I'm away until Sunday"), not a trip ahead: ended by being home again, whichever words say
so."""
_HOME_NOW = re.compile(
    r"(?:\b(?:I|we)(?:['’](?:m|re|ve)| am| are| have)? |^\W*)"
    r"(?:(?:just|finally|now|safely|all) )*(?:back home|home again|got (?:back )?home|"
    r"made it (?:back )?home|arrived (?:back )?home|back from (?:my|our|the) (?:[\w'’-]+ ){0,2}?"
    r"(?:trip|holiday|vacation|honeymoon|travels|break|getaway)|(?:landed|flew|got|arrived|came) "
    r"back (?:in|to|into) " + _PLACE_NAME + r")\b"
    r"(?![^.!?;]*\b(?:tomorrow|next|soon|tonight|later)\b)",
    re.IGNORECASE,
)
"""The user home again ("Back home!", "We got home last night", "Just back from our
holiday"), not a return ahead ("Back home tomorrow") or someone else's."""

_EVENTS = (
    r"(?:job )?interviews?|surgery|operation|procedure|appointment|scan|biopsy|presentation|"
    r"audition|recital|wedding|(?:[\w'’-]+ )?party|meeting|hearing|gig|concert|match|"
    r"competition|tournament|performance|speech|assessment|reunion|ceremony|exhibition|pitch"
)
_EVENT_WORDS = _words(
    "interview interviews surgery operation procedure appointment scan biopsy presentation "
    "audition recital wedding party meeting hearing gig concert match competition tournament "
    "performance speech assessment reunion ceremony exhibition pitch married knot hitched"
)
_AHEAD = (
    r"(?=[^.!?]*\b(?:on|next|this|tomorrow|tonight|soon|later|coming up|in (?:a|an|one|two|"
    r"three|four|\d+) (?:days?|weeks?|months?)|at \d)\b)(?![^.!?]*\b(?:every|each)\b)"
)
_EVENT_AHEAD = re.compile(
    r"\b(?:I|we)(?:['’]ve got| have got| have| got|(?:['’]m|['’]re| am| are) (?:having|getting|"
    r"doing|giving|attending|sitting|going to)) (?:(?:a|an|my|our|the) )?(?:[\w'’-]+ ){0,2}?(?:"
    + _EVENTS
    + r")\b"
    + _AHEAD
    + r"|\b(?:I|we)(?:['’](?:m|re)| am| are) (?:organi[sz]ing|planning|hosting|throwing) "
    r"(?:a|an|my|our|the|[\w'’-]+['’]s) (?:[\w'’-]+ ){0,3}?(?:" + _EVENTS + r")\b"
    r"|\b(?:my|our) (?:[\w'’-]+ ){0,2}?(?:" + _EVENTS + r") (?:is|are|['’]s) (?:on|next|this|"
    r"tomorrow|tonight|coming up|soon|in|at)\b"
    r"|\b(?:I(?:['’]m| am)|we(?:['’]re| are)|and I are) (?:getting married|tying the knot)\b",
    re.IGNORECASE,
)
"""An event of the user's ahead ("I have a job interview at Google on Friday", "My surgery is
next month", "I'm organising my sister's hen party", "We're getting married in June"), which
news that it was held ends ("We got married!")."""
_EVENT_HELD = re.compile(
    r"(?:\b(?:the|my|our) (?:[\w'’-]+ ){0,2}?(?:" + _EVENTS + r")(?: (?:at|with|for|in|on) "
    r"(?:[\w'’-]+ ){0,2}?[\w'’-]+)? (?:went|was|were|is|got)\s+(?:(?:really|so|very|quite|"
    r"pretty|super|absolutely|all)\s+)?(?:well|great|fine|ok|okay|badly|brilliantly|smoothly|"
    r"amazing|amazingly|awful|terrible|perfect|lovely|fun|a success|a disaster|a blast|over|"
    r"cancell?ed|called off|postponed)\b|"
    + _BY_ME
    + r"(?:had|did|gave|nailed|smashed|survived|aced|got through|hosted|threw) (?:the|my|our) "
    r"(?:[\w'’-]+ ){0,3}?(?:" + _EVENTS + r")\b|"
    r"(?:\b(?:I|we|[\w'’-]+ and I)(?:['’]ve| have)? |^\W*)(?:just |finally |officially )?"
    r"(?:got married|tied the knot|got hitched)\b)"
    r"(?![^.!?]*\b(?:tomorrow|next|will|going to|hope|hopefully)\b)",
    re.IGNORECASE,
)
"""News that an event was held, or called off, said of the event ("The interview at Google went
really well!", "Had my knee surgery yesterday", "The hen party was a success!"; not "The wedding
dress fitting went well", nor one still ahead)."""

_KIN_NAMES = {
    **dict.fromkeys(("dad", "father", "daddy", "papa"), "father"),
    **dict.fromkeys(("mum", "mom", "mother", "mam", "mummy", "mommy", "mama"), "mother"),
    **dict.fromkeys(("stepdad", "stepfather"), "stepfather"),
    **dict.fromkeys(("stepmum", "stepmom", "stepmother"), "stepmother"),
    **dict.fromkeys(("nan", "nana", "nanna", "gran", "granny", "grandma"), "grandma"),
    "grandmother": "grandma",
    **dict.fromkeys(("grandad", "granddad", "grandpa", "grandfather", "gramps"), "grandpa"),
    "father-in-law": "father-in-law",
    "mother-in-law": "mother-in-law",
    **dict.fromkeys(
        ("husband", "wife", "partner", "boyfriend", "girlfriend", "fiance", "fiancé", "fiancee"),
        "partner",
    ),
    **dict.fromkeys(("fiancée", "hubby", "bf", "gf"), "partner"),
}
"""The people close to a user who have one of them, by the words for them: news names which
(a partner by any word is one). Brothers, children, friends are left out: a user may have two."""
_KIN = "|".join(sorted(_KIN_NAMES, key=len, reverse=True))
_KIN_DIED = re.compile(
    rf"(?:\b(?:my|our) |^\W*)(?:(?:dear|beloved|lovely|late|old|darling) )?({_KIN})(?![\w'’-])"
    r"(?: (?!nearly\b)(?:\w+ly|just|has|had|finally))* "
    r"(?:died|passed (?:away|on)|passed(?=\s*(?:$|[.,!?;:]|peacefully|suddenly|last|yesterday|"
    r"this|in|on|at|overnight|early|after)))\b|"
    r"\b(?:I|we)(?:['’]ve| have)? (?:just |sadly |recently )?lost (?:my |our )?"
    rf"(?:(?:dear|beloved|lovely) )?({_KIN})(?![\w'’-])(?! (?:in|at) (?:the|a)\b)",
    re.IGNORECASE,
)
"""News of the death of someone close the user has one of ("My dad passed away last month", "Mum
died on Tuesday", "We lost Grandma in March"; not "My dad's dog died", "my mum nearly died")."""
_KIN_NOW_SAID = (
    r"(?:(?![\w'’-])(?: [\w'’-]+){0,3}? (?:is|has|lives|works|needs|takes|gets|goes|keeps|can|"
    r"cannot|can['’]t|does|doesn['’]t|isn['’]t|hasn['’]t|won['’]t|will|still|"
    r"(?:was|got|has been) (?:just |recently )?diagnosed)\b|"
    r"['’]s (?:in|at|on|got|been|still|now|not|doing|having|retired|ill|sick|unwell|poorly|"
    r"getting|going|living|staying|recovering|waiting|a|an|\d|(?:full[- ]time )?carer)\b)"
)
_KIN_NOW = re.compile(
    rf"\b(?:my|our) (?:{_KIN}){_KIN_NOW_SAID}|^\W*(?:{_KIN}){_KIN_NOW_SAID}", re.IGNORECASE
)
"""The life now of someone close, or the user as their carer ("My dad has dementia", "Mum's in a
care home", "I'm my mum's carer", "my boyfriend cian is turning 25"), opening with who it is
(every statement is read for it): what their death, or a partner's breakup, ends."""
_BROKE_UP = re.compile(
    r"(?:\b(?:we|I)|\b\w+ and (?:I|me)|\bme and \w+)(?:['’]ve| have|['’]re| are| were)? "
    r"(?:just |finally |officially |now )?(?:broke up|split up|split|separated|divorced|"
    r"got divorced|called it (?:a day|quits)|ended things)\b"
    r"(?! (?:the|a|an|it|them|this|that|our|my|his|her|from)\b)|"
    r"\b(?:\w+ and (?:I|me)|me and \w+)(?:['’]re| are) (?:done|over|finished)(?=\s*(?:$|[.,!;:]))|"
    r"\b(?:I['’]m|I am|im) not with (?:him|her|them|(?-i:[A-Z])\w*) any ?more\b|"
    r"^\W*not with (?:him|her|them|\w+) any ?more\b|"
    r"\bI (?:just |finally )?(?:broke up with|dumped|divorced) (?:my |him\b|her\b|them\b|"
    r"(?-i:[A-Z]))|"
    rf"\b(?:he|she|they|my (?:{_KIN})) (?:just |finally )?(?:broke up with|dumped|left) me\b",
    re.IGNORECASE,
)
"""The user's relationship ended ("We split up", "cian and i broke up", "me and kayla are done",
"He dumped me"; not "We split the bill", nor "My sister and her boyfriend broke up")."""
_CLOSE_ONE_GONE = re.compile(f"{_KIN_DIED.pattern}|{_BROKE_UP.pattern}", re.IGNORECASE)
"""News that someone close is gone from the user's life: a death, or a relationship ended."""
_MY_KIN = re.compile(rf"(?:\b(?:my|our) |^\W*)({_KIN})(?![\w-])", re.IGNORECASE)


def _kin(named: str) -> str:
    """Who a word for someone close names ("Mum", "mother": "mother"; "hubby": "partner")."""
    return _KIN_NAMES[named.lower()]


_OUTCOMES: tuple[Outcome, ...] = (
    Outcome("pregnancy", _BIRTH, _PREGNANCY, _words("birth had welcomed born here arrived")),
    Outcome("trying for a baby", _CONCEIVED, _TRYING, _words("pregnant expecting positive bfp")),
    Outcome(
        "job search",
        _JOB_GOT,
        _JOB_SEARCH,
        _words("job position role offer start started starting working employed hired first"),
    ),
    Outcome(
        "studies",
        _GRADUATED,
        _STUDYING,
        _words(
            "graduated graduate graduating dropped finished degree completed viva defended done "
            "over behind"
        ),
    ),
    Outcome(
        "exams",
        _TAKEN,
        _TESTED,
        _words("passed finished completed aced nailed results"),
        shared=True,
    ),
    Outcome(
        "home search",
        _HOUSED,
        _HOUSE_HUNTING,
        _words("keys moved house flat home apartment place room bungalow cottage condo"),
    ),
    Outcome(
        "renting",
        _HOME_BOUGHT,
        _RENTING,
        _words("bought purchased completed closed keys homeowners home owners ladder"),
    ),
    Outcome("time off work", _BACK_AT_WORK, _OFF_WORK, _words("back returned")),
    Outcome(
        "working from home",
        _IN_THE_OFFICE,
        _WORKING_REMOTELY,
        _words("office longer home remotely"),
    ),
    Outcome(
        "recovery",
        _HEALED,
        _RECOVERING,
        _words(
            "healed recovered crutches cast sling boot brace stitches splint back walking clear "
            "new plaster bandage bandages wheelchair physio fine better okay ok good normal great "
            "hurt hurts ache aches"
        ),
        shared=True,
    ),
    Outcome(
        "illness",
        _WELL_AGAIN,
        _ILL,
        _words(
            "better well fine again normal mend myself self human feet recovered over gone "
            "cleared passed disappeared shook shaken kicked beat beaten negative broke broken"
        ),
    ),
    Outcome(
        "waiting",
        _CAME_THROUGH,
        _WAITING,
        _words(
            "approved granted through arrived went done confirmed issued accepted had got "
            "started given offered"
        ),
        shared=True,
    ),
    Outcome(
        "applications",
        _ADMITTED,
        _APPLYING,
        _words("offer place approved granted got accepted officially"),
        shared=True,
    ),
    Outcome("qualification", _QUALIFIED, _TRAINEE, _words("qualified passed got"), shared=True),
    Outcome("hospital stay", _DISCHARGED, _IN_HOSPITAL, _words("discharged hospital home")),
    Outcome(
        "a thing under way",
        _DONE,
        _UNDER_WAY,
        _words(
            "finished complete completed done handed submitted sold bought hit reached achieved "
            "over final through paid knot moved"
        ),
        shared=True,
        near=True,
    ),
    Outcome(
        "training",
        _RACED,
        _IN_TRAINING,
        _words(
            "ran did finished completed raced walked climbed swam cycled rode won smashed survived"
        ),
        shared=True,
    ),
    Outcome("away from home", _HOME_NOW, _AWAY_NOW, _words("home back")),
    Outcome(
        "an event ahead", _EVENT_HELD, _EVENT_AHEAD, _EVENT_WORDS, shared=True, near=True, one=True
    ),
    Outcome(
        "a trip",
        _HOME_AGAIN,
        _AWAY,
        _words("back home returned landed"),
        shared=True,
        near=True,
    ),
    Outcome(
        "someone close",
        _CLOSE_ONE_GONE,
        _KIN_NOW,
        _words(
            "died passed lost broke split separated divorced called ended done over finished "
            "dumped left anymore more"
        ),
        kin=True,
    ),
    Outcome(
        "a breakdown",
        _FIXED,
        _BROKEN,
        _words(
            "fixed repaired mended sorted serviced patched replaced again running road new "
            "replacement garage shop menders mechanic mechanics repairer repairers"
        ),
        shared=True,
        near=True,
    ),
)
"""The kinds of state and their outcomes. The user's own child born ("Our baby girl Ada was born on
Monday!", not "My sister gave birth") ends the pregnancy; a pregnancy ends the trying for one; a job
got ends the search for one; a degree finished, or dropped, ends the studies; a test passed ends the
learning and revising for it (a test failed does not); keys got or a home found ends the house hunt,
and living with one's parents; a home bought the renting; a return to work ends the leave, and a
return to the office working from home; an offer or an approval the application it answers; a healed
knee the recovery from its surgery; being well again an illness that passes (a cold, the flu: not a
condition that lasts); a visa approved the wait for it; a race run the training for it; qualifying
the traineeship; a discharge the stay in hospital; and a thing under way (a sale, a build, a move, a
dissertation, a loan paid off) its own completion, named next to it; a thing broken (a car broken
down, a boiler leaking) its repair or replacement, named next to it ("The car is fixed now", "Got a
new phone"); a trip the return from its place, and being away now (not a trip ahead) being home
again, in any words. A second child's birth keeps the first's."""
_STATES = PatternSet({kind.name: kind.state for kind in _OUTCOMES})
"""The states' patterns asked together (every statement stored is read for all of them)."""

_GENERAL = re.compile(
    r"(?:just|now|today|tonight|yesterday|week|month|year|last|next|first|new|still|currently|"
    r"fully|finally|got|had|done|pass|passed|passing|back|hurt|hurts|ache|aches|aching|sore|pain|"
    r"painful|fine|better|okay|good|normal|great|feel|feels|feeling|anymore)$|"
    r"(?:recover|heal|wait|list|train|prepar|learn|revis|stud|finish|complet|approv|appl|accept|"
    r"confirm|fix|repair|mend|broke|break|servic|replac|leak|work|sort)"
)
"""Words two statements share without being about the same thing: times, and the words of
waiting, recovering, training, breaking down, hurting and their outcomes ("recovering" and
"recovered"; "back" to work, not a bad back; "passport" is not "passed"; "fixed" twice is no one
thing, nor "hurts" said of a knee and of a back)."""
_SOMEONE_ELSES = re.compile(
    r"\b(?:my|our|his|her|their) (?:[\w-]+ )?(?:sister|brother|mum|mom|dad|mother|father|"
    r"parents?|friend|partner|wife|husband|son|daughter|boyfriend|girlfriend|colleague|boss|"
    r"neighbou?r|cousin|aunt|uncle|nan|gran|grandma|grandad|kids?|child|baby)s?\b|"
    r"\bthe (?:kids|children|boys|girls|neighbours|neighbors)\b|"
    r"\b(?-i:[A-Z])\w+['’]s\b|\b(?:he|she|they|another|someone|somebody|everyone)\b",
    re.IGNORECASE,
)
"""Someone else in the news ("My dad has recovered", "Sam's visa came through"): a state that
needs a shared word to end is not ended by another person's outcome."""


_DENIED = re.compile(
    r"\b(?:not (?:me|us|mine|ours|yet|really|quite|approved|accepted|granted|through|done)|never|"
    r"(?:did|was|were|has|have|is|are|had)(?:n['’]?t| not)|won['’]?t|no luck|yet to)\b",
    re.IGNORECASE,
)
"""News that denies or defers the outcome ("The visa wasn't approved", "Another patient got the
kidney, not me", "The sale is not through yet"): it closes nothing. A "not" elsewhere ("Got the
job, not bad!") denies nothing."""


_KIND = {kind.name: kind for kind in _OUTCOMES}


def outcomes_told(sentence: str) -> tuple[str, ...]:
    """The kinds of state whose outcome a sentence tells (`_OUTCOMES`)."""
    said = frozenset(words(sentence))
    cued = [kind for kind in _OUTCOMES if not kind.cues.isdisjoint(said)]
    if not cued or _DENIED.search(sentence):
        return ()
    return tuple(kind.name for kind in cued if _told(kind.outcome, sentence))


def _told(outcome: re.Pattern[str], sentence: str) -> bool:
    """Whether `sentence` tells `outcome` as news, not after an "if" ("if i dropped out of the
    masters would i have to pay back the fees": no outcome)."""
    return any(
        SUPPOSED.search(sentence, 0, found.start()) is None for found in outcome.finditer(sentence)
    )


def states_column(sentence: str) -> str | None:
    """The kinds of state a stored statement says its speaker is in, as kept in its `states`
    column ("|exams|training|"), or None for none: written with the statement, so news reads
    only the few statements that are in some state instead of every profile statement."""
    found = _STATES.matching(STORED_LABEL.sub("", sentence, count=1))
    names = [kind.name for kind in _OUTCOMES if kind.name in found]
    return f"|{'|'.join(names)}|" if names else None


def in_states_column(states: str, state: str) -> bool:
    """Whether a `states` column value (`states_column`) names `state`."""
    return states_marker(state) in states


def states_marker(state: str) -> str:
    """How `state` stands in a `states` column value: a value names it when it holds this."""
    return f"|{state}|"


def shared_with(state: str, news: str) -> frozenset[str] | None:
    """What a statement of `state` must share with `news` for the news to close it: the content
    words of the news (by its outcome, for a `near` kind); None when the kind needs none, and
    empty when the news closes nothing (it is someone else's, or names nothing)."""
    kind = _KIND[state]
    if kind.kin:  # always someone else's: who it names is what it shares
        told = STORED_LABEL.sub("", news, count=1)
        gone = {_kin(a or b) for a, b in _KIN_DIED.findall(told)}
        return frozenset(gone | ({"partner"} if _BROKE_UP.search(told) else set()))
    if not kind.shared:
        return None
    told = STORED_LABEL.sub("", news, count=1)
    if _SOMEONE_ELSES.search(told):
        return frozenset()
    found = kind.outcome.search(told) if kind.near else None
    if found is not None:
        told = _around(told, found.start(), found.end())
    return frozenset(_content(told))


def closes_one(state: str) -> bool:
    """Whether news of `state`'s outcome closes one statement only (`Outcome.one`)."""
    return _KIND[state].one


def words_shared(sentence: str, shared: frozenset[str]) -> int:
    """How many of the news' words (`shared_with`) a statement holds: the statement it closes
    when it may close one only is the one holding most."""
    return len(_content(STORED_LABEL.sub("", sentence, count=1)) & shared)


def closes(state: str, sentence: str, shared: frozenset[str] | None) -> bool:
    """Whether `sentence` says the user is in `state`, one of `_OUTCOMES`' names, that news
    telling its outcome closes; `shared` is that news read once (`shared_with`), so many
    statements can be checked against it."""
    if _KIND[state].kin:
        said = STORED_LABEL.sub("", sentence, count=1)
        relatives = {_kin(named) for named in _MY_KIN.findall(said)}
        return (
            shared is not None
            and not relatives.isdisjoint(shared)
            and bool(_KIND[state].state.search(said))
        )
    if shared is not None:
        lowered = sentence.lower()  # a content word's root is a piece of the lowered text
        if not any(root in lowered for root in shared):
            return False
    said = STORED_LABEL.sub("", sentence, count=1)  # what was said opens the sentence
    if not _KIND[state].state.search(said):
        return False
    return shared is None or bool(_content(said) & shared)


NEAR_WORDS = 3
"""Words before an outcome that may name what it is the outcome of (`Outcome.near`)."""
_PHRASE_END = re.compile(
    r"[^\w\s'’-]|\b(?:yesterday|today|tonight|this|last|next|on|in|at|to|for|from|with|by|of|"
    r"after|before|and|but|so|finally|now|again)\b",
    re.IGNORECASE,
)
"""Where the words after an outcome stop naming its object ("Sold the old farmhouse table at
auction": "table")."""


def _around(text: str, start: int, end: int) -> str:
    """`text[start:end]` with the `NEAR_WORDS` words before it (its subject: "The extension is
    finished") and the last word of the phrase after it (its object's head: "Sold the caravan
    to a couple", not "Sold the old farmhouse table")."""
    before = text[:start].split()[-NEAR_WORDS:]
    rest = text[end:]
    cut = _PHRASE_END.search(rest)
    after = (rest[: cut.start()] if cut else rest).split()[-1:]
    return " ".join([*before, text[start:end], *after])


def _content(sentence: str) -> set[str]:
    """A sentence's content words, cut to a common root ("driving", "drive": "driv")."""
    return {
        word[:4] if len(word) > 4 else word
        for word in words(sentence)
        if len(word) > 2 and word not in STOP_WORDS and not _GENERAL.match(word)
    }
