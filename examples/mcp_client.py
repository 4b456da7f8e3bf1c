"""Any MCP client gets zepkit memory: this starts `zepkit mcp` on stdio the way a desktop
assistant does (a command, its arguments, the user in the environment), then stores and recalls
through the MCP SDK's own client. Offline, on a temporary local database.

    pip install "zepkit[mcp]"
    python examples/mcp_client.py
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from pathlib import Path

from mcp import Client, StdioServerParameters
from mcp_types import CallToolResult, TextContent

NOTES = [
    "Maya moved to Lisbon to work at the Oceanarium.",
    "Maya's dog Biscuit is a border collie who loves the beach at Cascais.",
    "Maya is allergic to peanuts.",
]


def text_of(result: CallToolResult) -> str:
    (block,) = result.content
    assert isinstance(block, TextContent)
    assert not result.is_error, block.text
    return block.text


async def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        server = StdioServerParameters(
            command=sys.executable,  # a desktop config says "zepkit" with args ["mcp", ...]
            args=["-m", "zepkit.mcp", "--db", str(Path(folder) / "memory.db"), "--read-write"],
            env={**os.environ, "ZEPKIT_USER_ID": "maya"},  # the user: never a tool argument
        )
        async with Client(server, read_timeout_seconds=120) as client:
            tools = [tool.name for tool in (await client.list_tools()).tools]
            print("tools:", ", ".join(tools))
            for note in NOTES:
                print(text_of(await client.call_tool("memory_add", {"content": note})))

            found = text_of(await client.call_tool("memory_search", {"query": "peanuts allergy"}))
            print("\nmemory_search 'peanuts allergy':\n" + found)
            assert "allergic to peanuts" in found

            result = await client.call_tool("memory_context", {"query": "Biscuit beach peanuts"})
            block = text_of(result)
            print("\nmemory_context (the block an adapter would inject):\n" + block)
            assert "<ZEP_CONTEXT>" in block and "peanuts" in block and "Biscuit" in block
            assert result.structured_content is not None
            assert result.structured_content["chars"] == len(block)


if __name__ == "__main__":
    asyncio.run(main())
