"""zepkit memory for Strands Agents: one hook provider that puts the memory block in the system
prompt of every model call of an invocation and stores the final reply, and the memory search tool.

    zep = ZepMemory(memory)
    agent = Agent(model, hooks=[zep], tools=zep.tools, state={"user_id": "u1", "thread_id": "t1"})
    agent("...")
"""

from zepkit.core.spi import missing_framework as _missing_framework

try:
    import strands as _strands  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised only without the framework
    raise _missing_framework("strands", "Strands Agents (strands-agents)") from exc

from zepkit.strands._hooks import ZepMemory
from zepkit.strands._identity import IdentityResolver

__all__ = ["IdentityResolver", "ZepMemory"]
