"""zepkit memory for Pydantic AI agents: one capability that injects the context block as dynamic
instructions, persists each run's prompt and final output, and offers the memory search tool.

    agent = Agent(model, deps_type=ZepDeps, capabilities=[ZepMemory(memory)])
    await agent.run("...", deps=ZepDeps(user_id="u1", thread_id="t1"))
"""

try:
    import pydantic_ai  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        'zepkit.pydantic_ai needs Pydantic AI; install it with: pip install "zepkit[pydantic-ai]"'
    ) from exc

from zepkit.pydantic_ai._capability import ZepMemory
from zepkit.pydantic_ai._identity import IdentityResolver, ZepDeps

__all__ = ["IdentityResolver", "ZepDeps", "ZepMemory"]
