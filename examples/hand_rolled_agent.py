"""The memory loop inside an agent loop you write yourself, with the model-callable search tool.

A scripted model stands in for an LLM, so this runs offline. It shows what every zepkit adapter
does for its framework: inject the block before each model call (persisting the user's message
once per turn), let the model call the search tool, and capture the final reply.

Run: python examples/hand_rolled_agent.py
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Any

from zepkit.core import Identity, MemoryLoop


@dataclass
class ModelStep:
    """One scripted model response: a tool call or a final answer."""

    tool_args: dict[str, Any] | None = None
    text: str = ""


class ScriptedModel:
    def __init__(self, steps: list[ModelStep]) -> None:
        self.steps = steps
        self.prompts: list[str] = []

    def __call__(self, system: str, transcript: list[str]) -> ModelStep:
        self.prompts.append(system)
        return self.steps.pop(0)


async def run_turn(
    memory: MemoryLoop, model: ScriptedModel, identity: Identity, text: str, turn_id: str
) -> str:
    search = memory.search_tool()
    transcript = [f"user: {text}"]
    while True:
        block = await memory.begin_turn(identity, text, turn_id=turn_id)  # once per turn
        step = model(f"You are a helpful travel agent.\n\n{block}".strip(), transcript)
        if step.tool_args is None:
            await memory.capture_reply(identity, step.text, turn_id=turn_id)
            return step.text
        result = await search.call(step.tool_args, identity)
        transcript.append(f"tool {search.name}({json.dumps(step.tool_args)}): {result}")


async def main() -> None:
    async with MemoryLoop.local(":memory:") as memory:
        first = Identity(user_id="traveller", thread_id="trip-planning-1", first_name="Ravi")
        model = ScriptedModel([ModelStep(text="Noted, window seats and vegetarian meals.")])
        await run_turn(
            memory, model, first, "I always want a window seat and I'm vegetarian.", turn_id="t1"
        )

        second = first.model_copy(update={"thread_id": "trip-planning-2"})
        model = ScriptedModel(
            [
                ModelStep(tool_args={"query": "seat preference", "scope": "edges"}),
                ModelStep(text="Booked: window seat, vegetarian meal."),
            ]
        )
        reply = await run_turn(memory, model, second, "Book my flight seat and meal.", "t2")
        print("System prompt of the second session's first model call:\n")
        print(model.prompts[0])
        print(f"\nReply: {reply}")
        assert "window seat" in model.prompts[0] and "window seat" in model.prompts[1]
        stored = await memory.get_messages("trip-planning-2")
        assert [m.role for m in stored] == ["user", "assistant"]


if __name__ == "__main__":
    asyncio.run(main())
