"""Deleting and listing users and threads on Zep, checked on the wire and in the id maps."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from zepkit.core._backend import UserProfile
from zepkit.core._errors import NotFoundError
from zepkit.core._models import Message
from zepkit.zep import IdMap, InMemoryIdMap, SqliteIdMap, ZepBackend
from zepkit.zep.testing import FakeZep


@pytest.fixture(params=["memory", "sqlite"])
async def mapped(
    request: pytest.FixtureRequest, fake: FakeZep, tmp_path: Path
) -> AsyncIterator[tuple[ZepBackend, IdMap]]:
    id_map = InMemoryIdMap() if request.param == "memory" else SqliteIdMap(tmp_path / "ids.db")
    backend = ZepBackend(fake.client(), id_map=id_map, owns_client=True, max_retries=0)
    yield backend, id_map
    await backend.aclose()


async def _seed(zep: ZepBackend) -> None:
    for user_id in ("alice", "bob"):
        await zep.ensure_user(UserProfile(user_id))
        for n in (1, 2):
            await zep.ensure_thread(f"{user_id}-{n}", user_id)
            await zep.add_messages(f"{user_id}-{n}", [Message("user", f"{user_id} says {n}")])
    await zep.add_data("Alice keeps bees.", type="text", user_id="alice")


async def test_delete_user_on_the_wire_and_in_the_id_map(
    fake: FakeZep, mapped: tuple[ZepBackend, IdMap]
) -> None:
    zep, id_map = mapped
    await _seed(zep)
    await zep.delete_thread("alice-2")  # leaves an epoch row for alice-2 behind
    await zep.delete_thread("bob-2")
    assert await id_map.get("thread_epoch", "alice-2") == "1"
    alice = next(u for u in fake.users.values() if u["user_id"] == "alice")
    fake.requests.clear()

    await zep.delete_user("alice")

    (listed,) = fake.calls("GET", "/threads")
    assert listed.query["user_uuid"] == alice["uuid"]
    (deleted,) = fake.calls("DELETE", "/users/*")
    assert deleted.path == f"/users/{alice['uuid']}"
    assert deleted.headers.get("idempotency-key")
    assert [u["user_id"] for u in fake.users.values()] == ["bob"]
    assert alice["graph_uuid"] not in fake.graphs
    assert {t["user_uuid"] for t in fake.threads.values()} != {alice["uuid"]}
    assert all(t["user_uuid"] != alice["uuid"] for t in fake.threads.values())
    for kind in ("thread", "thread_owner"):
        assert await id_map.get(kind, "alice-1") is None
        assert await id_map.get(kind, "bob-1") is not None
    for kind in ("thread_epoch", "thread_gone"):
        assert await id_map.get(kind, "alice-2") is None
        assert await id_map.get(kind, "bob-2") is not None  # Bob keeps his
    assert alice["uuid"] not in {u.uuid for u in zep._users.values()}
    with pytest.raises(NotFoundError):
        await zep.get_messages("alice-1")
    with pytest.raises(NotFoundError):
        await zep.delete_user("alice")
    if isinstance(id_map, SqliteIdMap):
        with sqlite3.connect(id_map.path) as conn:
            rows = conn.execute("SELECT kind, app_id FROM zep_ids").fetchall()
        conn.close()
        assert [r for r in rows if r[1].startswith("alice")] == []
        assert sorted(r[1] for r in rows if r[0] == "thread") == ["bob-1"]


async def test_delete_user_deleted_elsewhere_is_not_found_and_forgotten(
    fake: FakeZep, zep: ZepBackend
) -> None:
    await zep.ensure_user(UserProfile("alice"))
    (alice,) = fake.users.values()
    await fake.client().user.delete(alice["uuid"])
    with pytest.raises(NotFoundError):
        await zep.delete_user("alice")
    assert "alice" not in zep._users
    assert await zep.ensure_user(UserProfile("alice")) is True


async def test_list_users_skips_users_without_an_app_id(fake: FakeZep, zep: ZepBackend) -> None:
    await zep.ensure_user(UserProfile("alice", first_name="Alice"))
    await fake.client().user.create(first_name="Anonymous")  # a Zep user zepkit did not make
    await zep.ensure_user(UserProfile("bob"))
    page = await zep.list_users(limit=10)
    assert [(u.user_id, u.first_name) for u in page.items] == [("alice", "Alice"), ("bob", None)]
    (request,) = fake.calls("POST", "/users/list")
    assert request.query == {"page_size": "10", "order_by": "created_at", "order": "asc"}


async def test_thread_made_outside_zepkit_is_listed_under_its_uuid(
    fake: FakeZep, zep: ZepBackend
) -> None:
    await zep.ensure_user(UserProfile("alice"))
    await zep.ensure_thread("mine", "alice")
    (alice,) = fake.users.values()
    outside = await fake.client().thread.create(user_uuid=alice["uuid"])
    assert outside.uuid_ is not None
    await fake.client().thread.add_messages(
        outside.uuid_, messages=[{"role": "user", "content": "made elsewhere"}]
    )
    page = await zep.list_threads("alice")
    assert [t.thread_id for t in page.items] == ["mine", outside.uuid_]
    messages = await zep.list_messages(outside.uuid_)
    assert [m.content for m in messages.items] == ["made elsewhere"]


async def test_list_messages_follows_zeps_cursor(fake: FakeZep, zep: ZepBackend) -> None:
    await zep.ensure_user(UserProfile("alice"))
    await zep.ensure_thread("t1", "alice")
    await zep.add_messages("t1", [Message("user", f"m{n}") for n in range(5)])
    fake.requests.clear()
    first = await zep.list_messages("t1", limit=3)
    assert first.next_cursor is not None
    second = await zep.list_messages("t1", cursor=first.next_cursor, limit=3)
    assert [m.content for m in first.items + second.items] == [f"m{n}" for n in range(5)]
    assert second.next_cursor is None
    queries = [r.query for r in fake.calls("GET", "/threads/*/messages")]
    assert queries[1]["cursor"] == first.next_cursor
    assert queries[0]["order"] == "asc" and queries[0]["order_by"] == "created_at"


async def test_a_thread_id_taken_over_by_another_user_is_not_forgotten_with_the_first(
    mapped: tuple[ZepBackend, IdMap],
) -> None:
    zep, id_map = mapped
    for user_id in ("alice", "bob"):
        await zep.ensure_user(UserProfile(user_id))
    await zep.ensure_thread("t", "alice")
    await zep.delete_thread("t")
    await zep.ensure_thread("t", "bob")  # the id now names Bob's thread
    await zep.delete_user("alice")
    assert await id_map.get("thread_owner", "t") == "bob"
    assert await id_map.get("thread_epoch", "t") == "1"
    await zep.add_messages("t", [Message("user", "still Bob's")])
    assert [m.content for m in await zep.get_messages("t")] == ["still Bob's"]
