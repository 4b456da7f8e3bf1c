"""The root conftest's network guard: loopback works, anything else is refused and fails the
test, even when the code under test swallows the error."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

PYTEST = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "conftest"]
TESTS = Path(__file__).resolve().parents[1]
SWALLOWED = """
import socket


def test_swallows_a_connection_error():
    try:
        socket.create_connection(("192.0.2.1", 80), timeout=1)
    except OSError:
        pass
"""


def test_loopback_connections_work() -> None:
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        with socket.create_connection(("localhost", port), timeout=5) as client:
            peer, _ = server.accept()
            with peer:
                client.sendall(b"ping")
                assert peer.recv(4) == b"ping"


@pytest.mark.parametrize("address", [("192.0.2.1", 80), ("example.com", 443), ("2001:db8::1", 80)])
def test_other_connections_are_refused(
    network_guard: list[object], address: tuple[str, int]
) -> None:
    family = socket.AF_INET6 if ":" in address[0] else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock, pytest.raises(OSError, match="network"):
        sock.connect(address)
    assert network_guard == [address]
    network_guard.clear()  # refused on purpose: this test must not fail for it


def test_a_swallowed_attempt_still_fails_the_test(tmp_path: Path) -> None:
    (tmp_path / "test_swallowed.py").write_text(SWALLOWED)
    result = subprocess.run(
        [*PYTEST, str(tmp_path / "test_swallowed.py")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(TESTS)},
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert "the test tried to reach the network: [('192.0.2.1', 80)]" in result.stdout
