from __future__ import annotations

import asyncio

from zepkit.core import Identity, MemoryLoop, Message


def test_sync_facade_outside_an_event_loop() -> None:
    memory = MemoryLoop.local(":memory:")
    sync = memory.sync
    assert sync.ensure_user("u") is True
    assert sync.ensure_thread("t", user_id="u") is True
    sync.add_messages("t", [Message("user", "I play the cello in an orchestra.")])
    assert [m.content for m in sync.get_messages("t")] == ["I play the cello in an orchestra."]
    assert sync.search("cello", user_id="u").edges
    sync.close()


async def test_sync_facade_inside_a_running_event_loop() -> None:
    memory = MemoryLoop.local(":memory:")
    identity = Identity(user_id="u", thread_id="t")
    # a blocking call made from a coroutine, as CrewAI or Jupyter code does
    memory.sync.begin_turn(identity, "My cat is called Pixel.", turn_id="1")
    assert memory.sync.capture_reply(identity, "Cute!", turn_id="1") is True
    # and the async API keeps working on this loop, over the same backend
    assert [m.role for m in await memory.get_messages("t")] == ["user", "assistant"]
    await memory.aclose()


def test_repeated_sync_use_across_fresh_event_loops() -> None:
    memory = MemoryLoop.local(":memory:")
    identity = Identity(user_id="u", thread_id="t")
    for i in range(10):  # each asyncio.run makes and closes a loop; the facade must not care
        asyncio.run(asyncio.sleep(0))
        memory.sync.begin_turn(identity, f"message {i}", turn_id=str(i))
    assert len(memory.sync.get_messages("t")) == 10
    memory.sync.close()


def test_arun_keeps_every_call_on_the_private_loop_across_event_loops() -> None:
    memory = MemoryLoop.local(":memory:")
    seen: set[int] = set()

    async def where() -> int:
        return id(asyncio.get_running_loop())

    async def app_turn(i: int) -> None:
        seen.add(await memory.sync.arun(where()))
        identity = Identity(user_id="u", thread_id="t")
        await memory.sync.arun(memory.begin_turn(identity, f"turn {i}", turn_id=str(i)))

    for i in range(5):  # five separate app event loops
        asyncio.run(app_turn(i))
    assert len(seen) == 1  # all work ran on one loop: the facade's
    assert len(memory.sync.get_messages("t")) == 5
    memory.sync.close()
