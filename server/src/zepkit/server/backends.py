"""What `zepkit serve --backend` names: `local` (the default, one database per project in the
data folder), `zep` (Zep Cloud with `ZEP_API_KEY`, every project a namespace of that account),
or `module:callable`, a function of the project's name returning the project's `MemoryLoop`."""

from __future__ import annotations

import importlib
import os
from pathlib import Path

from zepkit.core import MemoryLoop
from zepkit.server.projects import MemoryFactory


class BackendChoiceError(ValueError):
    """A `--backend` value that cannot serve (the message says why)."""


def zep_memory(folder: Path, api_key: str | None = None) -> MemoryFactory:
    """Each project on Zep Cloud through `MemoryLoop.zep`, its thread and graph ids kept in
    `<project>.zep-ids.db` in the data folder so they survive restarts. No outbox: a write
    Zep cannot take fails on the wire, where the client sees it and retries."""
    key = api_key if api_key is not None else os.environ.get("ZEP_API_KEY", "")
    if not key.strip():
        raise BackendChoiceError("--backend zep needs ZEP_API_KEY in the environment")

    def zep_project_memory(project: str) -> MemoryLoop:
        from zepkit.zep import SqliteIdMap

        id_map = SqliteIdMap(folder / f"{project}.zep-ids.db")
        return MemoryLoop.zep(key, id_map=id_map, outbox=None)

    return zep_project_memory


def imported_memory(spec: str) -> MemoryFactory:
    """The callable `module:name` names (imported now, so a typo fails at start-up)."""
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise BackendChoiceError(f"--backend {spec!r}: expected local, zep or module:callable")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise BackendChoiceError(f"--backend {spec!r}: cannot import {module_name}: {exc}") from exc
    found: object = module
    for part in attribute.split("."):
        found = getattr(found, part, None)
        if found is None:
            raise BackendChoiceError(f"--backend {spec!r}: {module_name} has no {attribute}")
    if not callable(found):
        raise BackendChoiceError(f"--backend {spec!r}: {attribute} is not callable")
    factory: MemoryFactory = found
    return factory


def memory_factory(choice: str, folder: Path) -> MemoryFactory | None:
    """The factory for a `--backend` value; None for `local` (the server's own default)."""
    if choice == "local":
        return None
    if choice == "zep":
        return zep_memory(folder)
    return imported_memory(choice)
