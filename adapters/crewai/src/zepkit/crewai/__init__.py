"""zepkit for CrewAI: long-term memory for crews on Zep Cloud or the local engine.

- `enable_zep_memory(memory, user_id=..., thread_id=...)`: every LLM call carries the user's memory
  block; task inputs and final answers are persisted (Form A).
- `ZepSearchTool`: the memory search tool as a CrewAI tool (Form B).
- `ZepStorage` / `ZepGraphStorage`: save and search one user's thread or a shared graph.
- `ZepCrewMemory`: `Crew(memory=ZepCrewMemory(storage))` routes CrewAI's own recall and saves.
"""

from zepkit.core.extras import missing_framework

try:
    import crewai  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised only without CrewAI installed
    raise missing_framework("crewai", "CrewAI") from exc

from zepkit.crewai.crew_memory import ZepCrewMemory
from zepkit.crewai.hooks import ZepMemoryHooks, enable_zep_memory
from zepkit.crewai.storage import ZepGraphStorage, ZepStorage
from zepkit.crewai.tool import ZepSearchTool

__all__ = [
    "ZepCrewMemory",
    "ZepGraphStorage",
    "ZepMemoryHooks",
    "ZepSearchTool",
    "ZepStorage",
    "enable_zep_memory",
]
