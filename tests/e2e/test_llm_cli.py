"""`zepkit worker` and `zepkit stats` as a user runs them, against a model on loopback."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest

from zepkit.core._backend import SearchRequest, UserProfile
from zepkit.core._models import Message
from zepkit.local import LocalBackend

ANSWER = {
    "facts": [
        {
            "fact": "Maya keeps bees in Oslo",
            "message": 1,
            "entities": ["Oslo"],
            "about_user": True,
            "valid_at": None,
            "supersedes": [],
        }
    ],
    "entities": [],
    "user_summary": "Maya is a beekeeper in Oslo.",
}


class _Model(BaseHTTPRequestHandler):
    calls: ClassVar[list[dict[str, Any]]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).calls.append({"path": self.path, "auth": self.headers.get("Authorization")})
        assert body["response_format"]["type"] == "json_schema"
        reply = json.dumps(
            {
                "choices": [{"message": {"content": json.dumps(ANSWER)}}],
                "usage": {"prompt_tokens": 500, "completion_tokens": 60},
            }
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def model() -> Iterator[str]:
    """A chat completions endpoint on loopback; its base URL."""
    _Model.calls = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Model)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def zepkit(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "zepkit.core._cli", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=env,
    )


def test_a_worker_process_extracts_what_the_app_queued(tmp_path: Path, model: str) -> None:
    db = tmp_path / "memory.db"
    env = {k: v for k, v in os.environ.items() if not k.startswith("ZEPKIT_LLM_")}
    env |= {"ZEPKIT_LLM_BASE_URL": model, "ZEPKIT_LLM_MODEL": "m", "ZEPKIT_LLM_API_KEY": "s"}

    async def app() -> None:  # the app queues jobs and leaves them to the worker process
        llm_env = {key: env[key] for key in env if key.startswith("ZEPKIT_LLM_")}
        from zepkit.local.llm import LLMExtractor

        llm = LLMExtractor.from_env(llm_env)
        async with LocalBackend(db, llm=llm, llm_worker=False) as backend:
            await backend.ensure_user(UserProfile("maya", first_name="Maya"))
            await backend.ensure_thread("t", "maya")
            await backend.add_messages("t", [Message("user", "I keep bees in Oslo.")])

    asyncio.run(app())
    done = zepkit("worker", "--db", str(db), "--once", env=env)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"calls": 1, "facts": 1, "failures": 0, "dead": 0}
    assert _Model.calls == [{"path": "/v1/chat/completions", "auth": "Bearer s"}]

    stats = zepkit("stats", "--db", str(db), env=env)
    assert stats.returncode == 0, stats.stderr
    report = json.loads(stats.stdout)
    assert report["calls"] == {"total": 1, "answered": 1, "failed": 0}
    assert report["tokens"] == {"prompt": 500, "completion": 60, "total": 560}
    assert report["per_user_turn"] == {"calls": 1.0, "tokens": 560.0}
    assert report["jobs"] == {"pending": 0, "claimed": 0, "dead": 0}

    async def read() -> list[str]:
        async with LocalBackend(db, read_only=True) as backend:
            found = await backend.search(SearchRequest("bees", user_id="maya"))
            return [f.fact for f in found.edges]

    assert "Maya keeps bees in Oslo." in asyncio.run(read())


def test_the_worker_without_a_model_says_what_to_set(tmp_path: Path) -> None:
    db = tmp_path / "memory.db"
    asyncio.run(LocalBackend(db, llm=False).aclose())
    env = {k: v for k, v in os.environ.items() if not k.startswith("ZEPKIT_LLM_")}
    result = zepkit("worker", "--db", str(db), "--once", env=env)
    assert result.returncode == 2
    assert "ZEPKIT_LLM_BASE_URL" in result.stderr and "Traceback" not in result.stderr


def test_a_running_worker_extracts_new_turns_and_stops_on_ctrl_c(
    tmp_path: Path, model: str
) -> None:
    db = tmp_path / "memory.db"
    env = {k: v for k, v in os.environ.items() if not k.startswith("ZEPKIT_LLM_")}
    env |= {"ZEPKIT_LLM_BASE_URL": model, "ZEPKIT_LLM_MODEL": "m"}
    asyncio.run(LocalBackend(db, llm=False).aclose())
    worker = subprocess.Popen(
        [sys.executable, "-m", "zepkit.core._cli", "worker", "--db", str(db)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:

        async def app() -> None:  # five user turns make a batch; this app only queues them
            from zepkit.local.llm import LLMExtractor

            llm = LLMExtractor(model, "m")
            async with LocalBackend(db, llm=llm, llm_worker=False) as backend:
                await backend.ensure_user(UserProfile("maya", first_name="Maya"))
                await backend.ensure_thread("t", "maya")
                for n in range(5):
                    await backend.add_messages("t", [Message("user", f"Turn {n} about bees.")])

        asyncio.run(app())
        deadline = time.monotonic() + 60
        while _extracted(db) == 0 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(_Model.calls) == 1
        worker.send_signal(signal.SIGINT)
        _, stderr = worker.communicate(timeout=60)
    finally:
        if worker.poll() is None:
            worker.kill()
    assert worker.returncode == 130, stderr
    assert "Traceback" not in stderr
    assert _extracted(db) == 1
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM llm_jobs").fetchone() == (0,)


def _extracted(db: Path) -> int:
    """How many facts a model wrote into the file so far."""
    with sqlite3.connect(db) as conn:
        row = conn.execute("SELECT count(*) FROM statements WHERE origin = 'llm'").fetchone()
    return int(row[0])
