"""zepkit's shared memory loop: one implementation of memory that every framework adapter drives.

Start with `MemoryLoop.local(path)` (embedded, no account) and hand the loop to an adapter, or use
it directly: `begin_turn` before the model call, `capture_reply` after it, `search_tool()` for the
model.
"""

from zepkit.core._version import __version__ as __version__
from zepkit.core.backend import Backend, Capabilities, SearchRequest, UserProfile
from zepkit.core.errors import (
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
from zepkit.core.extras import missing_framework
from zepkit.core.failsoft import FailSoft, OnError
from zepkit.core.limits import (
    DEFAULT_CONTEXT_CHARS,
    MAX_DATA_CHARS,
    MAX_MESSAGE_CHARS,
    MAX_MESSAGES_PER_CALL,
    MAX_METADATA_KEYS,
    MAX_QUERY_CHARS,
    MAX_SEARCH_LIMIT,
)
from zepkit.core.loop import ContextBuilder, ContextInput, MemoryLoop, SyncMemory
from zepkit.core.models import (
    DataType,
    Entity,
    Episode,
    Fact,
    Identity,
    Message,
    Reranker,
    Role,
    Scope,
    SearchResults,
)
from zepkit.core.rendering import (
    DEFAULT_TEMPLATE,
    compose_context,
    is_rendered_block,
    render_context,
    strip_rendered_block,
)
from zepkit.core.search_tool import NO_RESULTS, SearchTool, format_results

__all__ = [
    "DEFAULT_CONTEXT_CHARS",
    "DEFAULT_TEMPLATE",
    "MAX_DATA_CHARS",
    "MAX_MESSAGES_PER_CALL",
    "MAX_MESSAGE_CHARS",
    "MAX_METADATA_KEYS",
    "MAX_QUERY_CHARS",
    "MAX_SEARCH_LIMIT",
    "NO_RESULTS",
    "AuthenticationError",
    "Backend",
    "BackendError",
    "BackendUnavailableError",
    "Capabilities",
    "ConfigurationError",
    "ConflictError",
    "ContextBuilder",
    "ContextInput",
    "DataType",
    "Entity",
    "Episode",
    "Fact",
    "FailSoft",
    "Identity",
    "MemoryLoop",
    "Message",
    "NotFoundError",
    "OnError",
    "RateLimitError",
    "Reranker",
    "Role",
    "Scope",
    "SearchRequest",
    "SearchResults",
    "SearchTool",
    "SyncMemory",
    "UnsupportedError",
    "UserProfile",
    "ZepkitError",
    "compose_context",
    "format_results",
    "is_rendered_block",
    "missing_framework",
    "render_context",
    "strip_rendered_block",
]
