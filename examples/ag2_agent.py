"""An AG2 1.x agent with zepkit memory: one `zep_memory_plugin` gives every turn the user's
long-term context in the prompt, adds a memory search tool, and remembers the conversation.

One agent object serves every user: who a run belongs to comes from its `variables`.
Runs offline: AG2's scripted `TestConfig` stands in for an LLM and memory is the embedded engine.
Pass any real model config (`config=` on the `Agent` or per `ask`) and nothing else changes.

Run: python examples/ag2_agent.py
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from ag2 import Agent
from ag2.events import ToolCallEvent, ToolResultEvent
from ag2.testing import TestConfig

from zepkit.ag2 import zep_memory_plugin
from zepkit.core import MemoryLoop


class PromptLog:
    """A scripted model (AG2's `TestConfig`) that keeps the prompt each model call was sent."""

    def __init__(self, *script: Any) -> None:
        self.config = TestConfig(*script)
        self.prompts: list[str] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.config, name)

    def create(self) -> Any:
        client = self.config.create()

        async def call(messages: Any, context: Any, **kwargs: Any) -> Any:
            self.prompts.append("\n".join(context.prompt))
            return await client(messages, context=context, **kwargs)

        return call


async def main() -> None:
    async with MemoryLoop.local(":memory:") as memory:
        agent = Agent(
            "cook",
            "You are a friendly cooking assistant.",
            plugins=[zep_memory_plugin(memory)],
        )
        monday = {"user_id": "ana", "thread_id": "monday"}
        await agent.ask(
            "I'm allergic to peanuts and I love Thai food.",
            config=PromptLog("Noted, thanks!"),
            variables=monday,
        )

        # Tuesday, a new thread: the prompt already carries Monday's facts, and the model's
        # memory search is scoped to Ana by the run's variables, never by the model.
        tuesday = {"user_id": "ana", "thread_id": "tuesday"}
        search = ToolCallEvent("search_memory", arguments=json.dumps({"query": "peanuts"}))
        config = PromptLog(search, "Try a green curry with cashews instead of peanuts.")
        reply = await agent.ask(
            "Can you suggest a Thai dinner for me?", config=config, variables=tuesday
        )
        print(f"Prompt of Tuesday's first model call:\n\n{config.prompts[0]}\n")
        events = await reply.history.get_events()
        found = [str(e.result.parts[0].content) for e in events if isinstance(e, ToolResultEvent)]
        print(f"Memory search result: {found}")
        print(f"Reply: {reply.body}")
        assert len(config.prompts) == 2  # the search, then the answer
        assert all("peanuts" in prompt for prompt in config.prompts)
        assert found and "peanuts" in found[0]
        stored = await memory.get_messages("tuesday")
        assert [m.role for m in stored] == ["user", "assistant"]

        # Ben shares the agent but never sees Ana's memory.
        ben = PromptLog("I don't know your allergies yet.")
        await agent.ask("Do I have allergies?", config=ben, variables={"user_id": "ben"})
        assert ben.prompts and all("peanuts" not in prompt for prompt in ben.prompts)
        print(f"Ben's prompt (no memory of Ana): {ben.prompts}")


if __name__ == "__main__":
    asyncio.run(main())
