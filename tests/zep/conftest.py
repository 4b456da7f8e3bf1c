"""Fixtures for the Zep backend tests: the HTTP-level fake and backends on it."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from zepkit.zep import ZepBackend
from zepkit.zep.testing import FakeZep


@pytest.fixture
def fake() -> FakeZep:
    return FakeZep()


@pytest.fixture
async def zep(fake: FakeZep) -> AsyncIterator[ZepBackend]:
    """A backend on the fake that owns its client, with no retries so faults surface at once."""
    backend = ZepBackend(fake.client(), owns_client=True, max_retries=0)
    yield backend
    await backend.aclose()
