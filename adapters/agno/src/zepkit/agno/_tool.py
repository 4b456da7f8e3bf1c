"""The core's memory search tool as an Agno `Function` (Form B)."""

from __future__ import annotations

from typing import Any

from agno.run import RunContext
from agno.tools.function import Function

from zepkit.agno._identity import STAGE
from zepkit.core import SearchTool
from zepkit.core.spi import IdentityResolver


def search_function(
    search: SearchTool, resolver: IdentityResolver[RunContext], *, sync: bool = False
) -> Function:
    """One tool with the core's name, description and schema, shared by every run: the user comes
    from the calling run's context, never from the model's arguments. `sync`: a blocking tool,
    for agents run with `run()`."""

    async def search_memory(run_context: RunContext, **arguments: Any) -> str:
        identity = await resolver.resolve(run_context, search.loop.failsoft, STAGE, report=False)
        return await search.call(arguments, identity)

    def search_memory_sync(run_context: RunContext, **arguments: Any) -> str:
        identity = resolver.resolve_now(run_context, search.loop.failsoft, STAGE, report=False)
        return search.call_sync(arguments, identity)

    return Function(
        name=search.name,
        description=search.description,
        parameters=search.parameters,
        entrypoint=search_memory_sync if sync else search_memory,
        skip_entrypoint_processing=True,  # the schema is the core's, not one read from the code
    )
