"""Projects: each API key opens one project, and each project is its own memory, a database
file of its own in the data folder (`<project>.db`, ids in `<project>.ids.db`). Nothing is
shared between projects, so no query can cross them."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from zepkit.core.spi import Backend
from zepkit.server.registry import Registry

PROJECT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
BackendFactory = Callable[[Path], Backend]
RetrieverMode = Literal["auto", "lexical", "hybrid"]


def local_backend(retriever: RetrieverMode = "auto") -> BackendFactory:
    """The default: zepkit's embedded local engine, one SQLite file per project."""
    from zepkit.local import LocalBackend

    def make(path: Path) -> Backend:
        return LocalBackend(path, retriever=retriever)

    return make


@dataclass
class Project:
    name: str
    backend: Backend
    registry: Registry


class Projects:
    """Opens each project's backend and registry on first use; closes them all at shutdown."""

    def __init__(self, folder: str | Path, backend_factory: BackendFactory | None = None) -> None:
        self.folder = Path(folder)
        self._factory = backend_factory or local_backend()
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
                registry = Registry(self.folder / f"{name}.ids.db", name)
                backend = self._factory(self.folder / f"{name}.db")
                self._open[name] = Project(name, backend, registry)
            return self._open[name]

    async def aclose(self) -> None:
        async with self._lock:
            for project in self._open.values():
                await project.backend.aclose()
                project.registry.close()
            self._open.clear()
