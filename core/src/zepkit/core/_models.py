"""The data zepkit moves between apps, the memory loop and backends.

Ids are the app's own strings (a framework's user and session ids); backends map them to whatever
they need internally.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Generic, Literal, TypeVar, get_args

from pydantic import BaseModel, ConfigDict, Field, StrictStr, field_validator

from zepkit.core._limits import MAX_ID_CHARS, MAX_METADATA_KEYS
from zepkit.core._unicode import is_well_formed, well_formed

Role = Literal["user", "assistant", "system", "tool", "function"]
ROLES: frozenset[str] = frozenset(get_args(Role))

Scope = Literal["edges", "nodes", "episodes", "observations", "thread_summaries", "auto"]
SCOPES: tuple[str, ...] = get_args(Scope)

Reranker = Literal["rrf", "mmr", "node_distance", "episode_mentions", "cross_encoder"]
RERANKERS: tuple[str, ...] = get_args(Reranker)

DataType = Literal["text", "json", "message"]
DATA_TYPES: tuple[str, ...] = get_args(DataType)


def _check_metadata(value: dict[str, Any] | None) -> dict[str, Any] | None:
    if value is not None and len(value) > MAX_METADATA_KEYS:
        raise ValueError(f"metadata has {len(value)} keys; at most {MAX_METADATA_KEYS} are allowed")
    return value


def merged_metadata(
    current: Mapping[str, Any] | None, update: Mapping[str, Any]
) -> dict[str, Any] | None:
    """`current` with `update` merged onto it, as Zep merges a message's metadata: a key given
    None is removed; None when no key remains. `ValueError` beyond `MAX_METADATA_KEYS` keys."""
    merged = dict(current or {})
    for key, value in update.items():
        if value is None:
            merged.pop(key, None)
        else:
            merged[key] = value
    _check_metadata(merged)
    return merged or None


def _well_formed(value: str | None) -> str | None:
    return None if value is None else well_formed(value)


class Message(BaseModel):
    """One chat message: who said it (role, optional display name), what, and when.

    `uuid` is the store's id of a message read back from it (`get_messages`, `list_messages`),
    the same in every read; None on a message not read from a store. `add_messages` ignores it:
    the store gives each message it keeps an id of its own."""

    model_config = ConfigDict(frozen=True)

    role: Role
    content: StrictStr
    name: str | None = None
    created_at: datetime | None = None
    metadata: dict[str, Any] | None = None
    uuid: str | None = None

    def __init__(
        self,
        role: Role,
        content: str,
        name: str | None = None,
        created_at: datetime | None = None,
        metadata: dict[str, Any] | None = None,
        uuid: str | None = None,
    ) -> None:
        super().__init__(
            role=role,
            content=content,
            name=name,
            created_at=created_at,
            metadata=metadata,
            uuid=uuid,
        )

    _metadata_keys = field_validator("metadata")(_check_metadata)
    # A lone surrogate (half an emoji) would keep the message from being stored at all.
    _text = field_validator("content", "name")(_well_formed)


class Fact(BaseModel):
    """A statement in a graph (Zep calls it an edge), with the span of time it held."""

    uuid: str
    fact: str
    name: str = "STATEMENT"
    source_node_name: str | None = None
    target_node_name: str | None = None
    created_at: datetime | None = None
    valid_at: datetime | None = None
    invalid_at: datetime | None = None
    score: float | None = None


class Entity(BaseModel):
    """A named thing in a graph (Zep calls it a node), with a short summary."""

    uuid: str
    name: str
    summary: str = ""
    labels: list[str] = Field(default_factory=list)
    created_at: datetime | None = None
    score: float | None = None


class Episode(BaseModel):
    """One ingested item: a message of a thread or a piece of data added to a graph."""

    uuid: str
    content: str
    source: DataType = "message"
    role: str | None = None
    name: str | None = None
    thread_id: str | None = None
    created_at: datetime | None = None
    metadata: dict[str, Any] | None = None
    score: float | None = None


HitKind = Literal["edge", "node", "episode"]


@dataclass(frozen=True, slots=True)
class Hit:
    """One search result, whatever its kind, as a record or a line: the fact's text, an entity's
    `name: summary`, or an episode's content, with its id, time and score. `when` is when a fact
    became true (else when it was stored); `role` and `name` are an episode's speaker, `name` an
    entity's name."""

    kind: HitKind
    uuid: str
    text: str
    when: datetime | None = None
    score: float | None = None
    role: str | None = None
    name: str | None = None


class SearchResults(BaseModel):
    """What a search found: the list for the scope asked, or a ready block for scope `auto`.

    A search of several scopes at once fills each scope's list; `scopes` then names them in the
    order searched (and `scope` is the first)."""

    scope: Scope = "edges"
    edges: list[Fact] = Field(default_factory=list)
    nodes: list[Entity] = Field(default_factory=list)
    episodes: list[Episode] = Field(default_factory=list)
    context: str | None = None
    scopes: tuple[Scope, ...] = ()

    def is_empty(self) -> bool:
        return not (self.edges or self.nodes or self.episodes or (self.context or "").strip())

    def hits(self) -> list[Hit]:
        """Facts, then entities, then episodes, each as a `Hit` (a scope `auto` block is text,
        not hits: read `context`)."""
        hits = [
            Hit("edge", e.uuid, e.fact, e.valid_at or e.created_at, e.score) for e in self.edges
        ]
        hits += [
            Hit(
                "node",
                n.uuid,
                f"{n.name}: {n.summary}" if n.summary else n.name,
                n.created_at,
                n.score,
                name=n.name,
            )
            for n in self.nodes
        ]
        hits += [
            Hit("episode", e.uuid, e.content, e.created_at, e.score, role=e.role, name=e.name)
            for e in self.episodes
        ]
        return hits


class Identity(BaseModel):
    """Who a turn belongs to: the app's user and thread ids, plus optional profile fields."""

    model_config = ConfigDict(frozen=True)

    user_id: str
    thread_id: str
    first_name: str | None = None
    last_name: str | None = None
    email: str | None = None

    @field_validator("user_id", "thread_id")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must be a non-empty string")
        if len(value) > MAX_ID_CHARS:
            raise ValueError(f"is {len(value)} characters; at most {MAX_ID_CHARS} are allowed")
        if not is_well_formed(value):
            raise ValueError("holds a lone surrogate (half a character)")
        return value

    _names = field_validator("first_name", "last_name", "email")(_well_formed)

    @property
    def display_name(self) -> str | None:
        """The user's name as a chat message would carry it, when the profile has one."""
        name = " ".join(part for part in (self.first_name, self.last_name) if part)
        return name or None


class UserInfo(BaseModel):
    """A stored user: the app's id, the profile fields it was given and when it was created."""

    model_config = ConfigDict(frozen=True)

    user_id: str
    first_name: str | None = None
    last_name: str | None = None
    email: str | None = None
    metadata: dict[str, Any] | None = None
    created_at: datetime | None = None


class ThreadInfo(BaseModel):
    """A stored thread: the app's id, its owner and when it was created."""

    model_config = ConfigDict(frozen=True)

    thread_id: str
    user_id: str
    created_at: datetime | None = None


ItemT = TypeVar("ItemT")


class Page(BaseModel, Generic[ItemT]):
    """One page of a listing, oldest first; pass `next_cursor` back for the next page (None: this
    was the last). Cursors are opaque strings, valid only on the backend that made them."""

    items: list[ItemT] = Field(default_factory=list)
    next_cursor: str | None = None
