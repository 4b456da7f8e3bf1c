"""v4 `thread.message.update` through the real zep-cloud 4.x SDK, on the local engine and on
Zep: the metadata is merged onto the message (null removes a key) and every later read shows
it; another thread's message, a uuid no message has and too many keys are refused."""

from __future__ import annotations

from typing import Any

import pytest
from zep_cloud.client import AsyncZep
from zep_cloud.errors import BadRequestError, NotFoundError
from zep_cloud.types import AddMessage


@pytest.fixture(params=["local", "zep"])
def running(request: pytest.FixtureRequest) -> Any:
    """The server on the local engine, and on Zep (the in-repo fake behind the server)."""
    return request.getfixturevalue("server" if request.param == "local" else "zep_server")


def _client(server: Any) -> AsyncZep:
    return AsyncZep(api_key=server.alpha_key, base_url=server.v4, max_retries=0)


async def _thread(client: AsyncZep, user_id: str) -> str:
    user = await client.user.create(user_id=user_id)
    assert user.uuid_
    thread = await client.thread.create(user_uuid=user.uuid_)
    assert thread.uuid_
    return thread.uuid_


async def test_an_update_merges_metadata_and_every_read_shows_it(running: Any) -> None:
    client = _client(running)
    thread = await _thread(client, "alice")
    added = await client.thread.add_messages(
        thread,
        messages=[
            AddMessage(role="user", content="I live in Oslo.", metadata={"a": 1, "b": "x"}),
            AddMessage(role="assistant", content="Noted."),
        ],
    )
    first = (added.messages or [])[0].uuid_
    assert first
    updated = await client.thread.message.update(
        thread, first, metadata={"b": None, "seen": True, "tags": ["home"]}
    )
    assert updated.metadata == {"a": 1, "seen": True, "tags": ["home"]}
    assert (updated.uuid_, updated.content, updated.role) == (first, "I live in Oslo.", "user")
    got = await client.thread.message.get(thread, first)
    assert got.metadata == updated.metadata and got.created_at == updated.created_at
    pager = await client.thread.list_messages(thread, page_size=50)
    listed = [(m.uuid_, m.metadata) async for m in pager]
    assert listed[0] == (first, updated.metadata) and listed[1][1] is None


async def test_an_update_is_refused_for_what_is_not_the_threads_or_too_many_keys(
    running: Any,
) -> None:
    client = _client(running)
    mine = await _thread(client, "alice")
    other = await _thread(client, "bob")
    added = await client.thread.add_messages(
        mine, messages=[AddMessage(role="user", content="hello", metadata={"k0": 0})]
    )
    uuid = (added.messages or [])[0].uuid_
    assert uuid
    with pytest.raises(NotFoundError):
        await client.thread.message.update(other, uuid, metadata={"a": 1})
    with pytest.raises(NotFoundError):
        await client.thread.message.update(mine, "no-such-message", metadata={"a": 1})
    with pytest.raises(BadRequestError):  # eleven keys once merged
        await client.thread.message.update(mine, uuid, metadata={f"k{n}": n for n in range(1, 11)})
    with pytest.raises(BadRequestError):  # a value that is no scalar
        await client.thread.message.update(mine, uuid, metadata={"nested": {"a": 1}})
    got = await client.thread.message.get(mine, uuid)
    assert got.metadata == {"k0": 0}
