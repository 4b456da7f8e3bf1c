"""Rewriting a long alternation of words as a tree of shared prefixes, for patterns that are only
asked whether they match.

Python's `re` tries an alternation's branches one by one at every position, so a list of a
hundred words costs a hundred checks wherever a word starts. Written as a tree
("allerg(?:ic|y)|asthma" rather than "allergic|allergy|asthma"), a position that starts with no
listed letter costs one check and a word shares the checks of its prefix. The tree matches at
exactly the positions the list matches (a backtracking search tries every branch before it moves
on), though it may pick another branch, so it serves `search(...) is not None`, not spans.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

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
