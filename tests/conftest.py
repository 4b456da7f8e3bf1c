"""Every test keeps zepkit's own files (the default Zep Cloud outbox) in its own folder, no test
reaches the network (loopback is fine; tests marked `live` are exempt) or a language model a
developer configured in their environment; the memory that export and import tests move between
backends."""

from __future__ import annotations

import errno
import ipaddress
import json
import socket
from collections.abc import Awaitable, Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:  # the release checks run where zepkit itself is not installed
    from zepkit.core import MemoryLoop


@pytest.fixture(autouse=True)
def _private_state_dir(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    folder = tmp_path_factory.mktemp("zepkit-state")
    monkeypatch.setenv("ZEPKIT_STATE_DIR", str(folder))
    return folder


_LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost", ""})


def _is_local(address: object) -> bool:
    """Whether a `connect` address stays on this machine: loopback or unspecified IP addresses,
    `localhost`, and anything not an (host, port) address (Unix sockets, netlink)."""
    if not isinstance(address, tuple) or not address or not isinstance(address[0], str):
        return True
    host = address[0]
    if host.lower() in _LOOPBACK_NAMES:
        return True
    try:
        ip = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return False  # a host name other than localhost would be looked up and reached
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_loopback or ip.is_unspecified


@pytest.fixture(autouse=True)
def network_guard(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> Iterator[list[object]]:
    """Refuses every socket connection that would leave the machine, and fails the test that
    tried one even when the code under test swallowed the error. Yields what it refused."""
    refused: list[object] = []
    if request.node.get_closest_marker("live") is not None:
        yield refused
        return
    connect, connect_ex = socket.socket.connect, socket.socket.connect_ex

    def check(address: object) -> None:
        if not _is_local(address):
            refused.append(address)
            raise OSError(errno.ENETUNREACH, f"tests do not reach the network: {address!r}")

    def guarded_connect(self: socket.socket, address: Any) -> None:
        check(address)
        connect(self, address)

    def guarded_connect_ex(self: socket.socket, address: Any) -> int:
        check(address)
        return connect_ex(self, address)

    monkeypatch.setattr(socket.socket, "connect", guarded_connect)
    monkeypatch.setattr(socket.socket, "connect_ex", guarded_connect_ex)
    yield refused
    if refused:
        pytest.fail(f"the test tried to reach the network: {refused!r}", pytrace=False)


START = datetime(2024, 3, 1, 9, 0, tzinfo=UTC)


async def _seed(memory: MemoryLoop) -> None:
    """Two users; one thread long enough for several write batches; every message field used;
    two data items."""
    from zepkit.core import Message

    await memory.ensure_user(
        "ana", first_name="Ana", last_name="Lima", email="ana@example.com", metadata={"plan": "pro"}
    )
    await memory.ensure_user("bo")
    await memory.ensure_thread("ana-long", user_id="ana")
    await memory.ensure_thread("ana-short", user_id="ana")
    await memory.ensure_thread("bo-1", user_id="bo")
    long = [
        Message(
            "user" if n % 2 == 0 else "assistant",
            f"Turn {n}: café ☕ talk about herons, line {n}.",
            name="Ana" if n % 2 == 0 else "Assistant",
            created_at=START + timedelta(minutes=n),
            metadata={"n": n} if n % 5 == 0 else None,
        )
        for n in range(67)
    ]
    await memory.add_messages("ana-long", long)
    await memory.add_messages(
        "ana-short",
        [
            Message("system", "Be brief.", created_at=START),
            Message("tool", '{"temp": 21}', name="weather", created_at=START),
        ],
    )
    await memory.add_messages("bo-1", [Message("user", "Bo here.", created_at=START)])
    await memory.add_data(
        "Ana prefers email over phone.",
        type="text",
        user_id="ana",
        created_at=START,
        metadata={"source": "crm"},
    )
    await memory.add_data('{"plan": "pro", "seats": 3}', type="json", user_id="ana")


def _records(text: str) -> list[dict[str, Any]]:
    """The export's records minus what only says when something was made in that memory, and
    minus the facts (each backend derives its own)."""
    out = []
    for line in text.splitlines():
        record = json.loads(line)
        if record["type"] == "fact":
            continue  # what a backend derives is its own: compared apart
        if record["type"] in ("header", "user", "thread"):
            record.pop("created_at", None)
            record.pop("exported_at", None)
        out.append(record)
    return out


@pytest.fixture
def transfer_seed() -> Callable[[MemoryLoop], Awaitable[None]]:
    """Fills a memory with what the export and import tests move around."""
    return _seed


@pytest.fixture
def records() -> Callable[[str], list[dict[str, Any]]]:
    """An export's records, to compare two exports record by record."""
    return _records


@pytest.fixture(autouse=True)
def _no_llm_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (
        "ZEPKIT_LLM_BASE_URL",
        "ZEPKIT_LLM_MODEL",
        "ZEPKIT_LLM_API_KEY",
        "ZEPKIT_LLM_TIMEOUT",
    ):
        monkeypatch.delenv(name, raising=False)
