"""LangChain messages -> zepkit messages, and the user turn a list of messages ends with."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from zepkit.core import Message


@dataclass(frozen=True)
class UserTurn:
    """The latest human message of a run: its text and an id naming the turn."""

    text: str
    turn_id: str | None


def latest_user_turn(messages: Sequence[BaseMessage]) -> UserTurn | None:
    """The last human message; its id (LangGraph's `add_messages` gives every message one) is
    the turn id, so every model call of a tool loop maps to the same turn."""
    for message in reversed(messages):
        if isinstance(message, HumanMessage):
            return UserTurn(message.text, message.id)
    return None


def is_tool_call_only(message: AIMessage) -> bool:
    """An AI message that asks for tools and says nothing to the user."""
    return bool(message.tool_calls) and not message.text.strip()


def to_core_messages(
    messages: Sequence[BaseMessage],
    *,
    assistant_name: str,
    include_system: bool = False,
    include_tool: bool = False,
) -> list[Message]:
    """Map roles (human -> user, ai -> assistant); system and tool messages only when asked.
    AI messages that only carry tool calls are left out; the core skips empty text."""
    mapped: list[Message] = []
    for message in messages:
        text = message.text
        if isinstance(message, HumanMessage):
            mapped.append(Message("user", text, name=message.name))
        elif isinstance(message, AIMessage):
            if not is_tool_call_only(message):
                mapped.append(Message("assistant", text, name=message.name or assistant_name))
        elif isinstance(message, SystemMessage) and include_system:
            mapped.append(Message("system", text))
        elif isinstance(message, ToolMessage) and include_tool:
            mapped.append(Message("tool", text, name=message.name))
    return mapped
