"""zepkit memory for Pydantic AI agents: one capability that injects the context block as dynamic
instructions, persists each run's prompt and final output, and offers the memory search tool.

    agent = Agent(model, deps_type=ZepDeps, capabilities=[ZepMemory(memory)])
    await agent.run("...", deps=ZepDeps(user_id="u1", thread_id="t1"))
"""

from zepkit.core.spi import missing_framework as _missing_framework

try:
    import pydantic_ai as _pydantic_ai  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised only without the framework
    raise _missing_framework("pydantic-ai", "Pydantic AI (pydantic-ai-slim)") from exc

from zepkit.pydantic_ai._capability import ZepMemory
from zepkit.pydantic_ai._identity import IdentityResolver, ZepDeps

__all__ = ["IdentityResolver", "ZepDeps", "ZepMemory"]
