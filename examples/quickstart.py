"""Memory in a few lines: two sessions of one user on the embedded local engine.

Run: python examples/quickstart.py   (offline; no account, no key)
"""

from __future__ import annotations

import asyncio
import os
import tempfile

from zepkit.core import Identity, MemoryLoop


async def main(db_path: str) -> None:
    async with MemoryLoop.local(db_path) as memory:
        monday = Identity(user_id="user-42", thread_id="monday", first_name="Ana")
        await memory.begin_turn(monday, "I'm training for the Porto marathon in October.")
        await memory.capture_reply(monday, "Good luck with the training!")

        tuesday = monday.model_copy(update={"thread_id": "tuesday"})
        block = await memory.begin_turn(tuesday, "How many weeks until my marathon?")
        print(block)  # goes into the system prompt of Tuesday's first model call
        assert "Porto marathon" in block

        facts = await memory.search("marathon", user_id="user-42")
        print([edge.fact for edge in facts.edges])


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as folder:
        asyncio.run(main(os.path.join(folder, "memory.db")))
