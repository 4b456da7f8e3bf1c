"""`ZepBackend` over the HTTP fake passes the backend contract, with each id map."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from zepkit.testing import BackendContract
from zepkit.zep import SqliteIdMap, ZepBackend
from zepkit.zep.testing import FakeZep


class TestZepBackendInMemory(BackendContract):
    @pytest.fixture
    async def backend(self) -> AsyncIterator[ZepBackend]:
        backend = ZepBackend(FakeZep().client(), owns_client=True, max_retries=0)
        yield backend
        await backend.aclose()


class TestZepBackendSqliteIdMap(BackendContract):
    @pytest.fixture
    async def backend(self, tmp_path: Path) -> AsyncIterator[ZepBackend]:
        id_map = SqliteIdMap(tmp_path / "zep-ids.db")
        backend = ZepBackend(FakeZep().client(), id_map=id_map, owns_client=True, max_retries=0)
        yield backend
        await backend.aclose()
