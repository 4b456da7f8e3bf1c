"""Drafting what a message or data item will store: its episode columns and its statements.

Drafting runs the extractor, so it is done before the write lock is taken.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, cast

from zepkit.core._models import DataType, Message
from zepkit.local.answers import Lead
from zepkit.local.codec import encode_metadata, encode_time, now
from zepkit.local.extraction import (
    ExtractedStatement,
    Extractor,
    FollowUpExtractor,
    ReplyExtractor,
)
from zepkit.local.kin import own_names
from zepkit.local.profile import HEED_TOPIC, LIMIT_MARK, limits_plans, must_heed
from zepkit.local.stats import message_sentences
from zepkit.local.text import split_turns


@dataclass(frozen=True)
class DraftStatement:
    """A statement ready to write; `by_user` links it to the graph's user entity. `maybe` names
    link only to entities the graph has; `profile`, `topics` and `ends` are the extractor's
    (see `ExtractedStatement`), kept only for what the user says."""

    text: str
    speaker: str | None
    entities: tuple[str, ...]
    by_user: bool
    maybe: tuple[str, ...] = ()
    profile: float | None = None
    topics: tuple[str, ...] = ()
    ends: bool = False
    own: tuple[str, ...] = ()
    """The names of `entities` a profile statement gives as the user's family or pets."""


@dataclass(frozen=True)
class Draft:
    """An episode ready to write: its column values and its statements."""

    source: DataType
    role: str | None
    name: str | None
    content: str
    created_at: str
    metadata: str | None
    statements: tuple[DraftStatement, ...]
    counted: tuple[str, ...] | None = None
    """The texts the term statistics count (a message's sentences); None: its statements."""


def draft_message(extractor: Extractor, message: Message, lead: Lead | None = None) -> Draft:
    """A thread message as an episode; its speaker is its name, else its role. `lead`: what came
    just before this user message in its thread (read with it when the extractor can)."""
    speaker = message.name or message.role
    # What `isinstance(extractor, ReplyExtractor)` tests, without a protocol check's cost (about
    # 10 us, once for every message written).
    reads_replies = getattr(extractor, "extract_reply", None) is not None
    follow_up = getattr(extractor, "extract_follow_up", None)
    by_user = message.role == "user"
    if by_user and lead is not None and lead.follows and lead.before and follow_up is not None:
        found = cast(FollowUpExtractor, extractor).extract_follow_up(
            message.content, speaker=speaker, before=lead.before
        )
    elif by_user and lead is not None and reads_replies:
        found = cast(ReplyExtractor, extractor).extract_reply(
            message.content, speaker=speaker, question=lead.question, before=lead.before
        )
    else:
        found = extractor.extract(
            message.content, speaker=speaker, source="message", role=message.role
        )
    statements = tuple(_drafted(s, speaker, by_user) for s in found)
    return Draft(
        source="message",
        role=message.role,
        name=message.name,
        content=message.content,
        created_at=encode_time(message.created_at or now()),
        metadata=encode_metadata(message.metadata),
        statements=statements,
        counted=tuple(message_sentences(message.content, speaker)),
    )


def _drafted(found: ExtractedStatement, speaker: str, by_user: bool) -> DraftStatement:
    """A message's statement as it is written; a name a user's profile statement gives as their
    family's or pet's is an entity even where a capital alone would not make it one ("Mango, my
    cat, is nine")."""
    if not by_user:
        return DraftStatement(
            found.text, speaker, found.entities, False, maybe=found.maybe_entities, ends=found.ends
        )
    own = (
        own_names(found.text, (*found.entities, *found.maybe_entities))
        if found.profile is not None
        else ()
    )
    return DraftStatement(
        found.text,
        speaker,
        (*found.entities, *(name for name in own if name not in found.entities)),
        True,
        maybe=tuple(name for name in found.maybe_entities if name not in own),
        profile=found.profile,
        topics=_marked(found),
        ends=found.ends,
        own=own,
    )


def _marked(found: ExtractedStatement) -> tuple[str, ...]:
    """A user's statement's topics, with `HEED_TOPIC` when it is in their profile and tells of
    an allergy or condition to heed (every block reads those by the topics' index), and
    `LIMIT_MARK` for a limit that plans of outings, travel or exercise must heed."""
    if found.profile is None:
        return found.topics
    marks = (
        *((HEED_TOPIC,) if HEED_TOPIC not in found.topics and must_heed(found.text) else ()),
        *((LIMIT_MARK,) if LIMIT_MARK not in found.topics and limits_plans(found.text) else ()),
    )
    return (*found.topics, *marks) if marks else found.topics


def draft_data(
    extractor: Extractor,
    data: str,
    *,
    type: DataType,
    created_at: str,
    metadata: dict[str, Any] | None,
) -> Draft:
    """A data item as an episode; "message" data reads "Name: content" lines as turns."""
    if type == "json":
        try:
            json.loads(data)
        except ValueError as exc:
            raise ValueError(f"data is not valid JSON: {exc}") from exc
    turns = split_turns(data) if type == "message" else [(None, data)]
    statements: list[DraftStatement] = []
    for speaker, said in turns:
        for found in extractor.extract(said, speaker=speaker, source=type):
            # A named speaker of a transcript is someone the statement is about.
            names = (speaker, *found.entities) if speaker else found.entities
            statements.append(
                DraftStatement(
                    found.text, speaker, names, by_user=False, maybe=found.maybe_entities
                )
            )
    speakers = {speaker for speaker, _ in turns if speaker}
    return Draft(
        source=type,
        role=None,
        name=speakers.pop() if len(speakers) == 1 else None,
        content=data,
        created_at=created_at,
        metadata=encode_metadata(metadata),
        statements=tuple(statements),
    )
