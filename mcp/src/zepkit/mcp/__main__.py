"""`python -m zepkit.mcp`: the same as `zepkit mcp`."""

from zepkit.mcp._cli import console

console()
