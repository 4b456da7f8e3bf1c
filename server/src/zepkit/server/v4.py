"""The v4 dialect (`/api/v4/...`, what zep-cloud 4.x calls): users, threads, messages, thread
context, graphs, episodes, per-scope searches and graph context, served from a project's
backend. Each handler takes the project and the request, and returns (status, JSON body)."""

from __future__ import annotations

import uuid
from typing import Any

from starlette.requests import Request

from zepkit.core.spi import SearchRequest, UserProfile
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
    LookupUser,
    edge_json,
    episode_json,
    iso,
    node_json,
    parse,
)

DEFAULT_PAGE_SIZE = 10
MAX_PAGE_SIZE = 50
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


def _page_size(request: Request) -> int:
    raw = request.query_params.get("page_size")
    if raw is None or raw == "":
        return DEFAULT_PAGE_SIZE
    try:
        size = int(raw)
    except ValueError:
        raise bad_request("page_size must be an integer", param="page_size") from None
    if not 1 <= size <= MAX_PAGE_SIZE:
        raise bad_request(f"page_size must be 1 to {MAX_PAGE_SIZE}", param="page_size")
    return size


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
    key = _idempotency_key(request)
    context = await project.backend.add_messages(
        thread.uuid,
        [m.to_message() for m in body.messages],
        return_context=bool(body.return_context),
        user_id=owner.user_id,
        idempotency_key=key,
    )
    base = key or str(uuid.uuid4())
    stamp = now()
    stored = [
        {
            "uuid": str(uuid.uuid5(uuid.NAMESPACE_URL, f"{thread.uuid}:{base}:{index}")),
            "content": m.content,
            "role": m.role,
            "name": m.name,
            "metadata": m.metadata,
            "reference_time": iso(m.reference_time),
            "created_at": stamp,
            "processed": True,
            "thread_uuid": thread.uuid,
        }
        for index, m in enumerate(body.messages)
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
    messages = await project.backend.get_messages(thread.uuid)
    items = [
        {
            "uuid": str(uuid.uuid5(uuid.NAMESPACE_URL, f"{thread.uuid}:message:{index}")),
            "content": m.content,
            "role": m.role,
            "name": m.name,
            "metadata": m.metadata,
            "created_at": iso(m.created_at),
            "reference_time": iso(m.created_at),
            "processed": True,
            "thread_uuid": thread.uuid,
        }
        for index, m in enumerate(messages)
    ]
    if order == "desc":
        items.reverse()
    page = items[start : start + size]
    more = start + size < len(items)
    return 200, {
        "items": page,
        "next_cursor": str(start + size) if more else None,
        "total_size": len(items),
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
ROUTES: list[Endpoint] = [
    Endpoint("/users", "POST", create_user, "Create a user", CreateUser, status=201),
    Endpoint("/users/lookup", "POST", lookup_user, "Find a user by user_id", LookupUser),
    Endpoint("/users/{uuid}", "GET", get_user, "Get a user"),
    Endpoint("/threads", "POST", create_thread, "Create a thread", CreateThread, status=201),
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
    Endpoint("/threads/{uuid}/context", "GET", thread_context, "A thread's context block"),
    Endpoint("/graphs", "POST", create_graph, "Create a shared graph", CreateGraph, status=201),
    Endpoint("/graphs/{uuid}", "GET", get_graph, "Get a shared graph"),
    Endpoint(
        "/graphs/{uuid}/episodes", "POST", add_episode, "Add an episode", AddEpisode, status=202
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
