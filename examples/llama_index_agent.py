"""A LlamaIndex agent with zepkit memory: a `ZepMemoryBlock` in each conversation's `Memory`
puts the user's long-term context into a system message of every model call of a run and
remembers each turn and final reply; `search_tool` lets the model search memory.

One agent object serves every user: who a run belongs to comes from the `Memory` it is given
(`zep_memory(memory, user_id=..., thread_id=...)`). Runs offline: a scripted function-calling LLM
stands in for a real one and memory is the embedded engine. Swap in any real LLM
(`OpenAI(model="gpt-5.2")`, ...) and nothing else changes.

Run: python examples/llama_index_agent.py
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Any

from llama_index.core.agent.workflow import FunctionAgent
from llama_index.core.llms import ChatMessage, ChatResponse, LLMMetadata, MessageRole
from llama_index.core.llms.function_calling import FunctionCallingLLM
from llama_index.core.llms.llm import ToolSelection

from zepkit.core import MemoryLoop
from zepkit.llama_index import search_tool, zep_memory

memory_messages_seen: list[str] = []


class ScriptedLLM(FunctionCallingLLM):
    """Stands in for an LLM: searches memory once when asked a question, then answers."""

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(is_chat_model=True, is_function_calling_model=True)

    def respond(self, messages: Sequence[ChatMessage]) -> ChatResponse:
        systems = [m.content or "" for m in messages if m.role == MessageRole.SYSTEM]
        memory_messages_seen.append("\n".join(s for s in systems if "<memory>" in s))
        prompt = next(m.content or "" for m in messages if m.role == MessageRole.USER)
        results = [m.content or "" for m in messages if m.role == MessageRole.TOOL]
        if not prompt.endswith("?"):
            text = "Noted, thanks!"
        elif not results:
            call = {"name": "search_memory", "args": {"query": "peanuts"}}
            message = ChatMessage(role=MessageRole.ASSISTANT, additional_kwargs={"calls": [call]})
            return ChatResponse(message=message)
        else:
            text = f"From memory:\n{results[-1]}"
        return ChatResponse(message=ChatMessage(role=MessageRole.ASSISTANT, content=text))

    def chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponse:
        return self.respond(messages)

    async def achat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponse:
        return self.respond(messages)

    def stream_chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> Iterator[ChatResponse]:
        yield self.respond(messages)

    async def astream_chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> Any:
        response = self.respond(messages)

        async def stream() -> AsyncIterator[ChatResponse]:
            yield response

        return stream()

    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> Any:
        raise NotImplementedError("this stand-in only chats")

    stream_complete = complete

    async def acomplete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> Any:
        raise NotImplementedError("this stand-in only chats")

    astream_complete = acomplete

    def _prepare_chat_with_tools(
        self, tools: Sequence[Any], chat_history: list[ChatMessage] | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        return {"messages": chat_history or []}

    def get_tool_calls_from_response(
        self, response: ChatResponse, error_on_no_tool_call: bool = True, **kwargs: Any
    ) -> list[ToolSelection]:
        calls = response.message.additional_kwargs.get("calls", [])
        return [
            ToolSelection(tool_id="c1", tool_name=c["name"], tool_kwargs=c["args"]) for c in calls
        ]


async def main() -> None:
    async with MemoryLoop.local(":memory:") as memory:
        agent = FunctionAgent(
            llm=ScriptedLLM(),
            tools=[search_tool(memory)],  # the user comes from the run's Memory, not the model
            system_prompt="You are a friendly cooking assistant.",
        )
        monday = zep_memory(memory, user_id="ana", thread_id="monday")
        await agent.run("I'm allergic to peanuts and I love Thai food.", memory=monday)

        # Tuesday, a new conversation: the first model call already carries Monday's facts, and
        # the model's memory search is scoped to Ana by the run's Memory, never by the model.
        memory_messages_seen.clear()
        tuesday = zep_memory(memory, user_id="ana", thread_id="tuesday")
        result = await agent.run("Can you suggest a Thai dinner for me?", memory=tuesday)
        print("Memory message of Tuesday's first model call:\n")
        print(memory_messages_seen[0])
        print(f"\nReply:\n{result.response.content}")
        assert len(memory_messages_seen) == 2  # the search, then the answer
        assert all("peanuts" in text for text in memory_messages_seen)
        assert "peanuts" in str(result.response.content)

        # Same agent, another user: nothing of Ana's reaches Ben.
        memory_messages_seen.clear()
        ben = zep_memory(memory, user_id="ben", thread_id="ben-1")
        other = await agent.run("Can you suggest a Thai dinner for me?", memory=ben)
        assert not any("peanuts" in text for text in memory_messages_seen)
        assert "peanuts" not in str(other.response.content)

        stored = await memory.get_messages("tuesday")
        assert [m.role for m in stored] == ["user", "assistant"]
        assert all("ZEP_CONTEXT" not in (m.content or "") for m in await tuesday.aget_all())
        print(f"\nBen's reply (no memory of Ana): {other.response.content!r}")


if __name__ == "__main__":
    asyncio.run(main())
