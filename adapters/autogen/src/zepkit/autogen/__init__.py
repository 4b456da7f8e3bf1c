"""zepkit memory for AutoGen (autogen-agentchat 0.7) agents.

zep = ZepMemory(memory, user_id="u1", thread_id="t1")
agent = AssistantAgent(
    "assistant",
    model_client,
    memory=[zep],  # one memory block per run, replaced rather than stacked
    model_context=ZepChatCompletionContext(zep),  # keeps the block out of history, saves replies
    tools=[zep.search_tool()],  # the memory search tool for this user
)
"""

from zepkit.core.spi import missing_framework as _missing_framework

try:
    import autogen_agentchat as _autogen_agentchat  # noqa: F401
    import autogen_core as _autogen_core  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised only without the framework
    raise _missing_framework("autogen", "AutoGen (autogen-agentchat)") from exc

from zepkit.autogen._context import ZepChatCompletionContext
from zepkit.autogen._memory import ZepMemory
from zepkit.autogen._tool import search_tool

__all__ = ["ZepChatCompletionContext", "ZepMemory", "search_tool"]
