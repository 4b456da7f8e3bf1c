"""A real server on 127.0.0.1 (uvicorn on a free port, in a background thread) per test: on
the local engine, or on Zep (the in-repo fake) behind a memory factory."""

from __future__ import annotations

import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
import uvicorn

from zepkit.core import MemoryLoop
from zepkit.server import KeyRing, create_app
from zepkit.server.sends import OneSendProtocol

if TYPE_CHECKING:  # zepkit.zep needs zep-cloud 4.x, and tests/server/v3 runs beside 3.x
    from zepkit.zep.testing import FakeZep

KEYS = {"alpha-key-0001": "alpha", "bravo-key-0002": "bravo"}


@dataclass
class RunningServer:
    root: str  # http://127.0.0.1:PORT
    data: Path
    alpha_key: str = "alpha-key-0001"  # project alpha
    bravo_key: str = "bravo-key-0002"  # project bravo

    @property
    def v4(self) -> str:
        return f"{self.root}/api/v4"


@contextmanager
def serve(data: Path, keys: KeyRing | None, **app_options: Any) -> Iterator[RunningServer]:
    """`create_app(data, keys=keys, **app_options)` on uvicorn until the block ends, with the
    protocol `zepkit serve` uses."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # as zepkit-serve does
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    app = create_app(data, keys=keys, **app_options)
    config = uvicorn.Config(app, log_level="warning", lifespan="on", http=OneSendProtocol)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the server did not start")
        time.sleep(0.01)
    try:
        yield RunningServer(f"http://127.0.0.1:{port}", data)
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()
        assert not thread.is_alive(), "the server did not stop"


@contextmanager
def _serve_process(
    args: list[str],
    env: dict[str, str],
    announced: str,
    entry: tuple[str, ...] = ("-m", "zepkit.server.cli"),
    said_by: str = "",
) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """`zepkit serve ARGS` (port 0) in a child process started by `python ENTRY`: (the process,
    its root URL) once its first line says where it listens followed by `announced` (a pattern),
    after `said_by: ` when given; at the end the process must have stopped cleanly (a SIGTERM
    stops it unless the test stopped it itself)."""
    command = [sys.executable, *entry, *args, "--port", "0"]
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        speaker = f"^{re.escape(said_by)}: " if said_by else ""
        found = re.search(rf"{speaker}listening on (http://127\.0\.0\.1:\d+).*{announced}", line)
        assert found, line
        yield process, found[1]
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=20) == 0
    finally:
        if process.poll() is None:  # the test failed: SIGTERM stops a server's workers too
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if process.stdout is not None:
            process.stdout.close()


ServeProcess = Callable[..., AbstractContextManager[tuple[subprocess.Popen[str], str]]]


@pytest.fixture
def serve_process() -> ServeProcess:
    """Runs `zepkit serve` in a child process for a `with` block (see `_serve_process`)."""
    return _serve_process


Start = Callable[[], AbstractContextManager[RunningServer]]


@pytest.fixture
def start(tmp_path: Path) -> Start:
    """Starts a server with two API keys (each its own project) on the same data folder each
    time it is called: for restarts."""
    return lambda: serve(tmp_path / "data", KeyRing(KEYS))


@pytest.fixture
def server(start: Start) -> Iterator[RunningServer]:
    """A server with two API keys, each its own project."""
    with start() as running:
        yield running


@pytest.fixture
def open_server(tmp_path: Path) -> Iterator[RunningServer]:
    """A server without auth (everything in the project `default`)."""
    with serve(tmp_path / "data", None) as running:
        yield running


@pytest.fixture
def fake_zep() -> FakeZep:
    from zepkit.zep.testing import FakeZep

    return FakeZep()


@pytest.fixture
def start_on_zep(tmp_path: Path, fake_zep: FakeZep) -> Start:
    """Starts a server whose projects (two API keys) share one Zep account, the fake: each
    project's `MemoryLoop.zep` drives the real SDK, whose HTTP lands in `fake_zep` through an
    httpx transport. Thread ids persist in the data folder, as `zepkit serve --backend zep`
    keeps them."""
    from zepkit.zep import SqliteIdMap

    data = tmp_path / "data"

    def memory(project: str) -> MemoryLoop:
        id_map = SqliteIdMap(data / f"{project}.zep-ids.db")
        return MemoryLoop.zep(client=fake_zep.client(), id_map=id_map, outbox=None)

    return lambda: serve(data, KeyRing(KEYS), memory_factory=memory)


@pytest.fixture
def zep_server(start_on_zep: Start) -> Iterator[RunningServer]:
    with start_on_zep() as running:
        yield running
