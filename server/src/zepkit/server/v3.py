"""The v3 dialect (`/api/v2/...`, what the 3.x SDKs call): users, threads and graphs named by
the app's own ids, over the same projects and data as the v4 dialect."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from pydantic import Field
from starlette.requests import Request

from zepkit.core import (
    MAX_DATA_CHARS,
    MAX_MESSAGES_PER_CALL,
    MAX_QUERY_CHARS,
    MAX_SEARCH_LIMIT,
    Episode,
    Message,
    SearchResults,
)
from zepkit.core.spi import SearchRequest, UserProfile
from zepkit.server import messages
from zepkit.server.endpoints import Answer, Endpoint
from zepkit.server.errors import ApiError, bad_request, not_found
from zepkit.server.projects import Project
from zepkit.server.registry import GraphTarget, ThreadRow, UserRow, now
from zepkit.server.wire import (
    MAX_CONTEXT_CHARS,
    MAX_USER_ID_CHARS,
    MAX_WIRE_MESSAGE_CHARS,
    Body,
    Free,
    Metadata,
    Said,
    UpdateUser,
    iso,
    parse,
)
from zepkit.server.wire import AddMessage as AddMessageV4

Id = Annotated[str, Field(min_length=1, max_length=MAX_USER_ID_CHARS)]


class AddUser(UpdateUser):
    user_id: Id


class CreateThread(Body):
    thread_id: Id
    user_id: Id


class MessageV3(AddMessageV4):
    content: Annotated[str, Said, Field(min_length=1, max_length=MAX_WIRE_MESSAGE_CHARS)]
    created_at: Any = None
    uuid: Any = None  # the SDK may echo a stored message's uuid back: ignored

    def to_message(self) -> Message:
        """The message, said at its `created_at` when that is a time (a write a client kept while
        the server was unreachable arrives later than it was said); anything else there is
        ignored, as the SDK may echo a stored message back."""
        message = super().to_message()
        said = _said_at(self.created_at)
        if said is None or message.created_at is not None:
            return message
        return message.model_copy(update={"created_at": said})


def _said_at(value: Any) -> datetime | None:
    """An ISO 8601 time (UTC when it names no zone), else None."""
    if not isinstance(value, str):
        return None
    try:
        said = datetime.fromisoformat(value)
    except ValueError:
        return None
    return said if said.tzinfo is not None else said.replace(tzinfo=UTC)


class AddMessages(Body):
    messages: Annotated[list[MessageV3], Field(min_length=1, max_length=MAX_MESSAGES_PER_CALL)]
    ignore_roles: list[str] | None = None
    return_context: bool | None = None


class CreateGraph(Body):
    graph_id: Id
    name: Free | None = None
    description: Free | None = None


class AddData(Body):
    data: Annotated[str, Said, Field(min_length=1, max_length=MAX_DATA_CHARS)]
    type: Literal["text", "json", "message"]
    user_id: str | None = None
    graph_id: str | None = None
    created_at: str | None = None
    metadata: Metadata = None
    source_description: Free | None = None


class Search(Body):
    query: Annotated[str, Said, Field(min_length=1, max_length=MAX_QUERY_CHARS)]
    user_id: str | None = None
    graph_id: str | None = None
    scope: Literal["edges", "nodes", "episodes", "observations", "thread_summaries", "auto"] = (
        "edges"
    )
    reranker: Literal["rrf", "mmr", "node_distance", "episode_mentions", "cross_encoder"] | None = (
        None
    )
    limit: Annotated[int, Field(ge=1, le=MAX_SEARCH_LIMIT)] | None = None
    mmr_lambda: Annotated[float, Field(ge=0, le=1)] | None = None
    center_node_uuid: str | None = None
    bfs_origin_node_uuids: list[str] | None = None
    search_filters: dict[str, Any] | None = None
    max_characters: Annotated[int, Field(ge=1, le=MAX_CONTEXT_CHARS)] | None = None


def _user_json(user: UserRow) -> dict[str, Any]:
    return {
        "uuid": user.uuid,
        "user_id": user.user_id,
        "first_name": user.first_name,
        "last_name": user.last_name,
        "email": user.email,
        "metadata": user.metadata,
        "created_at": user.created_at,
    }


def _thread_json(thread: ThreadRow, user: UserRow | None) -> dict[str, Any]:
    return {
        "uuid": thread.uuid,
        "thread_id": thread.thread_id,
        "user_id": user.user_id if user else None,
        "user_uuid": thread.user_uuid,
        "created_at": thread.created_at,
    }


def _user(project: Project, user_id: str) -> UserRow:
    found = project.registry.user_by_id(user_id)
    if found is None:
        raise not_found("user")
    return found


def _thread(project: Project, thread_id: str) -> ThreadRow:
    found = project.registry.thread_by_id(thread_id)
    if found is None:
        raise not_found("thread")
    return found


def _target(project: Project, user_id: str | None, graph_id: str | None) -> GraphTarget:
    if (user_id is None) == (graph_id is None):
        raise bad_request("give exactly one of user_id or graph_id", param="user_id")
    if user_id is not None:
        return GraphTarget(user_id=_user(project, user_id).user_id)
    assert graph_id is not None
    graph = project.registry.graph_by_id(graph_id)
    if graph is None:
        raise not_found("graph")
    return GraphTarget(graph_id=graph.uuid)


def _int_param(request: Request, name: str) -> int | None:
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return None
    if not raw.isdigit():
        raise bad_request(f"{name} must be a whole number", param=name)
    return int(raw)


# -- users and threads ------------------------------------------------------------------------


async def add_user(project: Project, request: Request) -> Answer:
    body = await parse(request, AddUser)
    profile = body.model_dump(exclude={"user_id"})
    created = project.registry.add_user(str(uuid.uuid4()), body.user_id, profile)
    if created is None:
        raise ApiError(409, "conflict", "a user with this user_id already exists", param="user_id")
    try:
        await project.backend.ensure_user(UserProfile(body.user_id, **profile))
    except BaseException:
        project.registry.delete_user(created.uuid)
        raise
    return 201, _user_json(created)


async def get_user(project: Project, request: Request) -> Answer:
    return 200, _user_json(_user(project, request.path_params["id"]))


async def update_user(project: Project, request: Request) -> Answer:
    body = await parse(request, UpdateUser)
    user = _user(project, request.path_params["id"])
    return 200, _user_json(await project.update_user(user, body.model_dump()))


async def delete_user(project: Project, request: Request) -> Answer:
    """The user and all their memory (threads, messages, data, what was learned)."""
    user = _user(project, request.path_params["id"])
    await project.backend.delete_user(user.user_id)
    project.registry.delete_user(user.uuid)
    return 200, {"message": "user deleted"}


async def user_threads(project: Project, request: Request) -> Answer:
    """Every thread of the user, oldest first (v3 has no paging here)."""
    owner = _user(project, request.path_params["id"])
    # size -1: SQLite's LIMIT without a bound
    found = project.registry.threads(user_uuid=owner.uuid, start=0, size=-1, newest_first=False)
    return 200, [_thread_json(thread, owner) for thread in found.rows]


async def create_thread(project: Project, request: Request) -> Answer:
    body = await parse(request, CreateThread)
    owner = _user(project, body.user_id)
    if project.registry.thread_by_id(body.thread_id) is not None:
        raise ApiError(409, "conflict", "a thread with this thread_id already exists")
    thread_uuid = str(uuid.uuid4())
    created = project.registry.add_thread(thread_uuid, owner.uuid, body.thread_id)
    if created is None:
        raise ApiError(409, "conflict", "a thread with this thread_id already exists")
    try:
        await project.backend.ensure_thread(thread_uuid, owner.user_id)
    except BaseException:
        project.registry.delete_thread(thread_uuid)
        raise
    return 201, _thread_json(created, owner)


async def delete_thread(project: Project, request: Request) -> Answer:
    thread = _thread(project, request.path_params["id"])
    await project.backend.delete_thread(thread.uuid)
    project.registry.delete_thread(thread.uuid)
    return 200, {"message": "thread deleted"}


async def add_messages(project: Project, request: Request) -> Answer:
    thread = _thread(project, request.path_params["id"])
    body = await parse(request, AddMessages)
    if body.ignore_roles:
        raise bad_request("ignore_roles is not supported by this server", param="ignore_roles")
    owner = project.registry.user(thread.user_uuid)
    assert owner is not None
    context, uuids = await messages.add_messages(
        project.backend,
        thread.uuid,
        [m.to_message() for m in body.messages],
        return_context=bool(body.return_context),
        user_id=owner.user_id,
        idempotency_key=request.headers.get("idempotency-key") or None,
    )
    answer: dict[str, Any] = {"message_uuids": uuids}
    if body.return_context:
        answer["context"] = context or ""
    return 200, answer


def _message_json(message: Message, thread: ThreadRow, index: int) -> dict[str, Any]:
    return {
        "uuid": messages.message_uuid(thread.uuid, index, message),
        "content": message.content,
        "role": message.role,
        "name": message.name,
        "metadata": message.metadata,
        "created_at": iso(message.created_at) or thread.created_at,
        "processed": True,
    }


async def list_messages(project: Project, request: Request) -> Answer:
    thread = _thread(project, request.path_params["id"])
    limit, cursor, lastn = (_int_param(request, n) for n in ("limit", "cursor", "lastn"))
    stored = await project.backend.get_messages(thread.uuid)
    indexed = list(enumerate(stored))
    if lastn is not None:
        page = indexed[-lastn:] if lastn else []
    else:
        start = cursor or 0
        page = indexed[start : start + limit] if limit is not None else indexed[start:]
    owner = project.registry.user(thread.user_uuid)
    return 200, {
        "messages": [_message_json(m, thread, i) for i, m in page],
        "row_count": len(page),
        "total_count": len(stored),
        "thread_created_at": thread.created_at,
        "user_id": owner.user_id if owner else None,
        "user_uuid": thread.user_uuid,
    }


async def thread_context(project: Project, request: Request) -> Answer:
    thread = _thread(project, request.path_params["id"])
    return 200, {"context": await project.backend.get_context(thread.uuid) or ""}


# -- graphs -----------------------------------------------------------------------------------


async def create_graph(project: Project, request: Request) -> Answer:
    body = await parse(request, CreateGraph)
    if project.registry.graph_by_id(body.graph_id) is not None:
        raise ApiError(409, "conflict", "a graph with this graph_id already exists")
    graph_uuid = str(uuid.uuid4())
    await project.backend.ensure_graph(graph_uuid)
    graph = project.registry.add_graph(graph_uuid, body.name, body.description, body.graph_id)
    if graph is None:
        raise ApiError(409, "conflict", "a graph with this graph_id already exists")
    return 201, {
        "uuid": graph.uuid,
        "graph_id": graph.graph_id,
        "name": graph.name,
        "description": graph.description,
        "created_at": graph.created_at,
    }


def _episode_json(episode: Episode, thread_ids: dict[str, str]) -> dict[str, Any]:
    return {
        "uuid": episode.uuid,
        "content": episode.content,
        "created_at": iso(episode.created_at) or now(),
        "source": episode.source,
        "role": episode.name,
        "role_type": episode.role,
        "metadata": episode.metadata,
        "thread_id": thread_ids.get(episode.thread_id or "", episode.thread_id),
        "score": episode.score,
        "processed": True,
    }


async def add_data(project: Project, request: Request) -> Answer:
    body = await parse(request, AddData)
    target = _target(project, body.user_id, body.graph_id)
    created_at = None
    if body.created_at:
        try:
            created_at = datetime.fromisoformat(body.created_at)
        except ValueError:
            raise bad_request("created_at must be an ISO 8601 time", param="created_at") from None
    episode = await project.backend.add_data(
        body.data,
        type=body.type,
        user_id=target.user_id,
        graph_id=target.graph_id,
        created_at=created_at,
        metadata=body.metadata,
    )
    shown = _episode_json(episode, {})
    shown["source_description"] = body.source_description
    return 200, shown


def _thread_ids(project: Project, results: SearchResults) -> dict[str, str]:
    """Thread UUIDs in episode results -> the app's thread ids."""
    ids: dict[str, str] = {}
    for episode in results.episodes:
        if episode.thread_id and episode.thread_id not in ids:
            row = project.registry.thread(episode.thread_id)
            if row is not None:
                ids[episode.thread_id] = row.thread_id
    return ids


async def search(project: Project, request: Request) -> Answer:
    body = await parse(request, Search)
    target = _target(project, body.user_id, body.graph_id)
    for name in ("search_filters", "bfs_origin_node_uuids"):
        if getattr(body, name):
            raise bad_request(f"{name} is not supported by this server", param=name)
    capabilities = project.backend.capabilities
    if not capabilities.supports(body.scope):
        raise bad_request(
            f"this server's backend has no {body.scope} search", param="scope", code="unsupported"
        )
    if body.scope == "auto":
        if body.reranker in ("node_distance", "episode_mentions"):
            raise bad_request(f"reranker {body.reranker} is not valid for auto", param="reranker")
        extra = {"max_characters": body.max_characters} if body.max_characters else {}
        found = await project.backend.search(
            SearchRequest(
                query=body.query,
                user_id=target.user_id,
                graph_id=target.graph_id,
                scope="auto",
                reranker=None,
                extra=extra,
            )
        )
        context = found.context or ""
        if body.max_characters is not None:
            context = context[: body.max_characters]
        return 200, {"context": context}
    reranker = body.reranker or "rrf"
    if not capabilities.supports(body.scope, reranker):
        valid = ", ".join(sorted(capabilities.rerankers[body.scope])) or "none"
        raise bad_request(
            f"reranker {reranker!r} is not valid for {body.scope} (valid: {valid})",
            param="reranker",
            code="unsupported_reranker",
        )
    if reranker == "node_distance" and not body.center_node_uuid:
        raise bad_request("node_distance needs center_node_uuid", param="center_node_uuid")
    results = await project.backend.search(
        SearchRequest(
            query=body.query,
            user_id=target.user_id,
            graph_id=target.graph_id,
            scope=body.scope,
            reranker=reranker,
            limit=body.limit or 10,
            mmr_lambda=body.mmr_lambda,
            center_node_uuid=body.center_node_uuid,
        )
    )
    thread_ids = _thread_ids(project, results)
    return 200, {
        "edges": [
            {
                "uuid": f.uuid,
                "fact": f.fact,
                "name": f.name,
                "created_at": iso(f.created_at) or now(),
                "valid_at": iso(f.valid_at),
                "invalid_at": iso(f.invalid_at),
                "source_node_uuid": "",
                "target_node_uuid": "",
                "source_node_name": f.source_node_name,
                "target_node_name": f.target_node_name,
                "score": f.score,
            }
            for f in results.edges
        ],
        "nodes": [
            {
                "uuid": n.uuid,
                "name": n.name,
                "summary": n.summary,
                "labels": n.labels,
                "created_at": iso(n.created_at) or now(),
                "score": n.score,
            }
            for n in results.nodes
        ],
        "episodes": [_episode_json(e, thread_ids) for e in results.episodes],
    }


ROUTES: list[Endpoint] = [
    Endpoint("/users", "POST", add_user, "Add a user", AddUser, status=201),
    Endpoint("/users/{id}", "GET", get_user, "Get a user by user_id"),
    Endpoint("/users/{id}", "PATCH", update_user, "Update a user's profile", UpdateUser),
    Endpoint("/users/{id}", "DELETE", delete_user, "Delete a user and their memory"),
    Endpoint("/users/{id}/threads", "GET", user_threads, "A user's threads, oldest first"),
    Endpoint("/threads", "POST", create_thread, "Create a thread", CreateThread, status=201),
    Endpoint("/threads/{id}", "DELETE", delete_thread, "Delete a thread"),
    Endpoint("/threads/{id}/messages", "POST", add_messages, "Add messages", AddMessages),
    Endpoint(
        "/threads/{id}/messages",
        "GET",
        list_messages,
        "List messages",
        query=("limit", "cursor", "lastn"),
    ),
    Endpoint("/threads/{id}/context", "GET", thread_context, "A thread's context block"),
    Endpoint("/graph", "POST", add_data, "Add data to a user's or a shared graph", AddData),
    Endpoint(
        "/graph/create", "POST", create_graph, "Create a shared graph", CreateGraph, status=201
    ),
    Endpoint("/graph/search", "POST", search, "Search a user's or a shared graph", Search),
]
"""The v3 routes, under /api/v2."""
