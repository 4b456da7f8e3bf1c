"""A response's head goes out with its body in one write, and nothing is held back for long."""

from __future__ import annotations

import asyncio
import socket
from typing import Any

from zepkit.server.sends import HeadWithBody

HEAD = b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\ncontent-type: application/json\r\n\r\n"


class _Transport(asyncio.Transport):
    """Records what is written to it."""

    def __init__(self) -> None:
        super().__init__()
        self.writes: list[bytes] = []
        self.closed = False

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self.writes.append(bytes(data))

    def is_closing(self) -> bool:
        return self.closed

    def close(self) -> None:
        self.closed = True


async def test_a_head_is_sent_with_the_body_that_follows_it() -> None:
    transport = _Transport()
    joined = HeadWithBody(transport)
    joined.write(HEAD)
    assert transport.writes == []
    joined.write(b"{}")
    assert transport.writes == [HEAD + b"{}"]
    await asyncio.sleep(0)  # the loop's next iteration sends nothing more
    assert transport.writes == [HEAD + b"{}"]


async def test_a_head_alone_goes_out_at_the_loops_next_iteration() -> None:
    transport = _Transport()
    joined = HeadWithBody(transport)
    joined.write(b"HTTP/1.1 100 Continue\r\n\r\n")
    await asyncio.sleep(0)
    assert transport.writes == [b"HTTP/1.1 100 Continue\r\n\r\n"]


async def test_other_writes_pass_straight_through_in_order() -> None:
    transport = _Transport()
    joined = HeadWithBody(transport)
    joined.write(b"5\r\nhello\r\n")  # a chunk of a streamed body
    joined.write(bytearray(b"HTTP/1.1 is what this body says"))
    assert transport.writes == [b"5\r\nhello\r\n", b"HTTP/1.1 is what this body says"]
    joined.write(HEAD)
    joined.write(b"")  # an empty body (HEAD, 204) still ends the response
    assert transport.writes[-1] == HEAD


async def test_closing_sends_what_is_held_first() -> None:
    transport = _Transport()
    joined = HeadWithBody(transport)
    joined.write(HEAD)
    joined.close()
    assert transport.writes == [HEAD] and transport.closed
    await asyncio.sleep(0)
    assert transport.writes == [HEAD]


def _read_responses(sock: socket.socket, count: int) -> bytes:
    """Read until `count` answers to `/healthz` (each a JSON body) have arrived."""
    sock.settimeout(10)
    received = b""
    while received.count(b"HTTP/1.1 200") < count or not received.endswith(b"}"):
        chunk = sock.recv(65536)
        assert chunk, received
        received += chunk
    return received


def test_pipelined_requests_and_100_continue_are_answered(open_server: Any) -> None:
    host, port = open_server.root.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port))) as sock:
        request = f"GET /healthz HTTP/1.1\r\nHost: {host}\r\n\r\n".encode()
        sock.sendall(request + request)
        received = _read_responses(sock, 2)
        assert received.count(b"HTTP/1.1 200 OK\r\n") == 2
        body = b'{"user_id": "continued"}'
        sock.sendall(
            b"POST /api/v4/users HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Expect: 100-continue\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n"
        )
        sock.settimeout(10)
        assert sock.recv(65536).startswith(b"HTTP/1.1 100 Continue\r\n\r\n")
        sock.sendall(body)
        answer = b""
        while b'"continued"' not in answer:
            chunk = sock.recv(65536)
            assert chunk, answer
            answer += chunk
        assert answer.startswith(b"HTTP/1.1 201 Created\r\n")
