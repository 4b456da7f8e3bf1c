"""What an adapter's test harness provides, and a framework-free one that shows the pattern.

A harness drives one real framework turn with a scripted model and reports what the model saw.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from zepkit.core._errors import ConfigurationError
from zepkit.core._loop import MemoryLoop
from zepkit.core._models import Identity


@dataclass
class TurnResult:
    """What one turn produced: the final reply and every input the model received, as text."""

    reply: str
    model_inputs: list[str] = field(default_factory=list)


class AdapterHarness(Protocol):
    """Runs one turn of a framework agent with memory attached, driven by a scripted model.

    `tool_queries`: the scripted model first calls the memory search tool once per query (each on
    its own model call), then answers with `reply`. A harness whose framework has no tool support
    sets `supports_tools = False` and ignores them. A harness sets `surfaces_errors = False` where
    the framework itself catches what the adapter's hooks raise, so `on_error="raise"` cannot end
    the run (True if unset).

    Where the adapter takes the identity from each run (so a run can come without one), the
    harness also defines `run_turn_without_identity` (see `AnonymousTurns`); the contract then
    checks that such a turn runs, without memory, and says why once. A harness that can show
    the search tool as its framework hands it to the model defines `search_tool_schema` (see
    `ToolSchemas`); the contract then checks it is the core's tool. One that can run a turn
    through the framework's streaming API defines `run_streamed_turn` (see `StreamedTurns`).
    """

    supports_tools: bool

    async def run_turn(
        self,
        *,
        user_id: str,
        thread_id: str,
        text: str,
        reply: str,
        tool_queries: Sequence[str] = (),
    ) -> TurnResult: ...


class PlainAgentHarness:
    """A minimal agent loop with no framework: the reference for what an adapter must do.

    Before every model call it asks the loop for the turn's block (persisted once per turn), runs
    the scripted tool calls through the core's search tool, and captures the final reply.
    """

    supports_tools = True

    def __init__(
        self, memory: MemoryLoop, *, instructions: str = "You are a helpful assistant."
    ) -> None:
        self.memory = memory
        self.instructions = instructions
        self.search = memory.search_tool()
        self._turns = 0

    async def run_turn(
        self,
        *,
        user_id: str,
        thread_id: str,
        text: str,
        reply: str,
        tool_queries: Sequence[str] = (),
    ) -> TurnResult:
        self._turns += 1
        identity = Identity(user_id=user_id, thread_id=thread_id)
        turn_id = f"turn-{self._turns}"
        result = TurnResult(reply=reply)
        transcript = [f"user: {text}"]
        for query in [*tool_queries, None]:
            block = await self.memory.begin_turn(identity, text, turn_id=turn_id)
            system = f"{self.instructions}\n\n{block}" if block else self.instructions
            result.model_inputs.append("\n".join([f"system: {system}", *transcript]))
            if query is None:
                break
            found = await self.search.call({"query": query}, identity)
            transcript.append(f"tool {self.search.name}: {found}")
        await self.memory.capture_reply(identity, reply, turn_id=turn_id)
        return result

    async def search_tool_schema(self, **pinned: Any) -> Mapping[str, Any]:
        """The core's tool as this loop shows it: name, description, JSON schema."""
        tool = self.memory.search_tool(**pinned)
        return {"name": tool.name, "description": tool.description, "parameters": tool.parameters}

    async def run_turn_without_identity(self, *, text: str, reply: str) -> TurnResult:
        """A run with no identity: no memory for it, and the loop's policy hears why, once."""
        missing = ConfigurationError("the run carries no user_id and thread_id")
        self.memory.failsoft.handle("plain identity", missing)
        model_input = f"system: {self.instructions}\nuser: {text}"
        return TurnResult(reply=reply, model_inputs=[model_input])


@runtime_checkable
class AnonymousTurns(Protocol):
    """The optional part of a harness: one turn whose run carries no identity at all."""

    async def run_turn_without_identity(self, *, text: str, reply: str) -> TurnResult: ...


@runtime_checkable
class ToolSchemas(Protocol):
    """The optional part of a harness: the search tool, built with these pinned parameters, as
    the framework shows it to the model: `{"name", "description", "parameters"}` (JSON schema)."""

    async def search_tool_schema(self, **pinned: Any) -> Mapping[str, Any]: ...


@runtime_checkable
class StreamedTurns(Protocol):
    """The optional part of a harness: `run_turn`, through the framework's streaming run, with
    the stream consumed to its end."""

    async def run_streamed_turn(
        self,
        *,
        user_id: str,
        thread_id: str,
        text: str,
        reply: str,
        tool_queries: Sequence[str] = (),
    ) -> TurnResult: ...
