"""The user's own people and pets by name: who a name is, read once, and news told by it later.

Users introduce a child or a pet once ("my cat Mango", "Njeri, my eldest") and from then on use
the name alone: "Mango has kidney disease, stage 2." names no "I" and no "my", so it reads as
news of someone else. Each profile statement's names given as the user's family or pets are
remembered (`own_names`, written as a mark on the entity); a later sentence of the user's that
names one of them, or goes on about one with "he" or "she", and touches a kind of subject joins
their profile (`told_of_own`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from zepkit.local.factoring import factored
from zepkit.local.profile import BASE_SALIENCE, kind_weights
from zepkit.local.text import normalise_name

KIN_WEIGHT = 2.5
"""What a sentence about one of the user's own people or pets adds to its kinds' weight: the
same as the people and pets kinds, which its words need not name ("Mango has kidney disease")."""

_KIN = factored(
    r"(?:wife|wifey|husband|hubby|spouse|fianc[eé]e?|girlfriend|boyfriend|"
    # a partner at work or in a pastime is no family ("my business partner Tom"); read after
    # the word, not at every position before it
    r"partner(?<!business partner)(?<!lab partner)(?<!study partner)(?<!research partner)"
    r"(?<!project partner)(?<!law partner)(?<!managing partner)(?<!senior partner)"
    r"(?<!junior partner)(?<!training partner)(?<!tennis partner)(?<!squash partner)"
    r"(?<!dance partner)(?<!climbing partner)(?<!running partner)(?<!gym partner)"
    r"(?<!workout partner)(?<!sparring partner)(?<!chess partner)(?<!doubles partner)"
    r"(?<!writing partner)(?<!coding partner)(?<!practice partner)|"
    r"sons?|daughters?|kids?|child|children|boys?|girls?|bab(?:y|ies)|toddler|twins?|"
    r"little one|youngest|eldest|oldest|middle (?:one|child)|"
    r"step(?:son|daughter|kid|child|mom|mum|dad|mother|father)|"
    r"mum|mom|mother|mama|mamma|dad|father|papa|parents?|"
    r"brothers?|sisters?|siblings?|(?:big|little|baby|younger|older) (?:brother|sister)|"
    r"grand(?:ma|pa|mother|father|son|daughter|child|kid)s?|gran|granny|nan|nana|"
    r"aunt(?:ie)?|uncle|niece|nephew|cousin|"
    r"(?:mother|father|sister|brother|son|daughter)-in-law|"
    r"dog|cat|puppy|pup|kitten|pet|rabbit|bunny|hamster|guinea pig|parrot|budgie|bird|"
    r"horse|pony|tortoise|turtle|lizard|gecko|snake|ferret|"
    r"collie|retriever|terrier|spaniel|lab|labrador|poodle|greyhound|beagle|husky|corgi|pug|"
    r"dachshund|chihuahua|bulldog|rottweiler|labradoodle|cockapoo|schnauzer|whippet|"
    r"shepherd|mutt|tabby|moggy|rescue)"
)
"""A family word or a pet's ("my cat", "our eldest", "my golden retriever"); friends and
colleagues are not the user's own: their news stays theirs."""

_EPITHET = r"(?:(?!(?:has|have|had|got|gets|owns|is|was|are|were)\b)[\w-]+\s+)"
"""A word between "my" and a family or pet word that tells of it ("my old dog", "our 2-year-old
golden retriever"); not a verb, whose subject the family or pet is of ("my friend has a dog")."""

_BEFORE = re.compile(rf"\b(?:my|our)\s+{_EPITHET}{{0,4}}?{_KIN}\s*[,:(–—-]?\s*$", re.IGNORECASE)
"""What comes right before a name given as one's own: "my cat Mango", "our 2-year-old golden
retriever Bingo", "my dad, Tunde", "My youngest (Esi)"."""

_AFTER = re.compile(
    rf"^\s*(?:,|\(|–|—|-|is|was|['’]s)\s*(?:my|our)\s+{_EPITHET}{{0,3}}?{_KIN}(?![\w'’-])"
    r"(?!\s+(?-i:[A-Z]))",
    re.IGNORECASE,
)
"""What comes right after a name given as one's own: "Njeri, my eldest", "Mango (my cat)",
"Ioana is my wife"; not before the name it gives ("Important, my son Theo ...")."""

_GIVEN = (
    rf"(?:(?:I|we)\s+(?:have|had|got|adopted|rescued|welcomed)|(?:I['’]ve|we['’]ve)\s+got)\s+"
    rf"(?:a|an|two|three)\s+{_EPITHET}{{0,3}}?{_KIN}"
)
"""One's own family or pet told of by having them: "we adopted a kitten", "I have a daughter"."""

_CALLED = re.compile(
    rf"\b(?:(?:my|our)\s+{_EPITHET}{{0,3}}?{_KIN}['’]s\s+name\s+(?:is|was)|"
    rf"{_GIVEN}\s*(?:,\s*|\s+(?:named|called)\s+))\s*$",
    re.IGNORECASE,
)
"""What comes right before a name a pet or a child is given: "my dog's name is Rex", "we
adopted a kitten, Luna", "I have a daughter named Ellie"."""

_CALLED_AFTER_OWN = re.compile(
    rf"\b(?:(?:my|our)\s+{_EPITHET}{{0,4}}?{_KIN}|{_GIVEN})\s*(?:[.!,;]|\s+and)\s*"
    r"(?:(?:his|her|their)\s+name\s+(?:is|was)|(?:he|she)['’]s\s+called)\s*$",
    re.IGNORECASE,
)
"""A name given by a pronoun after one's own family or pet: "I have a dog. His name is Rex."; not
"My friend has a dog, his name is Rex" (the dog is the friend's), nor "my dad has a dog, his
name is Rex"."""

_KIN_WORD = re.compile(rf"\b{_KIN}\b", re.IGNORECASE)
_OWN_TOLD = re.compile(rf"\b(?:my|our|I|we)\b[^.!?]*?\b{_KIN}\b", re.IGNORECASE)
"""That a statement speaks of one's own family or pet at all (a cheap check before the rest;
`_KIN_WORD`, one scan, is cheaper still and spares most statements this one)."""

_SPAN = 60
"""How many characters each side of a name are read for who it is."""


def own_names(text: str, names: Sequence[str]) -> tuple[str, ...]:
    """The names of `names` that the user's `text` gives as their own family member or pet
    ("my cat Mango", "Njeri, my eldest", "I have a dog. His name is Rex.")."""
    if not names or _KIN_WORD.search(text) is None or _OWN_TOLD.search(text) is None:
        return ()
    found: list[str] = []
    for name in names:
        for at in re.finditer(rf"(?<![\w'’-]){re.escape(name)}(?![\w-])", text):
            before = text[max(0, at.start() - _SPAN) : at.start()]
            after = text[at.end() : at.end() + _SPAN]
            if (
                _BEFORE.search(before)
                or _AFTER.match(after)
                or _CALLED.search(before)
                or _CALLED_AFTER_OWN.search(before)
            ):
                found.append(name)
                break
    return tuple(found)


def named_salience(sentence: str) -> float | None:
    """The profile weight of a sentence naming one of the user's own people or pets: the kinds
    of subject it touches, with the person's own weight; None when it touches none ("Mango
    would be offended"): it says nothing that would matter in a later answer."""
    kinds = kind_weights(sentence)
    if not kinds:
        return None
    told = 0.0 if _KIN_KINDS & kinds.keys() else KIN_WEIGHT  # "Mango's vet says ...": no pet word
    return BASE_SALIENCE + told + sum(kinds.values())


_KIN_KINDS = frozenset({"people", "pets"})


_PRONOUN = re.compile(r"\b(?:he|she|him|his|her|hers)\b", re.IGNORECASE)
"""A sentence that goes on about someone just named ("Kuro has diabetes. The vet says he needs
insulin twice a day.")."""


def told_of_own(said: Sequence[tuple[str, Sequence[str], bool]], owned: set[str]) -> list[float]:
    """For a message's statements of the user, in order, as (sentence, names, in their profile):
    the profile weight each gains by telling of one of their `owned` people or pets (normalised
    names), 0.0 for none. A sentence gains it by naming one, or by a pronoun right after one
    that did (or after a profile statement that did); a profile statement gains nothing."""
    weights: list[float] = []
    about_own = False
    for sentence, names, in_profile in said:
        names_own = any(normalise_name(name) in owned for name in names)
        weight = 0.0
        if in_profile:  # "My cat Mango was diagnosed. He needs insulin.": the pronoun is Mango
            about_own = names_own
        elif names_own or (about_own and _PRONOUN.search(sentence) is not None):
            about_own = True
            weight = named_salience(sentence) or 0.0
        else:
            about_own = False
        weights.append(weight)
    return weights
