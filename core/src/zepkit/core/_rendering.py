"""Turning stored memory into the prompt block: the one template, escaping and the size budget.

Rendering uses `str.replace`, never `str.format`, so braces and percent signs in memory are inert.
Stored text can never open or close the block: any tag the template uses is escaped in the content,
and so is every other tag except a line that is only a tag (the layout's `<FACTS>`); a stored line
break cannot start a line with a role label ("SYSTEM:").
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from datetime import datetime

from zepkit.core._errors import ConfigurationError
from zepkit.core._escaping import LAYOUT_TAGS, defuse_role_lines, escape_all_tags, escape_tags
from zepkit.core._limits import DEFAULT_CONTEXT_CHARS
from zepkit.core._models import Entity, Episode, Fact

logger = logging.getLogger("zepkit.core")

PLACEHOLDER = "{context}"

DEFAULT_TEMPLATE = (
    "The following context comes from the agent's long-term memory: relevant facts, entities and "
    "prior knowledge about the user. Use it to inform your responses. Where it disagrees with the "
    "current conversation, the current conversation is right.\n\n"
    "<ZEP_CONTEXT>\n{context}\n</ZEP_CONTEXT>"
)

_TAG = re.compile(r"<\s*/?\s*([A-Za-z_][\w.:-]*)[^<>]*>")
_ENTRY = re.compile(r"^\s*- ")


def template_tags(template: str) -> frozenset[str]:
    """The tag names a template uses, e.g. `{"ZEP_CONTEXT"}` for the default one."""
    return frozenset(match.group(1).upper() for match in _TAG.finditer(template))


def check_template(template: str) -> str:
    """Raise `ConfigurationError` unless the template has exactly one `{context}` placeholder."""
    count = template.count(PLACEHOLDER)
    if count != 1:
        raise ConfigurationError(
            f"context template must contain {PLACEHOLDER!r} exactly once (found {count})"
        )
    return template


def render_context(
    context: str | None,
    *,
    template: str = DEFAULT_TEMPLATE,
    max_chars: int | None = DEFAULT_CONTEXT_CHARS,
) -> str:
    """Wrap backend context in the template; `""` when there is nothing to say.

    With `max_chars`, the rendered block is kept within that many characters by dropping whole
    entries (`- ...` lines) from the end, never by cutting one in half.
    """
    if context is None or not context.strip():
        return ""
    check_template(template)
    body = escape_tags(context.strip("\n"), template_tags(template))
    body = defuse_role_lines(escape_all_tags(body, keep_structure=True))
    rendered = template.replace(PLACEHOLDER, body)
    if max_chars is None or len(rendered) <= max_chars:
        return rendered
    room = max_chars - (len(template) - len(PLACEHOLDER))
    kept, dropped = _fit_entries(body.split("\n"), room)
    if not kept:
        logger.warning(
            "context dropped: %d characters do not fit the %d-character budget",
            len(rendered),
            max_chars,
        )
        return ""
    logger.info("context cut to the %d-character budget: %d entries dropped", max_chars, dropped)
    return template.replace(PLACEHOLDER, "\n".join(kept))


def is_rendered_block(text: object, template: str = DEFAULT_TEMPLATE) -> bool:
    """Whether `text` is a whole block rendered from `template` (adapters that must replace last
    turn's block find it this way; stored text is escaped, so it cannot look like one)."""
    prefix, suffix = check_template(template).split(PLACEHOLDER)
    if not isinstance(text, str) or not (prefix.strip() and suffix.strip()):
        return False
    return text.startswith(prefix) and text.endswith(suffix)


def strip_rendered_block(text: str, template: str = DEFAULT_TEMPLATE) -> str:
    """`text` without any block rendered from `template` and the blank lines that led into it,
    so a block can be replaced in a system message rather than stacked."""
    prefix, suffix = check_template(template).split(PLACEHOLDER)
    if not (prefix.strip() and suffix.strip()):
        return text
    while (start := text.find(prefix)) >= 0:
        end = text.find(suffix, start + len(prefix))
        if end < 0:
            break
        text = text[:start].rstrip("\n") + text[end + len(suffix) :]
    return text


def _fit_entries(lines: Sequence[str], room: int) -> tuple[list[str], int]:
    """Keep as many entries, in order, as fit in `room` characters with their sections' headers
    and tags (sections are separated by blank lines). A section's structure is paid for with its
    first kept entry, so a section that keeps none goes whole and never takes room from the
    entries before it; text outside any section with entries always stays."""
    entry = [bool(_ENTRY.match(line)) for line in lines]
    if not any(entry):  # free text: keep whole lines from the top
        entry = [True] * len(lines)
    sections = _sections(lines)
    listing = {sections[i] for i in range(len(lines)) if entry[i]}
    structure: dict[int, list[int]] = {}
    for i in range(len(lines)):
        if not entry[i]:
            structure.setdefault(sections[i] if sections[i] in listing else -1, []).append(i)
    keep = set(structure.pop(-1, []))
    used = sum(len(lines[i]) + 1 for i in keep)
    opened: set[int] = set()
    kept = 0
    for i in (i for i in range(len(lines)) if entry[i]):
        section = sections[i]
        extra = [] if section in opened else structure.get(section, [])
        cost = len(lines[i]) + 1 + sum(len(lines[j]) + 1 for j in extra)
        if used + cost <= room + 1:
            keep.update([i, *extra])
            opened.add(section)
            used += cost
            kept += 1
    dropped = sum(entry) - kept
    if not kept:
        return [], dropped
    return _single_blanks([lines[i] for i in sorted(keep)]), dropped


def _sections(lines: Sequence[str]) -> list[int]:
    """Each line's section number: sections are separated by blank lines (a blank line belongs
    to the section after it, so a section that goes takes its separator along)."""
    numbers, number, blank_before = [], 0, False
    for line in lines:
        blank = not line.strip()
        if blank and not blank_before:
            number += 1
        numbers.append(number)
        blank_before = blank
    return numbers


def _single_blanks(lines: list[str]) -> list[str]:
    """`lines` without leading, trailing or repeated blank lines."""
    out: list[str] = []
    for line in lines:
        if line.strip() or (out and out[-1].strip()):
            out.append(line)
    while out and not out[-1].strip():
        out.pop()
    return out


def _date(value: datetime | None) -> str:
    return value.strftime("%Y-%m-%d %H:%M:%S") if value else "unknown"


def compose_context(
    facts: Sequence[Fact],
    entities: Sequence[Entity],
    episodes: Sequence[Episode] = (),
    *,
    profile: Sequence[Fact] = (),
    user_summary: str | None = None,
    more_profile: Sequence[Fact] = (),
) -> str | None:
    """The FACTS / ENTITIES layout Zep's context blocks use, for backends and adapters that build
    their own block; before it USER_SUMMARY (a written summary of the user) and USER_PROFILE
    (what the user said about themselves, current first), after it EPISODES (raw matching
    content) and MORE_USER_PROFILE (more the user said about themselves: last, so a budget
    drops it first), when given."""
    if not (facts or entities or episodes or profile or user_summary or more_profile):
        return None
    parts: list[str] = []
    if user_summary:
        parts.append(
            "# A summary of the user\n<USER_SUMMARY>\n"
            f"  - {_one_line(user_summary)}\n</USER_SUMMARY>"
        )
    if profile:
        header = "What the user has told us about themselves, current first"
        parts.append(_fact_section(header, "USER_PROFILE", profile))
    if facts:
        header = "Relevant facts, each with the span of time it held"
        parts.append(_fact_section(header, "FACTS", facts))
    if entities:
        lines = [
            f"  - {_one_line(e.name)}: {_one_line(e.summary)}" if e.summary else f"  - {e.name}"
            for e in entities
        ]
        parts.append(
            "# Relevant entities\n# ENTITY_NAME: entity summary\n<ENTITIES>\n"
            + "\n".join(lines)
            + "\n</ENTITIES>"
        )
    if episodes:
        lines = [f"  - {_one_line(e.content)}" for e in episodes]
        parts.append(
            "# Relevant episodes (raw content)\n<EPISODES>\n" + "\n".join(lines) + "\n</EPISODES>"
        )
    if more_profile:
        header = "More of what the user has told us about themselves"
        parts.append(_fact_section(header, "MORE_USER_PROFILE", more_profile))
    return "\n\n".join(parts)


def _fact_section(header: str, tag: str, facts: Sequence[Fact]) -> str:
    """A section of fact lines: its header, the format line, the tagged entries."""
    lines = "\n".join(_fact_line(f) for f in facts)
    return f"# {header}\n# format: FACT (Date range: from - to)\n<{tag}>\n{lines}\n</{tag}>"


def _fact_line(fact: Fact) -> str:
    end = _date(fact.invalid_at) if fact.invalid_at else "present"
    return f"  - {_one_line(fact.fact)} (Date range: {_date(fact.valid_at)} - {end})"


def _one_line(text: str) -> str:
    """One stored item as one entry line: whitespace collapsed, every tag neutralised."""
    return escape_all_tags(escape_tags(" ".join(text.split()), LAYOUT_TAGS))
