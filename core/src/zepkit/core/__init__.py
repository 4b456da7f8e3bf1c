"""zepkit's shared memory loop: one implementation of memory that every framework adapter drives.

Start with `MemoryLoop.local(path)` (embedded, no account) and hand the loop to an adapter, or use
it directly: `begin_turn` before the model call, `capture_reply` after it, `search_tool()` for the
model. Adapter and backend authors build on `zepkit.core.spi`.
"""

from zepkit.core._errors import (
    AuthenticationError,
    BackendError,
    BackendUnavailableError,
    ConfigurationError,
    ConflictError,
    NotFoundError,
    RateLimitError,
    UnsupportedError,
    ZepkitError,
)
from zepkit.core._failsoft import FailSoft, OnError
from zepkit.core._limits import (
    DEFAULT_CONTEXT_CHARS,
    DEFAULT_PAGE_SIZE,
    MAX_DATA_CHARS,
    MAX_MESSAGE_CHARS,
    MAX_MESSAGES_PER_CALL,
    MAX_METADATA_KEYS,
    MAX_PAGE_SIZE,
    MAX_QUERY_CHARS,
    MAX_SEARCH_LIMIT,
)
from zepkit.core._loop import MemoryLoop
from zepkit.core._models import (
    DataType,
    Entity,
    Episode,
    Fact,
    Hit,
    Identity,
    Message,
    Page,
    Reranker,
    Role,
    Scope,
    SearchResults,
    ThreadInfo,
    UserInfo,
)
from zepkit.core._rendering import DEFAULT_TEMPLATE, render_context
from zepkit.core._search_tool import SearchTool
from zepkit.core._sync import SyncMemory
from zepkit.core._transfer import TransferCounts, export_memory, import_memory
from zepkit.core._turn import ContextBuilder, ContextInput
from zepkit.core._version import __version__ as __version__

__all__ = [
    "DEFAULT_CONTEXT_CHARS",
    "DEFAULT_PAGE_SIZE",
    "DEFAULT_TEMPLATE",
    "MAX_DATA_CHARS",
    "MAX_MESSAGES_PER_CALL",
    "MAX_MESSAGE_CHARS",
    "MAX_METADATA_KEYS",
    "MAX_PAGE_SIZE",
    "MAX_QUERY_CHARS",
    "MAX_SEARCH_LIMIT",
    "AuthenticationError",
    "BackendError",
    "BackendUnavailableError",
    "ConfigurationError",
    "ConflictError",
    "ContextBuilder",
    "ContextInput",
    "DataType",
    "Entity",
    "Episode",
    "Fact",
    "FailSoft",
    "Hit",
    "Identity",
    "MemoryLoop",
    "Message",
    "NotFoundError",
    "OnError",
    "Page",
    "RateLimitError",
    "Reranker",
    "Role",
    "Scope",
    "SearchResults",
    "SearchTool",
    "SyncMemory",
    "ThreadInfo",
    "TransferCounts",
    "UnsupportedError",
    "UserInfo",
    "ZepkitError",
    "export_memory",
    "import_memory",
    "render_context",
]

for _name in __all__:
    _value = globals()[_name]
    if getattr(_value, "__module__", "").startswith("zepkit.core._"):
        _value.__module__ = __name__  # reprs and docs show the import path, not the private module
