from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from zepkit.core import Identity, MemoryLoop


@pytest.fixture
async def memory() -> AsyncIterator[MemoryLoop]:
    loop = MemoryLoop.local(":memory:")
    yield loop
    await loop.aclose()


@pytest.fixture
def alice() -> Identity:
    return Identity(user_id="alice", thread_id="alice-1", first_name="Alice")
