"""An AutoGen `AssistantAgent` with zepkit memory: `ZepMemory` gives every run the user's long-term
context (one block, replaced each run, never stacked), a memory search tool, and remembers the
conversation through `ZepChatCompletionContext`.

Runs offline: autogen-ext's `ReplayChatCompletionClient` replays scripted answers in place of an
LLM and memory is the embedded engine. Swap in any real model client and nothing else changes.

Run: python examples/autogen_agent.py   (needs autogen-agentchat and autogen-ext)
"""

from __future__ import annotations

import asyncio
import logging
import os

os.environ.setdefault("AUTOGEN_DISABLE_RUNTIME_TRACING", "true")

from autogen_agentchat.agents import AssistantAgent
from autogen_agentchat.messages import ToolCallExecutionEvent
from autogen_core import EVENT_LOGGER_NAME, FunctionCall
from autogen_core.models import CreateResult, ModelFamily, ModelInfo, RequestUsage, SystemMessage
from autogen_ext.models.replay import ReplayChatCompletionClient

from zepkit.autogen import ZepChatCompletionContext, ZepMemory
from zepkit.core import MemoryLoop

# the replay client warns about token counting on every call; nothing to see offline
logging.getLogger(EVENT_LOGGER_NAME).setLevel(logging.ERROR)

MODEL_INFO = ModelInfo(
    vision=False,
    function_calling=True,
    json_output=False,
    family=ModelFamily.UNKNOWN,
    structured_output=False,
)


def search(query: str) -> CreateResult:
    """A scripted model turn that calls the memory search tool."""
    call = FunctionCall(id="call-1", name="search_memory", arguments=f'{{"query": "{query}"}}')
    return CreateResult(
        finish_reason="function_calls",
        content=[call],
        usage=RequestUsage(prompt_tokens=0, completion_tokens=0),
        cached=False,
    )


def make_agent(
    memory: MemoryLoop, client: ReplayChatCompletionClient, user_id: str, thread_id: str
) -> AssistantAgent:
    """One agent per conversation: ZepMemory is bound to that user and thread."""
    zep = ZepMemory(memory, user_id=user_id, thread_id=thread_id, first_name="Ana")
    return AssistantAgent(
        "chef",
        model_client=client,
        system_message="You are a friendly cooking assistant.",
        memory=[zep],  # the block for each run
        model_context=ZepChatCompletionContext(zep),  # keeps it out of history, saves replies
        tools=[zep.search_tool()],  # searches this user's memory only
        reflect_on_tool_use=True,
    )


def memory_blocks(client: ReplayChatCompletionClient) -> list[int]:
    """How many memory blocks each model call received."""
    return [
        sum(isinstance(m, SystemMessage) and "<ZEP_CONTEXT>" in m.content for m in call["messages"])
        for call in client.create_calls
    ]


async def main() -> None:
    async with MemoryLoop.local(":memory:") as memory:
        replay = ReplayChatCompletionClient(["Noted, no peanuts!"], model_info=MODEL_INFO)
        monday = make_agent(memory, replay, "ana", "monday")
        await monday.run(task="I'm allergic to peanuts and I love Thai food.")

        # Tuesday, a new thread: every model call already carries Monday's facts, and the
        # model's search is bound to Ana by her ZepMemory, never chosen by the model.
        script = [
            search("peanuts"),
            "Try a peanut-free green curry.",
            "Then a Thai basil stir-fry.",
        ]
        client = ReplayChatCompletionClient(script, model_info=MODEL_INFO)
        tuesday = make_agent(memory, client, "ana", "tuesday")
        first = await tuesday.run(task="Which Thai dish should I cook tonight?")
        second = await tuesday.run(task="Another Thai dish without peanuts?")
        block = client.create_calls[0]["messages"][1].content
        print("Memory block on Tuesday:\n" + block + "\n")
        print("Memory blocks per model call over two runs:", memory_blocks(client))
        found = next(m for m in first.messages if isinstance(m, ToolCallExecutionEvent))
        print("Search tool returned:\n" + found.content[0].content + "\n")
        print("Replies:", first.messages[-1].to_text(), "/", second.messages[-1].to_text())
        assert "peanut" in block.lower()
        assert memory_blocks(client) == [1, 1, 1]  # one block per call, never stacked

        stored = [(m.role, m.content) for m in await memory.get_messages("tuesday")]
        print("Stored on Tuesday's thread:", stored)
        assert stored == [
            ("user", "Which Thai dish should I cook tonight?"),
            ("assistant", "Try a peanut-free green curry."),
            ("user", "Another Thai dish without peanuts?"),
            ("assistant", "Then a Thai basil stir-fry."),
        ]


if __name__ == "__main__":
    asyncio.run(main())
