"""API keys: no key or a wrong key is a 401 the SDK raises as such; each key's project is its
own memory; `/healthz` needs no key."""

from __future__ import annotations

import logging
from typing import Any

import httpx
import pytest
from zep_cloud.client import AsyncZep
from zep_cloud.errors import UnauthorizedError

from zepkit.core import Identity, MemoryLoop


def _client(server: Any, key: str) -> AsyncZep:
    return AsyncZep(api_key=key, base_url=server.v4, max_retries=0)


async def test_healthz_needs_no_key(server: Any) -> None:
    async with httpx.AsyncClient() as http:
        answer = await http.get(f"{server.root}/healthz")
    assert answer.status_code == 200 and answer.json() == {"status": "ok"}


async def test_no_key_is_401(server: Any) -> None:
    async with httpx.AsyncClient() as http:
        answer = await http.post(f"{server.v4}/users", json={"user_id": "alice"})
    assert answer.status_code == 401
    assert answer.json()["error"]["code"] == "unauthorized"


@pytest.mark.parametrize(
    "header", ["Api-Key not-a-key-at-all", "Bearer-ish alpha-key-0001", "alpha-key-0001"]
)
async def test_wrong_or_malformed_key_is_401(server: Any, header: str) -> None:
    async with httpx.AsyncClient() as http:
        answer = await http.get(f"{server.v4}/users/x", headers={"Authorization": header})
    assert answer.status_code == 401


async def test_the_sdk_raises_unauthorized_for_a_wrong_key(server: Any) -> None:
    with pytest.raises(UnauthorizedError):
        await _client(server, "wrong-key-9999").user.create(user_id="alice")


async def test_two_keys_never_see_each_others_memory(server: Any) -> None:
    alpha = MemoryLoop.zep(api_key=server.alpha_key, base_url=server.v4, on_error="raise")
    bravo = MemoryLoop.zep(api_key=server.bravo_key, base_url=server.v4, on_error="raise")
    same = Identity(user_id="alice", thread_id="chat")  # the same app ids in both projects
    try:
        await alpha.provision(same)
        await bravo.provision(same)
        await alpha.begin_turn(same, "My locker code is ZEBRA-7781.")
        await bravo.begin_turn(same, "I like sailing on weekends.")
        for scope in ("edges", "episodes", "nodes"):
            found = await bravo.search("locker code ZEBRA-7781", user_id="alice", scope=scope)  # type: ignore[arg-type]
            assert "ZEBRA" not in found.model_dump_json()
        assert [m.content for m in await bravo.get_messages("chat")] == [
            "I like sailing on weekends."
        ]
        hit = await alpha.search("locker code ZEBRA-7781", user_id="alice", scope="episodes")
        assert hit.episodes
    finally:
        await alpha.aclose()
        await bravo.aclose()
    # one database per project, in the data folder
    assert {p.name for p in server.data.glob("*.db")} >= {"alpha.db", "bravo.db"}


async def test_a_uuid_of_one_project_is_unknown_in_another(server: Any) -> None:
    alpha, bravo = _client(server, server.alpha_key), _client(server, server.bravo_key)
    user = await alpha.user.create(user_id="alice")
    assert user.uuid_ is not None
    from zep_cloud.errors import NotFoundError

    with pytest.raises(NotFoundError):
        await bravo.user.get(user.uuid_)
    with pytest.raises(NotFoundError):
        await bravo.thread.create(user_uuid=user.uuid_)


async def test_keys_never_reach_the_log(server: Any, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    async with httpx.AsyncClient() as http:
        headers = {"Authorization": f"Api-Key {server.alpha_key}"}
        await http.post(f"{server.v4}/users", json={"user_id": 5}, headers=headers)
        await http.get(f"{server.v4}/users/nobody", headers=headers)
        headers = {"Authorization": "Api-Key secret-wrong-key"}
        await http.get(f"{server.v4}/users/nobody", headers=headers)
    assert server.alpha_key not in caplog.text and "secret-wrong-key" not in caplog.text


async def test_no_auth_serves_the_default_project(open_server: Any) -> None:
    client = _client(open_server, "anything")
    user = await client.user.create(user_id="alice")
    assert user.user_id == "alice"
    assert (open_server.data / "default.db").exists()
