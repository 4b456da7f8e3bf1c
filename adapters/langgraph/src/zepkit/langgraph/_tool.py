"""The core's search tool as a LangChain `StructuredTool`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from langchain_core.tools import StructuredTool

from zepkit.core import Identity, SearchTool

IdentitySource = Callable[[], Identity | None]


def as_structured_tool(search: SearchTool, identity: IdentitySource) -> StructuredTool:
    """Wrap `search` with the core's JSON schema; `identity` is asked on every call, so the
    target user comes from the run (or a fixed identity), never from the model."""

    def run(**args: Any) -> str:
        return search.call_sync(args, identity())

    async def arun(**args: Any) -> str:
        return await search.call(args, identity())

    return StructuredTool.from_function(
        func=run,
        coroutine=arun,
        name=search.name,
        description=search.description,
        args_schema=search.parameters,
    )
