"""The shared backend contract, run against the local engine (in memory and on a file)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from zepkit.local import LocalBackend
from zepkit.testing._backend_contract import BackendContract


class TestLocalBackendInMemory(BackendContract):
    @pytest.fixture
    async def backend(self) -> AsyncIterator[LocalBackend]:
        memory = LocalBackend(":memory:")
        yield memory
        await memory.aclose()


class TestLocalBackendOnFile(BackendContract):
    @pytest.fixture
    async def backend(self, tmp_path: Path) -> AsyncIterator[LocalBackend]:
        on_file = LocalBackend(tmp_path / "contract.sqlite")
        yield on_file
        await on_file.aclose()


class TestLocalBackendInline(BackendContract):
    @pytest.fixture
    async def backend(self, tmp_path: Path) -> AsyncIterator[LocalBackend]:
        inline = LocalBackend(tmp_path / "contract.sqlite", inline=True)
        yield inline
        await inline.aclose()
