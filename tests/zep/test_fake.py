"""The HTTP fake itself: routing of faults, replay of idempotent writes, SDK-valid bodies."""

from __future__ import annotations

import httpx
import pytest
from zep_cloud.errors import ConflictError, NotFoundError

from zepkit.zep.testing import FakeZep, Fault


async def test_duplicate_user_id_is_a_409(fake: FakeZep) -> None:
    client = fake.client()
    user = await client.user.create(user_id="alice")
    with pytest.raises(ConflictError):
        await client.user.create(user_id="alice")
    assert (await client.user.lookup(user_id="alice")).uuid_ == user.uuid_
    assert (await client.user.get(user.uuid_ or "")).user_id == "alice"
    with pytest.raises(NotFoundError):
        await client.user.lookup(user_id="bob")


async def test_a_repeated_idempotency_key_replays_the_answer(fake: FakeZep) -> None:
    client = fake.client()
    first = await client.graph.create(name="g", idempotency_key="k1")
    again = await client.graph.create(name="g", idempotency_key="k1")
    other = await client.graph.create(name="g", idempotency_key="k2")
    assert first.uuid_ == again.uuid_ != other.uuid_
    assert len(fake.graphs) == 2


async def test_faults_follow_their_route_and_count(fake: FakeZep) -> None:
    client = fake.client()
    fake.fail(Fault(connect_error=True), times=2, route="POST /graphs")
    await client.user.create(user_id="alice")  # other route: untouched
    for _ in range(2):
        with pytest.raises(httpx.ConnectError):
            await client.graph.create(name="g")
    assert (await client.graph.create(name="g")).uuid_
    fake.fail(Fault(status=500), times=None)
    fake.clear_faults()
    assert (await client.graph.create(name="h")).uuid_


async def test_thread_messages_page_and_order(fake: FakeZep) -> None:
    from zep_cloud.types import AddMessage

    client = fake.client()
    user = await client.user.create(user_id="alice")
    thread = await client.thread.create(user_uuid=user.uuid_ or "")
    messages = [AddMessage(role="user", content=f"m{i}") for i in range(5)]
    await client.thread.add_messages(thread.uuid_ or "", messages=messages)
    pager = await client.thread.list_messages(thread.uuid_ or "", page_size=2, order="desc")
    assert [m.content async for m in pager] == ["m4", "m3", "m2", "m1", "m0"]
