"""Accept either a `MemoryLoop` or a `zep_cloud.AsyncZep` client wherever memory is passed."""

from __future__ import annotations

import weakref
from typing import TypeAlias

from zep_cloud.client import AsyncZep

from zepkit.core import MemoryLoop

MemoryLike: TypeAlias = MemoryLoop | AsyncZep

# One loop per client, so the context tool, the reply callback and the search tool of one agent
# share the loop's turn cache and the Zep backend's thread-id map.
_loops: weakref.WeakKeyDictionary[AsyncZep, MemoryLoop] = weakref.WeakKeyDictionary()


def as_memory_loop(memory: MemoryLike) -> MemoryLoop:
    """The `MemoryLoop` for `memory`: itself, or the one loop wrapping a Zep client."""
    if isinstance(memory, MemoryLoop):
        return memory
    if isinstance(memory, AsyncZep):
        loop = _loops.get(memory)
        if loop is None:
            loop = MemoryLoop.zep(client=memory)
            _loops[memory] = loop
        return loop
    raise TypeError(
        "memory must be a zepkit.core.MemoryLoop or a zep_cloud.AsyncZep client, "
        f"got {type(memory).__name__}"
    )
