"""`ZepMemoryMiddleware`: zepkit memory for `langchain.agents.create_agent`."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from langchain.agents.middleware import AgentMiddleware, AgentState, ModelRequest, ModelResponse
from langchain_core.messages import AIMessage, AnyMessage, SystemMessage
from langchain_core.tools import BaseTool
from langgraph.runtime import Runtime, get_runtime

from zepkit.core import ConfigurationError, Identity, MemoryLoop
from zepkit.core.spi import search_tool_option
from zepkit.langgraph._identity import RUN_IDENTITY, current_config, resolve_identity
from zepkit.langgraph._messages import UserTurn, latest_user_turn
from zepkit.langgraph._tool import as_structured_tool

STAGE = "langgraph middleware"
_REMEMBERED_TURNS = 256
_T = TypeVar("_T")


class ZepMemoryMiddleware(AgentMiddleware[AgentState[Any], Any]):
    """Memory for a `create_agent` agent: on every model call the turn's context block is added
    to the system message of that call only (the graph state never holds it); the user's message
    is stored once per turn and the final reply once; the model gets the search tool.

    The user and thread come from the run: the runtime `context` (attributes or keys `user_id`,
    `thread_id`, optional `first_name`, `last_name`, `email`) first, then
    `config["configurable"]`. `search_tool=False` leaves the tool out; other keyword arguments pin
    search parameters (see `MemoryLoop.search_tool`).
    """

    def __init__(self, memory: MemoryLoop, *, search_tool: bool = True, **pinned: Any) -> None:
        super().__init__()
        self.memory = memory
        search = search_tool_option(memory, search_tool, pinned)
        tools: list[BaseTool] = []
        if search is not None:
            tools.append(as_structured_tool(search, self._tool_identity))
        self.tools = tools
        self._reported: OrderedDict[str, None] = OrderedDict()  # turns told of a missing identity

    def _soft(
        self, read: Callable[..., _T | None], messages: Sequence[AnyMessage], *args: Any
    ) -> _T | None:
        """Read the run's ids and turn; a run without ids goes on without memory (fail-soft),
        said once per user turn although every model call and the reply look again."""
        try:
            return read(messages, *args)
        except ConfigurationError as exc:  # our own message: it names the missing ids, no content
            turn = latest_user_turn(messages)
            key = turn.turn_id if turn is not None else None
            if key is None or key not in self._reported:
                if key is not None:
                    self._reported[key] = None
                    while len(self._reported) > _REMEMBERED_TURNS:
                        self._reported.popitem(last=False)
                self.memory.failsoft.handle(STAGE, exc)
            return None

    def _tool_identity(self) -> Identity | None:
        """The running tool call's identity; None (the tool then says so to the model) without.
        The turn has already reported a missing identity through the loop's policy."""
        try:
            context = get_runtime().context
        except Exception:
            context = None
        run = (context, current_config())
        return RUN_IDENTITY.resolve_now(run, self.memory.failsoft, STAGE, report=False)

    # -- (A) the block on every model call -----------------------------------------------------

    def wrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], ModelResponse]
    ) -> ModelResponse:
        turn = self._soft(_request_turn, request.messages, request)
        if turn is None:
            return handler(request)
        identity, user_turn = turn
        block = self.memory.sync.begin_turn(identity, user_turn.text, turn_id=user_turn.turn_id)
        return handler(_with_block(request, block))

    async def awrap_model_call(
        self,
        request: ModelRequest,
        handler: Callable[[ModelRequest], Awaitable[ModelResponse]],
    ) -> ModelResponse:
        turn = self._soft(_request_turn, request.messages, request)
        if turn is None:
            return await handler(request)
        identity, user_turn = turn
        block = await self.memory.begin_turn(identity, user_turn.text, turn_id=user_turn.turn_id)
        return await handler(_with_block(request, block))

    # -- the final reply ----------------------------------------------------------------------

    def after_model(self, state: AgentState[Any], runtime: Runtime[Any]) -> dict[str, Any] | None:
        reply = self._soft(_reply, state["messages"], runtime)
        if reply is not None:
            self.memory.sync.run(reply.capture(self.memory))
        return None

    async def aafter_model(
        self, state: AgentState[Any], runtime: Runtime[Any]
    ) -> dict[str, Any] | None:
        reply = self._soft(_reply, state["messages"], runtime)
        if reply is not None:
            await reply.capture(self.memory)
        return None


def _request_turn(
    messages: Sequence[AnyMessage], request: ModelRequest
) -> tuple[Identity, UserTurn] | None:
    user_turn = latest_user_turn(messages)
    if user_turn is None or not user_turn.text.strip():
        return None
    return resolve_identity(request.runtime.context, current_config()), user_turn


@dataclass(frozen=True)
class _Reply:
    """The model's last message, as `capture_reply` takes it."""

    identity: Identity
    text: str
    turn_id: str | None
    is_tool_call: bool
    name: str | None

    async def capture(self, memory: MemoryLoop) -> bool:
        return await memory.capture_reply(
            self.identity,
            self.text,
            turn_id=self.turn_id,
            is_tool_call=self.is_tool_call,
            name=self.name,
        )


def _reply(messages: Sequence[AnyMessage], runtime: Runtime[Any]) -> _Reply | None:
    if not messages or not isinstance(messages[-1], AIMessage):
        return None
    message = messages[-1]
    user_turn = latest_user_turn(messages)
    return _Reply(
        identity=resolve_identity(runtime.context, current_config()),
        text=message.text,
        turn_id=user_turn.turn_id if user_turn else None,
        is_tool_call=bool(message.tool_calls),
        name=message.name,
    )


def _with_block(request: ModelRequest, block: str) -> ModelRequest:
    """The same request with `block` appended to its system message (untouched when empty)."""
    if not block:
        return request
    if hasattr(request, "system_message"):
        current = request.system_message
        content = _append(current.content if current is not None else "", block)
        return request.override(system_message=SystemMessage(content=content))
    # langchain < 1.1 carries the system prompt as a plain string.
    base = getattr(request, "system_prompt", None) or ""
    return request.override(system_prompt=_append(base, block))  # type: ignore[call-arg,unused-ignore]


def _append(content: Any, block: str) -> Any:
    if isinstance(content, list):  # content blocks (e.g. with cache control) stay as they are
        return [*content, {"type": "text", "text": block}]
    return f"{content}\n\n{block}" if str(content).strip() else block
