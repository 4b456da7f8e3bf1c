"""The core's memory search tool as an Agno `Function` (Form B)."""

from __future__ import annotations

from typing import Any

from agno.run import RunContext
from agno.tools.function import Function

from zepkit.agno._identity import STAGE
from zepkit.core import SearchTool
from zepkit.core.spi import IdentityResolver


def search_function(search: SearchTool, resolver: IdentityResolver[RunContext]) -> Function:
    """One tool with the core's name, description and schema, shared by every run: the user comes
    from the calling run's context, never from the model's arguments."""

    async def search_memory(run_context: RunContext, **arguments: Any) -> str:
        identity = await resolver.resolve(run_context, search.loop.failsoft, STAGE, report=False)
        return await search.call(arguments, identity)

    return Function(
        name=search.name,
        description=search.description,
        parameters=search.parameters,
        entrypoint=search_memory,
        skip_entrypoint_processing=True,  # the schema is the core's, not one read from the code
    )
