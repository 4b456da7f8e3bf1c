"""More than one process on one data folder: two servers writing at once each see the other's
writes and lose none, and `zepkit serve --workers 2` runs two workers on one port that stop
together."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from zepkit.server.cli import spreads_connections, supervise

KEY = "workers-key-0001"
HEADERS = {"Authorization": f"Api-Key {KEY}"}
SERVER = f"""
import socket, sys, uvicorn
from zepkit.server import KeyRing, create_app
from zepkit.server.projects import local_backend

sock = socket.socket()
sock.bind(("127.0.0.1", 0))
print(sock.getsockname()[1], flush=True)
app = create_app(
    sys.argv[1], keys=KeyRing({{"{KEY}": "app"}}), backend_factory=local_backend("lexical")
)
uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[sock])
"""


def _wait_healthy(root: str) -> None:
    deadline = time.monotonic() + 30
    while True:
        try:
            if httpx.get(f"{root}/healthz").status_code == 200:
                return
        except httpx.TransportError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"{root} did not start")
        time.sleep(0.05)


@contextmanager
def _server_process(data: Path) -> Iterator[str]:
    """A server process of its own on `data` (not the command: it takes the folder's lock)."""
    process = subprocess.Popen(
        [sys.executable, "-c", SERVER, str(data)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert process.stdout is not None
        root = f"http://127.0.0.1:{int(process.stdout.readline())}"
        _wait_healthy(root)
        yield root
    finally:
        process.terminate()
        process.wait(timeout=20)
        if process.stdout is not None:
            process.stdout.close()


async def _post(http: httpx.AsyncClient, url: str, body: object) -> dict[str, object]:
    answer = await http.post(url, json=body, headers=HEADERS)
    assert answer.status_code in (200, 201, 202), answer.text
    found: dict[str, object] = answer.json()
    return found


async def _contents(http: httpx.AsyncClient, url: str) -> list[str]:
    """Every message of a thread, page by page."""
    found: list[str] = []
    cursor: str | None = "0"
    while cursor is not None:
        params = {"page_size": "50", "cursor": cursor}
        page = (await http.get(url, params=params, headers=HEADERS)).json()
        found += [m["content"] for m in page["items"]]
        cursor = page["next_cursor"]
    return found


def _said(text: str) -> dict[str, object]:
    return {"messages": [{"role": "user", "content": text}]}


async def _writes(http: httpx.AsyncClient, v4: str, tag: str, thread: str) -> str:
    """A user and a thread of its own, and 10 messages to the shared thread, through `v4`."""
    user = await _post(http, f"{v4}/users", {"user_id": f"user-{tag}"})
    own = await _post(http, f"{v4}/threads", {"user_uuid": user["uuid"]})
    for n in range(10):
        await _post(http, f"{v4}/threads/{thread}/messages", _said(f"{tag} says heron {n}"))
    await _post(http, f"{v4}/threads/{own['uuid']}/messages", _said(f"{tag} alone"))
    return str(own["uuid"])


async def test_two_servers_on_one_folder_see_each_others_writes(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with _server_process(data) as first, _server_process(data) as second:
        a, b = f"{first}/api/v4", f"{second}/api/v4"
        async with httpx.AsyncClient(timeout=30) as http:
            owner = await _post(http, f"{a}/users", {"user_id": "owner"})
            shared = await _post(http, f"{b}/threads", {"user_uuid": owner["uuid"]})
            thread = str(shared["uuid"])
            tags = [f"{side}{n}" for n in range(4) for side in "ab"]
            own = await asyncio.gather(
                *(_writes(http, a if t[0] == "a" else b, t, thread) for t in tags)
            )
            for v4 in (a, b):  # each server sees everything, whichever server took it
                said = sorted(await _contents(http, f"{v4}/threads/{thread}/messages"))
                assert said == sorted(f"{t} says heron {n}" for t in tags for n in range(10))
                for tag, thread_uuid in zip(tags, own, strict=True):
                    user = await _post(http, f"{v4}/users/lookup", {"user_id": f"user-{tag}"})
                    assert user["user_id"] == f"user-{tag}"
                    answer = await http.get(f"{v4}/threads/{thread_uuid}/messages", headers=HEADERS)
                    assert [m["content"] for m in answer.json()["items"]] == [f"{tag} alone"]
                found = await _post(
                    http, f"{v4}/graphs/{owner['uuid']}/search/episodes", {"query": "heron"}
                )
                assert found["items"]
            # a create retried through either server answers as the first did
            retried = await asyncio.gather(
                *(
                    http.post(
                        f"{v4}/users",
                        json={"user_id": "retried"},
                        headers={**HEADERS, "Idempotency-Key": "create-retried-1"},
                    )
                    for v4 in (a, b, a, b)
                )
            )
            assert [answer.status_code for answer in retried] == [201] * 4
            assert len({answer.json()["uuid"] for answer in retried}) == 1


def _children(pid: int) -> list[int]:
    listed = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    return [int(child) for child in listed]


def _opened(pid: int, name: str) -> bool:
    """Whether the process holds a file ending in `name` open (descriptors close as we read)."""
    folder = Path(f"/proc/{pid}/fd")
    for fd in os.listdir(folder):
        try:
            if os.readlink(folder / fd).endswith(name):
                return True
        except FileNotFoundError:  # closed between the listing and the read
            continue
    return False


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT])
def test_workers_serve_one_port_and_stop_together(
    tmp_path: Path, stop: int, serve_process: Callable[..., Any]
) -> None:
    env = {**os.environ, "ZEPKIT_API_KEYS": f"{KEY}=app"}
    args = ["--db", str(tmp_path), "--workers", "2", "--retriever", "lexical"]
    with serve_process(args, env, "2 workers") as (process, root):
        workers = _children(process.pid)
        assert len(workers) == 2
        v4 = f"{root}/api/v4"
        user = httpx.post(f"{v4}/users", json={"user_id": "u"}, headers=HEADERS).json()
        thread = httpx.post(f"{v4}/threads", json={"user_uuid": user["uuid"]}, headers=HEADERS)
        url = f"{v4}/threads/{thread.json()['uuid']}/messages"

        async def one(n: int) -> None:
            async with httpx.AsyncClient(timeout=30) as http:  # a connection each
                await _post(http, url, _said(f"message {n}"))

        async def burst(first: int) -> None:
            await asyncio.gather(*(one(n) for n in range(first, first + 30)))

        # The kernel hands each connection to one worker; a worker may take a whole burst (or
        # all of them while the other is still starting), so bursts go on until both have
        # served, for at most 30 s: each opens the project's database.
        sent, deadline = 0, time.monotonic() + 30
        while time.monotonic() < deadline and (
            sent == 0 or not all(_opened(p, "app.db") for p in workers)
        ):
            asyncio.run(burst(sent))
            sent += 30
        assert all(_opened(pid, "app.db") for pid in workers)
        listed = httpx.get(url, headers=HEADERS).json()
        assert listed["total_size"] == sent  # nothing lost
        process.send_signal(stop)
        assert process.wait(timeout=20) == 0
        assert not any(Path(f"/proc/{pid}").exists() for pid in workers)


def _established(port: int) -> set[int]:
    """The socket inodes of the server's side of established TCP connections on `port`."""
    found: set[int] = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if fields[3] == "01" and int(fields[1].rsplit(":", 1)[1], 16) == port:
            found.add(int(fields[9]))
    return found


def _sockets(pid: int) -> set[int]:
    """The socket inodes a process holds open."""
    found: set[int] = set()
    folder = Path(f"/proc/{pid}/fd")
    for fd in os.listdir(folder):
        with contextlib.suppress(FileNotFoundError):
            target = os.readlink(folder / fd)
            if target.startswith("socket:["):
                found.add(int(target[len("socket:[") : -1]))
    return found


@pytest.mark.skipif(not spreads_connections(), reason="the kernel spreads them on Linux only")
def test_workers_share_a_burst_of_kept_alive_connections(
    tmp_path: Path, serve_process: Callable[..., Any]
) -> None:
    env = {**os.environ, "ZEPKIT_API_KEYS": f"{KEY}=app"}
    args = ["--db", str(tmp_path), "--workers", "2", "--retriever", "lexical"]
    with serve_process(args, env, "2 workers") as (process, root):
        workers = _children(process.pid)
        port = int(root.rsplit(":", 1)[1])

        async def burst() -> list[int]:
            # 32 clients connecting at once, as an app's connection pool does when it starts:
            # each worker has a socket of its own, and the kernel deals connections to both
            clients = [httpx.AsyncClient(timeout=30) for _ in range(32)]
            try:
                answers = await asyncio.gather(*(c.get(f"{root}/healthz") for c in clients))
                assert [answer.status_code for answer in answers] == [200] * 32
                held = _established(port)
                return [len(_sockets(pid) & held) for pid in workers]
            finally:
                for client in clients:
                    await client.aclose()

        per_worker = asyncio.run(burst())
        assert sum(per_worker) == 32
        assert min(per_worker) >= 4  # an even deal would fall below once in about 10^6 runs


def test_a_second_server_with_workers_cannot_share_the_port(
    tmp_path: Path, serve_process: Callable[..., Any]
) -> None:
    env = {**os.environ, "ZEPKIT_API_KEYS": f"{KEY}=app"}
    args = ["--db", str(tmp_path / "first"), "--workers", "2", "--retriever", "lexical"]
    with serve_process(args, env, "2 workers") as (_, root):
        port = root.rsplit(":", 1)[1]
        command = ["-m", "zepkit.server.cli", "--db", str(tmp_path / "second"), "--port", port]
        second = subprocess.Popen(
            [sys.executable, *command, "--workers", "2", "--retriever", "lexical"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            _, err = second.communicate(timeout=60)
        except subprocess.TimeoutExpired:  # it serves: stop it and its workers, then fail
            second.send_signal(signal.SIGTERM)
            second.communicate(timeout=30)
            pytest.fail("a second server with workers started on a port in use")
        assert second.returncode == 1
        assert f"cannot listen on 127.0.0.1:{port}" in err
        assert httpx.get(f"{root}/healthz").status_code == 200


def test_workers_that_cannot_start_end_the_server(capfd: pytest.CaptureFixture[str]) -> None:
    def broken(started: Callable[[], object]) -> None:
        raise RuntimeError("no database for this worker")

    assert supervise(2, broken, "the banner") == 1
    out, err = capfd.readouterr()
    assert "the banner" not in out and err.count("RuntimeError: no database") == 2


def test_a_worker_that_ends_on_its_own_stops_the_others(
    capfd: pytest.CaptureFixture[str],
) -> None:
    def short_lived(started: Callable[[], object]) -> None:
        started()
        time.sleep(0.2)  # then it returns, as a worker whose server stopped by itself would

    began = time.monotonic()
    assert supervise(2, short_lived, "the banner") == 1
    assert time.monotonic() - began < 10
    assert "the banner" in capfd.readouterr().out
