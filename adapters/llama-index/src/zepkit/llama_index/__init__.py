"""zepkit memory for LlamaIndex agents: a memory block that stores each turn and its final reply
and gives every model call of the run the user's memory, and the memory search tool.

    agent = FunctionAgent(llm=..., tools=[search_tool(memory)])
    await agent.run("...", memory=zep_memory(memory, user_id="u1", thread_id="t1"))
"""

from zepkit.core.spi import missing_framework as _missing_framework

try:
    import llama_index.core.memory as _llama_index_memory  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised only without the framework
    raise _missing_framework("llama-index", "LlamaIndex (llama-index-core)") from exc

from zepkit.llama_index._block import ZepMemoryBlock, zep_memory
from zepkit.llama_index._identity import IdentityResolver
from zepkit.llama_index._tool import search_tool

__all__ = ["IdentityResolver", "ZepMemoryBlock", "search_tool", "zep_memory"]
