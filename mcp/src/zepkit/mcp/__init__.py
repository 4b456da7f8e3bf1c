"""zepkit.mcp: zepkit memory for every MCP client, with an identity the model cannot choose.

    zepkit mcp --db memory.db --user-id maya            # stdio, for a desktop client
    zepkit mcp --db memory.db --http --tokens-file t.json   # streamable HTTP, a user per token

In Python: `create_server(memory, user_id=...)` gives the SDK's `Server` (run it on any
transport); `create_http_app(server, token_verifier=...)` serves it over streamable HTTP.
"""

from zepkit.mcp._auth import JwtTokens, StaticTokens, TokenEntry, load_tokens
from zepkit.mcp._cli import main
from zepkit.mcp._http import create_http_app
from zepkit.mcp._server import create_server

__all__ = [
    "JwtTokens",
    "StaticTokens",
    "TokenEntry",
    "create_http_app",
    "create_server",
    "load_tokens",
    "main",
]
