"""zepkit for CrewAI: long-term memory for crews on Zep Cloud or the local engine.

- `enable_zep_memory(memory, user_id=..., thread_id=...)`: every LLM call carries the user's memory
  block; task inputs and final answers are persisted (Form A).
- `ZepSearchTool`: the memory search tool as a CrewAI tool (Form B).
- `ZepStorage` / `ZepGraphStorage`: save and search one user's thread or a shared graph.
- `ZepCrewMemory`: `Crew(memory=ZepCrewMemory(storage))` routes CrewAI's own recall and saves.
"""

from zepkit.core.spi import missing_framework as _missing_framework

try:
    import crewai as _crewai  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised only without the framework
    raise _missing_framework("crewai", "CrewAI") from exc

from zepkit.crewai._crew_memory import ZepCrewMemory
from zepkit.crewai._hooks import ZepMemoryHooks, enable_zep_memory
from zepkit.crewai._storage import ZepGraphStorage, ZepStorage
from zepkit.crewai._tool import ZepSearchTool

__all__ = [
    "ZepCrewMemory",
    "ZepGraphStorage",
    "ZepMemoryHooks",
    "ZepSearchTool",
    "ZepStorage",
    "enable_zep_memory",
]
