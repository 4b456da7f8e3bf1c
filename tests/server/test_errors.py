"""Bad input gets Zep's error shape with Zep's status codes and names the field; never a 500."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from zep_cloud.client import AsyncZep
from zep_cloud.errors import BadRequestError, ConflictError, NotFoundError
from zep_cloud.types import AddMessage


@pytest.fixture
async def http(server: Any) -> AsyncIterator[httpx.AsyncClient]:
    headers = {"Authorization": f"Api-Key {server.alpha_key}"}
    async with httpx.AsyncClient(base_url=server.v4 + "/", headers=headers) as client:
        yield client


@pytest.fixture
async def thread_uuid(http: httpx.AsyncClient) -> str:
    user = (await http.post("users", json={"user_id": "alice"})).json()
    thread = await http.post("threads", json={"user_uuid": user["uuid"]})
    assert thread.status_code == 201
    return str(thread.json()["uuid"])


def _error(answer: httpx.Response, status: int, param: str | None = None) -> dict[str, Any]:
    assert answer.status_code == status, answer.text
    error: dict[str, Any] = answer.json()["error"]
    assert error["code"] and error["message"] and error["request_id"]
    assert "Traceback" not in answer.text
    if param is not None:
        assert error.get("param") == param, error
    return error


def _messages(count: int, **fields: Any) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": "hi", **fields} for _ in range(count)]}


@pytest.mark.parametrize(
    ("body", "param"),
    [
        (_messages(31), "messages"),
        ({"messages": []}, "messages"),
        (_messages(1, content=""), "messages.0.content"),
        (_messages(1, content="x" * 14_001), "messages.0.content"),
        (_messages(1, role="norole"), "messages.0.role"),
        (_messages(1, metadata={str(i): i for i in range(11)}), "messages.0.metadata"),
        (_messages(1, metadata={"nested": {"a": 1}}), "messages.0.metadata"),
        (_messages(1, reference_time="yesterday"), "messages.0.reference_time"),
        ({"messages": "hi"}, "messages"),
        ({**_messages(1), "ignore_roles": ["assistant"]}, "ignore_roles"),
    ],
)
async def test_bad_messages_are_400_naming_the_field(
    http: httpx.AsyncClient, thread_uuid: str, body: dict[str, Any], param: str
) -> None:
    _error(await http.post(f"threads/{thread_uuid}/messages", json=body), 400, param)


@pytest.mark.parametrize("raw", [b"{not json", b"[1, 2]", b'"text"', b""])
async def test_a_body_that_is_not_a_json_object_is_400(
    http: httpx.AsyncClient, thread_uuid: str, raw: bytes
) -> None:
    answer = await http.post(
        f"threads/{thread_uuid}/messages",
        content=raw,
        headers={"content-type": "application/json"},
    )
    _error(answer, 400)


async def test_user_fields_are_checked(http: httpx.AsyncClient) -> None:
    _error(await http.post("users", json={"user_id": 5}), 400, "user_id")
    _error(await http.post("users", json={"user_id": "x" * 501}), 400, "user_id")
    _error(await http.post("users/lookup", json={}), 400, "user_id")
    _error(await http.post("threads", json={"user_uuid": "no-such-user"}), 404)


async def test_a_user_update_is_checked(http: httpx.AsyncClient) -> None:
    user = (await http.post("users", json={"user_id": "erin"})).json()
    nested = {"metadata": {"nested": {"a": 1}}}
    _error(await http.patch(f"users/{user['uuid']}", json=nested), 400, "metadata")
    _error(await http.patch("users/no-such-user", json={"first_name": "X"}), 404)
    renamed = await http.patch(f"users/{user['uuid']}", json={"first_name": "Erin"})
    assert renamed.status_code == 200 and renamed.json()["first_name"] == "Erin"


async def test_graph_limits(http: httpx.AsyncClient) -> None:
    user = (await http.post("users", json={"user_id": "bob"})).json()
    graph = user["graph_uuid"]
    add = f"graphs/{graph}/episodes"
    _error(await http.post(add, json={"data": "x" * 10_001}), 400, "data")
    _error(await http.post(add, json={"data": "hello", "type": "fact_triple"}), 400, "type")
    assert (await http.post(add, json={"data": "x" * 10_000})).status_code == 202
    search = f"graphs/{graph}/search/edges"
    _error(await http.post(search, json={"query": "q" * 401}), 400, "query")
    _error(await http.post(search, json={"query": ""}), 400, "query")
    _error(await http.post(search + "?page_size=51", json={"query": "hi"}), 400, "page_size")
    _error(await http.post(search + "?page_size=ten", json={"query": "hi"}), 400, "page_size")
    episodes = f"graphs/{graph}/search/episodes"
    bad = {"query": "hi", "reranker": "node_distance"}
    assert _error(await http.post(episodes, json=bad), 400, "reranker")["code"] == (
        "unsupported_reranker"
    )
    _error(await http.post(search, json={"query": "hi", "mmr_lambda": 2}), 400, "mmr_lambda")
    _error(
        await http.post(f"graphs/{graph}/context", json={"query": "hi", "max_characters": 0}), 400
    )
    _error(await http.post("graphs/no-such-graph/search/edges", json={"query": "hi"}), 404)
    _error(await http.post(f"graphs/{graph}/search/everything", json={"query": "hi"}), 404)


async def test_unknown_routes_and_methods_have_the_error_shape(http: httpx.AsyncClient) -> None:
    _error(await http.get("no/such/route"), 404)
    _error(await http.put("users/lookup", json={}), 405)
    _error(await http.get("threads/not-a-thread/messages"), 404)
    _error(await http.get("threads/not-a-thread/context"), 404)


async def test_path_parameters_are_percent_decoded(http: httpx.AsyncClient) -> None:
    user = (await http.post("users", json={"user_id": "carol"})).json()
    encoded = user["uuid"].replace("-", "%2D")
    answer = await http.get(f"users/{encoded}")
    assert answer.status_code == 200 and answer.json()["user_id"] == "carol"


async def test_the_sdk_raises_zeps_typed_errors(server: Any) -> None:
    client = AsyncZep(api_key=server.alpha_key, base_url=server.v4, max_retries=0)
    user = await client.user.create(user_id="dave")
    with pytest.raises(ConflictError):
        await client.user.create(user_id="dave")
    assert user.uuid_ is not None
    thread = await client.thread.create(user_uuid=user.uuid_)
    assert thread.uuid_ is not None
    with pytest.raises(BadRequestError):
        await client.thread.add_messages(
            thread.uuid_, messages=[AddMessage(role="user", content="hi")] * 31
        )
    with pytest.raises(NotFoundError):
        await client.thread.get_context("no-such-thread")
    await client.thread.delete(thread.uuid_)
    with pytest.raises(NotFoundError):
        await client.thread.get(thread.uuid_)


async def test_a_retried_create_answers_with_the_same_thread(http: httpx.AsyncClient) -> None:
    user = (await http.post("users", json={"user_id": "erin"})).json()
    headers = {"Idempotency-Key": "create-once"}
    first = await http.post("threads", json={"user_uuid": user["uuid"]}, headers=headers)
    again = await http.post("threads", json={"user_uuid": user["uuid"]}, headers=headers)
    assert first.status_code == again.status_code == 201
    assert first.json()["uuid"] == again.json()["uuid"]


@pytest.mark.parametrize(
    ("path", "query", "param"),
    [
        ("users/list", "page_size=0", "page_size"),
        ("users/list", "page_size=1001", "page_size"),
        ("users/list", "order_by=user_id", "order_by"),
        ("users/list", "order=sideways", "order"),
        ("users/list", "cursor=abc", "cursor"),
    ],
)
async def test_bad_listing_options_are_a_400(
    http: httpx.AsyncClient, path: str, query: str, param: str
) -> None:
    _error(await http.post(f"{path}?{query}", json={}), 400, param)


async def test_listings_page_in_creation_order_both_ways(http: httpx.AsyncClient) -> None:
    for name in ("ana", "ben", "cy"):
        assert (await http.post("users", json={"user_id": name})).status_code == 201
    first = (await http.post("users/list?page_size=2")).json()  # no body: an empty filter
    assert [u["user_id"] for u in first["items"]] == ["ana", "ben"] and first["total_size"] == 3
    rest = (await http.post(f"users/list?page_size=2&cursor={first['next_cursor']}")).json()
    assert [u["user_id"] for u in rest["items"]] == ["cy"] and rest["next_cursor"] is None
    newest = (await http.post("users/list?order=desc", json={"search": "N"})).json()
    assert [u["user_id"] for u in newest["items"]] == ["ben", "ana"]


async def test_a_shared_graph_is_not_listed_and_a_deleted_user_is_gone(
    http: httpx.AsyncClient, thread_uuid: str
) -> None:
    graph = (await http.post("graphs", json={"name": "docs"})).json()
    _error(await http.post(f"graphs/{graph['uuid']}/edges/list", json={}), 400, "graph_uuid")
    thread = (await http.get(f"threads/{thread_uuid}")).json()
    user_uuid = thread["user_uuid"]
    listed = (await http.get(f"threads?user_uuid={user_uuid}")).json()
    assert [t["uuid"] for t in listed["items"]] == [thread_uuid]
    assert (await http.delete(f"users/{user_uuid}")).status_code == 202
    _error(await http.get(f"users/{user_uuid}"), 404)
    _error(await http.get(f"threads/{thread_uuid}"), 404)
    assert (await http.get("threads")).json()["items"] == []
    _error(await http.delete(f"users/{user_uuid}"), 404)


async def test_half_an_emoji_in_text_is_kept_and_in_an_id_is_a_400(
    http: httpx.AsyncClient, thread_uuid: str
) -> None:
    # A client that cut a string inside an emoji (JavaScript's strings are UTF-16) sends a lone
    # surrogate escape, "\ud83d", which JSON allows and no UTF-8 store can hold.
    half = "\ud83d"

    async def post(path: str, body: dict[str, Any]) -> httpx.Response:
        raw = json.dumps(body).encode()  # escaped: httpx would refuse to encode it
        return await http.post(path, content=raw, headers={"content-type": "application/json"})

    message = {"role": "user", "content": f"My dog is Rex {half}", "name": half}
    added = await post(f"threads/{thread_uuid}/messages", {"messages": [message]})
    assert added.status_code == 202, added.text
    stored = (await http.get(f"threads/{thread_uuid}/messages")).json()["items"]
    assert [(m["content"], m["name"]) for m in stored] == [("My dog is Rex \ufffd", "\ufffd")]
    user = (await post("users", {"user_id": "dan", "first_name": half})).json()
    assert user["first_name"] == "\ufffd"
    graph = user["graph_uuid"]
    assert (await post(f"graphs/{graph}/episodes", {"data": f"Rex {half}"})).status_code == 202
    found = await post(f"graphs/{graph}/search/episodes", {"query": f"Rex {half}"})
    assert [e["content"] for e in found.json()["items"]] == ["Rex \ufffd"]
    _error(await post("users", {"user_id": f"eve{half}"}), 400, "user_id")


async def test_an_id_with_half_an_emoji_is_a_400_on_the_older_wire_too(server: Any) -> None:
    raw = json.dumps({"query": "hi", "user_id": "eve\ud83d"}).encode()  # escaped
    headers = {"Authorization": f"Api-Key {server.alpha_key}", "content-type": "application/json"}
    async with httpx.AsyncClient(base_url=f"{server.root}/api/v2/", headers=headers) as http:
        _error(await http.post("graph/search", content=raw), 400)
