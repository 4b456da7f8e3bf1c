"""Faults at the HTTP level become zepkit's typed errors; the turn path absorbs them."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

import pytest

from zepkit.core import Identity, MemoryLoop
from zepkit.core._backend import SearchRequest, UserProfile
from zepkit.core._errors import (
    AuthenticationError,
    BackendError,
    BackendUnavailableError,
    ConflictError,
    NotFoundError,
    RateLimitError,
)
from zepkit.core._models import Message
from zepkit.zep import ZepBackend
from zepkit.zep.testing import FakeZep, Fault

SECRET = "my secret ramen recipe uses miso"

Operation = Callable[[ZepBackend], Awaitable[object]]

OPERATIONS: dict[str, Operation] = {
    "ensure_user": lambda b: b.ensure_user(UserProfile("bob")),
    "ensure_thread": lambda b: b.ensure_thread("t2", "alice"),
    "ensure_graph": lambda b: b.ensure_graph("wiki"),
    "add_messages": lambda b: b.add_messages("t1", [Message("user", SECRET)], return_context=True),
    "get_context": lambda b: b.get_context("t1"),
    "get_messages": lambda b: b.get_messages("t1", limit=3),
    "search_edges": lambda b: b.search(SearchRequest(query=SECRET, user_id="alice")),
    "search_nodes": lambda b: b.search(SearchRequest(query=SECRET, user_id="alice", scope="nodes")),
    "search_auto": lambda b: b.search(
        SearchRequest(query=SECRET, user_id="alice", scope="auto", reranker=None)
    ),
    "add_data": lambda b: b.add_data(SECRET, type="text", user_id="alice"),
    "delete_thread": lambda b: b.delete_thread("t1"),
}

FAULTS: dict[str, tuple[Fault, type[BackendError]]] = {
    "500": (Fault(status=500), BackendUnavailableError),
    "503 retry-after": (Fault(status=503, headers={"Retry-After": "1"}), BackendUnavailableError),
    "502 text body": (Fault(status=502, body="Bad Gateway"), BackendUnavailableError),
    "429": (Fault(status=429, headers={"Retry-After": "7"}), RateLimitError),
    "401": (Fault(status=401), AuthenticationError),
    "403": (Fault(status=403), AuthenticationError),
    "404": (Fault(status=404), NotFoundError),
    "timeout": (Fault(timeout=True), BackendUnavailableError),
    "connection refused": (Fault(connect_error=True), BackendUnavailableError),
    "invalid json": (Fault(invalid_json=True), BackendError),
}


async def provisioned(fake: FakeZep) -> ZepBackend:
    backend = ZepBackend(fake.client(), owns_client=True, max_retries=0)
    await backend.ensure_user(UserProfile("alice"))
    await backend.ensure_thread("t1", "alice")
    await backend.add_messages("t1", [Message("user", "I like tea")])
    return backend


@pytest.mark.parametrize("fault_name", list(FAULTS))
@pytest.mark.parametrize("operation", list(OPERATIONS))
async def test_fault_becomes_typed_error(
    fake: FakeZep, operation: str, fault_name: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    backend = await provisioned(fake)
    fault, expected = FAULTS[fault_name]
    fake.fail(fault, times=None)
    with pytest.raises(expected) as caught:
        await OPERATIONS[operation](backend)
    if expected is BackendError:
        assert type(caught.value) is BackendError
    message = str(caught.value)
    assert SECRET not in message and "miso" not in message
    if expected is AuthenticationError:
        assert "ZEP_API_KEY" in message
    if expected is RateLimitError:
        assert isinstance(caught.value, RateLimitError) and caught.value.retry_after == 7.0
    assert "miso" not in caplog.text
    await backend.aclose()


async def test_conflict_on_a_write_is_a_conflict(fake: FakeZep) -> None:
    backend = await provisioned(fake)
    fake.fail(Fault(status=409), route="POST /threads/*/messages")
    with pytest.raises(ConflictError):
        await backend.add_messages("t1", [Message("user", "hi")])


@pytest.mark.parametrize(
    ("route", "drop", "operation"),
    [
        ("POST /users", ("uuid",), "ensure_user"),
        ("POST /threads", ("uuid",), "ensure_thread"),
        ("POST /graphs", ("uuid",), "ensure_graph"),
        ("POST /graphs/*/episodes", ("uuid",), "add_data"),
        ("POST /graphs/*/search/nodes", ("episode_uuids",), "search_nodes"),
        ("GET /threads/*/messages", ("content",), "get_messages"),
    ],
)
async def test_missing_required_fields_are_backend_errors(
    fake: FakeZep, route: str, drop: tuple[str, ...], operation: str
) -> None:
    backend = await provisioned(fake)
    if operation == "search_nodes":
        await backend.add_messages("t1", [Message("user", f"Tea with Marple. {SECRET}")])
    fake.fail(Fault(drop_fields=drop), route=route)
    with pytest.raises(BackendError) as caught:
        await OPERATIONS[operation](backend)
    assert type(caught.value) is BackendError
    assert "miso" not in str(caught.value)


async def test_sdk_retries_honour_retry_after_with_one_key(fake: FakeZep) -> None:
    backend = await provisioned(fake)
    retrying = ZepBackend(fake.client(), id_map=backend.id_map, max_retries=1)
    fake.fail(Fault(status=503, headers={"Retry-After": "1"}), route="POST /threads/*/messages")
    await retrying.add_messages("t1", [Message("user", "hello again")])
    first, second = fake.calls("POST", "/threads/*/messages")[-2:]
    assert first.headers["idempotency-key"] == second.headers["idempotency-key"]
    assert [m["content"] for m in next(iter(fake.messages.values()))][-1] == "hello again"


async def test_user_create_retries_a_rate_limit_itself(fake: FakeZep) -> None:
    backend = ZepBackend(fake.client(), max_retries=1)
    fake.fail(Fault(status=429, headers={"Retry-After": "0"}), route="POST /users")
    assert await backend.ensure_user(UserProfile("alice")) is True
    first, second = fake.calls("POST", "/users")
    assert first.headers["idempotency-key"] == second.headers["idempotency-key"]


# -- through the memory loop ------------------------------------------------------------------


@pytest.mark.parametrize("fault_name", list(FAULTS))
async def test_turn_path_degrades_without_raising(
    fake: FakeZep, fault_name: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    loop = MemoryLoop(ZepBackend(fake.client(), owns_client=True, max_retries=0))
    identity = Identity(user_id="alice", thread_id="t1", first_name="Alice")
    await loop.provision(identity)
    fake.fail(FAULTS[fault_name][0], times=None)
    assert await loop.begin_turn(identity, SECRET) == ""
    assert await loop.add_messages("t1", [Message("user", SECRET)], return_context=True) is None
    assert await loop.get_context("t1") is None
    answer = await loop.search_tool().call({"query": SECRET}, identity)
    assert answer.startswith("Memory search failed")
    assert await loop.capture_reply(identity, SECRET) is False
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert warnings
    assert "miso" not in caplog.text
    for record in caplog.records:
        assert "miso" not in record.getMessage()
    await loop.aclose()


@pytest.mark.parametrize("fault_name", list(FAULTS))
async def test_provisioning_raises(fake: FakeZep, fault_name: str) -> None:
    loop = MemoryLoop(ZepBackend(fake.client(), owns_client=True, max_retries=0))
    fault, expected = FAULTS[fault_name]
    fake.fail(fault, times=None)
    with pytest.raises(expected):
        await loop.ensure_user("alice", first_name="Alice")
    await loop.aclose()


async def test_a_retry_after_longer_than_worth_waiting_fails_at_once(fake: FakeZep) -> None:
    backend = ZepBackend(fake.client(), max_retries=2)
    fake.fail(Fault(status=429, headers={"Retry-After": "3600"}), route="POST /users")
    async with asyncio.timeout(10):  # without the cap this call would sleep for an hour
        with pytest.raises(RateLimitError):
            await backend.ensure_user(UserProfile("alice"))
    assert len(fake.calls("POST", "/users")) == 1
    await backend.aclose()
