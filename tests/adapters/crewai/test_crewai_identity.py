"""Who CrewAI memory belongs to, decided by the core's identity kit for the hooks and the storage:
the app's `Identity` or the ids with profile fields, and a missing identity reported once through
`on_error`."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from zepkit.core import ConfigurationError, Identity, MemoryLoop
from zepkit.crewai import ZepCrewMemory, ZepStorage, enable_zep_memory
from zepkit.local import LocalBackend
from zepkit.testing import FailingBackend

React = tuple[Callable[[str, dict[str, Any]], str], Callable[[str], str]]


@pytest.fixture
def memory() -> Iterator[MemoryLoop]:
    loop = MemoryLoop.local(":memory:")
    yield loop
    loop.sync.close()


def test_hooks_keep_the_profile_fields(
    memory: MemoryLoop, crew_factory: Any, script_factory: Any, react: React
) -> None:
    _, final = react
    crew, _ = crew_factory(script_factory([final("Hello.")]), "Say hello.")
    hooks = enable_zep_memory(
        memory, user_id="mira", thread_id="m1", first_name="Mira", last_name="Ng"
    )
    try:
        crew.kickoff()
    finally:
        hooks.disable()
    user = memory.sync.get_user("mira")
    assert (user.first_name, user.last_name) == ("Mira", "Ng")
    assert [m.role for m in memory.sync.get_messages("m1")] == ["user", "assistant"]


def test_storage_takes_an_identity_or_ids_never_both(memory: MemoryLoop) -> None:
    mira = Identity(user_id="mira", thread_id="m1", email="mira@x.org")
    storage = ZepStorage(memory, identity=mira)
    assert storage.identity is mira and (storage.user_id, storage.thread_id) == ("mira", "m1")
    storage.save("I'm allergic to peanuts.", {"type": "message", "role": "user"})
    assert memory.sync.get_user("mira").email == "mira@x.org"
    by_ids = ZepStorage(memory, user_id="mira", thread_id="m1", first_name="Mira")
    assert by_ids.identity == Identity(user_id="mira", thread_id="m1", first_name="Mira")
    for extra in ({"user_id": "bo"}, {"thread_id": "b1"}, {"email": "bo@x.org"}):
        with pytest.raises(ValueError, match="not both"):
            ZepStorage(memory, identity=mira, **extra)
        with pytest.raises(ValueError, match="not both"):
            enable_zep_memory(memory, identity=mira, **extra)
    with pytest.raises(ValueError, match="non-empty"):
        ZepStorage(memory, user_id=" ", thread_id="m1")


def test_missing_identity_warns_once_and_memory_stays_empty(
    memory: MemoryLoop,
    crew_factory: Any,
    script_factory: Any,
    react: React,
    caplog: pytest.LogCaptureFixture,
) -> None:
    _, final = react
    crew, _ = crew_factory(script_factory([final("Hello.")]), "Say hello.")
    with caplog.at_level(logging.WARNING, logger="zepkit"):
        hooks = enable_zep_memory(memory, thread_id="m1")
        try:
            crew.kickoff()
        finally:
            hooks.disable()
        storage = ZepStorage(memory, user_id="mira")
        storage.save("I'm allergic to peanuts.", {"type": "message", "role": "user"})
        storage.save("Likes tea.")
        assert storage.search("peanuts") == []
        storage.reset()
        assert ZepCrewMemory(storage).recall("peanuts") == []
    warnings = [r.getMessage() for r in caplog.records if r.name.startswith("zepkit")]
    assert len(warnings) == 2, warnings  # one per object made without an identity
    assert "crewai identity" in warnings[0] and "user_id" in warnings[0]
    assert "crewai identity" in warnings[1] and "thread_id" in warnings[1]
    assert hooks.identity is None and storage.user_id is None
    assert memory.sync.list_users().items == []


def test_missing_identity_raises_or_reaches_the_callback(memory: MemoryLoop) -> None:
    strict = MemoryLoop(memory.backend, on_error="raise")
    with pytest.raises(ConfigurationError, match="user_id and thread_id"):
        enable_zep_memory(strict)
    with pytest.raises(ConfigurationError, match="thread_id"):
        ZepStorage(strict, user_id="mira")
    seen: list[str] = []
    called = MemoryLoop(memory.backend, on_error=lambda stage, exc: seen.append(stage))
    ZepStorage(called)
    enable_zep_memory(called, user_id="mira").disable()
    assert seen == ["crewai identity", "crewai identity"]


def test_hook_failures_follow_on_error(
    crew_factory: Any, script_factory: Any, react: React
) -> None:
    """The hooks' guard hands what escapes the loop to `on_error`, and the crew runs on."""
    _, final = react
    seen: list[str] = []

    def on_error(stage: str, exc: BaseException) -> None:
        seen.append(stage)
        if not stage.startswith("crewai"):
            raise exc  # out of the loop, into the hook's guard

    failing = MemoryLoop(FailingBackend(LocalBackend(":memory:")), on_error=on_error)
    hooks = enable_zep_memory(failing, user_id="mira", thread_id="m1")
    crew, _ = crew_factory(script_factory([final("Hello.")]), "Say hello.")
    try:
        assert "Hello." in str(crew.kickoff())
    finally:
        hooks.disable()
        failing.sync.close()
    assert seen == [
        "begin_turn",
        "crewai before_llm_call",
        "capture_reply",
        "crewai after_llm_call",
    ]
