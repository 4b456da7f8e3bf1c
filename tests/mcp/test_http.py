"""Streamable HTTP on 127.0.0.1 (a free port, a server thread that stops with the test): every
request needs a verified bearer token, the token decides the user, and a forged or expired one
is refused. Nothing leaves loopback."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import httpx2
import jwt
import pytest
import uvicorn
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.server.auth.provider import TokenVerifier
from mcp.shared.exceptions import MCPError
from mcp_types import TextContent

from zepkit.core import MemoryLoop
from zepkit.mcp import JwtTokens, StaticTokens, TokenEntry, create_http_app, create_server

from .conftest import ALICE, BOB, seed

ALICE_TOKEN = "alice-token-0123456789"
BOB_TOKEN = "bob-token-0123456789abc"
OLD_TOKEN = "old-token-0123456789abc"
TOKENS = StaticTokens(
    {
        ALICE_TOKEN: TokenEntry(ALICE.user_id),
        BOB_TOKEN: BOB.user_id,
        OLD_TOKEN: TokenEntry(ALICE.user_id, expires_at=int(time.time()) - 60),
    }
)
SECRET = "a-shared-secret-for-hs256-tokens-only-in-tests"
ISSUER = "https://login.example.test"
AUDIENCE = "zepkit-mcp"


@contextmanager
def serving(db: Path, verifier: TokenVerifier) -> Iterator[str]:
    """The MCP app over the database at `db`, on a free loopback port; its /mcp URL. The loop is
    made and used on the server's own thread and event loop only."""
    memory = MemoryLoop.local(db, on_error="raise")
    app = create_http_app(create_server(memory, read_write=True), token_verifier=verifier)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))

    def run() -> None:
        async def main() -> None:
            async with memory:
                await server.serve(sockets=[sock])

        asyncio.run(main())

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the server did not start"
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()
        assert not thread.is_alive(), "the server did not stop"


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "memory.db"

    async def prepare() -> None:
        async with MemoryLoop.local(path, on_error="raise") as memory:
            await seed(memory)

    asyncio.run(prepare())
    return path


@pytest.fixture
def url(db: Path) -> Iterator[str]:
    with serving(db, TOKENS) as running:
        yield running


@asynccontextmanager
async def connect(url: str, token: str) -> AsyncIterator[Client]:
    headers = {"Authorization": f"Bearer {token}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=30) as http,
        Client(streamable_http_client(url, http_client=http)) as client,
    ):
        yield client


async def say(client: Client, tool: str, args: dict[str, Any]) -> str:
    result = await client.call_tool(tool, args)
    (block,) = result.content
    assert isinstance(block, TextContent)
    return block.text


async def post(url: str, token: str | None = None, **headers: str) -> httpx2.Response:
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    body = {"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {}}
    base = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    async with httpx2.AsyncClient(timeout=30) as http:
        return await http.post(url, json=body, headers={**base, **headers})


@pytest.mark.slow
async def test_no_token_forged_or_expired_gets_401(url: str) -> None:
    for token in (None, "not-a-token-of-ours-at-all", OLD_TOKEN, ALICE_TOKEN + "x"):
        response = await post(url, token)
        assert response.status_code == 401, token
        assert response.headers["www-authenticate"].startswith("Bearer")
    with pytest.raises(Exception):  # noqa: B017, PT011 - the SDK reports the 401 its own way
        async with connect(url, OLD_TOKEN) as client:
            await client.list_tools()


@pytest.mark.slow
async def test_dns_rebinding_protection_checks_host_and_origin(url: str) -> None:
    assert (await post(url, ALICE_TOKEN, Host="evil.example")).status_code == 421
    assert (await post(url, ALICE_TOKEN, Origin="http://evil.example")).status_code == 403
    assert (await post(url, ALICE_TOKEN, Origin="http://localhost:3000")).status_code != 403


@pytest.mark.slow
async def test_a_users_token_never_reads_another_users_memory(url: str) -> None:
    async with connect(url, ALICE_TOKEN) as alice:
        stored = await say(alice, "memory_add", {"content": "Alice's locker code is QX-4471."})
        assert stored.startswith("Stored")
        assert "QX-4471" in await say(alice, "memory_search", {"query": "locker code"})
    async with connect(url, BOB_TOKEN) as bob:
        for tool, args in [
            ("memory_search", {"query": "locker code 4471", "scope": "episodes"}),
            ("memory_search", {"query": "Tobias trombone"}),
            ("memory_context", {"query": "locker code Tobias"}),
            ("memory_context", {}),
            ("memory_list_threads", {}),
            ("memory_get_messages", {"thread": ALICE.thread_id}),
        ]:
            seen = await say(bob, tool, args)
            assert "QX-4471" not in seen and "Tobias" not in seen, (tool, seen)
        assert ALICE.thread_id not in await say(bob, "memory_list_threads", {})
        refused = await say(bob, "memory_get_messages", {"thread": ALICE.thread_id})
        assert refused.startswith("There is no thread")
        for uri in ("zepkit://memory/profile", "zepkit://memory/export"):
            (contents,) = (await bob.read_resource(uri)).contents
            text = getattr(contents, "text", "")
            assert "alice" not in text and "QX-4471" not in text and "Tobias" not in text
        with pytest.raises(MCPError):
            await bob.read_resource(f"zepkit://memory/threads/{ALICE.thread_id}")
        assert "Rotterdam" in await say(bob, "memory_search", {"query": "tomatoes Rotterdam"})


def _jwt(claims: dict[str, Any], key: str = SECRET) -> str:
    now = int(time.time())
    body = {"iss": ISSUER, "aud": AUDIENCE, "iat": now, "exp": now + 300, **claims}
    return jwt.encode(body, key, algorithm="HS256")


@pytest.mark.slow
async def test_jwt_tokens_through_the_verifier_hook(db: Path) -> None:
    verifier = JwtTokens(issuer=ISSUER, audience=AUDIENCE, key=SECRET, algorithms=["HS256"])
    with serving(db, verifier) as url:
        async with connect(url, _jwt({"sub": BOB.user_id})) as bob:
            assert "Rotterdam" in await say(bob, "memory_search", {"query": "tomatoes"})
            assert "Tobias" not in await say(bob, "memory_search", {"query": "Tobias"})
        refused = [
            _jwt({"sub": ALICE.user_id}, key="another-secret-that-is-long-enough"),  # forged
            _jwt({"sub": ALICE.user_id, "exp": int(time.time()) - 10}),  # expired
            _jwt({"sub": ALICE.user_id, "aud": "another-service"}),  # for someone else
            _jwt({"sub": ALICE.user_id, "iss": "https://elsewhere.test"}),
            _jwt({}),  # no user
            jwt.encode({"sub": ALICE.user_id, "iss": ISSUER, "aud": AUDIENCE}, SECRET),  # no exp
        ]
        for token in refused:
            assert (await post(url, token)).status_code == 401


def test_allowed_hosts_add_to_loopback_and_never_switch_protection_off() -> None:
    from zepkit.mcp._http import transport_security

    settings = transport_security(["memory.example.com", "10.0.0.5:8765"])
    assert settings.enable_dns_rebinding_protection
    assert {"127.0.0.1:*", "localhost:*", "[::1]:*"} <= set(settings.allowed_hosts)
    assert {"memory.example.com", "memory.example.com:*", "10.0.0.5:8765"} <= set(
        settings.allowed_hosts
    )
    assert "10.0.0.5" not in settings.allowed_hosts  # a port given is the only port
    assert "https://memory.example.com" in settings.allowed_origins
    assert "http://evil.example" not in settings.allowed_origins
