"""The adapter contract on LangGraph's real runtimes: a hand-written `StateGraph` using the node
helpers, and `create_agent` with `ZepMemoryMiddleware`, each invoked async and sync."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, TypedDict

import pytest
from langchain.agents import create_agent
from langchain_core.messages import AnyMessage, HumanMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.utils.function_calling import convert_to_openai_tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.prebuilt import ToolNode, tools_condition

from zepkit.core import MemoryLoop
from zepkit.langgraph import (
    ZepMemoryMiddleware,
    build_system_message,
    build_system_message_sync,
    persist_messages,
    persist_messages_sync,
    search_tool,
    search_tool_sync,
)
from zepkit.testing import AdapterContract, AdapterHarness, TurnResult

INSTRUCTIONS = "You are a helpful assistant."


class State(TypedDict):
    messages: Annotated[list[AnyMessage], add_messages]


def _ids(config: RunnableConfig) -> dict[str, str]:
    configurable = config["configurable"]
    return {"thread_id": configurable["thread_id"], "user_id": configurable["user_id"]}


class StateGraphHarness:
    """A graph a user would write: remember the user turn, answer (with tools), save the reply."""

    supports_tools = True

    def __init__(self, memory: MemoryLoop, make_model: Callable[..., Any], *, sync: bool) -> None:
        self.memory = memory
        self.make_model = make_model
        self.sync = sync
        self.checkpointer = InMemorySaver()

    async def run_turn(
        self,
        *,
        user_id: str,
        thread_id: str,
        text: str,
        reply: str,
        tool_queries: Sequence[str] = (),
    ) -> TurnResult:
        model = self.make_model(reply, tool_queries)
        memory = self.memory
        graph = StateGraph(State)
        if self.sync:
            tool = search_tool_sync(memory, user_id=user_id)

            def remember(state: State, config: RunnableConfig) -> dict[str, Any]:
                persist_messages_sync(memory, messages=state["messages"][-1:], **_ids(config))
                return {}

            def agent(state: State, config: RunnableConfig) -> dict[str, Any]:
                system = build_system_message_sync(
                    memory, base_instructions=INSTRUCTIONS, **_ids(config)
                )
                return {"messages": [model.invoke([system, *state["messages"]])]}

            graph.add_node("remember", remember)
            graph.add_node("agent", agent)
            graph.add_node("save", remember)
        else:
            tool = await search_tool(memory, user_id=user_id)

            async def aremember(state: State, config: RunnableConfig) -> dict[str, Any]:
                await persist_messages(memory, messages=state["messages"][-1:], **_ids(config))
                return {}

            async def aagent(state: State, config: RunnableConfig) -> dict[str, Any]:
                system = await build_system_message(
                    memory, base_instructions=INSTRUCTIONS, **_ids(config)
                )
                return {"messages": [await model.ainvoke([system, *state["messages"]])]}

            graph.add_node("remember", aremember)
            graph.add_node("agent", aagent)
            graph.add_node("save", aremember)
        graph.add_node("tools", ToolNode([tool]))
        graph.add_edge(START, "remember")
        graph.add_edge("remember", "agent")
        graph.add_conditional_edges("agent", tools_condition, {"tools": "tools", END: "save"})
        graph.add_edge("tools", "agent")
        graph.add_edge("save", END)
        compiled = graph.compile(checkpointer=self.checkpointer)
        config: RunnableConfig = {"configurable": {"thread_id": thread_id, "user_id": user_id}}
        state = {"messages": [HumanMessage(text)]}
        if self.sync:
            result = compiled.invoke(state, config)
        else:
            result = await compiled.ainvoke(state, config)
        return TurnResult(reply=result["messages"][-1].text, model_inputs=list(model.inputs))


@dataclass
class RunContext:
    user_id: str


class AgentHarness:
    """`create_agent` with the middleware: identity from the runtime context (async runs) or
    from `configurable` (sync runs)."""

    supports_tools = True

    def __init__(self, memory: MemoryLoop, make_model: Callable[..., Any], *, sync: bool) -> None:
        self.memory = memory
        self.middleware = ZepMemoryMiddleware(memory)
        self.make_model = make_model
        self.sync = sync
        self.checkpointer = InMemorySaver()

    async def run_turn(
        self,
        *,
        user_id: str,
        thread_id: str,
        text: str,
        reply: str,
        tool_queries: Sequence[str] = (),
    ) -> TurnResult:
        model = self.make_model(reply, tool_queries)
        agent = create_agent(
            model,
            tools=[],
            system_prompt=INSTRUCTIONS,
            middleware=[self.middleware],
            context_schema=RunContext,
            checkpointer=self.checkpointer,
        )
        state = {"messages": [{"role": "user", "content": text}]}
        if self.sync:
            config: RunnableConfig = {"configurable": {"thread_id": thread_id, "user_id": user_id}}
            result = agent.invoke(state, config, context=RunContext(user_id=user_id))
        else:
            result = await agent.ainvoke(
                state, {"configurable": {"thread_id": thread_id}}, context=RunContext(user_id)
            )
        return TurnResult(reply=result["messages"][-1].text, model_inputs=list(model.inputs))

    async def search_tool_schema(self, **pinned: Any) -> dict[str, Any]:
        """The tool as LangChain converts it for a chat model."""
        (tool,) = ZepMemoryMiddleware(self.memory, **pinned).tools
        function: dict[str, Any] = convert_to_openai_tool(tool)["function"]
        return function

    async def run_turn_without_identity(self, *, text: str, reply: str) -> TurnResult:
        """No user in the runtime context or `configurable`, and no thread: no checkpointer."""
        model = self.make_model(reply, ())
        agent = create_agent(
            model, tools=[], system_prompt=INSTRUCTIONS, middleware=[self.middleware]
        )
        state = {"messages": [{"role": "user", "content": text}]}
        if self.sync:
            result = agent.invoke(state)
        else:
            result = await agent.ainvoke(state)
        return TurnResult(reply=result["messages"][-1].text, model_inputs=list(model.inputs))


class _WithModel(AdapterContract):
    framework_key = "langgraph"
    framework_modules = (
        "langchain.agents.middleware",
        "langchain_core.messages",
        "langgraph.store.base",
    )

    harness: Callable[..., AdapterHarness]
    sync: bool

    @pytest.fixture
    def make_harness(
        self, make_model: Callable[..., Any]
    ) -> Callable[[MemoryLoop], AdapterHarness]:
        return lambda memory: self.harness(memory, make_model, sync=self.sync)


class TestStateGraphAsync(_WithModel):
    harness, sync = StateGraphHarness, False


class TestStateGraphSync(_WithModel):
    harness, sync = StateGraphHarness, True


class TestAgentMiddlewareAsync(_WithModel):
    harness, sync = AgentHarness, False


class TestAgentMiddlewareSync(_WithModel):
    harness, sync = AgentHarness, True
