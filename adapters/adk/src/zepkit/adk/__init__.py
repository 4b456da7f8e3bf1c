"""zepkit memory for Google ADK agents.

    agent = Agent(
        ...,
        tools=[ZepContextTool(memory), ZepGraphSearchTool(memory)],
        after_model_callback=create_after_model_callback(memory),
    )

`memory` is a `zepkit.core.MemoryLoop` (or a `zep_cloud.AsyncZep` client, which is wrapped).
`ZepMemoryService` plugs zepkit into ADK's own `load_memory` / `preload_memory` tools.
"""

from zepkit.core.spi import missing_framework as _missing_framework

try:
    import google.adk as _google_adk  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised only without the framework
    raise _missing_framework("adk", "Google ADK (google-adk)") from exc

from zepkit.adk._callbacks import create_after_model_callback
from zepkit.adk._context_tool import ZepContextTool
from zepkit.adk._identity import (
    STATE_EMAIL,
    STATE_FIRST_NAME,
    STATE_LAST_NAME,
    STATE_THREAD_ID,
    STATE_USER_ID,
    resolve_identity,
)
from zepkit.adk._memory_service import ZepMemoryService
from zepkit.adk._tool import ZepGraphSearchTool

__all__ = [
    "STATE_EMAIL",
    "STATE_FIRST_NAME",
    "STATE_LAST_NAME",
    "STATE_THREAD_ID",
    "STATE_USER_ID",
    "ZepContextTool",
    "ZepGraphSearchTool",
    "ZepMemoryService",
    "create_after_model_callback",
    "resolve_identity",
]
