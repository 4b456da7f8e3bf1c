"""Text any store or wire can take: no lone UTF-16 surrogates.

A Python string can hold half of a character, a lone surrogate: `json.loads` makes one of a
`"\\ud83d"` escape, which a client writes after cutting a string inside an emoji (JavaScript's
strings are UTF-16). Such a string has no UTF-8 form, so SQLite, HTTP bodies and tokenizers all
refuse it, and a message holding one would be lost. Text keeps everything else and shows U+FFFD
for each half; an id holding one is refused instead, since replacing could make two ids one.
"""

from __future__ import annotations


def is_well_formed(text: str) -> bool:
    """True when `text` has a UTF-8 form (holds no surrogate code points)."""
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def well_formed(text: str) -> str:
    """`text` with each lone surrogate replaced by U+FFFD (two that make a pair become the
    character they encode); `text` itself when it holds none."""
    if is_well_formed(text):
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
