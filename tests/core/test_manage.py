"""The loop's memory management: delete_user also drops the user's kept writes and what the loop
cached for them; listings page through the backend; bad input is refused before any call."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from zepkit.core import Identity, MemoryLoop, Message, NotFoundError
from zepkit.core._loop import provision_key
from zepkit.local import LocalBackend
from zepkit.testing import FailingBackend
from zepkit.zep import SqliteIdMap, ZepBackend
from zepkit.zep.testing import FakeZep, Fault

ANA = Identity(user_id="ana", thread_id="ana-1", first_name="Ana")
BO = Identity(user_id="bo", thread_id="bo-1", first_name="Bo")


async def test_delete_user_drops_their_kept_writes_and_cached_provisioning(
    tmp_path: Path,
) -> None:
    fake = FakeZep()
    backend = ZepBackend(fake.client(), id_map=SqliteIdMap(tmp_path / "ids.db"), owns_client=True)
    memory = MemoryLoop(backend, outbox=tmp_path / "outbox.db", deadline=2.0)
    for who in (ANA, BO):
        await memory.begin_turn(who, f"hello from {who.first_name}", turn_id="1")
    fake.fail(Fault(status=503), times=None, route="POST /threads/*/messages")
    for who in (ANA, BO):
        await memory.begin_turn(who, f"{who.first_name} during the outage", turn_id="2")
        await memory.capture_reply(who, f"reply to {who.first_name}", turn_id="2")
    status = await memory.outbox_status()
    assert status is not None and status.pending == 4

    await memory.delete_user("ana")

    status = await memory.outbox_status()
    assert status is not None and status.pending == 2  # Bo's writes wait, Ana's are gone
    assert not memory._provisioned.done(provision_key(ANA))
    assert memory._provisioned.done(provision_key(BO))
    fake.clear_faults()
    await memory.drain()
    assert [u["user_id"] for u in fake.users.values()] == ["bo"]
    assert [m.content for m in await memory.get_messages("bo-1")] == [
        "hello from Bo",
        "Bo during the outage",
        "reply to Bo",
    ]
    # Ana can come back: everything is provisioned anew, with nothing of before
    await memory.begin_turn(ANA, "hello again", turn_id="3")
    assert [m.content for m in await memory.get_messages("ana-1")] == ["hello again"]
    await memory.aclose()


async def test_delete_user_of_an_unknown_user_still_drops_kept_writes(tmp_path: Path) -> None:
    failing = FailingBackend(LocalBackend(), fail_on=frozenset({"ensure_user"}))
    memory = MemoryLoop(failing, outbox=tmp_path / "outbox.db")
    await memory.begin_turn(ANA, "said while memory was down")
    status = await memory.outbox_status()
    assert status is not None and status.pending == 1
    with pytest.raises(NotFoundError):
        await memory.delete_user("ana")
    status = await memory.outbox_status()
    assert status is not None and status.pending == 0
    failing.fail_on = frozenset()
    await memory.aclose()


def test_the_sync_twins_list_and_delete(tmp_path: Path) -> None:
    memory = MemoryLoop.local(tmp_path / "memory.db")
    sync = memory.sync
    sync.ensure_user("ana", first_name="Ana")
    sync.ensure_user("bo")
    for n in range(3):
        sync.ensure_thread(f"ana-{n}", user_id="ana")
    sync.add_messages("ana-0", [Message("user", f"line {n}") for n in range(5)])
    assert [u.user_id for u in sync.list_users().items] == ["ana", "bo"]
    assert sync.get_user("ana").first_name == "Ana"
    first = sync.list_threads("ana", limit=2)
    rest = sync.list_threads("ana", cursor=first.next_cursor, limit=2)
    assert [t.thread_id for t in first.items + rest.items] == ["ana-0", "ana-1", "ana-2"]
    assert rest.next_cursor is None
    page = sync.list_messages("ana-0", limit=4)
    assert [m.content for m in page.items] == [f"line {n}" for n in range(4)]
    uuid = page.items[1].uuid
    assert uuid is not None
    updated = sync.update_message_metadata("ana-0", uuid, {"flag": "reviewed"})
    assert (updated.content, updated.metadata) == ("line 1", {"flag": "reviewed"})
    assert sync.list_messages("ana-0", limit=4).items[1].metadata == {"flag": "reviewed"}
    sync.add_data("Ana likes tea.", type="text", user_id="ana")
    assert [e.content for e in sync.list_data("ana").items] == ["Ana likes tea."]
    assert any("tea" in fact.fact for fact in sync.list_facts("ana").items)
    sync.delete_user("ana", vacuum=True)
    assert [u.user_id for u in sync.list_users().items] == ["bo"]
    with pytest.raises(NotFoundError):
        sync.list_threads("ana")
    sync.close()


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda m: m.delete_user(" "), ValueError),
        (lambda m: m.list_users(limit=0), ValueError),
        (lambda m: m.list_users(limit=101), ValueError),
        (lambda m: m.list_users(limit=True), TypeError),
        (lambda m: m.list_users(cursor=""), ValueError),
        (lambda m: m.list_threads("", limit=5), ValueError),
        (lambda m: m.list_messages("t", cursor=5), ValueError),
        (lambda m: m.get_user(None), TypeError),
        (lambda m: m.update_message_metadata("", "m", {}), ValueError),
        (lambda m: m.update_message_metadata("t", " ", {}), ValueError),
        (lambda m: m.update_message_metadata("t", "m", [("a", 1)]), TypeError),
        (lambda m: m.update_message_metadata("t", "m", {1: "a"}), TypeError),
    ],
)
async def test_bad_input_is_refused(memory: MemoryLoop, call: object, error: type) -> None:
    with pytest.raises(error):
        await call(memory)  # type: ignore[operator]


async def test_a_local_cursor_from_elsewhere_is_refused(memory: MemoryLoop) -> None:
    await memory.ensure_user("ana")
    with pytest.raises(ValueError, match="cursor"):
        await memory.list_users(cursor="not-a-cursor")


async def test_listings_are_strict(memory: MemoryLoop) -> None:
    with pytest.raises(NotFoundError):
        await memory.list_threads("nobody")
    with pytest.raises(NotFoundError):
        await memory.list_messages("nothing")
    with pytest.raises(NotFoundError):
        await memory.update_message_metadata("nothing", "no-message", {"a": 1})
    with pytest.raises(NotFoundError):
        await asyncio.wait_for(memory.get_user("nobody"), 10)
