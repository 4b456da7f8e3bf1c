"""Users, threads and shared graphs: idempotent, race-safe, strict about ownership."""

from __future__ import annotations

import asyncio

import pytest

from zepkit.core._backend import Backend, SearchRequest, UserProfile
from zepkit.core._errors import ConflictError, NotFoundError
from zepkit.core._models import Message
from zepkit.local import LocalBackend


def test_local_backend_satisfies_the_protocol(backend: LocalBackend) -> None:
    assert isinstance(backend, Backend)


async def test_ensure_user_is_idempotent(backend: LocalBackend) -> None:
    assert await backend.ensure_user(UserProfile("u")) is True
    assert await backend.ensure_user(UserProfile("u")) is False


async def test_concurrent_ensure_user_creates_once(backend: LocalBackend) -> None:
    results = await asyncio.gather(*(backend.ensure_user(UserProfile("u")) for _ in range(20)))
    assert results.count(True) == 1


async def test_concurrent_ensure_thread_creates_once(backend: LocalBackend) -> None:
    await backend.ensure_user(UserProfile("u"))
    results = await asyncio.gather(*(backend.ensure_thread("t", "u") for _ in range(20)))
    assert results.count(True) == 1


async def test_concurrent_ensure_graph_creates_once(backend: LocalBackend) -> None:
    results = await asyncio.gather(*(backend.ensure_graph("g") for _ in range(20)))
    assert results.count(True) == 1


async def test_ensure_user_updates_given_profile_fields(backend: LocalBackend) -> None:
    await backend.ensure_user(UserProfile("u", first_name="Ana", email="ana@example.com"))
    await backend.ensure_user(UserProfile("u", last_name="Lima"))
    await backend.ensure_thread("t", "u")
    await backend.add_messages("t", [Message("user", "I collect vinyl records.")])
    found = await backend.search(SearchRequest("vinyl records", user_id="u", scope="nodes"))
    # The user's entity takes the full name, which needs both updates.
    assert "Ana Lima" in [entity.name for entity in found.nodes]


async def test_thread_for_unknown_user_is_not_found(backend: LocalBackend) -> None:
    with pytest.raises(NotFoundError, match="ensure_user"):
        await backend.ensure_thread("t", "nobody")


async def test_thread_of_another_user_conflicts(backend: LocalBackend) -> None:
    await backend.ensure_user(UserProfile("a"))
    await backend.ensure_user(UserProfile("b"))
    assert await backend.ensure_thread("t", "a") is True
    assert await backend.ensure_thread("t", "a") is False
    with pytest.raises(ConflictError):
        await backend.ensure_thread("t", "b")


async def test_a_thread_id_with_half_a_character_is_the_callers_error(
    backend: LocalBackend,
) -> None:
    # The contract checks provisioning and search (`BackendContract`); SQLite cannot take a
    # lone surrogate in a thread id read or written either, and the caller must fix it.
    half = "\ud83d"
    with pytest.raises(ValueError, match="lone surrogate"):
        await backend.add_messages(f"t{half}", [Message("user", "hi")])
    with pytest.raises(ValueError, match="lone surrogate"):
        await backend.get_messages(f"t{half}")
