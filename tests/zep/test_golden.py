"""Golden requests: what the real SDK puts on the wire for each backend operation.

Drift in zepkit's mapping (a renamed field, a dropped option, a new null) fails here.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from zepkit.core import Identity, MemoryLoop
from zepkit.core._backend import SearchRequest, UserProfile
from zepkit.core._errors import BackendUnavailableError, UnsupportedError
from zepkit.core._models import Message, Reranker, Scope
from zepkit.zep import SqliteIdMap, ZepBackend
from zepkit.zep.testing import FakeZep, Fault, RecordedRequest

WHEN = datetime(2024, 5, 1, 12, 30, tzinfo=UTC)


def wire(request: RecordedRequest) -> tuple[str, str, dict[str, str], object]:
    return request.method, request.path, request.query, request.json


async def ready(zep: ZepBackend, fake: FakeZep) -> tuple[str, str, str]:
    """User alice with thread t1; returns (user uuid, user graph uuid, thread uuid)."""
    await zep.ensure_user(UserProfile("alice"))
    await zep.ensure_thread("t1", "alice")
    (user,) = fake.users.values()
    (thread,) = fake.threads.values()
    fake.requests.clear()
    return user["uuid"], user["graph_uuid"], thread["uuid"]


async def test_ensure_user(fake: FakeZep, zep: ZepBackend) -> None:
    profile = UserProfile("alice", first_name="Alice", last_name="Liddell", email="a@example.com")
    assert await zep.ensure_user(profile) is True
    (request,) = fake.requests
    assert wire(request) == (
        "POST",
        "/users",
        {},
        {
            "user_id": "alice",
            "first_name": "Alice",
            "last_name": "Liddell",
            "email": "a@example.com",
        },
    )
    assert request.headers["idempotency-key"]
    assert request.headers["authorization"] == "Api-Key test"


async def test_ensure_existing_user_looks_it_up(fake: FakeZep, zep: ZepBackend) -> None:
    other = ZepBackend(fake.client(), max_retries=0)
    await other.ensure_user(UserProfile("alice"))
    fake.requests.clear()
    assert await zep.ensure_user(UserProfile("alice")) is False
    assert [wire(r) for r in fake.requests] == [
        ("POST", "/users", {}, {"user_id": "alice"}),
        ("POST", "/users/lookup", {}, {"user_id": "alice"}),
    ]


async def test_ensure_user_sends_only_changed_fields_and_nothing_when_unchanged(
    fake: FakeZep, zep: ZepBackend
) -> None:
    await zep.ensure_user(UserProfile("alice", first_name="Alice", email="a@example.com"))
    user_uuid = next(iter(fake.users))
    fake.requests.clear()
    assert await zep.ensure_user(UserProfile("alice", first_name="Alice")) is False
    assert fake.requests == []  # what Zep holds already: no call
    await zep.ensure_user(UserProfile("alice", first_name="Ali", email="a@example.com"))
    assert [wire(r) for r in fake.requests] == [
        ("PATCH", f"/users/{user_uuid}", {}, {"first_name": "Ali"})
    ]
    fake.requests.clear()
    # another process, which has not seen the user: its create meets a conflict, the lookup
    # tells it what Zep holds, and only the difference is sent
    other = ZepBackend(fake.client(), max_retries=0)
    assert await other.ensure_user(UserProfile("alice", first_name="Ali", last_name="L")) is False
    assert [wire(r)[:2] for r in fake.requests] == [
        ("POST", "/users"),
        ("POST", "/users/lookup"),
        ("PATCH", f"/users/{user_uuid}"),
    ]
    assert wire(fake.requests[-1])[3] == {"last_name": "L"}
    assert fake.users[user_uuid]["first_name"] == "Ali"


async def test_ensure_thread(fake: FakeZep, zep: ZepBackend) -> None:
    await zep.ensure_user(UserProfile("alice"))
    user_uuid = next(iter(fake.users))
    fake.requests.clear()
    assert await zep.ensure_thread("t1", "alice") is True
    (request,) = fake.requests
    assert wire(request) == ("POST", "/threads", {}, {"user_uuid": user_uuid})
    # The create key depends only on the user and the app's thread id: another process that
    # creates the same thread gets Zep's stored answer instead of a second thread.
    other = ZepBackend(fake.client(), max_retries=0)
    assert await other.ensure_thread("t1", "alice") is True
    create = fake.calls("POST", "/threads")
    assert create[0].headers["idempotency-key"] == create[1].headers["idempotency-key"]
    assert len(fake.threads) == 1


async def test_ensure_graph(fake: FakeZep, zep: ZepBackend) -> None:
    assert await zep.ensure_graph("handbook") is True
    (request,) = fake.requests
    assert wire(request) == ("POST", "/graphs", {}, {"name": "handbook"})
    assert request.headers["idempotency-key"]


async def test_add_messages(fake: FakeZep, zep: ZepBackend) -> None:
    _, _, thread_uuid = await ready(zep, fake)
    messages = [
        Message("user", "I like tea", name="Alice", created_at=WHEN, metadata={"k": 1}),
        Message("assistant", "Noted."),
    ]
    await zep.add_messages("t1", messages, return_context=True)
    (request,) = fake.requests
    assert wire(request) == (
        "POST",
        f"/threads/{thread_uuid}/messages",
        {},
        {
            "messages": [
                {
                    "role": "user",
                    "content": "I like tea",
                    "name": "Alice",
                    "metadata": {"k": 1},
                    "reference_time": "2024-05-01T12:30:00+00:00",
                },
                {"role": "assistant", "content": "Noted."},
            ],
            "return_context": True,
        },
    )
    await zep.add_messages("t1", [Message("user", "more")])
    assert fake.requests[-1].json["return_context"] is False


async def test_add_messages_key_is_the_callers_for_a_replayed_write(
    fake: FakeZep, zep: ZepBackend
) -> None:
    await ready(zep, fake)
    turn = [Message("user", "yes", name="Alice")]
    fake.fail(Fault(status=503), route="POST /threads/*/messages")
    with pytest.raises(BackendUnavailableError):
        await zep.add_messages("t1", turn, idempotency_key="write-1")
    await zep.add_messages("t1", turn, idempotency_key="write-1")  # replayed from the outbox
    await zep.add_messages("t1", turn, idempotency_key="write-1")  # replayed once more
    await zep.add_messages("t1", turn, idempotency_key="write-2")  # "yes" said again later
    await zep.add_messages("t1", turn)  # and once more, by a caller without a key
    keys = [r.headers["idempotency-key"] for r in fake.calls("POST", "/threads/*/messages")]
    assert keys[0] == keys[1] == keys[2]
    assert len(set(keys)) == 3
    assert [m["content"] for m in next(iter(fake.messages.values()))] == ["yes", "yes", "yes"]


async def test_a_message_said_again_after_a_restart_is_stored(
    fake: FakeZep, tmp_path: Path
) -> None:
    # Keys never come from state held in memory: a new process saying "Hello" first again
    # (the same content in the same position) is a new write, not a duplicate.
    ids = SqliteIdMap(tmp_path / "ids.db")
    alice = Identity(user_id="alice", thread_id="t1")
    for _ in range(2):
        memory = MemoryLoop(ZepBackend(fake.client(), id_map=ids, owns_client=True))
        await memory.begin_turn(alice, "Hello")
        await memory.aclose()
    assert [m["content"] for m in next(iter(fake.messages.values()))] == ["Hello", "Hello"]


async def test_get_context(fake: FakeZep, zep: ZepBackend) -> None:
    _, _, thread_uuid = await ready(zep, fake)
    assert await zep.get_context("t1") is None
    assert [wire(r) for r in fake.requests] == [
        ("GET", f"/threads/{thread_uuid}/context", {}, None)
    ]


async def test_get_messages(fake: FakeZep, zep: ZepBackend) -> None:
    _, _, thread_uuid = await ready(zep, fake)
    await zep.get_messages("t1")
    await zep.get_messages("t1", limit=2)
    assert [wire(r) for r in fake.requests] == [
        (
            "GET",
            f"/threads/{thread_uuid}/messages",
            {"order_by": "created_at", "order": "asc"},
            None,
        ),
        (
            "GET",
            f"/threads/{thread_uuid}/messages",
            {"page_size": "2", "order_by": "created_at", "order": "desc"},
            None,
        ),
    ]


@pytest.mark.parametrize(
    ("scope", "reranker", "path", "body"),
    [
        ("edges", "rrf", "search/edges", {"query": "tea", "reranker": "rrf"}),
        ("edges", "mmr", "search/edges", {"query": "tea", "reranker": "mmr", "mmr_lambda": 0.5}),
        ("nodes", "cross_encoder", "search/nodes", {"query": "tea", "reranker": "cross_encoder"}),
        ("episodes", None, "search/episodes", {"query": "tea"}),
        ("observations", "rrf", "search/observations", {"query": "tea", "reranker": "rrf"}),
        (
            "thread_summaries",
            "rrf",
            "search/thread-summaries",
            {"query": "tea", "reranker": "rrf"},
        ),
    ],
)
async def test_search_per_scope(
    fake: FakeZep,
    zep: ZepBackend,
    scope: Scope,
    reranker: Reranker | None,
    path: str,
    body: object,
) -> None:
    _, graph_uuid, _ = await ready(zep, fake)
    request = SearchRequest(query="tea", user_id="alice", scope=scope, reranker=reranker, limit=7)
    await zep.search(request)
    (sent,) = fake.requests
    assert wire(sent) == ("POST", f"/graphs/{graph_uuid}/{path}", {"page_size": "7"}, body)


async def test_search_node_distance_sends_the_center(fake: FakeZep, zep: ZepBackend) -> None:
    _, graph_uuid, _ = await ready(zep, fake)
    request = SearchRequest(
        query="tea", user_id="alice", reranker="node_distance", center_node_uuid="n-1", limit=3
    )
    await zep.search(request)
    assert wire(fake.requests[0]) == (
        "POST",
        f"/graphs/{graph_uuid}/search/edges",
        {"page_size": "3"},
        {"query": "tea", "reranker": "node_distance", "center_node_uuid": "n-1"},
    )


async def test_search_auto_is_graph_context(fake: FakeZep, zep: ZepBackend) -> None:
    _, graph_uuid, _ = await ready(zep, fake)
    await zep.search(SearchRequest(query="tea", user_id="alice", scope="auto", reranker=None))
    assert [wire(r) for r in fake.requests] == [
        ("POST", f"/graphs/{graph_uuid}/context", {}, {"query": "tea"})
    ]


async def test_search_shared_graph_targets_its_uuid(fake: FakeZep, zep: ZepBackend) -> None:
    await zep.ensure_graph("handbook")
    (graph_uuid,) = fake.graphs
    fake.requests.clear()
    await zep.search(SearchRequest(query="tea", graph_id="handbook", scope="episodes", limit=2))
    assert wire(fake.requests[0])[:3] == (
        "POST",
        f"/graphs/{graph_uuid}/search/episodes",
        {"page_size": "2"},
    )


@pytest.mark.parametrize(
    ("scope", "reranker"),
    [("episodes", "cross_encoder"), ("nodes", "episode_mentions"), ("auto", "rrf")],
)
async def test_wrong_reranker_is_refused_before_sending(
    fake: FakeZep, zep: ZepBackend, scope: Scope, reranker: Reranker
) -> None:
    await ready(zep, fake)
    with pytest.raises(UnsupportedError, match=reranker):
        await zep.search(
            SearchRequest(query="tea", user_id="alice", scope=scope, reranker=reranker)
        )
    assert fake.requests == []


async def test_add_data(fake: FakeZep, zep: ZepBackend) -> None:
    _, graph_uuid, _ = await ready(zep, fake)
    episode = await zep.add_data(
        '{"a": 1}', type="json", user_id="alice", created_at=WHEN, metadata={"source": "crm"}
    )
    (request,) = fake.requests
    assert wire(request) == (
        "POST",
        f"/graphs/{graph_uuid}/episodes",
        {},
        {
            "data": '{"a": 1}',
            "type": "json",
            "reference_time": "2024-05-01T12:30:00+00:00",
            "metadata": {"source": "crm"},
        },
    )
    assert episode.source == "json" and episode.content == '{"a": 1}'
    again = await zep.add_data(
        '{"a": 1}', type="json", user_id="alice", created_at=WHEN, metadata={"source": "crm"}
    )
    first, second = fake.calls("POST", "/graphs/*/episodes")
    assert first.headers["idempotency-key"] == second.headers["idempotency-key"]
    assert again.uuid == episode.uuid  # replayed, not stored twice


async def test_delete_thread(fake: FakeZep, zep: ZepBackend) -> None:
    _, _, thread_uuid = await ready(zep, fake)
    await zep.delete_thread("t1")
    (request,) = fake.requests
    assert wire(request) == ("DELETE", f"/threads/{thread_uuid}", {}, None)
    assert request.headers["idempotency-key"]
    # Re-creating the app's thread after a delete gets a new Zep thread, not a replay.
    assert await zep.ensure_thread("t1", "alice") is True
    assert list(fake.threads) != [thread_uuid] and len(fake.threads) == 1


async def test_every_write_carries_an_idempotency_key(fake: FakeZep, zep: ZepBackend) -> None:
    await ready(zep, fake)
    await zep.ensure_graph("g")
    await zep.add_messages("t1", [Message("user", "hi")])
    await zep.add_data("text", type="text", graph_id="g")
    await zep.delete_thread("t1")
    writes = [r for r in fake.requests if r.method in ("POST", "DELETE")]
    assert writes and all(r.headers.get("idempotency-key") for r in writes)
