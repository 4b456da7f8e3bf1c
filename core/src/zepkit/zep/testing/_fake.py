"""`FakeZep`: a stateful stand-in for the Zep Cloud v4 HTTP API, for tests without a network.

It is an httpx transport, so the real `AsyncZep` SDK talks to it exactly as it talks to Zep:

    fake = FakeZep()
    client = fake.client()                      # AsyncZep on http://zep.test/api/v4, no retries
    backend = ZepBackend(client)

It keeps users, threads, messages, graphs and episodes; answers with bodies the SDK's pydantic
models accept; records every request (`fake.requests`) for golden tests; replays writes that repeat
an `Idempotency-Key`; and injects faults on demand (`fake.fail(Fault(status=503), times=2)`).
"Search" and "context" are plain word overlap over a graph's episodes: enough to show that what was
stored comes back to the right user, not a model of Zep's ranking.
"""

from __future__ import annotations

import asyncio
import fnmatch
import json
import re
import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import httpx
from zep_cloud.client import AsyncZep

BASE_URL = "http://zep.test/api/v4"
_BASE_PATH = "/api/v4"

RERANKERS_BY_SCOPE: Mapping[str, frozenset[str]] = {
    "edges": frozenset({"rrf", "mmr", "node_distance", "episode_mentions", "cross_encoder"}),
    "nodes": frozenset({"rrf", "mmr", "node_distance", "cross_encoder"}),
    "episodes": frozenset({"rrf", "mmr"}),
    "observations": frozenset({"rrf", "mmr", "cross_encoder"}),
    "thread-summaries": frozenset({"rrf", "mmr", "cross_encoder"}),
}
_ROLES = frozenset({"system", "assistant", "user", "function", "tool"})
_DATA_TYPES = frozenset({"text", "json", "message"})
_STOP = frozenset(
    re.findall(
        r"\S+",
        "the and for are but not you your with that this what where when who how does did was "
        "were has have had our out about from into there here them they then than its it's "
        "just know now can will would could should",
    )
)
_WORD = re.compile(r"\w+")
_NAME = re.compile(r"\b[A-Z][\w-]+")
Json = dict[str, Any]


@dataclass(frozen=True)
class RecordedRequest:
    """One request as the fake received it; `path` is relative to the API base (`/users`)."""

    method: str
    path: str
    query: dict[str, str]
    json: Any
    headers: dict[str, str]


@dataclass(frozen=True)
class Fault:
    """What to do instead of (or before) answering normally.

    `delay` sleeps first; then `timeout` raises `httpx.ReadTimeout`, `connect_error` raises
    `httpx.ConnectError`, `invalid_json` answers 200 with a body that is not JSON, `drop_fields`
    answers normally minus those keys (at any depth), and `status` answers with that status,
    `headers` and `body` (a v4 error body by default). A delay alone then answers normally.
    """

    status: int | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    body: Any = None
    invalid_json: bool = False
    drop_fields: tuple[str, ...] = ()
    delay: float = 0.0
    timeout: bool = False
    connect_error: bool = False


@dataclass
class _Armed:
    fault: Fault
    remaining: int | None
    route: str | None


class _HttpError(Exception):
    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


def _now() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


def _new_id() -> str:
    return str(uuid.uuid4())


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if len(w) > 2 and w not in _STOP}


def _rank(query: str, items: Iterable[Json], text: Callable[[Json], str]) -> list[Json]:
    """Items sharing words with `query`, most shared first, each with a `score` in (0, 1]."""
    wanted = _words(query)
    scored = []
    for item in items:
        shared = len(wanted & _words(text(item)))
        if shared:
            scored.append({**item, "score": shared / max(len(wanted), 1)})
    return sorted(scored, key=lambda item: -float(item["score"]))


def _drop(value: Any, names: tuple[str, ...]) -> Any:
    if isinstance(value, dict):
        return {k: _drop(v, names) for k, v in value.items() if k not in names}
    if isinstance(value, list):
        return [_drop(v, names) for v in value]
    return value


def _error_body(code: str, message: str) -> Json:
    return {"error": {"code": code, "message": message, "request_id": _new_id()}}


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _valid_from(episode: Json) -> str:
    return str(episode.get("reference_time") or episode["created_at"])


def _paged(request: RecordedRequest, items: list[Json]) -> Json:
    """One page of a listing as Zep answers it: `page_size`, an opaque `cursor`, `order_by` a
    field (insertion order breaks ties) and `order` asc (the default) or desc."""
    order_by = request.query.get("order_by")
    if order_by is not None:
        if any(order_by not in item for item in items):
            raise _HttpError(400, "invalid_request", f"cannot order by {order_by}")
        items = sorted(items, key=lambda item: str(item[order_by] or ""))
    if request.query.get("order", "asc") == "desc":
        items = items[::-1]
    try:
        size = int(request.query.get("page_size", "50"))
        start = int(request.query.get("cursor") or "0")
    except ValueError:
        raise _HttpError(400, "invalid_request", "page_size and cursor are invalid") from None
    if not 1 <= size <= 1000 or start < 0:
        raise _HttpError(400, "invalid_request", "page_size must be 1 to 1000")
    more = start + size < len(items)
    return {
        "items": items[start : start + size],
        "next_cursor": str(start + size) if more else None,
        "total_size": len(items),
    }


def _facts_block(episodes: list[Json]) -> str:
    """A context block in the FACTS layout Zep uses ("" when nothing is relevant)."""
    if not episodes:
        return ""
    lines = [
        f"  - {_one_line(ep['content'])} (Date range: {_valid_from(ep)} - present)"
        for ep in episodes
    ]
    return (
        "FACTS and ENTITIES represent relevant context to the current conversation.\n\n"
        "# These are the most relevant facts and their valid date ranges\n"
        "# format: FACT (Date range: from - to)\n<FACTS>\n" + "\n".join(lines) + "\n</FACTS>"
    )


class FakeZep(httpx.AsyncBaseTransport):
    """An in-memory Zep v4 served as an httpx transport; state is public for assertions."""

    def __init__(self) -> None:
        self.users: dict[str, Json] = {}
        self.threads: dict[str, Json] = {}
        self.messages: dict[str, list[Json]] = {}
        self.graphs: dict[str, Json] = {}
        self.episodes: dict[str, list[Json]] = {}
        self.requests: list[RecordedRequest] = []
        self._faults: list[_Armed] = []
        self._replies: dict[tuple[str, str, str], tuple[int, Any]] = {}
        self._message_episodes: dict[str, str] = {}
        self._routes: list[tuple[str, re.Pattern[str], Callable[..., tuple[int, Any]]]] = [
            ("POST", re.compile(r"/users"), self._create_user),
            ("POST", re.compile(r"/users/lookup"), self._lookup_user),
            ("POST", re.compile(r"/users/list"), self._list_users),
            ("GET", re.compile(r"/users/(?P<uid>[^/]+)"), self._get_user),
            ("DELETE", re.compile(r"/users/(?P<uid>[^/]+)"), self._delete_user),
            ("POST", re.compile(r"/threads"), self._create_thread),
            ("GET", re.compile(r"/threads"), self._list_threads),
            ("GET", re.compile(r"/threads/(?P<uid>[^/]+)"), self._get_thread),
            ("DELETE", re.compile(r"/threads/(?P<uid>[^/]+)"), self._delete_thread),
            ("POST", re.compile(r"/threads/(?P<uid>[^/]+)/messages"), self._add_messages),
            ("GET", re.compile(r"/threads/(?P<uid>[^/]+)/messages"), self._list_messages),
            ("GET", re.compile(r"/threads/(?P<uid>[^/]+)/context"), self._thread_context),
            ("POST", re.compile(r"/graphs"), self._create_graph),
            ("GET", re.compile(r"/graphs/(?P<uid>[^/]+)"), self._get_graph),
            ("POST", re.compile(r"/graphs/(?P<uid>[^/]+)/episodes"), self._add_episode),
            ("POST", re.compile(r"/graphs/(?P<uid>[^/]+)/episodes/list"), self._list_episodes),
            ("POST", re.compile(r"/graphs/(?P<uid>[^/]+)/edges/list"), self._list_edges),
            ("POST", re.compile(r"/graphs/(?P<uid>[^/]+)/context"), self._graph_context),
            (
                "POST",
                re.compile(
                    r"/graphs/(?P<uid>[^/]+)/search/"
                    r"(?P<scope>edges|nodes|episodes|observations|thread-summaries)"
                ),
                self._search,
            ),
        ]

    # -- wiring -------------------------------------------------------------------------------

    def http_client(self) -> httpx.AsyncClient:
        """An httpx client whose every request lands in this fake."""
        return httpx.AsyncClient(transport=self)

    def client(self, *, max_retries: int = 0, timeout: float | None = None) -> AsyncZep:
        """The real SDK pointed at this fake; no retries unless asked, so faults surface at once."""
        return AsyncZep(
            api_key="test",
            base_url=BASE_URL,
            httpx_client=self.http_client(),
            max_retries=max_retries,
            timeout=timeout,
        )

    def fail(self, fault: Fault, *, times: int | None = 1, route: str | None = None) -> None:
        """Apply `fault` to the next `times` requests (None: all), optionally only to `route`, a
        pattern on "METHOD /path" such as "POST /threads/*/messages" or "* /users*"."""
        self._faults.append(_Armed(fault, times, route))

    def clear_faults(self) -> None:
        self._faults.clear()

    def calls(self, method: str, path_pattern: str = "*") -> list[RecordedRequest]:
        """Recorded requests with this method whose path matches the glob pattern."""
        return [
            r
            for r in self.requests
            if r.method == method and fnmatch.fnmatchcase(r.path, path_pattern)
        ]

    # -- transport ----------------------------------------------------------------------------

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        raw = await request.aread()
        path = request.url.path.removeprefix(_BASE_PATH) or "/"
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        recorded = RecordedRequest(
            method=request.method,
            path=path,
            query=dict(request.url.params),
            json=body,
            headers={k.lower(): v for k, v in request.headers.items()},
        )
        self.requests.append(recorded)
        fault = self._take_fault(recorded)
        if fault is not None:
            early = await self._apply_fault(fault, request)
            if early is not None:
                return early
        status, payload = self._answer(recorded)
        if fault is not None and fault.drop_fields:
            payload = _drop(payload, fault.drop_fields)
        return httpx.Response(status, json=payload, request=request)

    def _take_fault(self, request: RecordedRequest) -> Fault | None:
        target = f"{request.method} {request.path}"
        for armed in self._faults:
            if armed.route is not None and not fnmatch.fnmatchcase(target, armed.route):
                continue
            if armed.remaining is not None:
                armed.remaining -= 1
                if armed.remaining <= 0:
                    self._faults.remove(armed)
            return armed.fault
        return None

    async def _apply_fault(self, fault: Fault, request: httpx.Request) -> httpx.Response | None:
        if fault.delay:
            await asyncio.sleep(fault.delay)
        if fault.timeout:
            raise httpx.ReadTimeout("fake: no answer in time", request=request)
        if fault.connect_error:
            raise httpx.ConnectError("fake: connection refused", request=request)
        if fault.invalid_json:
            headers = {"content-type": "application/json"}
            return httpx.Response(200, content=b"{not json", headers=headers, request=request)
        if fault.status is None:
            return None
        body = fault.body if fault.body is not None else _error_body("fault", "injected fault")
        return httpx.Response(fault.status, json=body, headers=dict(fault.headers), request=request)

    def _answer(self, request: RecordedRequest) -> tuple[int, Any]:
        """Route the request, replaying the stored answer to a repeated idempotency key."""
        key = request.headers.get("idempotency-key")
        replay_key = (request.method, request.path, key) if key else None
        if replay_key is not None and replay_key in self._replies:
            return self._replies[replay_key]
        try:
            answer = self._route(request)
        except _HttpError as exc:
            return exc.status, _error_body(exc.code, exc.message)
        if replay_key is not None and request.method != "GET" and answer[0] < 300:
            self._replies[replay_key] = answer
        return answer

    def _route(self, request: RecordedRequest) -> tuple[int, Any]:
        for method, pattern, handler in self._routes:
            match = pattern.fullmatch(request.path)
            if match and method == request.method:
                return handler(request, **match.groupdict())
        raise _HttpError(404, "not_found", f"no route {request.method} {request.path}")

    # -- users --------------------------------------------------------------------------------

    def _body(self, request: RecordedRequest) -> Json:
        if not isinstance(request.json, dict):
            raise _HttpError(400, "invalid_request", "a JSON object body is required")
        return request.json

    def _create_user(self, request: RecordedRequest) -> tuple[int, Any]:
        body = self._body(request)
        user_id = body.get("user_id")
        if user_id is not None:
            for existing in self.users.values():
                if existing["user_id"] == user_id:
                    raise _HttpError(409, "conflict", "a user with this user_id already exists")
        user_uuid, graph_uuid, now = _new_id(), _new_id(), _now()
        user = {
            "uuid": user_uuid,
            "user_id": user_id,
            "email": body.get("email"),
            "first_name": body.get("first_name"),
            "last_name": body.get("last_name"),
            "metadata": body.get("metadata"),
            "graph_uuid": graph_uuid,
            "created_at": now,
        }
        self.users[user_uuid] = user
        self.graphs[graph_uuid] = {
            "uuid": graph_uuid,
            "name": user_id,
            "type": "user",
            "user_uuid": user_uuid,
            "created_at": now,
        }
        self.episodes[graph_uuid] = []
        return 201, user

    def _lookup_user(self, request: RecordedRequest) -> tuple[int, Any]:
        user_id = self._body(request).get("user_id")
        for user in self.users.values():
            if user_id is not None and user["user_id"] == user_id:
                return 200, user
        raise _HttpError(404, "not_found", "user not found")

    def _user(self, user_uuid: str) -> Json:
        if user_uuid not in self.users:
            raise _HttpError(404, "not_found", "user not found")
        return self.users[user_uuid]

    def _get_user(self, request: RecordedRequest, uid: str) -> tuple[int, Any]:
        return 200, self._user(uid)

    def _list_users(self, request: RecordedRequest) -> tuple[int, Any]:
        users = list(self.users.values())
        search = (request.json or {}).get("search") if isinstance(request.json, dict) else None
        if search:
            users = [u for u in users if search.lower() in str(u.get("user_id") or "").lower()]
        return 200, _paged(request, users)

    def _delete_user(self, request: RecordedRequest, uid: str) -> tuple[int, Any]:
        """Zep deletes a user's threads, messages and graph with it (as a task; here at once)."""
        user = self._user(uid)
        for thread_uuid in [t for t, thread in self.threads.items() if thread["user_uuid"] == uid]:
            del self.threads[thread_uuid]
            del self.messages[thread_uuid]
        graph_uuid = user["graph_uuid"]
        gone = {episode["uuid"] for episode in self.episodes.pop(graph_uuid, [])}
        self._message_episodes = {
            message: ep for message, ep in self._message_episodes.items() if ep not in gone
        }
        self.graphs.pop(graph_uuid, None)
        del self.users[uid]
        task = {"uuid": _new_id(), "type": "user.delete", "status": "succeeded"}
        return 202, {"task": task}

    # -- threads and messages -----------------------------------------------------------------

    def _thread(self, thread_uuid: str) -> Json:
        if thread_uuid not in self.threads:
            raise _HttpError(404, "not_found", "thread not found")
        return self.threads[thread_uuid]

    def _create_thread(self, request: RecordedRequest) -> tuple[int, Any]:
        user = self._user(str(self._body(request).get("user_uuid")))
        now = _now()
        thread = {
            "uuid": _new_id(),
            "user_uuid": user["uuid"],
            "graph_uuid": user["graph_uuid"],
            "created_at": now,
            "updated_at": now,
        }
        self.threads[thread["uuid"]] = thread
        self.messages[thread["uuid"]] = []
        return 201, thread

    def _list_threads(self, request: RecordedRequest) -> tuple[int, Any]:
        owner = request.query.get("user_uuid")
        threads = [t for t in self.threads.values() if owner is None or t["user_uuid"] == owner]
        return 200, _paged(request, threads)

    def _get_thread(self, request: RecordedRequest, uid: str) -> tuple[int, Any]:
        return 200, self._thread(uid)

    def _delete_thread(self, request: RecordedRequest, uid: str) -> tuple[int, Any]:
        self._thread(uid)
        del self.threads[uid]
        del self.messages[uid]
        return 200, {}

    def _add_messages(self, request: RecordedRequest, uid: str) -> tuple[int, Any]:
        thread = self._thread(uid)
        body = self._body(request)
        incoming = body.get("messages")
        if not isinstance(incoming, list) or not 1 <= len(incoming) <= 30:
            raise _HttpError(400, "invalid_request", "messages must hold 1 to 30 messages")
        ignored = set(body.get("ignore_roles") or ())
        stored = []
        for item in incoming:
            if not isinstance(item, dict) or not item.get("content"):
                raise _HttpError(400, "invalid_request", "every message needs content")
            if item.get("role") not in _ROLES:
                raise _HttpError(400, "invalid_request", "unknown message role")
            if len(item.get("metadata") or {}) > 10:
                raise _HttpError(400, "invalid_request", "at most 10 metadata keys")
            message = {
                "uuid": _new_id(),
                "content": item["content"],
                "role": item["role"],
                "name": item.get("name"),
                "metadata": item.get("metadata"),
                "reference_time": item.get("reference_time"),
                "created_at": _now(),
                "processed": True,
                "thread_uuid": uid,
            }
            self.messages[uid].append(message)
            stored.append(message)
            if message["role"] not in ignored:
                self._message_episodes[message["uuid"]] = self._store_episode(
                    thread["graph_uuid"],
                    message["content"],
                    source="message",
                    role=message["role"],
                    role_name=message["name"],
                    thread_uuid=uid,
                    reference_time=message["reference_time"],
                    user_uuid=thread["user_uuid"],
                )["uuid"]
        result: Json = {
            "messages": stored,
            "task": {"uuid": _new_id(), "type": "thread.add_messages", "status": "succeeded"},
        }
        if body.get("return_context"):
            result["context"] = self._context_for(thread)
        return 202, result

    def _list_messages(self, request: RecordedRequest, uid: str) -> tuple[int, Any]:
        self._thread(uid)
        return 200, _paged(request, self.messages[uid])

    def _context_for(self, thread: Json) -> str:
        """Earlier memories of the thread's user that share words with its latest message."""
        messages = self.messages[thread["uuid"]]
        if not messages:
            return ""
        latest = messages[-1]
        own = self._message_episodes.get(latest["uuid"])
        earlier = [ep for ep in self.episodes[thread["graph_uuid"]] if ep["uuid"] != own]
        return _facts_block(_rank(latest["content"], earlier, lambda ep: ep["content"])[:10])

    def _thread_context(self, request: RecordedRequest, uid: str) -> tuple[int, Any]:
        return 200, {"context": self._context_for(self._thread(uid))}

    # -- graphs -------------------------------------------------------------------------------

    def _graph_uuid(self, uid: str) -> str:
        """A graph UUID, or a user UUID standing for that user's graph."""
        if uid in self.graphs:
            return uid
        if uid in self.users:
            return str(self.users[uid]["graph_uuid"])
        raise _HttpError(404, "not_found", "graph not found")

    def _store_episode(self, graph_uuid: str, content: str, **fields: Any) -> Json:
        now = _now()
        episode = {
            "uuid": _new_id(),
            "content": content,
            "graph_uuid": graph_uuid,
            "created_at": now,
            "processed": True,
            **fields,
        }
        self.episodes[graph_uuid].append(episode)
        return episode

    def _create_graph(self, request: RecordedRequest) -> tuple[int, Any]:
        body = self._body(request)
        graph_uuid = _new_id()
        graph = {
            "uuid": graph_uuid,
            "name": body.get("name"),
            "description": body.get("description"),
            "type": "standard",
            "created_at": _now(),
        }
        self.graphs[graph_uuid] = graph
        self.episodes[graph_uuid] = []
        return 201, graph

    def _get_graph(self, request: RecordedRequest, uid: str) -> tuple[int, Any]:
        return 200, self.graphs[self._graph_uuid(uid)]

    def _add_episode(self, request: RecordedRequest, uid: str) -> tuple[int, Any]:
        graph_uuid = self._graph_uuid(uid)
        body = self._body(request)
        data, data_type = body.get("data"), body.get("type") or "text"
        if not isinstance(data, str) or not data or len(data) > 10_000:
            raise _HttpError(400, "invalid_request", "data must be 1 to 10,000 characters")
        if data_type not in _DATA_TYPES:
            raise _HttpError(400, "invalid_request", "unknown episode type")
        if len(body.get("metadata") or {}) > 10:
            raise _HttpError(400, "invalid_request", "at most 10 metadata keys")
        episode = self._store_episode(
            graph_uuid,
            data,
            source=data_type,
            metadata=body.get("metadata"),
            reference_time=body.get("reference_time"),
            user_uuid=self.graphs[graph_uuid].get("user_uuid"),
        )
        task = {"uuid": _new_id(), "type": "graph.episode.add", "status": "succeeded"}
        return 202, {"episode": episode, "task": task}

    def _list_episodes(self, request: RecordedRequest, uid: str) -> tuple[int, Any]:
        return 200, _paged(request, self.episodes[self._graph_uuid(uid)])

    def _list_edges(self, request: RecordedRequest, uid: str) -> tuple[int, Any]:
        size = int(request.query.get("page_size", "50"))
        if not 1 <= size <= 100:
            raise _HttpError(400, "invalid_request", "page_size must be 1 to 100")
        return 200, _paged(request, self._candidates(self._graph_uuid(uid), "edges"))

    def _graph_context(self, request: RecordedRequest, uid: str) -> tuple[int, Any]:
        graph_uuid = self._graph_uuid(uid)
        query = self._body(request).get("query")
        if not isinstance(query, str) or not query.strip():
            raise _HttpError(400, "invalid_request", "query is required")
        found = _rank(query, self.episodes[graph_uuid], lambda ep: ep["content"])[:10]
        return 200, {"context": _facts_block(found), "truncated": False}

    def _search(self, request: RecordedRequest, uid: str, scope: str) -> tuple[int, Any]:
        graph_uuid = self._graph_uuid(uid)
        body = self._body(request)
        query, reranker = body.get("query"), body.get("reranker")
        if not isinstance(query, str) or not query.strip():
            raise _HttpError(400, "invalid_request", "query is required")
        if reranker is not None and reranker not in RERANKERS_BY_SCOPE[scope]:
            raise _HttpError(400, "unsupported_reranker", f"reranker not valid for {scope}")
        if reranker == "mmr" and body.get("mmr_lambda") is None:
            raise _HttpError(400, "invalid_request", "mmr needs mmr_lambda")
        if reranker == "node_distance" and not body.get("center_node_uuid"):
            raise _HttpError(400, "invalid_request", "node_distance needs center_node_uuid")
        size = int(request.query.get("page_size", "10"))
        if not 1 <= size <= 50:
            raise _HttpError(400, "invalid_request", "page_size must be 1 to 50")
        items = self._candidates(graph_uuid, scope)
        text_of = _SEARCH_TEXT[scope]
        found = _rank(query, items, text_of)[:size]
        return 200, {"items": found, "next_cursor": None, "total_size": len(found)}

    def _candidates(self, graph_uuid: str, scope: str) -> list[Json]:
        episodes = self.episodes[graph_uuid]
        if scope == "episodes":
            return list(episodes)
        if scope == "edges":
            return [
                {
                    "uuid": str(uuid.uuid5(uuid.NAMESPACE_URL, "edge:" + ep["uuid"])),
                    "fact": _one_line(ep["content"]),
                    "name": "MENTIONS",
                    "created_at": ep["created_at"],
                    "valid_at": ep.get("reference_time") or ep["created_at"],
                    "episode_uuids": [ep["uuid"]],
                    "graph_uuid": graph_uuid,
                }
                for ep in episodes
            ]
        if scope == "observations":
            return [
                {
                    "uuid": str(uuid.uuid5(uuid.NAMESPACE_URL, "observation:" + ep["uuid"])),
                    "name": "Observation",
                    "summary": _one_line(ep["content"]),
                    "labels": ["Observation"],
                    "episode_uuids": [ep["uuid"]],
                    "created_at": ep["created_at"],
                    "graph_uuid": graph_uuid,
                }
                for ep in episodes
            ]
        if scope == "thread-summaries":
            return self._summaries(graph_uuid)
        return self._entities(graph_uuid)

    def _entities(self, graph_uuid: str) -> list[Json]:
        """One node per capitalised word, summarised by the first episode that names it."""
        nodes: dict[str, Json] = {}
        for ep in self.episodes[graph_uuid]:
            for name in _NAME.findall(ep["content"]):
                if name.lower() in _STOP or len(name) < 3:
                    continue
                node = nodes.setdefault(
                    name,
                    {
                        "uuid": str(uuid.uuid5(uuid.NAMESPACE_URL, f"{graph_uuid}:{name}")),
                        "name": name,
                        "summary": _one_line(ep["content"]),
                        "labels": ["Entity"],
                        "created_at": ep["created_at"],
                        "episode_uuids": [],
                        "episode_uuids_truncated": False,
                        "graph_uuid": graph_uuid,
                    },
                )
                node["episode_uuids"].append(ep["uuid"])
        return list(nodes.values())

    def _summaries(self, graph_uuid: str) -> list[Json]:
        return [
            {
                "uuid": str(uuid.uuid5(uuid.NAMESPACE_URL, "summary:" + thread_uuid)),
                "summary": _one_line(" ".join(m["content"] for m in self.messages[thread_uuid])),
                "thread_uuid": thread_uuid,
                "graph_uuid": graph_uuid,
                "created_at": thread["created_at"],
            }
            for thread_uuid, thread in self.threads.items()
            if thread["graph_uuid"] == graph_uuid and self.messages[thread_uuid]
        ]


_SEARCH_TEXT: Mapping[str, Callable[[Json], str]] = {
    "edges": lambda item: str(item["fact"]),
    "nodes": lambda item: f"{item['name']} {item['summary']}",
    "episodes": lambda item: str(item["content"]),
    "observations": lambda item: str(item["summary"]),
    "thread-summaries": lambda item: str(item["summary"]),
}
