"""The contract suites: the adapter contract on the framework-free reference harness, and what
the suites promise their subclasses (rewritten assertions, a missing fixture refused early)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from zepkit.core import MemoryLoop
from zepkit.testing import AdapterContract, AdapterHarness, PlainAgentHarness


class TestPlainAgentHarness(AdapterContract):
    @pytest.fixture
    def make_harness(self) -> Callable[[MemoryLoop], AdapterHarness]:
        return PlainAgentHarness


PYTEST = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "asyncio_mode=auto"]
FORGETFUL = """
import pytest
from zepkit.testing import AdapterContract, PlainAgentHarness


class Forgetful(PlainAgentHarness):
    async def run_turn(self, **turn):
        result = await super().run_turn(**turn)
        result.reply = "Sorry, what?"
        return result


class TestForgetful(AdapterContract):
    @pytest.fixture
    def make_harness(self):
        return Forgetful
"""


def test_a_failing_contract_assertion_shows_what_it_compared(tmp_path: Path) -> None:
    """The suites' assertions are rewritten, so a failure names both values, not a bare
    AssertionError."""
    (tmp_path / "test_forgetful.py").write_text(FORGETFUL)
    result = subprocess.run(
        [*PYTEST, "-k", "persisted_once", str(tmp_path / "test_forgetful.py")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=tmp_path,
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert "assert 'Sorry, what?' == 'How lovely!'" in result.stdout, result.stdout


def test_a_test_class_without_a_harness_is_refused_where_it_is_written() -> None:
    with pytest.raises(TypeError, match="TestNoHarness must supply a `make_harness` fixture"):
        type("TestNoHarness", (AdapterContract,), {})
    shared = type("SharedSetup", (AdapterContract,), {})  # not a test class: no harness yet
    assert issubclass(shared, AdapterContract)

    def make_harness(self: object, memory: MemoryLoop) -> AdapterHarness:
        return PlainAgentHarness(memory)

    with pytest.raises(TypeError, match="make_harness is a method: make it a `@pytest"):
        type("TestOldStyle", (AdapterContract,), {"make_harness": make_harness})


def test_a_backend_test_class_without_a_backend_is_refused_where_it_is_written() -> None:
    from zepkit.testing import BackendContract

    with pytest.raises(TypeError, match="TestNoBackend must supply a `backend` fixture"):
        type("TestNoBackend", (BackendContract,), {})
