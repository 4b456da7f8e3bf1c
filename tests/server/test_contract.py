"""zepkit's `ZepBackend` (the real zep-cloud 4.x SDK) pointed at the server passes the same
backend contract as the local engine it serves from."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from zepkit.testing import BackendContract
from zepkit.zep import ZepBackend


class TestZepBackendOnTheServer(BackendContract):
    @pytest.fixture
    async def backend(self, server: Any) -> AsyncIterator[ZepBackend]:
        backend = ZepBackend.from_api_key(server.alpha_key, base_url=server.v4, max_retries=0)
        yield backend
        await backend.aclose()
