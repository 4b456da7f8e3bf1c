"""A Strands agent with zepkit memory: the `ZepMemory` hook provider puts the user's long-term
context in the system prompt of every model call, its search tool lets the model look further, and
the conversation is remembered.

A Strands agent is one conversation: who it talks to comes from its state (`user_id`,
`thread_id`), or from each call's `invocation_state`. One `ZepMemory` serves every agent.
Runs offline: a scripted `Model` stands in for an LLM and memory is the embedded engine. Pass a
real model (`Agent(model="...")`, Bedrock, OpenAI, ...) and nothing else changes.

Run: python examples/strands_agent.py
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncGenerator
from typing import Any

os.environ.setdefault("OTEL_SDK_DISABLED", "true")  # offline: no telemetry export

from strands import Agent
from strands.models import Model

from zepkit.core import MemoryLoop
from zepkit.strands import ZepMemory

prompts_seen: list[str] = []


class ScriptedModel(Model):
    """Stands in for an LLM: searches memory once when asked a question, then answers."""

    def update_config(self, **model_config: Any) -> None:
        pass

    def get_config(self) -> Any:
        return {}

    async def structured_output(self, *args: Any, **kwargs: Any) -> AsyncGenerator[Any, None]:
        raise NotImplementedError("this example has no structured output")
        yield

    async def stream(  # type: ignore[override]
        self, messages: Any, tool_specs: Any = None, system_prompt: str | None = None, **kw: Any
    ) -> AsyncGenerator[Any, None]:
        prompts_seen.append(system_prompt or "")
        blocks = [block for message in messages for block in message["content"]]
        prompt = next(b["text"] for m in messages if m["role"] == "user" for b in m["content"])
        returned = [b["toolResult"]["content"][0]["text"] for b in blocks if "toolResult" in b]
        yield {"messageStart": {"role": "assistant"}}
        if prompt.endswith("?") and not returned:
            call = {"toolUse": {"name": "search_memory", "toolUseId": "c1"}}
            yield {"contentBlockStart": {"start": call}}
            arguments = json.dumps({"query": "peanuts"})
            yield {"contentBlockDelta": {"delta": {"toolUse": {"input": arguments}}}}
            yield {"contentBlockStop": {}}
            yield {"messageStop": {"stopReason": "tool_use"}}
            return
        text = f"From memory:\n{returned[-1]}" if returned else "Noted, thanks!"
        yield {"contentBlockStart": {"start": {}}}
        yield {"contentBlockDelta": {"delta": {"text": text}}}
        yield {"contentBlockStop": {}}
        yield {"messageStop": {"stopReason": "end_turn"}}


def main() -> None:
    memory = MemoryLoop.local(":memory:")
    zep = ZepMemory(memory)  # one hook provider for every agent and user

    def agent_for(user_id: str, thread_id: str) -> Agent:
        return Agent(
            model=ScriptedModel(),
            system_prompt="You are a friendly cooking assistant.",
            hooks=[zep],
            tools=zep.tools,
            state={"user_id": user_id, "thread_id": thread_id},
            callback_handler=None,  # no printing of the stream
        )

    agent_for("ana", "monday")("I'm allergic to peanuts and I love Thai food.")

    # Tuesday, a new conversation: the first model call already carries Monday's facts, and the
    # model's memory search is scoped to Ana by the agent's state, never by the model.
    prompts_seen.clear()
    tuesday = agent_for("ana", "tuesday")
    reply = str(tuesday("Can you suggest a Thai dinner?")).strip()
    print("System prompt of Tuesday's first model call:\n")
    print(prompts_seen[0])
    print(f"\nReply:\n{reply}")
    assert len(prompts_seen) == 2  # the search, then the answer
    assert all("peanuts" in text for text in prompts_seen)
    assert "peanuts" in reply
    assert tuesday.system_prompt == "You are a friendly cooking assistant."  # the block is gone

    # Another user: nothing of Ana's reaches Ben.
    prompts_seen.clear()
    other = str(agent_for("ben", "ben-1")("Can you suggest a Thai dinner?")).strip()
    assert not any("peanuts" in text for text in prompts_seen)
    assert "peanuts" not in other

    stored = memory.sync.get_messages("tuesday")
    assert [m.role for m in stored] == ["user", "assistant"]
    print(f"\nBen's reply (no memory of Ana): {other!r}")
    memory.sync.close()


if __name__ == "__main__":
    main()
