"""`FakeZep`: a stateful stand-in for the Zep Cloud v4 HTTP API, for tests without a network.

It is an httpx transport, so the real `AsyncZep` SDK talks to it exactly as it talks to Zep:

    fake = FakeZep()
    client = fake.client()                      # AsyncZep on http://zep.test/api/v4, no retries
    backend = ZepBackend(client)

This module keeps the state (users, threads, messages, graphs, episodes) and the endpoints, which
answer with bodies the SDK's pydantic models accept; `_transport` records requests and injects
faults; `_search` is the toy ranking behind search and context.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from zep_cloud.client import AsyncZep

from zepkit.zep.testing._search import (
    RERANKERS_BY_SCOPE,
    SEARCH_TEXT,
    edges,
    entities,
    facts_block,
    observations,
    rank,
    summaries,
)
from zepkit.zep.testing._transport import BASE_URL, RecordingTransport
from zepkit.zep.testing._wire import HttpError, Json, RecordedRequest, new_id, paged, timestamp

_ROLES = frozenset({"system", "assistant", "user", "function", "tool"})
_DATA_TYPES = frozenset({"text", "json", "message"})


class FakeZep(RecordingTransport):
    """An in-memory Zep v4 served as an httpx transport; state is public for assertions."""

    def __init__(self) -> None:
        super().__init__()
        self.users: dict[str, Json] = {}
        self.threads: dict[str, Json] = {}
        self.messages: dict[str, list[Json]] = {}
        self.graphs: dict[str, Json] = {}
        self.episodes: dict[str, list[Json]] = {}
        self._message_episodes: dict[str, str] = {}
        self._routes: list[tuple[str, re.Pattern[str], Callable[..., tuple[int, Any]]]] = [
            ("POST", re.compile(r"/users"), self._create_user),
            ("POST", re.compile(r"/users/lookup"), self._lookup_user),
            ("POST", re.compile(r"/users/list"), self._list_users),
            ("GET", re.compile(r"/users/(?P<uid>[^/]+)"), self._get_user),
            ("PATCH", re.compile(r"/users/(?P<uid>[^/]+)"), self._update_user),
            ("DELETE", re.compile(r"/users/(?P<uid>[^/]+)"), self._delete_user),
            ("POST", re.compile(r"/threads"), self._create_thread),
            ("GET", re.compile(r"/threads"), self._list_threads),
            ("GET", re.compile(r"/threads/(?P<uid>[^/]+)"), self._get_thread),
            ("DELETE", re.compile(r"/threads/(?P<uid>[^/]+)"), self._delete_thread),
            ("POST", re.compile(r"/threads/(?P<uid>[^/]+)/messages"), self._add_messages),
            ("GET", re.compile(r"/threads/(?P<uid>[^/]+)/messages"), self._list_messages),
            ("GET", re.compile(r"/threads/(?P<uid>[^/]+)/messages/(?P<mid>[^/]+)"), self._message),
            (
                "PATCH",
                re.compile(r"/threads/(?P<uid>[^/]+)/messages/(?P<mid>[^/]+)"),
                self._update_message,
            ),
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

    def client(self, *, max_retries: int = 0, timeout: float | None = None) -> AsyncZep:
        """The real SDK pointed at this fake; no retries unless asked, so faults surface at once."""
        return AsyncZep(
            api_key="test",
            base_url=BASE_URL,
            httpx_client=self.http_client(),
            max_retries=max_retries,
            timeout=timeout,
        )

    def _route(self, request: RecordedRequest) -> tuple[int, Any]:
        for method, pattern, handler in self._routes:
            match = pattern.fullmatch(request.path)
            if match and method == request.method:
                return handler(request, **match.groupdict())
        return super()._route(request)

    # -- users --------------------------------------------------------------------------------

    def _body(self, request: RecordedRequest) -> Json:
        if not isinstance(request.json, dict):
            raise HttpError(400, "invalid_request", "a JSON object body is required")
        return request.json

    def _create_user(self, request: RecordedRequest) -> tuple[int, Any]:
        body = self._body(request)
        user_id = body.get("user_id")
        if user_id is not None:
            for existing in self.users.values():
                if existing["user_id"] == user_id:
                    raise HttpError(409, "conflict", "a user with this user_id already exists")
        user_uuid, graph_uuid, now = new_id(), new_id(), timestamp()
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
        raise HttpError(404, "not_found", "user not found")

    def _user(self, user_uuid: str) -> Json:
        if user_uuid not in self.users:
            raise HttpError(404, "not_found", "user not found")
        return self.users[user_uuid]

    def _get_user(self, request: RecordedRequest, uid: str) -> tuple[int, Any]:
        return 200, self._user(uid)

    def _update_user(self, request: RecordedRequest, uid: str) -> tuple[int, Any]:
        """Zep sets the profile fields the body holds and leaves the others."""
        user, body = self._user(uid), self._body(request)
        for field in ("email", "first_name", "last_name", "metadata"):
            if field in body:
                user[field] = body[field]
        return 200, user

    def _list_users(self, request: RecordedRequest) -> tuple[int, Any]:
        users = list(self.users.values())
        search = (request.json or {}).get("search") if isinstance(request.json, dict) else None
        if search:
            users = [u for u in users if search.lower() in str(u.get("user_id") or "").lower()]
        return 200, paged(request, users)

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
        task = {"uuid": new_id(), "type": "user.delete", "status": "succeeded"}
        return 202, {"task": task}

    # -- threads and messages -----------------------------------------------------------------

    def _thread(self, thread_uuid: str) -> Json:
        if thread_uuid not in self.threads:
            raise HttpError(404, "not_found", "thread not found")
        return self.threads[thread_uuid]

    def _create_thread(self, request: RecordedRequest) -> tuple[int, Any]:
        user = self._user(str(self._body(request).get("user_uuid")))
        now = timestamp()
        thread = {
            "uuid": new_id(),
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
        return 200, paged(request, threads)

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
            raise HttpError(400, "invalid_request", "messages must hold 1 to 30 messages")
        ignored = set(body.get("ignore_roles") or ())
        stored = []
        for item in incoming:
            if not isinstance(item, dict) or not item.get("content"):
                raise HttpError(400, "invalid_request", "every message needs content")
            if item.get("role") not in _ROLES:
                raise HttpError(400, "invalid_request", "unknown message role")
            if len(item.get("metadata") or {}) > 10:
                raise HttpError(400, "invalid_request", "at most 10 metadata keys")
            message = {
                "uuid": new_id(),
                "content": item["content"],
                "role": item["role"],
                "name": item.get("name"),
                "metadata": item.get("metadata"),
                "reference_time": item.get("reference_time"),
                "created_at": timestamp(),
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
            "task": {"uuid": new_id(), "type": "thread.add_messages", "status": "succeeded"},
        }
        if body.get("return_context"):
            result["context"] = self._context_for(thread)
        return 202, result

    def _list_messages(self, request: RecordedRequest, uid: str) -> tuple[int, Any]:
        self._thread(uid)
        return 200, paged(request, self.messages[uid])

    def _stored_message(self, uid: str, mid: str) -> Json:
        self._thread(uid)
        for message in self.messages[uid]:
            if message["uuid"] == mid:
                return message
        raise HttpError(404, "not_found", "message not found")

    def _message(self, request: RecordedRequest, uid: str, mid: str) -> tuple[int, Any]:
        return 200, self._stored_message(uid, mid)

    def _update_message(self, request: RecordedRequest, uid: str, mid: str) -> tuple[int, Any]:
        """Zep v4 merges the metadata given onto the message's; a key given null is removed."""
        message = self._stored_message(uid, mid)
        update = self._body(request).get("metadata") or {}
        if not isinstance(update, dict):
            raise HttpError(400, "invalid_request", "metadata must be an object")
        merged = {**(message["metadata"] or {}), **update}
        merged = {key: value for key, value in merged.items() if value is not None}
        if len(merged) > 10:
            raise HttpError(400, "invalid_request", "at most 10 metadata keys")
        message["metadata"] = merged or None
        return 200, message

    def _context_for(self, thread: Json) -> str:
        """Earlier memories of the thread's user that share words with its latest message."""
        messages = self.messages[thread["uuid"]]
        if not messages:
            return ""
        latest = messages[-1]
        own = self._message_episodes.get(latest["uuid"])
        earlier = [ep for ep in self.episodes[thread["graph_uuid"]] if ep["uuid"] != own]
        return facts_block(rank(latest["content"], earlier, lambda ep: ep["content"])[:10])

    def _thread_context(self, request: RecordedRequest, uid: str) -> tuple[int, Any]:
        return 200, {"context": self._context_for(self._thread(uid))}

    # -- graphs -------------------------------------------------------------------------------

    def _graph_uuid(self, uid: str) -> str:
        """A graph UUID, or a user UUID standing for that user's graph."""
        if uid in self.graphs:
            return uid
        if uid in self.users:
            return str(self.users[uid]["graph_uuid"])
        raise HttpError(404, "not_found", "graph not found")

    def _store_episode(self, graph_uuid: str, content: str, **fields: Any) -> Json:
        now = timestamp()
        episode = {
            "uuid": new_id(),
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
        graph_uuid = new_id()
        graph = {
            "uuid": graph_uuid,
            "name": body.get("name"),
            "description": body.get("description"),
            "type": "standard",
            "created_at": timestamp(),
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
            raise HttpError(400, "invalid_request", "data must be 1 to 10,000 characters")
        if data_type not in _DATA_TYPES:
            raise HttpError(400, "invalid_request", "unknown episode type")
        if len(body.get("metadata") or {}) > 10:
            raise HttpError(400, "invalid_request", "at most 10 metadata keys")
        episode = self._store_episode(
            graph_uuid,
            data,
            source=data_type,
            metadata=body.get("metadata"),
            reference_time=body.get("reference_time"),
            user_uuid=self.graphs[graph_uuid].get("user_uuid"),
        )
        task = {"uuid": new_id(), "type": "graph.episode.add", "status": "succeeded"}
        return 202, {"episode": episode, "task": task}

    def _list_episodes(self, request: RecordedRequest, uid: str) -> tuple[int, Any]:
        return 200, paged(request, self.episodes[self._graph_uuid(uid)])

    def _list_edges(self, request: RecordedRequest, uid: str) -> tuple[int, Any]:
        size = int(request.query.get("page_size", "50"))
        if not 1 <= size <= 100:
            raise HttpError(400, "invalid_request", "page_size must be 1 to 100")
        return 200, paged(request, self._candidates(self._graph_uuid(uid), "edges"))

    def _graph_context(self, request: RecordedRequest, uid: str) -> tuple[int, Any]:
        graph_uuid = self._graph_uuid(uid)
        query = self._body(request).get("query")
        if not isinstance(query, str) or not query.strip():
            raise HttpError(400, "invalid_request", "query is required")
        found = rank(query, self.episodes[graph_uuid], lambda ep: ep["content"])[:10]
        return 200, {"context": facts_block(found), "truncated": False}

    def _search(self, request: RecordedRequest, uid: str, scope: str) -> tuple[int, Any]:
        graph_uuid = self._graph_uuid(uid)
        body = self._body(request)
        query, reranker = body.get("query"), body.get("reranker")
        if not isinstance(query, str) or not query.strip():
            raise HttpError(400, "invalid_request", "query is required")
        if reranker is not None and reranker not in RERANKERS_BY_SCOPE[scope]:
            raise HttpError(400, "unsupported_reranker", f"reranker not valid for {scope}")
        if reranker == "mmr" and body.get("mmr_lambda") is None:
            raise HttpError(400, "invalid_request", "mmr needs mmr_lambda")
        if reranker == "node_distance" and not body.get("center_node_uuid"):
            raise HttpError(400, "invalid_request", "node_distance needs center_node_uuid")
        size = int(request.query.get("page_size", "10"))
        if not 1 <= size <= 50:
            raise HttpError(400, "invalid_request", "page_size must be 1 to 50")
        items = self._candidates(graph_uuid, scope)
        text_of = SEARCH_TEXT[scope]
        found = rank(query, items, text_of)[:size]
        return 200, {"items": found, "next_cursor": None, "total_size": len(found)}

    def _candidates(self, graph_uuid: str, scope: str) -> list[Json]:
        episodes = self.episodes[graph_uuid]
        if scope == "episodes":
            return list(episodes)
        if scope == "edges":
            return edges(graph_uuid, episodes)
        if scope == "observations":
            return observations(graph_uuid, episodes)
        if scope == "thread-summaries":
            return summaries(graph_uuid, self.threads, self.messages)
        return entities(graph_uuid, episodes)
