"""The checks every adapter makes on what it was given, written once with one wording."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from zepkit.core._loop import MemoryLoop
from zepkit.core._search_tool import SearchTool


def check_memory(memory: object) -> MemoryLoop:
    """`memory` itself when it is a `MemoryLoop`; a `TypeError` naming what came instead."""
    if not isinstance(memory, MemoryLoop):
        raise TypeError(f"memory must be a zepkit MemoryLoop, got {type(memory).__name__}")
    return memory


def search_tool_option(
    memory: object, search_tool: bool, pinned: Mapping[str, Any]
) -> SearchTool | None:
    """The adapter's search tool (None when `search_tool` is off), with `pinned` parameters;
    pinning a tool that is turned off is a mistake, not a no-op."""
    loop = check_memory(memory)
    if not search_tool:
        if pinned:
            raise ValueError(f"{sorted(pinned)} configure the search tool, but search_tool=False")
        return None
    return loop.search_tool(**pinned)
