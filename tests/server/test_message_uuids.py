"""A message's uuid is the same in the add's answer, in listings, for a get and in a search,
through the real zep-cloud 4.x SDK, on the local engine and on Zep (the in-repo fake)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from zep_cloud.client import AsyncZep
from zep_cloud.errors import NotFoundError
from zep_cloud.types import AddMessage, AddMessagesResult

from zepkit.zep.testing import FakeZep


def _client(server: Any) -> AsyncZep:
    return AsyncZep(api_key=server.alpha_key, base_url=server.v4, max_retries=0)


async def _thread(client: AsyncZep, user_id: str = "alice") -> str:
    user = await client.user.create(user_id=user_id, first_name=user_id.title())
    assert user.uuid_
    thread = await client.thread.create(user_uuid=user.uuid_)
    assert thread.uuid_
    return thread.uuid_


async def _add_two(client: AsyncZep, thread: str) -> AddMessagesResult:
    return await client.thread.add_messages(
        thread,
        messages=[
            AddMessage(role="user", content="My sister Ines lives in Porto."),
            AddMessage(role="assistant", content="Porto is lovely."),
        ],
    )


async def _listed(client: AsyncZep, thread: str) -> list[tuple[str, str]]:
    pager = await client.thread.list_messages(thread, page_size=50)
    return [(m.uuid_ or "", m.content or "") async for m in pager]


async def test_an_adds_uuids_are_the_listed_ones_and_get_finds_them(server: Any) -> None:
    client = _client(server)
    thread = await _thread(client)
    first = await _add_two(client, thread)
    second = await client.thread.add_messages(
        thread, messages=[AddMessage(role="user", content="ok")], return_context=True
    )
    answered = [(m.uuid_, m.content) for m in [*(first.messages or []), *(second.messages or [])]]
    listed = await _listed(client, thread)
    assert answered == listed and len({uuid for uuid, _ in listed}) == 3
    for uuid, content in listed:
        got = await client.thread.message.get(thread, uuid)
        assert (got.uuid_, got.content, got.thread_uuid) == (uuid, content, thread)
    # the same uuid names the message's episode in a search of the user's graph
    found = await client.graph.search_episodes(
        (await client.user.lookup(user_id="alice")).uuid_ or "", query="sister Ines Porto"
    )
    assert listed[0][0] in {episode.uuid_ for episode in found.items or []}


async def test_a_get_by_an_unknown_or_another_threads_uuid_is_404(server: Any) -> None:
    client = _client(server)
    mine, theirs = await _thread(client, "alice"), await _thread(client, "bruno")
    added = await client.thread.add_messages(
        theirs, messages=[AddMessage(role="user", content="I live in Lyon.")]
    )
    their_uuid = (added.messages or [])[0].uuid_ or ""
    assert (await client.thread.message.get(theirs, their_uuid)).content == "I live in Lyon."
    with pytest.raises(NotFoundError):
        await client.thread.message.get(mine, their_uuid)
    with pytest.raises(NotFoundError):
        await client.thread.message.get(theirs, "00000000-0000-4000-8000-000000000000")
    # another project's key sees neither the thread nor its message
    other = AsyncZep(api_key=server.bravo_key, base_url=server.v4, max_retries=0)
    with pytest.raises(NotFoundError):
        await other.thread.message.get(theirs, their_uuid)


async def test_a_replayed_add_answers_the_first_ones_uuids(server: Any) -> None:
    client = _client(server)
    thread = await _thread(client)
    said = [AddMessage(role="user", content="I started a pottery class.")]
    first = await client.thread.add_messages(thread, messages=said, idempotency_key="add-1")
    await client.thread.add_messages(
        thread, messages=[AddMessage(role="assistant", content="Fun!")]
    )
    again = await client.thread.add_messages(thread, messages=said, idempotency_key="add-1")
    assert [m.uuid_ for m in again.messages or []] == [m.uuid_ for m in first.messages or []]
    assert [content for _, content in await _listed(client, thread)] == [
        "I started a pottery class.",
        "Fun!",
    ]


async def test_adds_at_once_to_one_thread_each_answer_their_own_uuids(server: Any) -> None:
    client = _client(server)
    thread = await _thread(client)

    async def add(n: int) -> list[tuple[str | None, str | None]]:
        said = [
            AddMessage(role="user", content=f"Note {n}: same words"),
            AddMessage(role="assistant", content="Noted."),
        ]
        added = await client.thread.add_messages(thread, messages=said)
        return [(m.uuid_, m.content) for m in added.messages or []]

    answers = await asyncio.gather(*(add(n) for n in range(8)))
    listed = dict(await _listed(client, thread))
    assert len(listed) == 16
    for answer in answers:
        assert all(uuid is not None and listed[uuid] == content for uuid, content in answer)


async def test_on_zep_the_uuids_are_zeps_own(zep_server: Any, fake_zep: FakeZep) -> None:
    client = _client(zep_server)
    thread = await _thread(client)
    added = await _add_two(client, thread)
    answered = [m.uuid_ for m in added.messages or []]
    kept = [m["uuid"] for messages in fake_zep.messages.values() for m in messages]
    assert answered == kept and [uuid for uuid, _ in await _listed(client, thread)] == kept
    got = await client.thread.message.get(thread, kept[1])
    assert got.content == "Porto is lovely."
