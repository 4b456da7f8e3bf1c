"""Conversions between zepkit's models and the zep-cloud SDK's v4 types."""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, cast

from zep_cloud.types import AddMessage, Edge, Node, Observation, ThreadSummary
from zep_cloud.types import Episode as ZepEpisode
from zep_cloud.types import Message as ZepMessage

from zepkit.core._errors import BackendError
from zepkit.core._models import DATA_TYPES, ROLES, DataType, Entity, Episode, Fact, Message

_FRACTION = re.compile(r"(\.\d{6})\d+")


def to_iso(value: datetime | None) -> str | None:
    """An ISO 8601 timestamp for Zep; naive times are taken as UTC."""
    if value is None:
        return None
    return (value if value.tzinfo else value.replace(tzinfo=UTC)).isoformat()


def from_iso(value: str | None) -> datetime | None:
    """Zep's timestamp as a datetime (nanoseconds cut to micro); None when absent or unreadable."""
    if not value:
        return None
    try:
        return datetime.fromisoformat(_FRACTION.sub(r"\1", value.strip()))
    except ValueError:
        return None


def to_add_message(message: Message) -> AddMessage:
    """One zepkit message as the SDK's `AddMessage`; `created_at` becomes `reference_time`.

    Unset fields are left out rather than passed as None, which the SDK would send as `null`.
    """
    fields: dict[str, Any] = {
        "role": message.role,
        "content": message.content,
        "name": message.name,
        "metadata": message.metadata,
        "reference_time": to_iso(message.created_at),
    }
    return AddMessage(**{key: value for key, value in fields.items() if value is not None})


def from_zep_message(message: ZepMessage) -> Message | None:
    """A stored Zep message as a zepkit message; None for a role zepkit does not model."""
    if message.content is None:
        raise BackendError("Zep thread.list_messages: malformed response (message without content)")
    if message.role not in ROLES:
        return None
    return Message(
        message.role,
        message.content,
        name=message.name,
        created_at=from_iso(message.reference_time) or from_iso(message.created_at),
        metadata=message.metadata,
        uuid=message.uuid_,
    )


def _score(score: float | None, relevance: float | None) -> float | None:
    return score if score is not None else relevance


def to_fact(edge: Edge) -> Fact | None:
    """An edge as a `Fact`; None when Zep sent an edge without text."""
    if not edge.fact:
        return None
    return Fact(
        uuid=edge.uuid_ or "",
        fact=edge.fact,
        name=edge.name or "STATEMENT",
        source_node_name=edge.source_node_name,
        target_node_name=edge.target_node_name,
        created_at=from_iso(edge.created_at),
        valid_at=from_iso(edge.valid_at),
        invalid_at=from_iso(edge.invalid_at),
        score=_score(edge.score, edge.relevance),
    )


def to_entity(node: Node) -> Entity:
    return Entity(
        uuid=node.uuid_ or "",
        name=node.name or "Entity",
        summary=node.summary or "",
        labels=list(node.labels or []),
        created_at=from_iso(node.created_at),
        score=_score(node.score, node.relevance),
    )


def observation_to_entity(observation: Observation) -> Entity:
    """An observation as an `Entity` (name and summary), the shape the core formats for nodes."""
    return Entity(
        uuid=observation.uuid_ or "",
        name=observation.name or "Observation",
        summary=observation.summary or "",
        labels=list(observation.labels or []),
        created_at=from_iso(observation.created_at),
        score=_score(observation.score, observation.relevance),
    )


def to_episode(episode: ZepEpisode, thread_ids: Mapping[str, str]) -> Episode | None:
    """A Zep episode as an `Episode`; `thread_ids` maps known thread UUIDs back to app ids."""
    if episode.content is None:
        return None
    source = cast(DataType, episode.source) if episode.source in DATA_TYPES else "text"
    return Episode(
        uuid=episode.uuid_ or "",
        content=episode.content,
        source=source,
        role=episode.role if isinstance(episode.role, str) else None,
        name=episode.role_name,
        thread_id=thread_ids.get(episode.thread_uuid or ""),
        created_at=from_iso(episode.reference_time) or from_iso(episode.created_at),
        metadata=episode.metadata,
        score=_score(episode.score, episode.relevance),
    )


def summary_to_episode(summary: ThreadSummary, thread_ids: Mapping[str, str]) -> Episode | None:
    """A thread summary as an `Episode` whose content is the summary text."""
    if not summary.summary:
        return None
    return Episode(
        uuid=summary.uuid_ or "",
        content=summary.summary,
        source="message",
        thread_id=thread_ids.get(summary.thread_uuid or ""),
        created_at=from_iso(summary.created_at),
        score=_score(summary.score, summary.relevance),
    )


def data_episode(episode: ZepEpisode) -> Episode:
    """An episode added with `graph.episode.add`, as zepkit's `Episode` (its given time first)."""
    if episode.uuid_ is None or episode.content is None:
        raise BackendError("Zep graph.episode.list: malformed response (episode without content)")
    source = episode.source if episode.source in DATA_TYPES else "text"
    return Episode(
        uuid=episode.uuid_,
        content=episode.content,
        source=cast(DataType, source),
        created_at=from_iso(episode.reference_time) or from_iso(episode.created_at),
        metadata=episode.metadata,
    )
