"""The identity kit, option checks and hook guard every adapter declares its rules with."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

import pytest

from zepkit.core import ConfigurationError, FailSoft, Identity, MemoryLoop
from zepkit.core.spi import (
    IdentityResolver,
    check_memory,
    fail_soft,
    fail_soft_sync,
    fixed_identity,
    search_tool_option,
)


@dataclass
class Run:
    """A framework's run as adapters see it: some state, an attribute bag, a session id."""

    state: dict[str, Any] = field(default_factory=dict)
    config: dict[str, Any] = field(default_factory=dict)
    session_id: str = "session-1"


def _state(run: Run) -> dict[str, Any]:
    return run.state


def _config(run: Run) -> dict[str, Any]:
    return run.config


def _session(run: Run) -> str:
    return run.session_id


async def test_fixed_ids_win_then_lookups_in_order_then_the_thread_fallback() -> None:
    resolver = IdentityResolver[Run](
        user_id="fixed", lookups=(_state, _config), thread_fallback=_session
    )
    run = Run(state={"user_id": "from-state"}, config={"first_name": "Ada", "user_id": "x"})
    assert await resolver.find(run) == Identity(
        user_id="fixed", thread_id="session-1", first_name="Ada"
    )
    resolver = IdentityResolver[Run](lookups=(_state, _config))
    run = Run(state={"user_id": "u", "thread_id": " "}, config={"thread_id": "t", "email": "e@x"})
    assert await resolver.find(run) == Identity(user_id="u", thread_id="t", email="e@x")
    run = Run(state={"user_id": 7, "thread_id": "t", "email": True})  # an int id reads as text
    assert await resolver.find(run) == Identity(user_id="7", thread_id="t")


async def test_a_prefix_names_the_keys() -> None:
    resolver = IdentityResolver[Run](lookups=(_state,), prefix="zep_", thread_fallback=_session)
    run = Run(state={"zep_user_id": "u", "zep_last_name": "Lovelace", "user_id": "ignored"})
    assert await resolver.find(run) == Identity(
        user_id="u", thread_id="session-1", last_name="Lovelace"
    )


async def test_the_apps_source_wins_sync_or_async() -> None:
    alice = Identity(user_id="alice", thread_id="t")

    async def from_run(run: Run) -> Identity | None:
        return alice if run.state else None

    assert await IdentityResolver[Run](alice, user_id="x").find(Run()) == alice
    assert await IdentityResolver[Run](from_run).find(Run(state={"a": 1})) == alice
    assert await IdentityResolver[Run](from_run).find(Run()) is None
    assert await IdentityResolver[Run](lambda run: alice).find(Run()) == alice


async def test_a_missing_or_wrong_identity_goes_to_the_policy_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    resolver = IdentityResolver[Run](lookups=(_state,), hint="set state['user_id']")
    with caplog.at_level(logging.WARNING, logger="zepkit.core"):
        assert await resolver.resolve(Run(), FailSoft(), "test identity") is None
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1
    assert "test identity" in warnings[0] and "set state['user_id']" in warnings[0]
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="zepkit.core"):
        assert await resolver.resolve(Run(), FailSoft(), "tool", report=False) is None
        assert resolver.resolve_now(Run(), FailSoft(), "tool", report=False) is None
    assert caplog.records == []
    with pytest.raises(ConfigurationError, match="needs user_id and thread_id"):
        await resolver.resolve(Run(), FailSoft("raise"), "test identity")
    wrong = IdentityResolver[Run](lambda run: "alice")  # type: ignore[arg-type, return-value]
    with pytest.raises(ConfigurationError, match="str, not a zepkit Identity"):
        wrong.resolve_now(Run(), FailSoft("raise"), "test identity")
    seen: list[str] = []
    callback = FailSoft(lambda stage, exc: seen.append(stage))
    assert resolver.resolve_now(Run(), callback, "callback stage") is None
    assert seen == ["callback stage"]


def test_resolve_now_refuses_an_async_source() -> None:
    async def from_run(run: Run) -> Identity:
        return Identity(user_id="u", thread_id="t")

    with pytest.raises(ConfigurationError, match="synchronous"):
        IdentityResolver[Run](from_run).resolve_now(Run(), FailSoft("raise"), "stage")


def test_construction_errors_are_immediate() -> None:
    with pytest.raises(ValueError, match="user_id"):
        IdentityResolver[Run](user_id=" ")
    with pytest.raises(TypeError, match="Identity"):
        IdentityResolver[Run]("alice")  # type: ignore[arg-type]


async def test_option_checks(memory: MemoryLoop) -> None:
    assert check_memory(memory) is memory
    with pytest.raises(TypeError, match="MemoryLoop, got object"):
        check_memory(object())
    assert search_tool_option(memory, False, {}) is None
    tool = search_tool_option(memory, True, {"limit": 3})
    assert tool is not None and "limit" not in tool.visible_parameters
    with pytest.raises(ValueError, match=r"\['limit'\] configure the search tool"):
        search_tool_option(memory, False, {"limit": 3})


class Hook:
    def __init__(self, memory: MemoryLoop) -> None:
        self.memory = memory

    @fail_soft("test hook", default="neutral")
    async def run(self, fail: bool) -> str:
        if fail:
            raise RuntimeError("boom")
        return "done"


async def test_fail_soft_hooks_follow_on_error(memory: MemoryLoop) -> None:
    hook = Hook(memory)
    assert await hook.run(False) == "done"
    assert await hook.run(True) == "neutral"
    strict = Hook(MemoryLoop(memory.backend, on_error="raise"))
    with pytest.raises(RuntimeError, match="boom"):
        await strict.run(True)


class SyncHook:
    def __init__(self, memory: MemoryLoop) -> None:
        self.memory = memory
        self.thread_id = "t-7"

    @fail_soft_sync("sync hook", 0, fields=lambda hook, fail: {"thread_id": hook.thread_id})
    def run(self, fail: bool) -> int:
        if fail:
            raise RuntimeError("boom")
        return 1


def test_sync_hooks_follow_on_error(caplog: pytest.LogCaptureFixture) -> None:
    backend = MemoryLoop.local().backend
    hook = SyncHook(MemoryLoop(backend))
    assert hook.run(False) == 1
    with caplog.at_level(logging.WARNING, logger="zepkit.core"):
        assert hook.run(True) == 0
    [record] = caplog.records
    assert "sync hook failed (RuntimeError)" in record.getMessage()
    assert "thread_id='t-7'" in record.getMessage()
    with pytest.raises(RuntimeError, match="boom"):
        SyncHook(MemoryLoop(backend, on_error="raise")).run(True)
    seen: list[tuple[str, str]] = []
    called = SyncHook(MemoryLoop(backend, on_error=lambda s, e: seen.append((s, str(e)))))
    assert called.run(True) == 0
    assert seen == [("sync hook", "boom")]
    assert SyncHook.run.__name__ == "run"  # the hook keeps its name for the framework


def test_a_fixed_identity_keeps_the_profile_and_reports_a_missing_one_once() -> None:
    seen: list[str] = []
    policy = FailSoft(lambda stage, exc: seen.append(f"{stage}: {exc}"))
    found = fixed_identity(None, policy, "x", user_id="u", thread_id="t", email="u@example.com")
    assert found == Identity(user_id="u", thread_id="t", email="u@example.com")
    assert fixed_identity(None, policy, "x", user_id="u", hint="give both ids") is None
    assert seen == ["x: zepkit needs thread_id for this run: give both ids"]
    with pytest.raises(ValueError, match="not both"):
        fixed_identity(Identity(user_id="u", thread_id="t"), policy, "x", user_id="v")
