"""Reading Agent Framework messages: the user's words in, the final reply out."""

from __future__ import annotations

from collections.abc import Iterable

from agent_framework import Message

# Content types of tool activity end like this (function_call, mcp_server_tool_result,
# function_approval_request, shell_command_output, ...); text before them is not the reply.
_TOOL_SUFFIXES = ("_call", "_result", "_request", "_response", "_output")


def user_text(messages: Iterable[Message]) -> str:
    """The text of the run's user messages, one per line ("" when there is none, e.g. a run
    that only answers a tool approval)."""
    parts = [message.text.strip() for message in messages if message.role == "user"]
    return "\n".join(part for part in parts if part)


def final_reply(messages: Iterable[Message]) -> str:
    """The assistant text after the run's last tool activity: what the user reads as the answer."""
    reply: list[str] = []
    for message in messages:
        texts: list[str] = []
        for content in message.contents:
            if content.type.endswith(_TOOL_SUFFIXES) or content.user_input_request:
                reply.clear()
                texts.clear()
            elif content.type == "text" and message.role == "assistant" and content.text:
                texts.append(content.text)
        if texts:
            reply.append(" ".join(texts))
    return "\n".join(reply).strip()
