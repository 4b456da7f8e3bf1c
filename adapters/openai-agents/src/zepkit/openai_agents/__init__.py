"""zepkit memory for OpenAI Agents SDK agents: dynamic instructions that carry the memory block
into every model call, agent hooks that store the final reply, and the memory search tool.

    zep = ZepMemory(memory)
    agent = zep.attach(Agent(name="assistant", instructions="You are helpful."))
    await Runner.run(agent, "...", context=Identity(user_id="u1", thread_id="t1"))
"""

from zepkit.core.spi import missing_framework as _missing_framework

try:
    import agents as _agents  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised only without the framework
    raise _missing_framework("openai-agents", "the OpenAI Agents SDK (openai-agents)") from exc

from zepkit.openai_agents._hooks import ZepMemory
from zepkit.openai_agents._identity import IdentityResolver

__all__ = ["IdentityResolver", "ZepMemory"]
