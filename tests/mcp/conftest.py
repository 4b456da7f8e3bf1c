"""A local memory with two users, Alice and Bob, each with a thread and a note, and the MCP
server over it, reached by the SDK's own client."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from zepkit.core import Identity, MemoryLoop

ALICE = Identity(user_id="alice", thread_id="alice-trip", first_name="Alice")
BOB = Identity(user_id="bob", thread_id="bob-garden", first_name="Bob")
ALICE_SAYS = "My brother Tobias plays the trombone in Vienna."
BOB_SAYS = "My tomatoes in Rotterdam got blight this summer."


async def seed(memory: MemoryLoop) -> None:
    await memory.begin_turn(ALICE, ALICE_SAYS)
    await memory.capture_reply(ALICE, "A trombonist in the family, lovely.")
    await memory.begin_turn(BOB, BOB_SAYS)
    await memory.add_data("Bob keeps bees on his allotment.", user_id=BOB.user_id)


@pytest.fixture
async def memory(tmp_path: Path) -> AsyncIterator[MemoryLoop]:
    loop = MemoryLoop.local(tmp_path / "memory.db", on_error="raise")
    await seed(loop)
    yield loop
    await loop.aclose()
