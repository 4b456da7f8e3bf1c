"""Request bodies of the v4 wire, with Zep's limits, and the JSON shapes of zepkit's models.

Bodies are pydantic models: a bad field is answered with a 400 that names it. Unknown fields are
ignored (as the SDKs add fields over time) and `null` is accepted for every optional field.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Annotated, Any, Literal, TypeVar

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, ValidationError
from starlette.requests import Request

from zepkit.core import (
    MAX_DATA_CHARS,
    MAX_MESSAGES_PER_CALL,
    MAX_METADATA_KEYS,
    MAX_QUERY_CHARS,
    Entity,
    Episode,
    Fact,
    Message,
)
from zepkit.core.spi import well_formed
from zepkit.server.errors import bad_request

MAX_WIRE_MESSAGE_CHARS = 14_000
"""Zep's largest message (paid plans); the free plan's 2,500 is a billing rule, not the API's."""
MAX_USER_ID_CHARS = 500
MAX_CONTEXT_CHARS = 50_000


def _scalar_metadata(value: dict[str, Any] | None) -> dict[str, Any] | None:
    if value is None:
        return None
    if len(value) > MAX_METADATA_KEYS:
        raise ValueError(f"at most {MAX_METADATA_KEYS} metadata keys")
    for key, item in value.items():
        items = item if isinstance(item, list) else [item]
        if not all(v is None or isinstance(v, str | int | float | bool) for v in items):
            raise ValueError(f"metadata value of {key!r} must be a scalar or a list of scalars")
    return value


def _well_formed(value: Any) -> Any:
    return well_formed(value) if isinstance(value, str) else value


Said = BeforeValidator(_well_formed)
"""On what a user said, wrote or asked: a lone surrogate escape (`"\\ud83d"`, half an emoji, as a
client that cut a UTF-16 string sends it) becomes U+FFFD instead of failing the whole body (an
id holding one is still a 400: replacing could make two ids one)."""
Free = Annotated[str, Said]
Metadata = Annotated[dict[str, Any] | None, AfterValidator(_scalar_metadata)]
Text = Annotated[str, Field(min_length=1)]


class Body(BaseModel):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=False)


class UpdateUser(Body):
    """A user's profile fields: what an update sets, and what a create takes besides the id."""

    first_name: Free | None = None
    last_name: Free | None = None
    email: Free | None = None
    metadata: Metadata = None


class CreateUser(UpdateUser):
    user_id: Annotated[str, Field(min_length=1, max_length=MAX_USER_ID_CHARS)] | None = None


class LookupUser(Body):
    user_id: Annotated[str, Field(min_length=1, max_length=MAX_USER_ID_CHARS)]


class CreateThread(Body):
    user_uuid: Text


class AddMessage(Body):
    content: Annotated[str, Said, Field(min_length=1, max_length=MAX_WIRE_MESSAGE_CHARS)]
    role: Literal["system", "assistant", "user", "function", "tool"]
    name: Free | None = None
    metadata: Metadata = None
    reference_time: datetime | None = None
    uuid: None = None  # reserved by Zep: must stay unset

    def to_message(self) -> Message:
        return Message(
            self.role,
            self.content,
            name=self.name,
            created_at=self.reference_time,
            metadata=self.metadata,
        )


class UpdateMessage(Body):
    """The metadata merged onto a stored message (v4 `thread.message.update`); null removes."""

    metadata: Metadata = None


class AddMessages(Body):
    messages: Annotated[list[AddMessage], Field(min_length=1, max_length=MAX_MESSAGES_PER_CALL)]
    ignore_roles: list[str] | None = None
    return_context: bool | None = None
    strict_ontology: bool | None = None


class CreateGraph(Body):
    name: Free | None = None
    description: Free | None = None


class AddEpisode(Body):
    data: Annotated[str, Said, Field(min_length=1, max_length=MAX_DATA_CHARS)]
    type: Literal["text", "json", "message"] | None = None
    metadata: Metadata = None
    reference_time: datetime | None = None
    source_description: Free | None = None


class ListUsers(Body):
    search: Free | None = None


class ListFiltered(Body):
    filters: dict[str, Any] | None = None


class GraphContext(Body):
    query: Annotated[str, Said, Field(min_length=1, max_length=MAX_QUERY_CHARS)]
    filters: dict[str, Any] | None = None
    max_characters: Annotated[int, Field(ge=1, le=MAX_CONTEXT_CHARS)] | None = None


class GraphSearch(Body):
    query: Annotated[str, Said, Field(min_length=1, max_length=MAX_QUERY_CHARS)]
    reranker: Literal["rrf", "mmr", "node_distance", "episode_mentions", "cross_encoder"] | None = (
        None
    )
    mmr_lambda: Annotated[float, Field(ge=0, le=1)] | None = None
    center_node_uuid: str | None = None
    bfs_origin_node_uuids: list[str] | None = None
    filters: dict[str, Any] | None = None
    filter_low_quality_results: bool | None = None


B = TypeVar("B", bound=Body)


async def parse(request: Request, model: type[B], *, optional: bool = False) -> B:
    """The request's JSON body as `model`; a 400 naming the first bad field otherwise.
    `optional`: a request without a body reads as an empty object (a listing's filters)."""
    raw = await request.body()
    try:
        data = json.loads(raw) if raw.strip() else ({} if optional else None)
    except ValueError:
        raise bad_request("the body is not valid JSON") from None
    if not isinstance(data, dict):
        raise bad_request("the body must be a JSON object")
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(part) for part in first["loc"]) or None
        message = f"{field}: {first['msg']}" if field else str(first["msg"])
        raise bad_request(message, param=field) from None


def iso(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat()


def edge_json(fact: Fact, graph_uuid: str) -> dict[str, Any]:
    return {
        "uuid": fact.uuid,
        "fact": fact.fact,
        "name": fact.name,
        "source_node_name": fact.source_node_name,
        "target_node_name": fact.target_node_name,
        "created_at": iso(fact.created_at),
        "valid_at": iso(fact.valid_at),
        "invalid_at": iso(fact.invalid_at),
        "score": fact.score,
        "graph_uuid": graph_uuid,
    }


def node_json(entity: Entity, graph_uuid: str) -> dict[str, Any]:
    return {
        "uuid": entity.uuid,
        "name": entity.name,
        "summary": entity.summary,
        "labels": entity.labels,
        "created_at": iso(entity.created_at),
        "score": entity.score,
        "episode_uuids": [],
        "episode_uuids_truncated": False,
        "graph_uuid": graph_uuid,
    }


def episode_json(episode: Episode, graph_uuid: str) -> dict[str, Any]:
    return {
        "uuid": episode.uuid,
        "content": episode.content,
        "source": episode.source,
        "role": episode.role,
        "role_name": episode.name,
        "thread_uuid": episode.thread_id,  # a thread's backend id is its UUID
        "created_at": iso(episode.created_at),
        "reference_time": iso(episode.created_at),
        "metadata": episode.metadata,
        "score": episode.score,
        "processed": True,
        "graph_uuid": graph_uuid,
    }
