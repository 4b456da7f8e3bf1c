"""`zepkit serve` (and `zepkit-serve`): refuses unsafe or keyless starts, prints where it
listens, and stops cleanly on SIGTERM and SIGINT with the database closed."""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from zepkit.server.cli import hold_folder, is_loopback, main


def test_no_auth_is_refused_off_loopback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--db", str(tmp_path), "--host", "0.0.0.0", "--no-auth"]) == 2
    assert "only allowed on loopback" in capsys.readouterr().err


def test_no_keys_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ZEPKIT_API_KEYS", raising=False)
    assert main(["--db", str(tmp_path)]) == 2
    assert "no API keys" in capsys.readouterr().err


def test_a_malformed_key_list_names_the_entry_not_the_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ZEPKIT_API_KEYS", "good-key-0001=app,short=app")
    assert main(["--db", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "entry 2" in err and "good-key-0001" not in err


def test_loopback_hosts() -> None:
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("example.org")


SERVE_COMMANDS = {
    "zepkit serve": ["-m", "zepkit.core._cli", "serve"],
    "zepkit-serve": ["-m", "zepkit.server.cli"],
}


@pytest.mark.parametrize(
    ("name", "stop"),
    [("zepkit serve", signal.SIGTERM), ("zepkit serve", signal.SIGINT), ("zepkit-serve", 15)],
)
def test_serves_then_stops_cleanly_on_a_signal(
    tmp_path: Path, name: str, stop: int, serve_process: Callable[..., Any]
) -> None:
    env = {**os.environ, "ZEPKIT_API_KEYS": "cli-test-key-1=app"}
    entry = tuple(SERVE_COMMANDS[name])
    with serve_process(["--db", str(tmp_path)], env, "", entry, said_by=name) as (process, root):
        headers = {"Authorization": "Api-Key cli-test-key-1"}
        answer = httpx.post(f"{root}/api/v4/users", json={"user_id": "a"}, headers=headers)
        assert answer.status_code == 201
        process.send_signal(stop)
        assert process.wait(timeout=20) == 0
    # closed cleanly: SQLite folded its write-ahead log back into the database
    assert (tmp_path / "app.db").exists()
    assert not (tmp_path / "app.ids.db-wal").exists()


def test_one_process_per_data_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ZEPKIT_API_KEYS", "cli-test-key-1=app")
    first = hold_folder(tmp_path)  # as a running zepkit-serve holds it
    assert first is not None
    try:
        assert main(["--db", str(tmp_path), "--port", "0"]) == 1
        assert "another zepkit server is serving" in capsys.readouterr().err
    finally:
        first.close()
    again = hold_folder(tmp_path)  # free once the first process is gone
    assert again is not None
    again.close()


@pytest.mark.parametrize(
    ("options", "env", "message"),
    [
        (["--backend", "zep"], {}, "--backend zep needs ZEP_API_KEY"),
        (["--backend", "no_such_module_here:make"], {}, "cannot import no_such_module_here"),
        (["--backend", "zepkit.server.cli:no_such_thing"], {}, "has no no_such_thing"),
        (["--backend", "zepkit-server"], {}, "expected local, zep or module:callable"),
        (["--workers", "0"], {}, "--workers must be at least 1"),
        (
            ["--backend", "zep", "--workers", "2"],
            {"ZEP_API_KEY": "z-test-key"},
            "--workers above 1 needs the local backend",
        ),
    ],
)
def test_a_backend_or_worker_count_that_cannot_serve_is_refused(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    options: list[str],
    env: dict[str, str],
    message: str,
) -> None:
    monkeypatch.setenv("ZEPKIT_API_KEYS", "cli-test-key-1=app")
    monkeypatch.delenv("ZEP_API_KEY", raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert main(["--db", str(tmp_path), "--port", "0", *options]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "app.db").exists()


FACTORY_MODULE = """
from pathlib import Path
from zepkit.core import MemoryLoop

def memory(project: str) -> MemoryLoop:
    return MemoryLoop.local(Path(__file__).parent / f"custom-{project}.db", outbox=None)
"""


def test_serves_a_memory_factory_named_on_the_command_line(
    tmp_path: Path, serve_process: Callable[..., Any]
) -> None:
    (tmp_path / "my_memory.py").write_text(FACTORY_MODULE)
    env = {
        **os.environ,
        "ZEPKIT_API_KEYS": "cli-test-key-1=app",
        "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]),
    }
    data = tmp_path / "data"
    args = ["--db", str(data), "--backend", "my_memory:memory"]
    entry = tuple(SERVE_COMMANDS["zepkit serve"])
    with serve_process(args, env, "my_memory:memory", entry) as (_, root):
        headers = {"Authorization": "Api-Key cli-test-key-1"}
        answer = httpx.post(f"{root}/api/v4/users", json={"user_id": "a"}, headers=headers)
        assert answer.status_code == 201
    # the factory's own file holds the memory; the data folder only the project's UUIDs
    assert (tmp_path / "custom-app.db").exists()
    assert (data / "app.ids.db").exists() and not (data / "app.db").exists()
