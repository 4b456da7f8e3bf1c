"""The real zep-cloud 3.x SDK (what `/api/v2` serves) against the server: users, threads with
the app's ids (409 on duplicates), messages with return_context, context, messages list, graph
search per scope, graph add, thread and user deletes; and the data it writes is the v4
dialect's data too."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from zep_cloud.client import AsyncZep
from zep_cloud.core.api_error import ApiError
from zep_cloud.errors import NotFoundError
from zep_cloud.types import Message


@pytest.fixture
def zep(server: Any, monkeypatch: pytest.MonkeyPatch) -> AsyncZep:
    monkeypatch.delenv("ZEP_API_URL", raising=False)  # it would override base_url
    return AsyncZep(api_key=server.alpha_key, base_url=f"{server.root}/api/v2")


async def _alice(zep: AsyncZep) -> None:
    user = await zep.user.add(user_id="alice", first_name="Alice")
    assert user.user_id == "alice" and user.uuid_
    await zep.thread.create(thread_id="chat one", user_id="alice")


async def test_duplicates_are_409(zep: AsyncZep) -> None:
    await _alice(zep)
    with pytest.raises(ApiError) as user_again:
        await zep.user.add(user_id="alice")
    assert user_again.value.status_code == 409
    with pytest.raises(ApiError) as thread_again:
        await zep.thread.create(thread_id="chat one", user_id="alice")
    assert thread_again.value.status_code == 409


async def test_messages_context_and_history(zep: AsyncZep) -> None:
    await _alice(zep)
    said = Message(role="user", content="I adopted a greyhound named Comet.", name="Alice")
    await zep.thread.add_messages("chat one", messages=[said])
    await zep.thread.create(thread_id="chat-2", user_id="alice")
    asked = Message(role="user", content="What is my greyhound called?")
    answer = await zep.thread.add_messages("chat-2", messages=[asked], return_context=True)
    assert answer.context and "Comet" in answer.context
    context = await zep.thread.get_user_context("chat-2")
    assert context.context and "Comet" in context.context
    history = await zep.thread.get("chat one")
    assert [m.content for m in history.messages or []] == [said.content]
    assert history.total_count == 1
    last = await zep.thread.get("chat-2", lastn=1)
    assert [m.content for m in last.messages or []] == [asked.content]


async def test_an_adds_message_uuids_are_the_listed_ones(zep: AsyncZep, server: Any) -> None:
    await _alice(zep)
    first = await zep.thread.add_messages(
        "chat one",
        messages=[
            Message(role="user", content="I adopted a greyhound named Comet."),
            Message(role="assistant", content="Lovely!"),
        ],
    )
    second = await zep.thread.add_messages(
        "chat one", messages=[Message(role="user", content="ok")], return_context=True
    )
    answered = [*(first.message_uuids or []), *(second.message_uuids or [])]
    listed = [m.uuid_ for m in (await zep.thread.get("chat one")).messages or []]
    assert answered == listed and len(set(listed)) == 3
    # the v4 dialect shows the same uuids for the same messages
    [thread] = await zep.user.get_threads("alice")
    headers = {"Authorization": f"Api-Key {server.alpha_key}"}
    async with httpx.AsyncClient(base_url=server.v4 + "/", headers=headers) as v4:
        page = (await v4.get(f"threads/{thread.uuid_}/messages")).json()
    assert [m["uuid"] for m in page["items"]] == listed


async def test_a_message_is_stored_at_its_created_at_when_that_is_a_time(zep: AsyncZep) -> None:
    await _alice(zep)
    late = Message(
        role="user", content="I said this an hour ago.", created_at="2026-05-04T10:00:00Z"
    )
    echoed = Message(role="user", content="An echo of a stored message.", created_at="yesterday")
    await zep.thread.add_messages("chat one", messages=[late, echoed])
    history = await zep.thread.get("chat one")
    stamps = [m.created_at for m in history.messages or []]
    assert stamps[0] is not None and stamps[0].startswith("2026-05-04T10:00:00")
    assert stamps[1] is not None and not stamps[1].startswith("2026-05-04")  # not a time: now


async def test_graph_search_each_scope_and_graph_add(zep: AsyncZep) -> None:
    await _alice(zep)
    said = Message(role="user", content="I work as a marine biologist in Halifax.")
    await zep.thread.add_messages("chat one", messages=[said])
    await zep.graph.add(data='{"favourite_colour": "turquoise"}', type="json", user_id="alice")
    edges = await zep.graph.search(query="marine biologist Halifax", user_id="alice")
    assert any("Halifax" in e.fact for e in edges.edges or [])
    nodes = await zep.graph.search(query="Halifax", user_id="alice", scope="nodes", limit=3)
    assert nodes.nodes and len(nodes.nodes) <= 3
    episodes = await zep.graph.search(query="turquoise colour", user_id="alice", scope="episodes")
    assert any("turquoise" in e.content for e in episodes.episodes or [])
    auto = await zep.graph.search(query="Where does Alice work?", user_id="alice", scope="auto")
    assert auto.context and "Halifax" in auto.context


async def test_shared_graph(zep: AsyncZep) -> None:
    await zep.graph.create(graph_id="handbook")
    await zep.graph.add(data="Refunds take 14 days via Finance.", type="text", graph_id="handbook")
    found = await zep.graph.search(query="refunds Finance", graph_id="handbook")
    assert any("14 days" in e.fact for e in found.edges or [])
    with pytest.raises(ApiError) as missing:
        await zep.graph.add(data="hello", type="text", graph_id="no-such-graph")
    assert missing.value.status_code == 404


async def test_a_users_threads_are_listed_oldest_first_and_only_theirs(zep: AsyncZep) -> None:
    await _alice(zep)
    await zep.thread.create(thread_id="chat-2", user_id="alice")
    await zep.user.add(user_id="bob")
    await zep.thread.create(thread_id="bob chat", user_id="bob")
    threads = await zep.user.get_threads("alice")
    assert [t.thread_id for t in threads] == ["chat one", "chat-2"]
    assert {t.user_id for t in threads} == {"alice"} and all(t.uuid_ for t in threads)
    await zep.thread.delete("chat one")
    assert [t.thread_id for t in await zep.user.get_threads("alice")] == ["chat-2"]
    await zep.user.add(user_id="carol")
    assert await zep.user.get_threads("carol") == []
    with pytest.raises(ApiError) as missing:  # the 3.x SDK types no 404 for this call
        await zep.user.get_threads("nobody")
    assert missing.value.status_code == 404


async def test_delete_thread(zep: AsyncZep) -> None:
    await _alice(zep)
    await zep.thread.add_messages("chat one", messages=[Message(role="user", content="hi")])
    await zep.thread.delete("chat one")
    with pytest.raises(NotFoundError):
        await zep.thread.get("chat one")


async def test_delete_user_takes_their_memory_and_leaves_others(zep: AsyncZep) -> None:
    await _alice(zep)
    said = Message(role="user", content="My locker code is 5521.")
    await zep.thread.add_messages("chat one", messages=[said])
    await zep.user.add(user_id="bob")
    await zep.thread.create(thread_id="bob chat", user_id="bob")
    await zep.thread.add_messages("bob chat", messages=[Message(role="user", content="I row.")])
    await zep.user.delete("alice")
    with pytest.raises(NotFoundError):
        await zep.user.get("alice")
    with pytest.raises(NotFoundError):
        await zep.thread.get("chat one")
    await zep.user.add(user_id="alice")  # the id is free again, and the memory is gone
    found = await zep.graph.search(query="locker code", user_id="alice", scope="edges")
    assert not found.edges
    history = await zep.thread.get("bob chat")
    assert [m.content for m in history.messages or []] == ["I row."]


async def test_user_update_sets_the_fields_given_and_keeps_the_others(zep: AsyncZep) -> None:
    await zep.user.add(user_id="alice", first_name="Alice", email="alice@example.com")
    updated = await zep.user.update("alice", first_name="Ali", metadata={"plan": "pro"})
    assert (updated.first_name, updated.email, updated.metadata) == (
        "Ali",
        "alice@example.com",
        {"plan": "pro"},
    )
    again = await zep.user.get("alice")
    assert (again.first_name, again.email) == ("Ali", "alice@example.com")
    with pytest.raises(NotFoundError):
        await zep.user.update("nobody", first_name="X")


async def test_bad_input_is_a_400_naming_the_field(zep: AsyncZep) -> None:
    await _alice(zep)
    with pytest.raises(ApiError) as too_many:
        await zep.thread.add_messages(
            "chat one", messages=[Message(role="user", content="hi")] * 31
        )
    assert too_many.value.status_code == 400
    assert too_many.value.body["error"]["param"] == "messages"  # type: ignore[index]
    with pytest.raises(ApiError) as no_role:
        await zep.thread.add_messages("chat one", messages=[Message(role="norole", content="hi")])
    assert no_role.value.status_code == 400


async def test_both_dialects_share_the_data(zep: AsyncZep, server: Any) -> None:
    await _alice(zep)
    headers = {"Authorization": f"Api-Key {server.alpha_key}"}
    async with httpx.AsyncClient(base_url=server.v4 + "/", headers=headers) as v4:
        user = (await v4.post("users/lookup", json={"user_id": "alice"})).json()
        thread = (await v4.post("threads", json={"user_uuid": user["uuid"]})).json()
        body = {"messages": [{"role": "user", "content": "My locker code is ZEBRA-7781."}]}
        assert (await v4.post(f"threads/{thread['uuid']}/messages", json=body)).status_code == 202
    found = await zep.graph.search(query="locker code ZEBRA", user_id="alice", scope="episodes")
    assert any("ZEBRA-7781" in e.content for e in found.episodes or [])
    assert (await zep.thread.get(thread["uuid"])).total_count == 1  # its UUID is its v3 id
