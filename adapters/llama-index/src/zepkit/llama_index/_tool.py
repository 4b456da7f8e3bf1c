"""The core's memory search tool as a LlamaIndex `FunctionTool` (Form B).

No `from __future__ import annotations` here: LlamaIndex finds the workflow `Context` parameter by
its evaluated annotation.
"""

import copy
from typing import Any

from llama_index.core.tools import FunctionTool, ToolMetadata
from llama_index.core.workflow import Context
from pydantic import BaseModel, ConfigDict

from zepkit.core import Identity, MemoryLoop
from zepkit.core.spi import search_tool_option
from zepkit.llama_index._block import ZepMemoryBlock


def _arguments_model(schema: dict[str, Any]) -> type[BaseModel]:
    """A pydantic model that describes itself with the core's JSON schema, as LlamaIndex asks of
    a tool's `fn_schema`; the core validates the arguments itself."""

    class SearchArguments(BaseModel):
        model_config = ConfigDict(extra="allow")

        @classmethod
        def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
            return copy.deepcopy(schema)

    return SearchArguments


async def run_identity(ctx: Context) -> Identity | None:
    """The identity of the run's memory: the first `ZepMemoryBlock` of the `Memory` it uses."""
    run_memory = await ctx.store.get("memory", default=None)
    blocks = getattr(run_memory, "memory_blocks", None) or []
    block = next((b for b in blocks if isinstance(b, ZepMemoryBlock)), None)
    if block is None:
        return None
    return await block.resolve_identity(getattr(run_memory, "session_id", None))


def search_tool(memory: MemoryLoop, **pinned: Any) -> FunctionTool:
    """The memory search tool for a LlamaIndex agent (`FunctionAgent(tools=[...])`), shared by all
    runs: the user is the one of the run's `Memory` (its `ZepMemoryBlock`), never a model
    argument. `**pinned` (and `graph_id=`) go to `memory.search_tool(...)`."""
    search = search_tool_option(memory, True, pinned)
    assert search is not None

    async def search_memory(ctx: Context, **arguments: Any) -> str:
        return await search.call(arguments, await run_identity(ctx))

    metadata = ToolMetadata(
        name=search.name,
        description=search.description,
        fn_schema=_arguments_model(search.parameters),
    )
    return FunctionTool(async_fn=search_memory, metadata=metadata)
