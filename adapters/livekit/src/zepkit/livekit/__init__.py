"""zepkit memory for LiveKit Agents voice agents: each completed user turn is stored and the
turn's context block is added to that reply only, within a recall time budget; spoken replies are
stored from the session's conversation events; the model gets the memory search tool.

    agent = ZepMemoryAgent(memory, identity=Identity(user_id="u1", thread_id="room-1"),
                           instructions="You are a helpful voice assistant.")
    await session.start(agent)
"""

from zepkit.core.spi import missing_framework as _missing_framework

try:
    import livekit.agents as _livekit_agents  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised only without the framework
    raise _missing_framework("livekit", "LiveKit Agents") from exc

from zepkit.livekit._agent import (
    CONTEXT_ITEM_PREFIX,
    DEFAULT_RECALL_BUDGET,
    ZepMemoryAgent,
    ZepMemoryMixin,
)
from zepkit.livekit._identity import IdentitySource
from zepkit.livekit._tool import search_tool

__all__ = [
    "CONTEXT_ITEM_PREFIX",
    "DEFAULT_RECALL_BUDGET",
    "IdentitySource",
    "ZepMemoryAgent",
    "ZepMemoryMixin",
    "search_tool",
]
