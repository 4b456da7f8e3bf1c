"""`zepkit mcp` as a desktop client starts it (a subprocess on stdio, configured by command and
arguments), and over HTTP as a process that prints where it listens and stops on SIGTERM."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp_types import TextContent

from zepkit.core import MemoryLoop
from zepkit.mcp import main

from .conftest import ALICE, seed

ZEPKIT = str(Path(sys.executable).parent / "zepkit")


async def _seed(tmp_path: Path) -> Path:
    path = tmp_path / "memory.db"
    async with MemoryLoop.local(path, on_error="raise") as memory:
        await seed(memory)
    return path


@pytest.mark.slow
async def test_a_desktop_client_starts_it_on_stdio(tmp_path: Path) -> None:
    db = await _seed(tmp_path)
    # What a desktop client's config says: a command, its arguments and an environment.
    params = StdioServerParameters(
        command=ZEPKIT,
        args=["mcp", "--db", str(db), "--read-write"],
        env={**os.environ, "ZEPKIT_USER_ID": ALICE.user_id},
    )
    async with Client(params, read_timeout_seconds=60) as client:
        assert {t.name for t in (await client.list_tools()).tools} >= {"memory_add"}
        stored = await client.call_tool("memory_add", {"content": "Alice swims on Mondays."})
        assert not stored.is_error and stored.structured_content["saved"]  # type: ignore[index]
        found = await client.call_tool("memory_search", {"query": "swims Mondays"})
        (block,) = found.content
        assert isinstance(block, TextContent) and "swims on Mondays" in block.text
        profile = (await client.read_resource("zepkit://memory/profile")).contents[0]
        assert json.loads(getattr(profile, "text", "{}"))["user_id"] == ALICE.user_id
    # The process is gone and what it stored is in the file.
    async with MemoryLoop.local(db, on_error="raise") as memory:
        again = await memory.search("swims", user_id=ALICE.user_id, scope="episodes")
    assert again.episodes


@pytest.mark.slow
def test_http_from_the_command_line(tmp_path: Path) -> None:
    db = asyncio.run(_seed(tmp_path))
    tokens = tmp_path / "tokens.json"
    tokens.write_text(json.dumps({"alice-token-0123456789": ALICE.user_id}))
    command = [
        ZEPKIT,
        "mcp",
        "--db",
        str(db),
        "--http",
        "--port",
        "0",
        "--tokens-file",
        str(tokens),
    ]
    process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stderr is not None
        banner = process.stderr.readline()
        assert "listening on http://127.0.0.1:" in banner and "read-only" in banner, banner
        url = banner.split("listening on ")[1].split()[0]
        ping = {"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {}}
        headers = {"Accept": "application/json, text/event-stream"}
        assert httpx2.post(url, json=ping, headers=headers).status_code == 401
        authorized = {**headers, "Authorization": "Bearer alice-token-0123456789"}
        assert httpx2.post(url, json=ping, headers=authorized).status_code != 401
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=20) == 0


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--db", "x.db"], "stdio serves one user"),
        (["--db", "missing.db", "--user-id", "a"], "no database at missing.db"),
        (["--user-id", "a"], "name the memory"),
        (["--db", "x.db", "--http"], "HTTP needs tokens"),
        (["--db", "x.db", "--http", "--user-id", "a"], "each token names its user"),
        (["--db", "x.db", "--user-id", "a", "--id-map", "m.db"], "--id-map goes with --zep"),
        (["--http", "--db", "x.db", "--tokens-file", "none.json"], "cannot read the token file"),
        (["--zep", "--user-id", "a"], "no Zep API key"),
        (["--http", "--db", "x.db", "--jwks-url", "https://id.example/jwks"], "needs --issuer"),
    ],
)
def test_usage_errors_say_what_to_change(
    args: list[str],
    expected: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.delenv("ZEPKIT_USER_ID", raising=False)
    monkeypatch.delenv("ZEPKIT_MCP_TOKENS", raising=False)
    monkeypatch.delenv("ZEP_API_KEY", raising=False)
    monkeypatch.chdir(tmp_path)
    assert main(args, prog="zepkit mcp") == 2
    error = capsys.readouterr().err
    assert error.startswith("zepkit mcp: ") and expected in error, error


def test_the_console_script_and_the_zepkit_subcommand_are_one_program(tmp_path: Path) -> None:
    script = str(Path(sys.executable).parent / "zepkit-mcp")
    result = subprocess.run([script, "--version"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and result.stdout.startswith("zepkit-mcp ")
    env = {k: v for k, v in os.environ.items() if k != "ZEPKIT_USER_ID"}
    result = subprocess.run(
        [ZEPKIT, "mcp", "--db", "x.db"], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert result.returncode == 2
    assert result.stderr.startswith("zepkit mcp: stdio serves one user"), result.stderr


def _wait_until_started(server: Any) -> None:
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.01)


@pytest.mark.slow
async def test_a_zepkit_server_is_served_through_base_url(tmp_path: Path) -> None:
    """`zepkit mcp --base-url` on a `zepkit serve` running on loopback, with the app's key and id
    map: the MCP client recalls what the app wrote through the server, for its user only, and
    lists that user's threads and messages."""
    server_app = pytest.importorskip("zepkit.server")
    import socket
    import threading

    import uvicorn

    from zepkit.zep import SqliteIdMap

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    base_url = f"http://127.0.0.1:{sock.getsockname()[1]}/api/v4"
    keys = server_app.KeyRing({"project-key-0001": "project"})
    config = uvicorn.Config(
        server_app.create_app(tmp_path / "data", keys=keys), log_level="warning", lifespan="on"
    )
    served = uvicorn.Server(config)
    thread = threading.Thread(target=served.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        await asyncio.to_thread(_wait_until_started, served)
        id_map = tmp_path / "ids.db"
        app = MemoryLoop.zep(
            api_key="project-key-0001",
            base_url=base_url,
            id_map=SqliteIdMap(id_map),
            on_error="raise",
        )
        async with app:
            await seed(app)
        params = StdioServerParameters(
            command=ZEPKIT,
            args=["mcp", "--base-url", base_url, "--id-map", str(id_map), "--user-id", "alice"],
            env={**os.environ, "ZEP_API_KEY": "project-key-0001"},
        )
        async with Client(params, read_timeout_seconds=60) as client:
            found = await client.call_tool("memory_context", {"query": "Tobias trombone"})
            assert "Tobias" in found.structured_content["block"]  # type: ignore[index]
            other = await client.call_tool("memory_search", {"query": "tomatoes Rotterdam"})
            (block,) = other.content
            assert isinstance(block, TextContent) and "Rotterdam" not in block.text
            threads = await client.call_tool("memory_list_threads", {})
            listed = threads.structured_content["threads"]  # type: ignore[index]
            assert [t["thread_id"] for t in listed] == ["alice-trip"]
            said = await client.call_tool("memory_get_messages", {"thread": "alice-trip"})
            assert "trombonist" in str(said.structured_content)
    finally:
        served.should_exit = True
        thread.join(timeout=10)
        sock.close()
