"""Every zepkit package has one pinned public surface: its `__all__` is exactly this list, every
public attribute is in it, and no implementation module is public.

A change here is a change to what users import: make it on purpose, and say so in CHANGELOG.md.
An adapter's package is checked where that adapter is installed (its nox session runs this file).
"""

from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType

import pytest

PUBLIC: dict[str, list[str]] = {
    "zepkit.core": [
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
    ],
    "zepkit.core.spi": [
        "NO_RESULTS",
        "SEARCH_PARAMETERS",
        "Backend",
        "Capabilities",
        "IdentityFunction",
        "IdentityResolver",
        "IdentitySource",
        "SearchRequest",
        "UserProfile",
        "as_memory",
        "check_id",
        "check_memory",
        "check_search_options",
        "compose_context",
        "fail_soft",
        "fail_soft_sync",
        "fixed_identity",
        "format_results",
        "is_rendered_block",
        "missing_framework",
        "search_tool_option",
        "strip_rendered_block",
        "well_formed",
    ],
    "zepkit.local": [
        "Embedder",
        "ExtractedStatement",
        "ExtractionRun",
        "Extractor",
        "FollowUpExtractor",
        "HttpEmbedder",
        "LLMExtractor",
        "LocalBackend",
        "MiniLMEmbedder",
        "ReplyExtractor",
        "RetrieverMode",
        "RuleExtractor",
        "check_fts5",
    ],
    "zepkit.zep": ["ZEP_CAPABILITIES", "IdMap", "InMemoryIdMap", "SqliteIdMap", "ZepBackend"],
    "zepkit.zep.testing": ["BASE_URL", "FakeZep", "Fault", "RecordedRequest"],
    "zepkit.testing": [
        "AdapterContract",
        "AdapterHarness",
        "BackendContract",
        "FailingBackend",
        "PlainAgentHarness",
        "SlowBackend",
        "TurnResult",
    ],
    "zepkit.adk": [
        "STATE_EMAIL",
        "STATE_FIRST_NAME",
        "STATE_LAST_NAME",
        "STATE_THREAD_ID",
        "STATE_USER_ID",
        "ZepContextTool",
        "ZepGraphSearchTool",
        "ZepMemoryService",
        "create_after_model_callback",
        "resolve_identity",
    ],
    "zepkit.ag2": ["RunIdentity", "ZepMemoryMiddleware", "search_tool", "zep_memory_plugin"],
    "zepkit.agno": ["IdentityResolver", "ZepMemory"],
    "zepkit.agent_framework": ["IdentityResolver", "ZepContextProvider", "search_tool"],
    "zepkit.autogen": ["ZepChatCompletionContext", "ZepMemory", "search_tool"],
    "zepkit.crewai": [
        "ZepCrewMemory",
        "ZepGraphStorage",
        "ZepMemoryHooks",
        "ZepSearchTool",
        "ZepStorage",
        "enable_zep_memory",
    ],
    "zepkit.langgraph": [
        "StoreTarget",
        "ZepMemoryMiddleware",
        "ZepStore",
        "build_system_message",
        "build_system_message_sync",
        "default_namespace_target",
        "get_zep_context",
        "get_zep_context_sync",
        "persist_messages",
        "persist_messages_sync",
        "resolve_identity",
        "search_tool",
        "search_tool_sync",
    ],
    "zepkit.livekit": [
        "CONTEXT_ITEM_PREFIX",
        "DEFAULT_RECALL_BUDGET",
        "IdentitySource",
        "ZepMemoryAgent",
        "ZepMemoryMixin",
        "search_tool",
    ],
    "zepkit.llama_index": ["IdentityResolver", "ZepMemoryBlock", "search_tool", "zep_memory"],
    "zepkit.openai_agents": ["IdentityResolver", "ZepMemory"],
    "zepkit.pydantic_ai": ["IdentityResolver", "ZepDeps", "ZepMemory"],
    "zepkit.server": ["KeyRing", "create_app", "load_keys"],
    "zepkit.strands": ["IdentityResolver", "ZepMemory"],
    "zepkit.mcp": [
        "JwtTokens",
        "StaticTokens",
        "TokenEntry",
        "create_http_app",
        "create_server",
        "load_tokens",
        "main",
    ],
}

# Subpackages that are public on purpose; every other module a package holds has a `_` name.
# The local engine's modules still carry public names, so only its `__all__` is pinned.
PUBLIC_SUBMODULES: dict[str, set[str] | None] = {
    "zepkit.core": {"spi"},
    "zepkit.zep": {"testing"},
    "zepkit.local": None,
    "zepkit.server": None,  # its modules are the server's parts; only `__all__` is pinned
    "zepkit.mcp": set(),  # every module of it is private
}


def _package(name: str) -> ModuleType:
    if importlib.util.find_spec(name) is None:
        pytest.skip(f"{name} is not installed here; its nox session checks it")
    return importlib.import_module(name)


@pytest.mark.parametrize("name", sorted(PUBLIC))
def test_all_is_pinned(name: str) -> None:
    package = _package(name)
    assert list(package.__all__) == PUBLIC[name]
    missing = [item for item in package.__all__ if not hasattr(package, item)]
    assert missing == []


@pytest.mark.parametrize("name", sorted(PUBLIC))
def test_no_public_name_outside_all(name: str) -> None:
    package = _package(name)
    allowed = PUBLIC_SUBMODULES.get(name, set())
    stray = []
    for attribute, value in vars(package).items():
        if attribute.startswith("_") or attribute in package.__all__:
            continue
        if isinstance(value, ModuleType) and (allowed is None or attribute in allowed):
            continue
        stray.append(attribute)
    assert stray == [], f"{name} exposes names outside __all__: {stray}"


@pytest.mark.parametrize("name", ["zepkit.core", "zepkit.core.spi"])
def test_core_names_show_their_import_path(name: str) -> None:
    package = _package(name)
    for item in package.__all__:
        module = getattr(getattr(package, item), "__module__", name)
        if module.startswith("zepkit."):
            assert module == name, f"{name}.{item} says it lives in {module}"


def test_every_adapter_is_pinned() -> None:
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "adapters"
    adapters = {
        "zepkit." + folder.name.replace("-", "_")
        for folder in root.iterdir()
        if (folder / "pyproject.toml").exists()
    }
    assert adapters <= set(PUBLIC)
