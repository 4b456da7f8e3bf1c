"""The v4 dialect (`/api/v4/...`, what zep-cloud 4.x calls): users, threads, messages, thread
context, graphs, episodes, per-scope searches and graph context, served from a project's
backend. Each handler takes the project and the request, and returns (status, JSON body)."""

from __future__ import annotations

import uuid
from typing import Any

from starlette.requests import Request

from zepkit.core import MAX_PAGE_SIZE as MAX_PAGE_SIZE_OF_BACKENDS
from zepkit.core import Message
from zepkit.core.spi import SearchRequest, UserProfile
from zepkit.server import messages
from zepkit.server.endpoints import Answer, Endpoint
from zepkit.server.errors import ApiError, bad_request, not_found
from zepkit.server.projects import Project
from zepkit.server.registry import GraphRow, GraphTarget, ThreadRow, UserRow, now
from zepkit.server.wire import (
    AddEpisode,
    AddMessages,
    CreateGraph,
    CreateThread,
    CreateUser,
    GraphContext,
    GraphSearch,
    ListFiltered,
    ListUsers,
    LookupUser,
    UpdateMessage,
    UpdateUser,
    edge_json,
    episode_json,
    iso,
    node_json,
    parse,
)

DEFAULT_PAGE_SIZE = 10
MAX_PAGE_SIZE = 50
MAX_LIST_PAGE_SIZE = 1000
"""Listings (users, threads) take pages this large; graph listings take the engine's 100."""
MAX_GRAPH_PAGE_SIZE = MAX_PAGE_SIZE_OF_BACKENDS
_SCOPES = {
    "edges": "edges",
    "nodes": "nodes",
    "episodes": "episodes",
    "observations": "observations",
    "thread-summaries": "thread_summaries",
}


def _idempotency_key(request: Request) -> str | None:
    return request.headers.get("idempotency-key") or None


def _task(kind: str) -> dict[str, Any]:
    stamp = now()
    return {
        "uuid": str(uuid.uuid4()),
        "type": kind,
        "status": "succeeded",
        "created_at": stamp,
        "completed_at": stamp,
    }


def user_json(user: UserRow) -> dict[str, Any]:
    return {
        "uuid": user.uuid,
        "user_id": user.user_id,
        "first_name": user.first_name,
        "last_name": user.last_name,
        "email": user.email,
        "metadata": user.metadata,
        "graph_uuid": user.graph_uuid,
        "created_at": user.created_at,
    }


def _thread_json(thread: ThreadRow, user: UserRow | None) -> dict[str, Any]:
    return {
        "uuid": thread.uuid,
        "thread_id": thread.thread_id,
        "user_uuid": thread.user_uuid,
        "graph_uuid": user.graph_uuid if user else None,
        "created_at": thread.created_at,
        "updated_at": thread.created_at,
    }


def _graph_json(graph: GraphRow) -> dict[str, Any]:
    return {
        "uuid": graph.uuid,
        "graph_id": graph.graph_id,
        "name": graph.name,
        "description": graph.description,
        "type": "standard",
        "created_at": graph.created_at,
    }


def _user(project: Project, user_uuid: str) -> UserRow:
    found = project.registry.user(user_uuid)
    if found is None:
        raise not_found("user")
    return found


def _thread(project: Project, thread_uuid: str) -> ThreadRow:
    found = project.registry.thread(thread_uuid)
    if found is None:
        raise not_found("thread")
    return found


def _target(project: Project, graph_uuid: str) -> GraphTarget:
    found = project.registry.target(graph_uuid)
    if found is None:
        raise not_found("graph")
    return found


def _page_size(request: Request, largest: int = MAX_PAGE_SIZE) -> int:
    raw = request.query_params.get("page_size")
    if raw is None or raw == "":
        return DEFAULT_PAGE_SIZE
    try:
        size = int(raw)
    except ValueError:
        raise bad_request("page_size must be an integer", param="page_size") from None
    if not 1 <= size <= largest:
        raise bad_request(f"page_size must be 1 to {largest}", param="page_size")
    return size


def _newest_first(request: Request) -> bool:
    """A listing's `order` (asc or desc); `order_by` may only be the creation time."""
    if (request.query_params.get("order_by") or "created_at") != "created_at":
        raise bad_request("listings are ordered by created_at only", param="order_by")
    order = request.query_params.get("order") or "asc"
    if order not in ("asc", "desc"):
        raise bad_request("order must be asc or desc", param="order")
    return order == "desc"


def _listing(request: Request, largest: int) -> tuple[int, int, bool]:
    """A listing's (start, page size, newest first)."""
    return _cursor(request), _page_size(request, largest), _newest_first(request)


def _page(items: list[dict[str, Any]], start: int, size: int, total: int) -> dict[str, Any]:
    more = start + size < total
    return {"items": items, "next_cursor": str(start + size) if more else None, "total_size": total}


def _cursor(request: Request) -> int:
    raw = request.query_params.get("cursor") or "0"
    if not raw.isdigit():
        raise bad_request("cursor must come from a previous page's next_cursor", param="cursor")
    return int(raw)


# -- users ------------------------------------------------------------------------------------


async def create_user(project: Project, request: Request) -> Answer:
    body = await parse(request, CreateUser)
    user_uuid = project.registry.derived("user", _idempotency_key(request))
    replay = project.registry.user(user_uuid)
    if replay is not None and (body.user_id is None or replay.user_id == body.user_id):
        return 201, user_json(replay)
    user_id = body.user_id if body.user_id is not None else user_uuid
    profile = body.model_dump(exclude={"user_id"})
    created = project.registry.add_user(user_uuid, user_id, profile)
    if created is None:
        replay = project.registry.user(user_uuid)  # the same create, in another worker
        if replay is not None and replay.user_id == user_id:
            return 201, user_json(replay)
        raise ApiError(409, "conflict", "a user with this user_id already exists", param="user_id")
    try:
        await project.backend.ensure_user(UserProfile(user_id, **profile))
    except BaseException:
        project.registry.delete_user(user_uuid)
        raise
    return 201, user_json(created)


async def lookup_user(project: Project, request: Request) -> Answer:
    body = await parse(request, LookupUser)
    found = project.registry.user_by_id(body.user_id)
    if found is None:
        raise not_found("user")
    return 200, user_json(found)


async def get_user(project: Project, request: Request) -> Answer:
    return 200, user_json(_user(project, request.path_params["uuid"]))


async def update_user(project: Project, request: Request) -> Answer:
    body = await parse(request, UpdateUser)
    user = _user(project, request.path_params["uuid"])
    return 200, user_json(await project.update_user(user, body.model_dump()))


async def list_users(project: Project, request: Request) -> Answer:
    body = await parse(request, ListUsers, optional=True)
    start, size, newest_first = _listing(request, MAX_LIST_PAGE_SIZE)
    found = project.registry.users(
        start=start, size=size, newest_first=newest_first, search=body.search or None
    )
    return 200, _page([user_json(user) for user in found.rows], start, size, found.total)


async def delete_user(project: Project, request: Request) -> Answer:
    """Everything of the user goes (threads, messages, data, what was learned): Zep answers
    with a task, done here before the answer."""
    user = _user(project, request.path_params["uuid"])
    await project.backend.delete_user(user.user_id)
    project.registry.delete_user(user.uuid)
    return 202, {"task": _task("user.delete")}


# -- threads and messages ---------------------------------------------------------------------


async def create_thread(project: Project, request: Request) -> Answer:
    body = await parse(request, CreateThread)
    owner = _user(project, body.user_uuid)
    key = _idempotency_key(request)
    thread_uuid = project.registry.derived("thread", f"{owner.uuid}:{key}" if key else None)
    known = project.registry.thread(thread_uuid)
    if known is not None:
        return 201, _thread_json(known, owner)  # a retried create answers as the first did
    await project.backend.ensure_thread(thread_uuid, owner.user_id)
    created = project.registry.add_thread(thread_uuid, owner.uuid)
    if created is None:  # the same create, answered a moment ago
        created = _thread(project, thread_uuid)
    return 201, _thread_json(created, owner)


async def list_threads(project: Project, request: Request) -> Answer:
    owner_uuid = request.query_params.get("user_uuid") or None
    owner = _user(project, owner_uuid) if owner_uuid else None
    start, size, newest_first = _listing(request, MAX_LIST_PAGE_SIZE)
    found = project.registry.threads(
        user_uuid=owner_uuid, start=start, size=size, newest_first=newest_first
    )
    items = [
        _thread_json(thread, owner or project.registry.user(thread.user_uuid))
        for thread in found.rows
    ]
    return 200, _page(items, start, size, found.total)


async def get_thread(project: Project, request: Request) -> Answer:
    thread = _thread(project, request.path_params["uuid"])
    return 200, _thread_json(thread, project.registry.user(thread.user_uuid))


async def delete_thread(project: Project, request: Request) -> Answer:
    thread = _thread(project, request.path_params["uuid"])
    await project.backend.delete_thread(thread.uuid)
    project.registry.delete_thread(thread.uuid)
    return 200, {"message": "thread deleted"}


async def add_messages(project: Project, request: Request) -> Answer:
    thread = _thread(project, request.path_params["uuid"])
    body = await parse(request, AddMessages)
    if body.ignore_roles:
        raise bad_request("ignore_roles is not supported by this server", param="ignore_roles")
    owner = _user(project, thread.user_uuid)
    context, uuids = await messages.add_messages(
        project.backend,
        thread.uuid,
        [m.to_message() for m in body.messages],
        return_context=bool(body.return_context),
        user_id=owner.user_id,
        idempotency_key=_idempotency_key(request),
    )
    stamp = now()
    stored = [
        {
            "uuid": message_uuid,
            "content": m.content,
            "role": m.role,
            "name": m.name,
            "metadata": m.metadata,
            "reference_time": iso(m.reference_time),
            "created_at": stamp,
            "processed": True,
            "thread_uuid": thread.uuid,
        }
        for message_uuid, m in zip(uuids, body.messages, strict=True)
    ]
    result: dict[str, Any] = {"messages": stored, "task": _task("thread.add_messages")}
    if body.return_context:
        result["context"] = context or ""
    return 202, result


async def list_messages(project: Project, request: Request) -> Answer:
    thread = _thread(project, request.path_params["uuid"])
    size, start = _page_size(request), _cursor(request)
    order = request.query_params.get("order") or "asc"
    if order not in ("asc", "desc"):
        raise bad_request("order must be asc or desc", param="order")
    stored = await project.backend.get_messages(thread.uuid)
    items = [_message_json(thread, index, m) for index, m in enumerate(stored)]
    if order == "desc":
        items.reverse()
    page = items[start : start + size]
    more = start + size < len(items)
    return 200, {
        "items": page,
        "next_cursor": str(start + size) if more else None,
        "total_size": len(items),
    }


async def _stored_message(project: Project, request: Request) -> tuple[ThreadRow, int, Message]:
    """The thread of the path and its message named by the path's uuid, with the message's
    place in the thread; 404 for a uuid none of the thread's messages has."""
    thread = _thread(project, request.path_params["uuid"])
    wanted = request.path_params["message_uuid"]
    for index, m in enumerate(await project.backend.get_messages(thread.uuid)):
        if messages.message_uuid(thread.uuid, index, m) == wanted:
            return thread, index, m
    raise not_found("message")


async def get_message(project: Project, request: Request) -> Answer:
    thread, index, m = await _stored_message(project, request)
    return 200, _message_json(thread, index, m)


async def update_message(project: Project, request: Request) -> Answer:
    body = await parse(request, UpdateMessage)
    thread, index, m = await _stored_message(project, request)
    if m.uuid is None:  # ids derived from a message's place: the backend keeps none
        raise bad_request(
            "this server's backend keeps no message ids to update", code="unsupported"
        )
    try:
        updated = await project.backend.update_message_metadata(
            thread.uuid, m.uuid, body.metadata or {}
        )
    except ValueError as exc:
        raise bad_request(str(exc), param="metadata") from None
    return 200, _message_json(thread, index, updated)


def _message_json(thread: ThreadRow, index: int, m: Message) -> dict[str, Any]:
    return {
        "uuid": messages.message_uuid(thread.uuid, index, m),
        "content": m.content,
        "role": m.role,
        "name": m.name,
        "metadata": m.metadata,
        "created_at": iso(m.created_at),
        "reference_time": iso(m.created_at),
        "processed": True,
        "thread_uuid": thread.uuid,
    }


async def thread_context(project: Project, request: Request) -> Answer:
    thread = _thread(project, request.path_params["uuid"])
    return 200, {"context": await project.backend.get_context(thread.uuid) or ""}


# -- graphs -----------------------------------------------------------------------------------


async def create_graph(project: Project, request: Request) -> Answer:
    body = await parse(request, CreateGraph)
    graph_uuid = project.registry.derived("graph", _idempotency_key(request))
    await project.backend.ensure_graph(graph_uuid)
    created = project.registry.add_graph(graph_uuid, body.name, body.description)
    if created is None:  # the same create, answered a moment ago
        created = project.registry.graph(graph_uuid)
    assert created is not None
    return 201, _graph_json(created)


async def get_graph(project: Project, request: Request) -> Answer:
    graph = project.registry.graph(request.path_params["uuid"])
    if graph is None:
        raise not_found("graph")
    return 200, _graph_json(graph)


async def add_episode(project: Project, request: Request) -> Answer:
    graph_uuid = request.path_params["uuid"]
    target = _target(project, graph_uuid)
    body = await parse(request, AddEpisode)
    data_type = body.type or "text"
    episode = await project.backend.add_data(
        body.data,
        type=data_type,
        user_id=target.user_id,
        graph_id=target.graph_id,
        created_at=body.reference_time,
        metadata=body.metadata,
    )
    shown = episode_json(episode, graph_uuid)
    shown["source_description"] = body.source_description
    return 202, {"episode": shown, "task": _task("graph.episode.add")}


async def _user_graph_page(project: Project, request: Request) -> tuple[str, str, str | None, int]:
    """(graph UUID, its user's backend id, cursor, page size) of a user-graph listing: the
    backend lists a user's data items and facts, oldest first, with its own cursors."""
    graph_uuid = request.path_params["uuid"]
    target = _target(project, graph_uuid)
    body = await parse(request, ListFiltered, optional=True)
    if body.filters:
        raise bad_request("filters are not supported by this server", param="filters")
    if target.user_id is None:
        raise bad_request("this server lists the graphs of users only", param="graph_uuid")
    size = _page_size(request, MAX_GRAPH_PAGE_SIZE)
    if _newest_first(request):
        raise bad_request("graph listings are oldest first only (order asc)", param="order")
    return graph_uuid, target.user_id, request.query_params.get("cursor") or None, size


async def list_episodes(project: Project, request: Request) -> Answer:
    """The user's data items (message episodes are listed per thread, as messages)."""
    graph_uuid, user_id, cursor, size = await _user_graph_page(project, request)
    page = await project.backend.list_data(user_id, cursor=cursor, limit=size)
    items = [episode_json(episode, graph_uuid) for episode in page.items]
    return 200, {"items": items, "next_cursor": page.next_cursor}


async def list_edges(project: Project, request: Request) -> Answer:
    """The facts learned of the user, with their spans of validity."""
    graph_uuid, user_id, cursor, size = await _user_graph_page(project, request)
    page = await project.backend.list_facts(user_id, cursor=cursor, limit=size)
    items = [edge_json(fact, graph_uuid) for fact in page.items]
    return 200, {"items": items, "next_cursor": page.next_cursor}


async def graph_context(project: Project, request: Request) -> Answer:
    graph_uuid = request.path_params["uuid"]
    target = _target(project, graph_uuid)
    body = await parse(request, GraphContext)
    if body.filters:
        raise bad_request("filters are not supported by this server", param="filters")
    if not project.backend.capabilities.supports("auto"):
        raise bad_request("this server's backend builds no graph context", code="unsupported")
    extra = {"max_characters": body.max_characters} if body.max_characters else {}
    results = await project.backend.search(
        SearchRequest(
            query=body.query,
            user_id=target.user_id,
            graph_id=target.graph_id,
            scope="auto",
            reranker=None,
            extra=extra,
        )
    )
    context = results.context or ""
    limit = body.max_characters
    truncated = limit is not None and len(context) > limit
    return 200, {"context": context[:limit] if truncated else context, "truncated": truncated}


async def search(project: Project, request: Request) -> Answer:
    graph_uuid = request.path_params["uuid"]
    scope = _SCOPES.get(request.path_params["scope"])
    if scope is None:
        raise not_found("search scope")
    target = _target(project, graph_uuid)
    size = _page_size(request)
    _cursor(request)
    body = await parse(request, GraphSearch)
    capabilities = project.backend.capabilities
    if not capabilities.supports(scope):
        raise bad_request(f"this server's backend has no {scope} search", code="unsupported")
    for name in ("filters", "bfs_origin_node_uuids"):
        if getattr(body, name):
            raise bad_request(f"{name} is not supported by this server", param=name)
    reranker = body.reranker or ("rrf" if capabilities.supports(scope, "rrf") else None)
    if reranker is not None and not capabilities.supports(scope, reranker):
        valid = ", ".join(sorted(capabilities.rerankers[scope])) or "none"
        raise bad_request(
            f"reranker {reranker!r} is not valid for {scope} (valid: {valid})",
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
            scope=scope,  # type: ignore[arg-type]
            reranker=reranker,
            limit=size,
            mmr_lambda=body.mmr_lambda,
            center_node_uuid=body.center_node_uuid,
        )
    )
    if scope == "edges":
        items = [edge_json(fact, graph_uuid) for fact in results.edges]
    elif scope in ("nodes", "observations"):
        items = [node_json(entity, graph_uuid) for entity in results.nodes]
    else:
        items = [episode_json(episode, graph_uuid) for episode in results.episodes]
    items = items[:size]
    return 200, {"items": items, "next_cursor": None, "total_size": len(items)}


PAGE = ("page_size", "cursor")
LISTING = (*PAGE, "order_by", "order")
ROUTES: list[Endpoint] = [
    Endpoint("/users", "POST", create_user, "Create a user", CreateUser, status=201),
    Endpoint("/users/lookup", "POST", lookup_user, "Find a user by user_id", LookupUser),
    Endpoint("/users/list", "POST", list_users, "List users", ListUsers, query=LISTING),
    Endpoint("/users/{uuid}", "GET", get_user, "Get a user"),
    Endpoint("/users/{uuid}", "PATCH", update_user, "Update a user's profile", UpdateUser),
    Endpoint("/users/{uuid}", "DELETE", delete_user, "Delete a user and their memory", status=202),
    Endpoint("/threads", "POST", create_thread, "Create a thread", CreateThread, status=201),
    Endpoint("/threads", "GET", list_threads, "List threads", query=(*LISTING, "user_uuid")),
    Endpoint("/threads/{uuid}", "GET", get_thread, "Get a thread"),
    Endpoint("/threads/{uuid}", "DELETE", delete_thread, "Delete a thread"),
    Endpoint(
        "/threads/{uuid}/messages", "POST", add_messages, "Add messages", AddMessages, status=202
    ),
    Endpoint(
        "/threads/{uuid}/messages",
        "GET",
        list_messages,
        "List messages",
        query=(*PAGE, "order_by", "order"),
    ),
    Endpoint(
        "/threads/{uuid}/messages/{message_uuid}", "GET", get_message, "Get a thread's message"
    ),
    Endpoint(
        "/threads/{uuid}/messages/{message_uuid}",
        "PATCH",
        update_message,
        "Merge metadata onto a thread's message",
        UpdateMessage,
    ),
    Endpoint("/threads/{uuid}/context", "GET", thread_context, "A thread's context block"),
    Endpoint("/graphs", "POST", create_graph, "Create a shared graph", CreateGraph, status=201),
    Endpoint("/graphs/{uuid}", "GET", get_graph, "Get a shared graph"),
    Endpoint(
        "/graphs/{uuid}/episodes", "POST", add_episode, "Add an episode", AddEpisode, status=202
    ),
    Endpoint(
        "/graphs/{uuid}/episodes/list",
        "POST",
        list_episodes,
        "List a user graph's data episodes",
        ListFiltered,
        query=LISTING,
    ),
    Endpoint(
        "/graphs/{uuid}/edges/list",
        "POST",
        list_edges,
        "List a user graph's facts",
        ListFiltered,
        query=LISTING,
    ),
    Endpoint("/graphs/{uuid}/context", "POST", graph_context, "A graph's context", GraphContext),
    Endpoint(
        "/graphs/{uuid}/search/{scope}",
        "POST",
        search,
        "Search one scope (edges, nodes, episodes, observations, thread-summaries)",
        GraphSearch,
        query=PAGE,
    ),
]
"""The v4 routes, under /api/v4."""
