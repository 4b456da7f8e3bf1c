"""The server over a non-local backend: each project a `MemoryLoop.zep` on one shared Zep
account (the in-repo fake behind the real SDK), driven by the real zep-cloud 4.x SDK on
loopback. Projects share the account, never each other's users."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

import pytest
from zep_cloud.client import AsyncZep
from zep_cloud.errors import NotFoundError
from zep_cloud.types import Message as ZepMessage

from zepkit.core import Identity, MemoryLoop
from zepkit.zep.testing import FakeZep

ALICE = Identity(user_id="alice", thread_id="alice-chat-1", first_name="Alice")


def _loop(server: Any, key: str) -> MemoryLoop:
    return MemoryLoop.zep(api_key=key, base_url=server.v4, on_error="raise", max_retries=0)


def _account_user_ids(fake: FakeZep) -> set[str]:
    return {str(user["user_id"]) for user in fake.users.values()}


async def test_the_sdk_round_trip_reaches_zep(zep_server: Any, fake_zep: FakeZep) -> None:
    client = AsyncZep(api_key=zep_server.alpha_key, base_url=zep_server.v4, max_retries=0)
    user = await client.user.create(user_id="maya", first_name="Maya")
    assert user.user_id == "maya" and user.uuid_
    thread = await client.thread.create(user_uuid=user.uuid_)
    assert thread.uuid_
    added = await client.thread.add_messages(
        thread.uuid_,
        messages=[ZepMessage(role="user", content="My sister Ines lives in Porto.")],
        return_context=True,
    )
    assert added.context is not None
    listed = await client.thread.get(thread.uuid_)
    assert listed.uuid_ == thread.uuid_
    # the memory is Zep's: the account holds the user and the message, under the project
    assert _account_user_ids(fake_zep) == {"alpha:maya"}
    stored = [m["content"] for ms in fake_zep.messages.values() for m in ms]
    assert stored == ["My sister Ines lives in Porto."]


async def test_turns_and_search_through_zepkit(zep_server: Any) -> None:
    loop = _loop(zep_server, zep_server.alpha_key)
    try:
        await loop.provision(ALICE)
        await loop.begin_turn(ALICE, "I adopted a greyhound named Comet.")
        assert await loop.capture_reply(ALICE, "Congratulations on adopting Comet!")
        history = await loop.get_messages("alice-chat-1")
        assert [m.role for m in history] == ["user", "assistant"]
        found = await loop.search("greyhound Comet", user_id="alice", scope="episodes")
        assert any("Comet" in e.content for e in found.episodes)
        assert all(e.thread_id in (None, "alice-chat-1") for e in found.episodes)
    finally:
        await loop.aclose()


async def test_two_projects_on_one_account_never_meet(zep_server: Any, fake_zep: FakeZep) -> None:
    alpha = _loop(zep_server, zep_server.alpha_key)
    bravo = _loop(zep_server, zep_server.bravo_key)
    same = Identity(user_id="alice", thread_id="chat")  # the same app ids in both projects
    try:
        await alpha.provision(same)
        await bravo.provision(same)  # no conflict: a user of its own on the account
        await alpha.begin_turn(same, "My locker code is ZEBRA-7781.")
        await bravo.begin_turn(same, "I like sailing on weekends.")
        assert _account_user_ids(fake_zep) == {"alpha:alice", "bravo:alice"}
        for scope in ("edges", "episodes", "nodes"):
            found = await bravo.search("locker code ZEBRA-7781", user_id="alice", scope=scope)  # type: ignore[arg-type]
            assert "ZEBRA" not in found.model_dump_json()
        bravo_history = await bravo.get_messages("chat")
        assert [m.content for m in bravo_history] == ["I like sailing on weekends."]
        hit = await alpha.search("locker code ZEBRA-7781", user_id="alice", scope="episodes")
        assert any("ZEBRA" in e.content for e in hit.episodes)
        # a UUID handed to one project is unknown to the other
        alpha_sdk = AsyncZep(api_key=zep_server.alpha_key, base_url=zep_server.v4, max_retries=0)
        bravo_sdk = AsyncZep(api_key=zep_server.bravo_key, base_url=zep_server.v4, max_retries=0)
        alpha_alice = await alpha_sdk.user.lookup(user_id="alice")
        bravo_alice = await bravo_sdk.user.lookup(user_id="alice")
        assert alpha_alice.uuid_ and bravo_alice.uuid_ and alpha_alice.uuid_ != bravo_alice.uuid_
        with pytest.raises(NotFoundError):
            await bravo_sdk.user.get(alpha_alice.uuid_)
        # deleting a project's user leaves the other project's user of the same id
        await alpha_sdk.user.delete(alpha_alice.uuid_)
        assert _account_user_ids(fake_zep) == {"bravo:alice"}
        assert [m.content for m in await bravo.get_messages("chat")] == [
            "I like sailing on weekends."
        ]
    finally:
        await alpha.aclose()
        await bravo.aclose()


async def test_thread_ids_outlive_a_restart(
    start_on_zep: Callable[[], AbstractContextManager[Any]],
) -> None:
    """The server's own map of thread ids to Zep's is a file in the data folder."""

    def said(text: str) -> list[ZepMessage]:
        return [ZepMessage(role="user", content=text)]

    with start_on_zep() as running:
        client = AsyncZep(api_key=running.alpha_key, base_url=running.v4, max_retries=0)
        user = await client.user.create(user_id="alice")
        assert user.uuid_
        thread = await client.thread.create(user_uuid=user.uuid_)
        assert thread.uuid_
        await client.thread.add_messages(thread.uuid_, messages=said("Locker ZEBRA-7781."))
    with start_on_zep() as running:
        client = AsyncZep(api_key=running.alpha_key, base_url=running.v4, max_retries=0)
        await client.thread.add_messages(thread.uuid_, messages=said("Bike lock 4410."))
        page = await client.thread.list_messages(thread.uuid_)
        assert [m.content for m in page.items or []] == ["Locker ZEBRA-7781.", "Bike lock 4410."]
