"""Rewriting a long alternation of words as a tree of shared prefixes, for patterns that are only
asked whether they match.

Python's `re` tries an alternation's branches one by one at every position, so a list of a
hundred words costs a hundred checks wherever a word starts. Written as a tree
("allerg(?:ic|y)|asthma" rather than "allergic|allergy|asthma"), a position that starts with no
listed letter costs one check and a word shares the checks of its prefix. The tree matches at
exactly the positions the list matches (a backtracking search tries every branch before it moves
on), though it may pick another branch, so it serves `search(...) is not None`, not spans.

Patterns asked together which of them match a text (`PatternSet`) are joined the same way: one
scan of their branches in one tree finds where any of them matches, instead of a scan each.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Generic, TypeVar

K = TypeVar("K")

_QUANTIFIERS = frozenset("?*+{")
_SPECIAL = frozenset("\\.^$*+?{}[]|()")


def factored(pattern: str) -> str:
    """`pattern` with every alternation group (`(?:a|b|...)`) of three or more branches written
    as a prefix tree, recursively; groups of other kinds and the rest of the pattern as they are.
    Raises ValueError for a pattern whose brackets do not balance, and for one with an atomic
    group or a possessive quantifier, where the branch taken decides whether the rest matches."""
    if "(?>" in pattern or any(q + "+" in pattern.replace("\\", "") for q in "?*+}"):
        raise ValueError(f"atomic groups and possessive quantifiers are not factored: {pattern!r}")
    out: list[str] = []
    at = 0
    while at < len(pattern):
        char = pattern[at]
        if char == "\\":
            out.append(pattern[at : at + 2])
            at += 2
        elif char == "[":
            end = _class_end(pattern, at)
            out.append(pattern[at:end])
            at = end
        elif pattern.startswith("(?:", at):
            end = _group_end(pattern, at)
            branches = [factored(branch) for branch in _branches(pattern[at + 3 : end - 1])]
            tree = _tree(branches) if len(branches) >= 3 else "|".join(branches)
            out.append(f"(?:{tree})")
            at = end
        else:
            out.append(char)
            at += 1
    return "".join(out)


_EDGES = ("(?=\\w)\\b", "\\b")
"""Openings shared by many branches, each taken out in front of one tree of what follows it: a
word's start with a letter first, and any word's edge."""


def joined(patterns: Sequence[str]) -> str:
    """One pattern that matches at exactly the positions where one of `patterns` (all to be
    compiled with the same flags) matches: their top-level branches side by side, those opening
    with a word's edge (`_EDGES`) behind it with their first letters merged, a list of words
    there (`(?:a|b|...)tail`) as each word with its tail. The branches are taken as written
    (long lists are factored where they are made). Raises ValueError for a pattern `_check_joinable`
    refuses."""
    trees: dict[str, list[str]] = {edge: [] for edge in _EDGES}
    others: list[str] = []
    for pattern in patterns:
        _check_joinable(pattern)
        for branch in _branches(pattern):
            edge = next((edge for edge in _EDGES if branch.startswith(edge)), None)
            rest = "" if edge is None else branch[len(edge) :]
            if edge is None or not rest:
                others.append(f"(?:{branch})")
            elif rest.startswith("(?:") and rest[_group_end(rest, 0) :][:1] not in _QUANTIFIERS:
                end = _group_end(rest, 0)
                trees[edge].extend(word + rest[end:] for word in _branches(rest[3 : end - 1]))
            else:
                trees[edge].append(rest)
    fronts = [f"{edge}(?:{_tree(branches)})" for edge, branches in trees.items() if branches]
    return "|".join(fronts + others)


def _check_joinable(pattern: str) -> None:
    """Raise ValueError for a pattern with a back-reference, a named group or a flag for the
    whole pattern: none can stand inside another pattern."""
    if _BACK_REFERENCE.search(pattern) or _GLOBAL_FLAGS.search(pattern):
        raise ValueError(f"a back-reference, named group or global flag: {pattern!r}")


_BACK_REFERENCE = re.compile(r"(?<!\\)(?:\\\\)*\\[1-9]|\(\?P[=<]")
_GLOBAL_FLAGS = re.compile(r"\(\?[aiLmsux]+\)")


class PatternSet(Generic[K]):
    """Patterns asked together which of them a text matches (the kinds of subject of a sentence,
    its topics): one scan of all of them `joined` finds each place where one of them matches,
    and only there is each pattern not yet found tried; a text is read about once instead of
    once a pattern, with the same answers.

    The joined pattern is compiled on first use (tens of milliseconds for the rules' sets): a
    process that never reads a message for them, a search or a command, never pays for it."""

    def __init__(self, patterns: Mapping[K, re.Pattern[str]]) -> None:
        flags = {pattern.flags for pattern in patterns.values()}
        if len(flags) > 1:
            raise ValueError("patterns asked together must share their flags")
        if any(flag & re.VERBOSE for flag in flags):  # a comment would swallow what follows
            raise ValueError("verbose patterns cannot be asked together")
        for pattern in patterns.values():
            _check_joinable(pattern.pattern)  # refused when made, not at first use
        self._patterns = dict(patterns)
        self._flags = flags.pop() if flags else 0
        self._joined: re.Pattern[str] | None = None

    def _any(self) -> re.Pattern[str]:
        # Two threads may both compile it the first time: the same pattern, one of them kept.
        if self._joined is None:
            sources = [pattern.pattern for pattern in self._patterns.values()]
            self._joined = re.compile(joined(sources), self._flags)
        return self._joined

    def matching(self, text: str) -> set[K]:
        """The keys of the patterns whose `search` would find a match in `text`."""
        found: set[K] = set()
        at = 0
        search = self._any().search
        while at <= len(text) and len(found) < len(self._patterns):
            hit = search(text, at)
            if hit is None:
                break
            start = hit.start()
            for key, pattern in self._patterns.items():
                if key not in found and pattern.match(text, start) is not None:
                    found.add(key)
            at = start + 1  # past where this one starts: one may start inside it
        return found


def _tree(branches: Sequence[str]) -> str:
    """Branches as one alternation with their literal heads merged into a prefix tree."""
    heads = [_literal_head(branch) for branch in branches]
    return _merge([(branch[:n], branch[n:]) for branch, n in zip(branches, heads, strict=True)])


def _merge(items: list[tuple[str, str]]) -> str:
    """(literal head, rest) pairs as an alternation: heads that share a first letter share it."""
    groups: dict[str, list[tuple[str, str]]] = {}
    order: list[str] = []  # first letters in the order they first appear; "" for bare rests
    for head, rest in items:
        key = head[:1]
        if key not in groups:
            groups[key] = []
            order.append(key)
        groups[key].append((head[1:], rest) if key else (head, rest))
    parts: list[str] = []
    for key in order:
        members = groups[key]
        if not key:
            parts.extend(rest for _, rest in members)
        elif len(members) == 1:
            head, rest = members[0]
            parts.append(key + head + rest)
        else:
            inner = _merge(members)
            parts.append(key + (inner if _is_one_branch(inner) else f"(?:{inner})"))
    return "|".join(parts)


def _is_one_branch(alternation: str) -> bool:
    """Whether `alternation` has no `|` outside brackets (it can follow a letter ungrouped)."""
    return len(_branches(alternation)) == 1


def _literal_head(branch: str) -> int:
    """How many leading characters of `branch` are plain letters matched as written, none of
    them made optional or repeated by a quantifier after it."""
    n = 0
    while n < len(branch):
        char = branch[n]
        if char in _SPECIAL or (n + 1 < len(branch) and branch[n + 1] in _QUANTIFIERS):
            break
        n += 1
    return n


def _branches(body: str) -> list[str]:
    """`body` split at the `|` that are outside brackets and escapes."""
    cuts = [at for at, char, depth in _scanned(body) if char == "|" and depth == 0]
    return [body[low + 1 : high] for low, high in zip([-1, *cuts], [*cuts, len(body)], strict=True)]


def _group_end(pattern: str, start: int) -> int:
    """The index just after the `)` closing the group that opens at `start`."""
    for at, char, depth in _scanned(pattern, start):
        if char == ")" and depth == 0:
            return at + 1
    raise ValueError(f"unbalanced group in pattern {pattern!r}")


def _scanned(text: str, start: int = 0) -> Iterator[tuple[int, str, int]]:
    """(index, character, open parentheses after it) for each character of `text` from
    `start` that is neither escaped nor inside a character class."""
    depth = 0
    at = start
    while at < len(text):
        char = text[at]
        if char == "\\":
            at += 2
            continue
        if char == "[":
            at = _class_end(text, at)
            continue
        depth += 1 if char == "(" else -1 if char == ")" else 0
        yield at, char, depth
        at += 1


def _class_end(pattern: str, start: int) -> int:
    """The index just after the `]` closing the character class that opens at `start`."""
    at = start + 1
    if at < len(pattern) and pattern[at] == "^":
        at += 1
    if at < len(pattern) and pattern[at] == "]":
        at += 1  # a leading "]" is a member
    while at < len(pattern):
        if pattern[at] == "\\":
            at += 2
            continue
        if pattern[at] == "]":
            return at + 1
        at += 1
    raise ValueError(f"unclosed character class in pattern {pattern!r}")
