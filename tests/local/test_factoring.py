"""Long alternations rewritten as prefix trees match wherever the lists they replace match."""

from __future__ import annotations

import random
import re

import pytest

from zepkit.local import profile
from zepkit.local.factoring import PatternSet, factored, joined


def test_words_sharing_a_prefix_share_its_checks() -> None:
    assert factored(r"\b(?:allergic|allergy|asthma|back pain)\b") == (
        r"\b(?:a(?:llerg(?:ic|y)|sthma)|back pain)\b"
    )


def test_a_word_that_is_another_words_prefix_keeps_both() -> None:
    pattern = factored(r"(?:dog|dogs|do)")
    assert pattern == "(?:do(?:g(?:|s)|))"
    assert [re.fullmatch(pattern, word) is not None for word in ("do", "dog", "dogs", "d")] == [
        True,
        True,
        True,
        False,
    ]


def test_a_letter_made_optional_or_repeated_ends_the_shared_head() -> None:
    # "colou?r": the "u" may be absent, so only "colo" is a literal head
    assert factored("(?:colou?r|colony|cold)") == "(?:col(?:o(?:u?r|ny)|d))"


def test_escapes_classes_and_groups_of_other_kinds_are_kept_as_written() -> None:
    pattern = r"(?=\w)\b(?:a\w*|a[|)]b|a(?-i:X)|ab(?!c))"
    assert factored(pattern) == r"(?=\w)\b(?:a(?:\w*|[|)]b|(?-i:X)|b(?!c)))"


def test_short_alternations_are_left_alone() -> None:
    assert factored("(?:cat|car)s?") == "(?:cat|car)s?"


def test_unbalanced_patterns_and_atomic_groups_are_refused() -> None:
    with pytest.raises(ValueError, match="unbalanced"):
        factored("(?:a|b|c")
    with pytest.raises(ValueError, match="character class"):
        factored("(?:a|b|[c)")
    with pytest.raises(ValueError, match="atomic"):
        factored("(?>ab|a|c)b")
    with pytest.raises(ValueError, match="possessive"):
        factored("(?:ab|a|c)?+b")


def _random_pattern(rng: random.Random, depth: int = 0) -> str:
    """A small random pattern over the letters a-c: literals, classes, escapes, optional and
    repeated parts, lookarounds and (nested) alternations."""
    parts = []
    for _ in range(rng.randint(1, 4)):
        roll = rng.random()
        if roll < 0.2 and depth < 3:
            branches = [_random_pattern(rng, depth + 1) for _ in range(rng.randint(2, 6))]
            if rng.random() < 0.2:
                branches.append("")
            part = f"(?:{'|'.join(branches)})"
        elif roll < 0.25 and depth < 3:
            part = f"(?{rng.choice('=!')}{_random_pattern(rng, depth + 1)})"
        elif roll < 0.3 and depth < 3:
            part = f"({_random_pattern(rng, depth + 1)})"
        elif roll < 0.4:
            part = rng.choice([r"\b", r"\w", "[ab]", "[^a]", ".", " ", r"\s"])
        else:
            part = "".join(rng.choice("abc") for _ in range(rng.randint(1, 3)))
        if rng.random() < 0.2 and part != r"\b" and not part.startswith(("(?=", "(?!")):
            part += rng.choice(["?", "*", "+", "{1,2}", "??"])
        parts.append(part)
    return "".join(parts)


def test_a_factored_pattern_matches_exactly_where_the_original_does() -> None:
    rng = random.Random(20261204)
    changed = 0
    for _ in range(1500):
        pattern = _random_pattern(rng)
        rewritten = factored(pattern)
        changed += rewritten != pattern
        original, tree = re.compile(pattern), re.compile(rewritten)
        for _ in range(25):
            text = "".join(rng.choice("abc  ") for _ in range(rng.randint(0, 9)))
            assert (original.search(text) is None) == (tree.search(text) is None), (
                pattern,
                rewritten,
                text,
            )
    assert changed > 300  # the trees were built, not only the patterns copied


def test_the_kinds_of_subject_are_read_through_their_trees() -> None:
    health = next(kind for kind in profile._KINDS if kind.name == "health")
    assert health.lowered is not None
    assert r"\b(?:a(?:l(?:lerg\w*|zheimer" in health.lowered.pattern  # one "a", one "l"
    assert profile.kinds_in("My wife is allergic to peanuts and we have two dogs.") == {
        "health",
        "people",
        "pets",
        "dependants",
    }


def _edged_pattern(rng: random.Random) -> str:
    """A random pattern (`_random_pattern`) whose branches often open at a word's edge, some
    with a list of words and a tail after it, as the patterns asked together are written."""
    branches = []
    for _ in range(rng.randint(1, 4)):
        edge = rng.choice(["", r"\b", r"(?=\w)\b"])
        if rng.random() < 0.5:
            words = [_random_pattern(rng, 2) for _ in range(rng.randint(1, 6))]
            body = f"(?:{'|'.join(words)})" + rng.choice(["", "?", r"\b", r"s?\b", "(?! b)", "$"])
        else:
            body = _random_pattern(rng)
        branches.append(edge + body)
    return "|".join(branches)


def test_joined_patterns_match_at_exactly_the_places_one_of_them_does() -> None:
    rng = random.Random(20261205)
    for _ in range(600):
        patterns = [_edged_pattern(rng) for _ in range(rng.randint(1, 5))]
        one = re.compile(joined(patterns))
        each = [re.compile(pattern) for pattern in patterns]
        for _ in range(15):
            text = "".join(rng.choice("abc  .") for _ in range(rng.randint(0, 10)))
            for at in range(len(text) + 1):
                assert (one.match(text, at) is not None) == any(
                    pattern.match(text, at) is not None for pattern in each
                ), (patterns, one.pattern, text, at)


def test_a_pattern_set_finds_the_patterns_a_text_matches() -> None:
    rng = random.Random(20261206)
    for _ in range(300):
        patterns = {n: re.compile(_edged_pattern(rng)) for n in range(rng.randint(1, 6))}
        patterns[99] = re.compile(rng.choice(["$", r"(?=\W*$)", "^", r"\b"]))  # empty matches
        together = PatternSet(patterns)
        assert together._joined is None  # compiled on first use, not when made
        for _ in range(15):
            text = "".join(rng.choice("abc  .") for _ in range(rng.randint(0, 10)))
            expected = {key for key, pattern in patterns.items() if pattern.search(text)}
            assert together.matching(text) == expected, (text, together._any().pattern)


def test_what_cannot_stand_inside_another_pattern_is_refused() -> None:
    with pytest.raises(ValueError, match="back-reference"):
        joined([r"\b(a)b\1"])
    with pytest.raises(ValueError, match="global flag"):
        joined([r"(?i)\bcat"])
    with pytest.raises(ValueError, match="named group"):
        joined([r"\b(?P<animal>cat)"])
    with pytest.raises(ValueError, match="share their flags"):
        PatternSet({1: re.compile("a"), 2: re.compile("b", re.IGNORECASE)})
    with pytest.raises(ValueError, match="verbose"):
        PatternSet({1: re.compile("a  # one", re.VERBOSE), 2: re.compile("b", re.VERBOSE)})


def test_the_kinds_found_through_one_tree_are_those_each_list_finds() -> None:
    # Sentences made of the kinds' own words (and a few others), so that most touch some kind,
    # several of them at once: the kinds found are those each kind's patterns find alone.
    vocabulary = sorted(
        {
            word
            for kind in profile._KINDS
            if kind.lowered is not None
            for word in re.findall(r"[a-z]{3,}", kind.lowered.pattern)
        }
        | {"my", "the", "i", "am", "a", "to", "and", "is"}
    )
    rng = random.Random(20261205)
    touched = several = 0
    for _ in range(4000):  # enough that hundreds touch several kinds as the lists grow
        sentence = " ".join(rng.choice(vocabulary) for _ in range(rng.randint(1, 10)))
        sentence = rng.choice(["", "I ", "My "]) + sentence + rng.choice(["", ".", "s!"])
        alone = {kind.name for kind in profile._KINDS if kind.touched(sentence, sentence.lower())}
        found = set(profile.kind_weights(sentence)) - {"dependants", "manner"}
        assert found == alone - {"manner"}, sentence
        touched += len(found) > 0
        several += len(found) > 1
    assert touched > 800 and several > 150
