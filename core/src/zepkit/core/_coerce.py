"""What an adapter was given as memory, made a `MemoryLoop`: the loop itself, or a Zep Cloud client.

A `zep_cloud.AsyncZep` client is recognised by its class's name and package, without importing
the SDK here, and wrapped through `MemoryLoop.zep`, which imports the Zep backend only then. So
no adapter imports `zep_cloud`, and the core reaches the backend only where a loop is composed.
"""

from __future__ import annotations

import weakref

from zepkit.core._loop import MemoryLoop

# One loop per client while the loop is in use, so the pieces of one agent given the same client
# share the loop's turn cache and the Zep backend's thread-id map. Keyed by the client's id: the
# loop holds its client, so while an entry lives its id names that client alone.
_loops: weakref.WeakValueDictionary[int, MemoryLoop] = weakref.WeakValueDictionary()


def _is_zep_client(obj: object) -> bool:
    """Whether `obj` is a `zep_cloud` `AsyncZep` (or a subclass of it)."""
    return any(
        cls.__name__ == "AsyncZep" and cls.__module__.split(".")[0] == "zep_cloud"
        for cls in type(obj).__mro__
    )


def as_memory(memory: object) -> MemoryLoop:
    """`memory` itself when it is a `MemoryLoop`; for a `zep_cloud.AsyncZep` client, the one loop
    on Zep Cloud wrapping it (the client stays the caller's: zepkit never closes it); anything
    else is a `TypeError` naming what came instead."""
    if isinstance(memory, MemoryLoop):
        return memory
    if _is_zep_client(memory):
        loop = _loops.get(id(memory))
        if loop is None:
            loop = MemoryLoop.zep(client=memory)
            _loops[id(memory)] = loop
        return loop
    kind = type(memory)
    name = (
        kind.__qualname__
        if kind.__module__ == "builtins"
        else f"{kind.__module__}.{kind.__qualname__}"
    )
    hint = (
        " (a synchronous Zep client cannot serve the async loop: pass an AsyncZep)"
        if kind.__module__.split(".")[0] == "zep_cloud"
        else ""
    )
    raise TypeError(
        f"memory must be a zepkit MemoryLoop or a zep_cloud.AsyncZep client, got {name}{hint}"
    )
