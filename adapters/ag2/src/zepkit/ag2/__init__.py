"""zepkit memory for AG2 1.x agents: one `ag2.Plugin` whose middleware persists each turn and puts
the context block into the prompt of every model call, plus the memory search tool.

    agent = Agent("assistant", "You are helpful.", config=config,
                  plugins=[zep_memory_plugin(memory)])
    await agent.ask("...", variables={"user_id": "u1", "thread_id": "t1"})
"""

from zepkit.core.spi import missing_framework as _missing_framework

try:
    import ag2 as _ag2  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised only without the framework
    raise _missing_framework("ag2", "AG2 1.x (the `ag2` package)") from exc

from zepkit.ag2._identity import RunIdentity
from zepkit.ag2._middleware import ZepMemoryMiddleware
from zepkit.ag2._plugin import zep_memory_plugin
from zepkit.ag2._tool import search_tool

__all__ = ["RunIdentity", "ZepMemoryMiddleware", "search_tool", "zep_memory_plugin"]
