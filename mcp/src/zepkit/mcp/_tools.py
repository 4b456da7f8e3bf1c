"""The memory tools: schemas, annotations and what each does for the connection's user.

Every tool answers with a text the model reads and, on success, the same answer as structured
data (validated by clients against its output schema). Nothing raises at the client: a bad
argument or a memory failure comes back as a sentence with `isError` set. The user is never an
argument: it is the connection's, fixed by the server (stdio) or by a verified token (HTTP).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from mcp_types import CallToolResult, Tool

from zepkit.core import MAX_PAGE_SIZE, MemoryLoop, Message, NotFoundError, SearchResults, SearchTool
from zepkit.core.spi import SearchRequest, format_results
from zepkit.mcp import _args
from zepkit.mcp._answers import (
    ContextOut,
    MessagesOut,
    Spec,
    ThreadsOut,
    hints,
    no_thread,
    ok,
    output,
    refuse,
    schema,
)
from zepkit.mcp._args import BadArgument
from zepkit.mcp._manage import latest_thread, owns_thread
from zepkit.mcp._writes import Writes

logger = logging.getLogger("zepkit.mcp")

MAX_LAST_N = 100
NOTHING = "Memory holds nothing about this yet."


class Tools:
    """The tool set of one server: which tools exist (write tools only with `read_write`) and
    their handlers, each called with the connection's user id."""

    def __init__(
        self,
        memory: MemoryLoop,
        *,
        read_write: bool,
        shared_graph: str | None,
        search: Mapping[str, Any],
    ) -> None:
        self.memory = memory
        pins = {"reranker": None, "mmr_lambda": None, "center_node_uuid": None, **search}
        self.search = memory.search_tool(name="memory_search", **pins)
        self.shared = (
            memory.search_tool(name="memory_search_shared", graph_id=shared_graph, **pins)
            if shared_graph is not None
            else None
        )
        specs = [
            self._context_spec(),
            self._search_spec(self.search, "memory_search", "Search the user's long-term memory"),
            self._threads_spec(),
            self._messages_spec(),
        ]
        if self.shared is not None:
            specs.append(
                self._search_spec(
                    self.shared,
                    "memory_search_shared",
                    f"Search the shared memory {shared_graph!r} (the same for every user)",
                )
            )
        if read_write:
            specs += Writes(memory).specs
        self.specs: dict[str, Spec] = {spec.tool.name: spec for spec in specs}

    @property
    def tools(self) -> list[Tool]:
        return [spec.tool for spec in self.specs.values()]

    async def call(self, name: str, user_id: str | None, args: object) -> CallToolResult:
        """Run one tool; never raises."""
        spec = self.specs.get(name)
        if spec is None:
            return refuse(f"There is no tool {name!r} here; available: {', '.join(self.specs)}.")
        if user_id is None:
            return refuse(
                "This connection has no memory user: the server was started without one, or "
                "the token names none. Nothing was read or written."
            )
        if args is None:
            args = {}
        if not isinstance(args, Mapping):
            return refuse("The arguments must be a JSON object.")
        try:
            _args.no_unknown(args, set(spec.tool.input_schema["properties"]))
            return await spec.handler(user_id, args)
        except BadArgument as exc:
            return refuse(f"Error: {exc}")
        except ValueError as exc:  # the core refused a value (it names the field)
            return refuse(f"Error: {exc}.")
        except Exception as exc:
            logger.warning(
                "zepkit.mcp: tool %s failed for user_id=%r (%s)", name, user_id, type(exc).__name__
            )
            return refuse(
                f"Memory is unavailable right now ({type(exc).__name__}); nothing was changed. "
                "Continue without it, or try again later."
            )

    # -- memory_context ---------------------------------------------------------------------

    def _context_spec(self) -> Spec:
        tool = Tool(
            name="memory_context",
            title="Memory context",
            description=(
                "What long-term memory holds about the user, as one block to read before "
                "answering: relevant facts and entities with their dates. With `query`, the "
                "block is about that topic; without it, about the user's latest conversation."
            ),
            input_schema=schema(
                {
                    "query": {
                        "type": "string",
                        "maxLength": 400,
                        "description": "The topic or the user's message, in a few words.",
                    }
                }
            ),
            output_schema=output(ContextOut),
            annotations=hints(read_only=True),
        )
        return Spec(tool, self._context, writes=False)

    async def _context(self, user_id: str, args: Mapping[str, Any]) -> CallToolResult:
        query = _args.text(args, "query")
        block, thread_id = await self.block(user_id, query)
        data = ContextOut(block=block, chars=len(block), query=query, thread_id=thread_id)
        return ok(block or NOTHING, data)

    async def block(self, user_id: str, query: str | None) -> tuple[str, str | None]:
        """The rendered block for a topic, or for the user's latest thread; and that thread."""
        memory = self.memory
        if query is not None and query.strip():
            scope = "auto" if memory.capabilities.supports("auto") else "edges"
            request = memory.search_tool(scope=scope).request({"query": query}, user_id)
            if isinstance(request, str):  # a blank user id: nobody's memory to read
                return "", None
            results = await self._run(request)
            raw = results.context if results.scope == "auto" else format_results(results)
            if results.is_empty():
                raw = None
            return memory.render(raw), None
        thread_id = await latest_thread(memory, user_id)
        if thread_id is None:
            return "", None
        return memory.render(await memory.get_context(thread_id)), thread_id

    async def _run(self, request: SearchRequest) -> SearchResults:
        try:
            return await self.memory.run_search(request)
        except NotFoundError:  # a user memory does not know yet has no memory to find
            return SearchResults(scope=request.scope)

    # -- memory_search ----------------------------------------------------------------------

    def _search_spec(self, search: SearchTool, name: str, what: str) -> Spec:
        tool = Tool(
            name=name,
            title="Search shared memory" if name.endswith("shared") else "Search memory",
            description=(
                f"{what} for facts, entities or past messages that the context does not cover. "
                "Pass a short query (at most 400 characters)."
            ),
            input_schema={**search.parameters, "additionalProperties": False},
            output_schema=output(SearchResults),
            annotations=hints(read_only=True),
        )

        async def handler(user_id: str, args: Mapping[str, Any]) -> CallToolResult:
            request = search.request(args, user_id)
            if isinstance(request, str):
                return refuse(request)
            results = await self._run(request)
            return ok(format_results(results), results)

        return Spec(tool, handler, writes=False)

    # -- memory_list_threads ----------------------------------------------------------------

    def _threads_spec(self) -> Spec:
        tool = Tool(
            name="memory_list_threads",
            title="List conversations",
            description=(
                "The user's stored conversations (threads), oldest first, a page at a time; "
                "pass `next_cursor` back as `cursor` for the next page."
            ),
            input_schema=schema(
                {
                    "cursor": {"type": "string", "description": "From the previous page."},
                    "limit": {
                        "type": "integer",
                        "minimum": 1,
                        "maximum": MAX_PAGE_SIZE,
                        "default": 20,
                        "description": "Threads per page.",
                    },
                }
            ),
            output_schema=output(ThreadsOut),
            annotations=hints(read_only=True),
        )
        return Spec(tool, self._threads, writes=False)

    async def _threads(self, user_id: str, args: Mapping[str, Any]) -> CallToolResult:
        cursor = _args.text(args, "cursor") or None
        limit = _args.whole(args, "limit", 1, MAX_PAGE_SIZE, 20)
        try:
            page = await self.memory.list_threads(user_id, cursor=cursor, limit=limit)
        except NotFoundError:
            page = None
        threads = page.items if page is not None else []
        data = ThreadsOut(threads=threads, next_cursor=page.next_cursor if page else None)
        if not threads:
            return ok("No conversations are stored for this user.", data)
        lines = [
            f"- {t.thread_id}"
            + (f" (started {t.created_at:%Y-%m-%d %H:%M} UTC)" if t.created_at else "")
            for t in threads
        ]
        if data.next_cursor:
            lines.append(f"More: call again with cursor={data.next_cursor!r}.")
        return ok("\n".join(lines), data)

    # -- memory_get_messages ----------------------------------------------------------------

    def _messages_spec(self) -> Spec:
        tool = Tool(
            name="memory_get_messages",
            title="Read a conversation",
            description=(
                "The last messages of one of the user's stored conversations, oldest first "
                "(thread ids come from memory_list_threads)."
            ),
            input_schema=schema(
                {
                    "thread": {"type": "string", "description": "The thread id."},
                    "last_n": {
                        "type": "integer",
                        "minimum": 1,
                        "maximum": MAX_LAST_N,
                        "default": 10,
                        "description": "How many of the latest messages.",
                    },
                },
                required=("thread",),
            ),
            output_schema=output(MessagesOut),
            annotations=hints(read_only=True),
        )
        return Spec(tool, self._messages, writes=False)

    async def _messages(self, user_id: str, args: Mapping[str, Any]) -> CallToolResult:
        thread_id = _args.text(args, "thread", required=True)
        assert thread_id is not None
        last_n = _args.whole(args, "last_n", 1, MAX_LAST_N, 10)
        if not await owns_thread(self.memory, user_id, thread_id):
            return refuse(no_thread(thread_id))
        messages = await self.memory.get_messages(thread_id, limit=last_n)
        data = MessagesOut(thread_id=thread_id, messages=messages)
        if not messages:
            return ok(f"Thread {thread_id!r} has no messages.", data)
        return ok("\n".join(_message_line(m) for m in messages), data)


def _message_line(message: Message) -> str:
    when = f"[{message.created_at:%Y-%m-%d %H:%M}] " if message.created_at else ""
    who = f"{message.role} ({message.name})" if message.name else message.role
    return f"{when}{who}: {message.content}"
