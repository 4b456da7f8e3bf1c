"""`create_server`: the MCP server of one `MemoryLoop`, as the SDK's low-level `Server`.

The connection's user is fixed (`user_id=`, for stdio) or comes from the verified bearer token of
each HTTP request (the SDK's auth middleware puts it in a context variable). The server never
takes a user or a target from a client.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mcp.server import Server, ServerRequestContext
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INVALID_PARAMS,
    CallToolRequestParams,
    CallToolResult,
    GetPromptRequestParams,
    GetPromptResult,
    ListPromptsResult,
    ListResourcesResult,
    ListResourceTemplatesResult,
    ListToolsResult,
    PaginatedRequestParams,
    ReadResourceRequestParams,
    ReadResourceResult,
)

from zepkit.core import MemoryLoop, __version__
from zepkit.core.spi import check_id
from zepkit.mcp import _resources
from zepkit.mcp._auth import UserOf, subject_user
from zepkit.mcp._tools import Tools

INSTRUCTIONS = (
    "Long-term memory of the user across conversations. Call memory_context at the start of a "
    "conversation or when a topic comes up that memory may know about; memory_search for a "
    "specific fact. Memory can be out of date: the current conversation wins."
)


def create_server(
    memory: MemoryLoop,
    *,
    user_id: str | None = None,
    user_of: UserOf = subject_user,
    read_write: bool = False,
    shared_graph: str | None = None,
    search: Mapping[str, Any] | None = None,
    name: str = "zepkit-memory",
) -> Server[Any]:
    """An MCP server over `memory`: tools, resources and the `recall` prompt.

    With `user_id`, every request acts for that user (stdio: one user per process). Without it,
    the user of a request is `user_of(access_token)` of its verified bearer token (HTTP); a
    request without one reads and writes nothing. `read_write` adds `memory_add` and
    `memory_forget`; `shared_graph` adds `memory_search_shared` over that graph; `search` pins
    search parameters as `MemoryLoop.search_tool` does. The loop is the caller's to close.
    """
    if user_id is not None:
        check_id(user_id, "user_id")
    tools = Tools(memory, read_write=read_write, shared_graph=shared_graph, search=search or {})

    def who() -> str | None:
        if user_id is not None:
            return user_id
        token = get_access_token()
        return None if token is None else user_of(token)

    def user_or_refuse() -> str:
        user = who()
        if user is None:
            raise MCPError(code=INVALID_PARAMS, message="this connection has no memory user")
        return user

    async def list_tools(
        ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None
    ) -> ListToolsResult:
        return ListToolsResult(tools=tools.tools)

    async def call_tool(
        ctx: ServerRequestContext[Any], params: CallToolRequestParams
    ) -> CallToolResult:
        return await tools.call(params.name, who(), params.arguments)

    async def list_resources(
        ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None
    ) -> ListResourcesResult:
        return ListResourcesResult(resources=_resources.RESOURCES)

    async def list_templates(
        ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None
    ) -> ListResourceTemplatesResult:
        return ListResourceTemplatesResult(resource_templates=_resources.TEMPLATES)

    async def read_resource(
        ctx: ServerRequestContext[Any], params: ReadResourceRequestParams
    ) -> ReadResourceResult:
        contents = await _resources.read(tools, user_or_refuse(), str(params.uri))
        return ReadResourceResult(contents=[contents])

    async def list_prompts(
        ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None
    ) -> ListPromptsResult:
        return ListPromptsResult(prompts=[_resources.RECALL])

    async def get_prompt(
        ctx: ServerRequestContext[Any], params: GetPromptRequestParams
    ) -> GetPromptResult:
        if params.name != _resources.RECALL.name:
            raise MCPError(code=INVALID_PARAMS, message=f"unknown prompt {params.name!r}")
        topic = (params.arguments or {}).get("topic")
        return await _resources.recall(tools, user_or_refuse(), topic)

    return Server(
        name,
        version=__version__,
        title="zepkit memory",
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_list_resource_templates=list_templates,
        on_read_resource=read_resource,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
    )
