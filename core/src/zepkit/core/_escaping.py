"""Neutralising stored text that could pass for prompt structure: tags and role labels.

A model reads `</ZEP_CONTEXT x="1">`, `< /ZEP_ CONTEXT>`, `＜/ZEP_CONTEXT＞`, a zero-width
character inside the name or a Cyrillic `Е` in place of an `E` as the same tag, so tags are
matched on a skeleton of their name: compatibility-normalised, invisible and separator characters
dropped, common Cyrillic and Greek look-alikes mapped to Latin, upper case. A matching tag keeps
its text but loses its brackets (`&lt;`, `&gt;`). A line of stored text that would start with a
role label ("SYSTEM:") is joined to the line before it, as a stored line break never starts a
prompt line.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable, Iterable

_OPENERS = "<\uff1c\ufe64\u2039\u2329\u3008\u27e8\u276e\u276c\u02c2\u1438"
_CLOSERS = ">\uff1e\ufe65\u203a\u232a\u3009\u27e9\u276f\u276d\u02c3\u1433"
# an opening bracket, up to 80 characters of tag body (no bracket), then a closing one if any
_CANDIDATE = re.compile(
    f"[{_OPENERS}](?P<body>[^{_OPENERS}{_CLOSERS}]{{0,80}})(?P<close>[{_CLOSERS}])?"
)

_LOOKALIKES = str.maketrans(
    "АВЕЅІЈКМНОРСТХУаеіјорсхуѕкмнтвԁԛԝΑΒΕΖΗΙΚΜΝΟΡΤΥΧαεικνορτυχı",
    "ABESIJKMHOPCTXYAEIJOPCXYSKMHTBDQWABEZHIKMNOPTYXAEIKVOPTYXI",
)

_STRUCTURE = re.compile(r"[^\S\n]*</?[A-Za-z_][\w.:-]*>[^\S\n]*")

LAYOUT_TAGS = frozenset(
    {
        "ZEP_CONTEXT",
        "USER_SUMMARY",
        "USER_PROFILE",
        "FACTS",
        "ENTITIES",
        "EPISODES",
        "MORE_USER_PROFILE",
    }
)
"""The tags of the default template and of Zep's context layout."""

ROLE_LABELS = frozenset(
    {"SYSTEM", "ASSISTANT", "USER", "HUMAN", "DEVELOPER", "TOOL", "AI", "MODEL", "FUNCTION"}
)
_ROLE_LINE = re.compile(r"^[^\S\n]*(?P<label>[^\W\d][^\s:：]{0,24})[^\S\n]*[:：]")


def skeleton(text: str) -> str:
    """`text` as a model would read a tag name: look-alikes folded, separators gone, upper case."""
    folded = unicodedata.normalize("NFKC", text).translate(_LOOKALIKES).upper()
    return "".join(char for char in folded if "A" <= char <= "Z" or "0" <= char <= "9")


def _neutralise(match: re.Match[str]) -> str:
    close = match.group("close")
    return "&lt;" + match.group("body") + ("&gt;" if close else "")


def _escape(text: str, matches: Callable[[str], bool], *, spaced: bool = True) -> str:
    def replace(match: re.Match[str]) -> str:
        body = match.group("body")
        lead = body.lstrip()
        starts_like_a_tag = bool(lead) and (
            lead[0] in "/\uff0f\\|!?"  # closing tags, <|special|> tokens, <!-- -->, <?xml
            or ((spaced or lead == body) and (lead[0].isalpha() or lead[0] == "_"))
            or _hidden(lead[0])
        )
        if not starts_like_a_tag:
            return match.group(0)  # "<3", "a < 5": not a tag
        return _neutralise(match) if matches(skeleton(body)) else match.group(0)

    return _CANDIDATE.sub(replace, text)


def _hidden(char: str) -> bool:
    return unicodedata.category(char) == "Cf"  # zero-width and other invisible marks


def escape_tags(text: str, tags: Iterable[str]) -> str:
    """Neutralise every opening or closing form of `tags` in `text`, attributes and look-alikes
    included (case-insensitive)."""
    names = _tag_skeletons(tags if isinstance(tags, frozenset) else frozenset(tags))
    if not names:
        return text
    return _escape(text, lambda found: found.startswith(names))


@functools.lru_cache(maxsize=64)
def _tag_skeletons(tags: frozenset[str]) -> tuple[str, ...]:
    """The skeletons of a set of tag names (a block escapes every line against the same few)."""
    return tuple(sorted(name for name in (skeleton(tag) for tag in tags) if name))


def escape_all_tags(text: str, *, keep_structure: bool = False) -> str:
    """Neutralise every tag-like construct in `text` (for text that must carry no markup); a bracket
    followed by a space and a word ("a < b") is not one, `< /x>` is. With
    `keep_structure`, a line that is nothing but one tag (`<FACTS>`) is layout and stays."""
    if not keep_structure:
        return _escape(text, bool, spaced=False)
    return "\n".join(
        line if _STRUCTURE.fullmatch(line) else _escape(line, bool, spaced=False)
        for line in text.split("\n")
    )


def defuse_role_lines(text: str) -> str:
    """Join a line that starts with a role label ("SYSTEM:", "assistant:") to the line before it,
    so stored line breaks cannot put an instruction at the start of a prompt line."""
    lines = text.split("\n")
    kept: list[str] = []
    for line in lines:
        match = _ROLE_LINE.match(line)
        if match and skeleton(match.group("label")) in ROLE_LABELS:
            if kept and kept[-1].strip():
                kept[-1] = kept[-1].rstrip() + " " + line.strip()
                continue
            line = "- " + line.strip()
        kept.append(line)
    return "\n".join(kept)


def one_line(text: str) -> str:
    """One stored item as one line: whitespace (line breaks included) collapsed."""
    return " ".join(text.split())
