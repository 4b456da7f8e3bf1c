"""Projects: each API key opens one project, and each project is its own memory. On the local
engine that is a database file of its own in the data folder (`<project>.db`); on any other
backend (a `MemoryFactory`'s `MemoryLoop` per project) it is the project's namespace in that
store (see `zepkit.server.namespace`). The UUIDs the wire hands out are kept per project in
`<project>.ids.db`. No query can cross projects."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from zepkit.core import MemoryLoop
from zepkit.core.spi import Backend, UserProfile
from zepkit.server.errors import not_found
from zepkit.server.namespace import ProjectNamespace
from zepkit.server.registry import Registry, UserRow

PROJECT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
BackendFactory = Callable[[Path], Backend]
"""A backend of its own for one project, from the path of the project's database."""
MemoryFactory = Callable[[str], MemoryLoop]
"""The memory of a project, from its name: any backend, several projects possibly sharing one
store (the server keeps them apart by prefixing ids with the project's name)."""
RetrieverMode = Literal["auto", "lexical", "hybrid"]


def local_backend(retriever: RetrieverMode = "auto") -> BackendFactory:
    """The default: zepkit's embedded local engine, one SQLite file per project. Its calls run
    on the worker's event loop thread (`inline`): a worker does nothing else, and the hop to a
    thread of the engine's own cost about a fifth of a turn's CPU."""
    from zepkit.local import LocalBackend

    def make(path: Path) -> Backend:
        return LocalBackend(path, retriever=retriever, inline=True)

    return make


@dataclass
class Project:
    name: str
    backend: Backend
    registry: Registry
    memory: MemoryLoop | None = None
    """The loop that owns `backend`'s store, closed with the project (None: `backend` is)."""

    async def update_user(self, user: UserRow, fields: dict[str, Any]) -> UserRow:
        """Set the user's profile fields given (None: not given), in the backend's store first,
        then in the registry that answers for the wire."""
        given = {name: value for name, value in fields.items() if value is not None}
        if given:
            await self.backend.ensure_user(UserProfile(user.user_id, **given))
        updated = self.registry.update_user(user.uuid, given)
        if updated is None:  # deleted meanwhile
            raise not_found("user")
        return updated

    async def aclose(self) -> None:
        if self.memory is not None:
            await self.memory.aclose()
        else:
            await self.backend.aclose()
        self.registry.close()


class Projects:
    """Opens each project's backend and registry on first use; closes them all at shutdown.
    With `memory_factory`, each project's backend is its loop's, in the project's namespace;
    otherwise `backend_factory` (default: the local engine) opens a database per project."""

    def __init__(
        self,
        folder: str | Path,
        backend_factory: BackendFactory | None = None,
        memory_factory: MemoryFactory | None = None,
    ) -> None:
        if backend_factory is not None and memory_factory is not None:
            raise ValueError("pass backend_factory or memory_factory, not both")
        self.folder = Path(folder)
        self._factory = backend_factory or local_backend()
        self._memory_factory = memory_factory
        self._open: dict[str, Project] = {}
        self._lock = asyncio.Lock()

    async def get(self, name: str) -> Project:
        found = self._open.get(name)
        if found is not None:
            return found
        async with self._lock:
            if name not in self._open:
                if not PROJECT_NAME.fullmatch(name):
                    raise ValueError(f"invalid project name {name!r}")
                self.folder.mkdir(parents=True, exist_ok=True)
                self._open[name] = self._make(name)
            return self._open[name]

    def _make(self, name: str) -> Project:
        registry = Registry(self.folder / f"{name}.ids.db", name)
        try:
            if self._memory_factory is None:
                return Project(name, self._factory(self.folder / f"{name}.db"), registry)
            memory = self._memory_factory(name)
            if not isinstance(memory, MemoryLoop):
                raise TypeError(f"a memory factory must return a MemoryLoop, got {memory!r}")
        except BaseException:
            registry.close()
            raise
        return Project(name, ProjectNamespace(memory.backend, name), registry, memory)

    async def aclose(self) -> None:
        async with self._lock:
            for project in self._open.values():
                await project.aclose()
            self._open.clear()
