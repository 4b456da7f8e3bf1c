"""A LangChain `create_agent` agent with zepkit memory: what the user said in one thread is in
the model's input in the next.

Offline by default (a scripted model, the embedded engine in memory). With OPENAI_API_KEY set it
uses a real OpenAI model instead (needs `pip install langchain-openai`).

Run: python examples/langgraph_agent.py
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Sequence
from typing import Any

from langchain.agents import create_agent
from langchain_core.callbacks import AsyncCallbackHandler
from langchain_core.language_models import BaseChatModel
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langgraph.checkpoint.memory import InMemorySaver

from zepkit.core import MemoryLoop
from zepkit.langgraph import ZepMemoryMiddleware

FIRST = "I'm flying to Kyoto in April, and I never eat shellfish."
SECOND = "Which dinner in Kyoto would you suggest for me?"


class ScriptedModel(GenericFakeChatModel):
    """Stands in for a chat model: answers with the scripted messages, in order."""

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ScriptedModel:
        return self


class PromptRecorder(AsyncCallbackHandler):
    """Keeps the system message of every model call, to show what the model was given."""

    def __init__(self) -> None:
        self.system_prompts: list[str] = []

    async def on_chat_model_start(
        self, serialized: dict[str, Any], messages: list[list[BaseMessage]], **kwargs: Any
    ) -> None:
        self.system_prompts += [m.text for batch in messages for m in batch if m.type == "system"]


def make_model() -> BaseChatModel:
    if os.environ.get("OPENAI_API_KEY"):
        from langchain.chat_models import init_chat_model

        return init_chat_model("openai:gpt-4o-mini")
    steps = [
        AIMessage("Noted: Kyoto in April, no shellfish."),
        AIMessage(
            "", tool_calls=[{"name": "search_memory", "args": {"query": "shellfish"}, "id": "c1"}]
        ),
        AIMessage("Try a kaiseki dinner in Gion, with no shellfish courses."),
    ]
    return ScriptedModel(messages=iter(steps))


async def main() -> None:
    async with MemoryLoop.local(":memory:") as memory:
        agent = create_agent(
            make_model(),
            system_prompt="You are a concise travel assistant.",
            middleware=[ZepMemoryMiddleware(memory)],
            checkpointer=InMemorySaver(),
        )
        for thread_id, text in (("trip-1", FIRST), ("trip-2", SECOND)):
            recorder = PromptRecorder()
            config: Any = {
                "configurable": {"thread_id": thread_id, "user_id": "traveller-7"},
                "callbacks": [recorder],
            }
            result = await agent.ainvoke({"messages": [{"role": "user", "content": text}]}, config)
            print(f"[{thread_id}] user: {text}\n[{thread_id}] agent: {result['messages'][-1].text}")

        print("\nSystem message of the second thread's first model call:\n")
        print(recorder.system_prompts[0])
        assert "never eat shellfish" in recorder.system_prompts[0]  # from the first thread
        stored = await memory.get_messages("trip-2")
        assert [m.role for m in stored] == ["user", "assistant"]


if __name__ == "__main__":
    asyncio.run(main())
