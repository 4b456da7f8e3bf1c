"""zepkit.server: a self-hosted, Zep-compatible memory server over zepkit's local engine (or any
zepkit backend), so Zep's own SDKs work against it by changing the base URL.

    zepkit serve --db ./memory            # then AsyncZep(api_key=..., base_url=".../api/v4")
"""

from zepkit.server.app import create_app
from zepkit.server.auth import KeyRing, load_keys

__all__ = ["KeyRing", "create_app", "load_keys"]
