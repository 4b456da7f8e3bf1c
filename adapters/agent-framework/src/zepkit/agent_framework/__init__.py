"""zepkit memory for Microsoft Agent Framework agents.

`ZepContextProvider` is an Agent Framework `ContextProvider`: before each run it saves the user's
input and adds the memory block to the run's instructions (plus the memory search tool); after the
run it saves the final reply. One provider serves many users: the identity comes from each run's
session (see `ZepContextProvider.set_identity`) or from a resolver.
"""

from zepkit.core.spi import missing_framework as _missing_framework

try:
    import agent_framework as _agent_framework  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised only without the framework
    raise _missing_framework(
        "agent-framework", "Microsoft Agent Framework (agent-framework-core)"
    ) from exc

from zepkit.agent_framework._identity import IdentityResolver
from zepkit.agent_framework._provider import ZepContextProvider
from zepkit.agent_framework._tool import search_tool

__all__ = ["IdentityResolver", "ZepContextProvider", "search_tool"]
