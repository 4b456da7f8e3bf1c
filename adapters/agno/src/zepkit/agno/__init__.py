"""zepkit memory for Agno agents: one object that stores each run's input and final reply, puts the
user's memory block into the run's system message and offers the memory search tool.

    zep = ZepMemory(memory)
    agent = zep.attach(Agent(model=..., instructions="..."))
    await agent.arun("...", user_id="u1", session_id="t1")
"""

from zepkit.core.spi import missing_framework as _missing_framework

try:
    import agno.agent as _agno_agent  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised only without the framework
    raise _missing_framework("agno", "Agno") from exc

from zepkit.agno._identity import IdentityResolver
from zepkit.agno._memory import ZepMemory

__all__ = ["IdentityResolver", "ZepMemory"]
