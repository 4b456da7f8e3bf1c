"""An OpenAI Agents SDK agent with zepkit memory: `ZepMemory.attach(agent)` gives every run the
user's long-term context in the instructions of each model call, a memory search tool, and
remembers the conversation.

One agent serves every user: who a run belongs to comes from the run's context (`Identity`).
Runs offline: a scripted `Model` stands in for an LLM and memory is the embedded engine. Drop the
`model=` argument (the SDK's default OpenAI model) and nothing else changes.

Run: python examples/openai_agents_agent.py
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from agents import Agent, ModelResponse, Runner, Usage, set_tracing_disabled
from agents.models.interface import Model
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)

from zepkit.core import Identity, MemoryLoop
from zepkit.openai_agents import ZepMemory

instructions_seen: list[str] = []


class ScriptedModel(Model):
    """Stands in for an LLM: searches memory once when asked a question, then answers."""

    async def get_response(
        self, system_instructions: str | None, input: Any, *args: Any, **kwargs: Any
    ) -> ModelResponse:
        instructions_seen.append(system_instructions or "")
        items = [{"role": "user", "content": input}] if isinstance(input, str) else input
        prompt = next(str(i["content"]) for i in items if i.get("role") == "user")
        returned = [i["output"] for i in items if i.get("type") == "function_call_output"]
        if not prompt.endswith("?"):
            output: Any = [reply("Noted, thanks!")]
        elif not returned:
            arguments = json.dumps({"query": "peanuts"})
            output = [
                ResponseFunctionToolCall(
                    arguments=arguments, call_id="c1", name="search_memory", type="function_call"
                )
            ]
        else:
            output = [reply(f"From memory:\n{returned[-1]}")]
        return ModelResponse(output=output, usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("this example does not stream")


def reply(text: str) -> ResponseOutputMessage:
    content = [ResponseOutputText(text=text, type="output_text", annotations=[])]
    return ResponseOutputMessage(
        id="m", content=content, role="assistant", status="completed", type="message"
    )


async def main() -> None:
    set_tracing_disabled(True)  # offline: no trace export
    async with MemoryLoop.local(":memory:") as memory:
        zep = ZepMemory(memory)  # one instance for every user and agent
        agent = zep.attach(
            Agent(
                name="cook",
                instructions="You are a friendly cooking assistant.",
                model=ScriptedModel(),
            )
        )
        ana_monday = Identity(user_id="ana", thread_id="monday", first_name="Ana")
        await Runner.run(agent, "I'm allergic to peanuts and I love Thai food.", context=ana_monday)

        # Tuesday, a new thread: the first model call already carries Monday's facts, and the
        # model's memory search is scoped to Ana by the run's context, never by the model.
        instructions_seen.clear()
        ana_tuesday = Identity(user_id="ana", thread_id="tuesday", first_name="Ana")
        result = await Runner.run(agent, "Can you suggest a Thai dinner?", context=ana_tuesday)
        print("Instructions of Tuesday's first model call:\n")
        print(instructions_seen[0])
        print(f"\nReply:\n{result.final_output}")
        assert len(instructions_seen) == 2  # the search, then the answer
        assert all("peanuts" in text for text in instructions_seen)
        assert "peanuts" in result.final_output

        # Same agent, another user: nothing of Ana's reaches Ben.
        instructions_seen.clear()
        ben = Identity(user_id="ben", thread_id="ben-1")
        other = await Runner.run(agent, "Can you suggest a Thai dinner?", context=ben)
        assert not any("peanuts" in text for text in instructions_seen)
        assert "peanuts" not in other.final_output

        stored = await memory.get_messages("tuesday")
        assert [m.role for m in stored] == ["user", "assistant"]
        print(f"\nBen's reply (no memory of Ana): {other.final_output!r}")


if __name__ == "__main__":
    asyncio.run(main())
