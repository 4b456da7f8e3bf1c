"""Resources (the user's profile, one of their threads, an export of their memory) and the
`recall` prompt. URIs never name a user: each read is the connection's user's."""

from __future__ import annotations

import json
from urllib.parse import quote, unquote

from mcp.shared.exceptions import MCPError
from mcp_types import (
    INVALID_PARAMS,
    GetPromptResult,
    Prompt,
    PromptArgument,
    PromptMessage,
    Resource,
    ResourceTemplate,
    TextContent,
    TextResourceContents,
)

from zepkit.mcp._manage import export_lines, owns_thread, profile, threads_of
from zepkit.mcp._tools import Tools

PROFILE_URI = "zepkit://memory/profile"
EXPORT_URI = "zepkit://memory/export"
THREAD_PREFIX = "zepkit://memory/threads/"
THREAD_TEMPLATE = THREAD_PREFIX + "{thread_id}"

RESOURCES = [
    Resource(
        name="profile",
        title="Memory profile",
        uri=PROFILE_URI,
        description="Who memory knows the user as: profile fields and how many conversations.",
        mime_type="application/json",
    ),
    Resource(
        name="export",
        title="Memory export",
        uri=EXPORT_URI,
        description="Everything stored for the user as JSON Lines (zepkit's export format).",
        mime_type="application/jsonl",
    ),
]
TEMPLATES = [
    ResourceTemplate(
        name="thread",
        title="Conversation",
        uri_template=THREAD_TEMPLATE,
        description="One of the user's stored conversations with all its messages (JSON).",
        mime_type="application/json",
    )
]
RECALL = Prompt(
    name="recall",
    title="Recall from memory",
    description="Start from what long-term memory holds about a topic (or the latest talk).",
    arguments=[
        PromptArgument(name="topic", description="What to recall, in a few words.", required=False)
    ],
)


def thread_uri(thread_id: str) -> str:
    return THREAD_PREFIX + quote(thread_id, safe="")


def _not_found(uri: str, why: str) -> MCPError:
    return MCPError(code=INVALID_PARAMS, message=why, data={"uri": uri})


async def read(tools: Tools, user_id: str, uri: str) -> TextResourceContents:
    """One resource of the user's, or `MCPError` for a URI that names nothing of theirs."""
    memory = tools.memory
    if uri == PROFILE_URI:
        info = await profile(memory, user_id)
        threads = [thread async for thread in threads_of(memory, user_id)]
        body = {
            "user_id": user_id,
            "known": info is not None,
            **(info.model_dump(mode="json", exclude={"user_id"}) if info else {}),
            "threads": len(threads),
        }
        return TextResourceContents(uri=uri, mime_type="application/json", text=_json(body))
    if uri == EXPORT_URI:
        text = await export_lines(memory, user_id)
        return TextResourceContents(uri=uri, mime_type="application/jsonl", text=text)
    if uri.startswith(THREAD_PREFIX):
        thread_id = unquote(uri[len(THREAD_PREFIX) :])
        if not thread_id or not await owns_thread(memory, user_id, thread_id):
            raise _not_found(uri, f"no thread {thread_id!r} in this user's memory")
        messages = await memory.get_messages(thread_id)
        body = {
            "thread_id": thread_id,
            "messages": [message.model_dump(mode="json") for message in messages],
        }
        return TextResourceContents(uri=uri, mime_type="application/json", text=_json(body))
    raise _not_found(uri, f"unknown resource {uri!r}")


async def recall(tools: Tools, user_id: str, topic: str | None) -> GetPromptResult:
    block, _ = await tools.block(user_id, topic)
    about = f" about {topic.strip()}" if topic and topic.strip() else ""
    if block:
        text = (
            f"Here is what long-term memory holds{about}. Use it where it helps, and say so "
            f"when the conversation contradicts it.\n\n{block}"
        )
    else:
        text = f"Long-term memory holds nothing{about} yet; answer from the conversation."
    return GetPromptResult(
        description=f"Memory{about}",
        messages=[PromptMessage(role="user", content=TextContent(type="text", text=text))],
    )


def _json(body: object) -> str:
    return json.dumps(body, ensure_ascii=False, indent=2)
