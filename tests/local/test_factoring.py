"""Long alternations rewritten as prefix trees match wherever the lists they replace match."""

from __future__ import annotations

import random
import re

import pytest

from zepkit.local import profile
from zepkit.local.factoring import factored


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
