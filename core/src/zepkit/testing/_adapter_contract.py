"""`AdapterContract`: the behaviour every framework adapter must show, on the framework's real
runtime driven by a scripted model.

Subclass it and supply a `make_harness` fixture: a callable that builds an `AdapterHarness` for
your framework around a `MemoryLoop`. Being a fixture, it can ask for the fixtures it needs:

    class TestMyAdapter(AdapterContract):
        framework_key = "my-framework"
        framework_modules = ("my_framework",)

        @pytest.fixture
        def make_harness(self, scripted_model):
            return lambda memory: MyFrameworkHarness(memory, scripted_model)

A subclass named like a test class that does not supply it is refused when it is defined.
"""

from __future__ import annotations

import importlib
import inspect
import logging
import re
import sys
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from zepkit.core._errors import BackendError, ConfigurationError
from zepkit.core._loop import MemoryLoop
from zepkit.local import LocalBackend
from zepkit.testing._fakes import FailingBackend
from zepkit.testing._harness import AdapterHarness, AnonymousTurns, StreamedTurns, ToolSchemas

FACT = "My sister Beatrix moved to Lisbon last spring and opened a bakery."
QUESTION = "Which city does my sister Beatrix live in now?"
SECRET = "My locker code is ZEBRA-7781."

HarnessFactory = Callable[[MemoryLoop], AdapterHarness]
"""What the `make_harness` fixture gives: a harness for the framework around a given memory."""


def _caused_by(error: BaseException, kind: type[BaseException]) -> bool:
    """Whether `error`, or an error it was raised from or during, is a `kind`."""
    seen: list[BaseException] = []
    current: BaseException | None = error
    while current is not None and current not in seen:
        if isinstance(current, kind):
            return True
        seen.append(current)
        current = current.__cause__ or current.__context__
    return False


def _is_fixture(function: object) -> bool:
    """Whether a plain function is a pytest fixture (pytest < 8.4 leaves fixtures functions)."""
    return hasattr(function, "_pytestfixturefunction")


class AdapterContract:
    """Persist once, inject on every model call, capture the reply, fail soft, isolate users."""

    pytestmark = pytest.mark.asyncio

    framework_key: str | None = None
    """The adapter's key (`zepkit[<key>]`); None for a harness that is not an adapter."""
    framework_modules: tuple[str, ...] = ()
    """The framework modules the adapter's import guard needs."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """A test class without its own `make_harness` fixture is an error where it is written,
        not a suite of failures (pytest would not even collect an abstract class)."""
        super().__init_subclass__(**kwargs)
        own = cls.__mro__[: cls.__mro__.index(AdapterContract)]
        supplied = [vars(k)["make_harness"] for k in own if "make_harness" in vars(k)]
        if supplied and inspect.isfunction(supplied[0]) and not _is_fixture(supplied[0]):
            raise TypeError(
                f"{cls.__name__}.make_harness is a method: make it a `@pytest.fixture` that "
                "returns a callable building the harness from a MemoryLoop"
            )
        if cls.__name__.startswith("Test") and not supplied:
            raise TypeError(f"{cls.__name__} must supply a `make_harness` fixture")

    @pytest.fixture
    def make_harness(self) -> HarnessFactory:
        """Supplied by every subclass (see the module docstring)."""
        raise NotImplementedError("subclasses supply a `make_harness` fixture")

    @pytest.fixture
    async def memory(self) -> AsyncIterator[MemoryLoop]:
        loop = MemoryLoop.local(":memory:")
        yield loop
        await loop.aclose()

    @pytest.fixture
    async def failing_memory(self) -> AsyncIterator[MemoryLoop]:
        loop = MemoryLoop(FailingBackend(LocalBackend(":memory:")))
        yield loop
        await loop.aclose()

    async def test_no_overrides_DO_NOT_OVERRIDE(self) -> None:
        """A subclass supplies its harness; it never replaces one of the contract's tests, so a
        passing suite means the same thing for every adapter."""
        contract = AdapterContract
        replaced = [
            name
            for name, test in vars(contract).items()
            if name.startswith("test_") and getattr(type(self), name) is not test
        ]
        assert replaced == [], f"{type(self).__name__} overrides contract tests: {replaced}"

    async def test_missing_framework_names_the_extra(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """Importing the adapter without its framework says which extra to install."""
        if self.framework_key is None:
            pytest.skip("not an adapter: nothing to install")
        assert self.framework_modules, "an adapter names the framework modules its guard imports"
        package = "zepkit." + self.framework_key.replace("-", "_")
        for name in [n for n in sys.modules if n == package or n.startswith(package + ".")]:
            monkeypatch.delitem(sys.modules, name)
        for module in self.framework_modules:
            monkeypatch.setitem(sys.modules, module, None)
        with pytest.raises(ImportError, match=re.escape(f"zepkit[{self.framework_key}]")):
            importlib.import_module(package)

    async def test_user_turn_is_persisted_once_and_reply_captured(
        self, make_harness: HarnessFactory, memory: MemoryLoop
    ) -> None:
        harness = make_harness(memory)
        queries = ["Beatrix"] if harness.supports_tools else []
        result = await harness.run_turn(
            user_id="alice", thread_id="s1", text=FACT, reply="How lovely!", tool_queries=queries
        )
        assert result.reply == "How lovely!"
        stored = await memory.get_messages("s1")
        assert [(m.role, m.content) for m in stored] == [
            ("user", FACT),
            ("assistant", "How lovely!"),
        ]

    async def test_same_text_in_a_later_turn_is_a_new_turn(
        self, make_harness: HarnessFactory, memory: MemoryLoop
    ) -> None:
        harness = make_harness(memory)
        for _ in range(2):
            await harness.run_turn(user_id="alice", thread_id="s1", text="hi again", reply="Hello!")
        stored = await memory.get_messages("s1")
        assert [m.role for m in stored] == ["user", "assistant", "user", "assistant"]

    async def test_context_block_reaches_the_model(
        self, make_harness: HarnessFactory, memory: MemoryLoop
    ) -> None:
        harness = make_harness(memory)
        await harness.run_turn(user_id="alice", thread_id="s1", text=FACT, reply="Noted.")
        queries = ["sister city"] if harness.supports_tools else []
        result = await harness.run_turn(
            user_id="alice", thread_id="s2", text=QUESTION, reply="Lisbon.", tool_queries=queries
        )
        assert result.model_inputs, "the harness reported no model input"
        for model_input in result.model_inputs:  # every model call of the turn gets the block
            assert model_input.count("<ZEP_CONTEXT>") == 1
            assert "Lisbon" in model_input
        user_turns = [m for m in await memory.get_messages("s2") if m.role == "user"]
        assert len(user_turns) == 1

    async def test_failing_backend_never_breaks_the_turn(
        self,
        make_harness: HarnessFactory,
        failing_memory: MemoryLoop,
        caplog: pytest.LogCaptureFixture,
    ) -> None:
        harness = make_harness(failing_memory)
        queries = ["locker"] if harness.supports_tools else []
        with caplog.at_level(logging.DEBUG, logger="zepkit"):
            result = await harness.run_turn(
                user_id="alice", thread_id="s1", text=SECRET, reply="Got it.", tool_queries=queries
            )
        assert result.reply == "Got it."
        assert result.model_inputs, "the harness reported no model input"
        assert all("<ZEP_CONTEXT>" not in text for text in result.model_inputs)
        warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
        assert warnings, "a memory failure must be logged"
        for record in caplog.records:
            assert "ZEBRA" not in record.getMessage()
            assert "locker" not in record.getMessage()

    async def test_two_users_never_see_each_other(
        self, make_harness: HarnessFactory, memory: MemoryLoop
    ) -> None:
        harness = make_harness(memory)
        await harness.run_turn(user_id="alice", thread_id="a1", text=SECRET, reply="Saved.")
        queries = ["locker code"] if harness.supports_tools else []
        result = await harness.run_turn(
            user_id="bob",
            thread_id="b1",
            text="What is my locker code?",
            reply="I don't know.",
            tool_queries=queries,
        )
        assert result.model_inputs, "the harness reported no model input"
        for model_input in result.model_inputs:
            assert "ZEBRA" not in model_input

    async def test_a_turn_without_identity_has_no_memory_and_one_warning(
        self,
        make_harness: HarnessFactory,
        memory: MemoryLoop,
        caplog: pytest.LogCaptureFixture,
    ) -> None:
        """A run that carries no identity still answers; it neither reads nor writes memory, and
        one WARNING (a `ConfigurationError`) says why."""
        harness = make_harness(memory)
        if not isinstance(harness, AnonymousTurns):
            pytest.skip("the identity is fixed before the run: no run can lack one")
        await harness.run_turn(user_id="alice", thread_id="s1", text=FACT, reply="Noted.")
        with caplog.at_level(logging.DEBUG, logger="zepkit"):
            result = await harness.run_turn_without_identity(text=QUESTION, reply="No idea.")
        assert result.reply == "No idea."
        assert result.model_inputs, "the harness reported no model input"
        for model_input in result.model_inputs:
            assert "<ZEP_CONTEXT>" not in model_input
            assert "Lisbon" not in model_input
        warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
        assert len(warnings) == 1, warnings
        assert "ConfigurationError" in warnings[0]
        users = await memory.list_users()
        assert [user.user_id for user in users.items] == ["alice"]
        assert len(await memory.get_messages("s1")) == 2

    async def test_on_error_raise_surfaces_a_missing_identity(
        self, make_harness: HarnessFactory
    ) -> None:
        """With `on_error="raise"` the app asked to hear of memory problems: a run without
        identity ends with the `ConfigurationError` (as it is, or as the cause of the framework's
        own error) instead of going on."""
        async with MemoryLoop.local(":memory:", on_error="raise") as strict:
            harness = make_harness(strict)
            if not isinstance(harness, AnonymousTurns):
                pytest.skip("the identity is fixed before the run: no run can lack one")
            if not getattr(harness, "surfaces_errors", True):
                pytest.skip("the framework catches what its hooks raise")
            with pytest.raises(Exception) as raised:  # noqa: PT011 - a framework may wrap it
                await harness.run_turn_without_identity(text=QUESTION, reply="No idea.")
        assert _caused_by(raised.value, ConfigurationError), repr(raised.value)

    async def test_on_error_raise_surfaces_a_backend_failure(
        self, make_harness: HarnessFactory
    ) -> None:
        """With `on_error="raise"` a memory failure ends the turn (as it is, or as the cause of
        the framework's own error) instead of being logged."""
        async with MemoryLoop(FailingBackend(LocalBackend(":memory:")), on_error="raise") as strict:
            harness = make_harness(strict)
            if not getattr(harness, "surfaces_errors", True):
                pytest.skip("the framework catches what its hooks raise")
            with pytest.raises(Exception) as raised:  # noqa: PT011 - a framework may wrap it
                await harness.run_turn(user_id="alice", thread_id="s1", text=FACT, reply="Noted.")
        assert _caused_by(raised.value, BackendError), repr(raised.value)

    @pytest.mark.parametrize("pinned", [{}, {"limit": 3, "reranker": None}])
    async def test_the_search_tool_is_the_cores(
        self, make_harness: HarnessFactory, memory: MemoryLoop, pinned: dict[str, Any]
    ) -> None:
        """The model sees the core's tool: its name, description and parameters, pins left out;
        never a parameter that picks whose memory is searched."""
        harness = make_harness(memory)
        if not isinstance(harness, ToolSchemas):
            pytest.skip("the harness does not show its search tool")
        core = memory.search_tool(**pinned)
        shown = await harness.search_tool_schema(**pinned)
        assert shown["name"] == core.name
        assert shown["description"] == core.description
        parameters = shown["parameters"]
        assert parameters["properties"] == core.parameters["properties"]
        assert sorted(parameters.get("required", [])) == sorted(core.parameters["required"])
        assert not {"user_id", "thread_id", "graph_id"} & set(parameters["properties"])

    async def test_a_streamed_turn_is_stored_once_with_its_reply(
        self, make_harness: HarnessFactory, memory: MemoryLoop
    ) -> None:
        """Streaming changes how the reply reaches the app, not what memory keeps: the block on
        every model call, the user turn once, the whole reply once."""
        harness = make_harness(memory)
        if not isinstance(harness, StreamedTurns):
            pytest.skip("the harness does not stream")
        await harness.run_turn(user_id="alice", thread_id="s1", text=FACT, reply="Noted.")
        queries = ["sister city"] if harness.supports_tools else []
        result = await harness.run_streamed_turn(
            user_id="alice", thread_id="s2", text=QUESTION, reply="Lisbon.", tool_queries=queries
        )
        assert result.reply == "Lisbon."
        assert result.model_inputs, "the harness reported no model input"
        for model_input in result.model_inputs:
            assert model_input.count("<ZEP_CONTEXT>") == 1
        stored = await memory.get_messages("s2")
        assert [(m.role, m.content) for m in stored] == [
            ("user", QUESTION),
            ("assistant", "Lisbon."),
        ]
