"""Development sessions: `nox` runs the default set (what CI runs); `nox -s NAME` runs one.

Every session gets its own virtual environment (uv), so frameworks that cannot share one never do.
"""

from __future__ import annotations

from pathlib import Path

import nox

nox.options.default_venv_backend = "uv"
nox.options.reuse_venv = "no"
nox.options.error_on_missing_interpreters = True
# With no `sessions` option, `nox` runs every session except those marked `default=False`.

ROOT = Path(__file__).parent
ADAPTER_MODULES = sorted(
    p.name.replace("-", "_")
    for p in (ROOT / "adapters").glob("*")
    if (p / "pyproject.toml").exists()
)
# Linters are pinned so a new release cannot turn a green main red overnight.
LINT_TOOLS = ["ruff==0.17.6"]
TYPECHECK_TOOLS = ["mypy==2.4.1"]
TEST_TOOLS = ["pytest>=8", "pytest-asyncio>=0.24"]


@nox.session
def lint(session: nox.Session) -> None:
    """ruff: lint rules and formatting."""
    session.install(*LINT_TOOLS)
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")


@nox.session
def typecheck(session: nox.Session) -> None:
    """mypy --strict on the core distribution (core, local engine, testing suites)."""
    session.install(*TYPECHECK_TOOLS, *TEST_TOOLS, "-e", "./core")
    session.run("mypy", "--strict", "core/src")


@nox.session(name="tests-core")
def tests_core(session: nox.Session) -> None:
    """The core, both backends and the end-to-end tests (demo, CLI, README)."""
    session.install(*TEST_TOOLS, "-e", "./core")
    session.run("pytest", "tests/core", "tests/local", "tests/zep", "tests/e2e", *session.posargs)


@nox.session
def examples(session: nox.Session) -> None:
    """Run every framework-free example offline (adapter examples run in their own session)."""
    session.install("-e", "./core")
    scripts = [
        script
        for script in sorted((ROOT / "examples").glob("*.py"))
        if not any(script.name.startswith(f"{module}_") for module in ADAPTER_MODULES)
    ]
    if not scripts:
        session.error("no examples found")
    for script in scripts:
        session.run("python", str(script))


def adapter_tests(session: nox.Session, key: str, framework: str | list[str]) -> None:
    """One adapter in its own environment: its tests, the README blocks that use it, then its
    examples, all offline.

    `framework` is the requirement(s) for the framework itself: the newest release, or the oldest
    one the adapter claims to support (with the pins that release needs).
    """
    pins = [framework] if isinstance(framework, str) else framework
    session.install(*TEST_TOOLS, "-e", "./core", "-e", f"./adapters/{key}", *pins)
    session.run("pytest", f"tests/adapters/{key}", "tests/e2e/test_readme.py", *session.posargs)
    module = key.replace("-", "_")
    for script in sorted((ROOT / "examples").glob(f"{module}_*.py")):
        session.run("python", str(script))


@nox.session(name="tests-ag2")
@nox.parametrize("framework", ["ag2", "ag2==1.0.0"], ids=["newest", "oldest"])
def tests_ag2(session: nox.Session, framework: str) -> None:
    """AG2 1.x: one Plugin (middleware + search tool) on a real Agent with a scripted TestConfig."""
    adapter_tests(session, "ag2", framework)


@nox.session(name="tests-adk")
@nox.parametrize("framework", ["google-adk", "google-adk==2.0.0"], ids=["newest", "oldest"])
def tests_adk(session: nox.Session, framework: str) -> None:
    """Google ADK: context tool, reply callback, search tool, memory service on InMemoryRunner."""
    adapter_tests(session, "adk", framework)


@nox.session(name="tests-agent-framework")
@nox.parametrize(
    "framework", ["agent-framework-core", "agent-framework-core==1.0.0"], ids=["newest", "oldest"]
)
def tests_agent_framework(session: nox.Session, framework: str) -> None:
    """Microsoft Agent Framework: ContextProvider on a real Agent with an offline client."""
    adapter_tests(session, "agent-framework", framework)


@nox.session(name="tests-autogen")
@nox.parametrize(
    "framework",
    [
        ["autogen-agentchat", "autogen-core", "autogen-ext"],  # ext: the offline replay client
        ["autogen-agentchat==0.7.0", "autogen-core==0.7.0", "autogen-ext==0.7.0"],
    ],
    ids=["newest", "oldest"],
)
def tests_autogen(session: nox.Session, framework: list[str]) -> None:
    """AutoGen: ZepMemory and ZepChatCompletionContext on a real AssistantAgent (replay client)."""
    adapter_tests(session, "autogen", framework)


@nox.session(name="tests-crewai")
@nox.parametrize("framework", ["crewai", "crewai==1.10.1"], ids=["newest", "oldest"])
def tests_crewai(session: nox.Session, framework: str) -> None:
    """CrewAI: storage, crew memory, search tool and LLM-call hooks on a real Crew.kickoff()."""
    adapter_tests(session, "crewai", framework)


@nox.session(name="tests-langgraph")
@nox.parametrize(
    "framework",
    [
        ["langgraph", "langchain", "langchain-core"],
        [
            "langgraph==1.0.0",
            "langgraph-prebuilt==1.0.0",  # newer prebuilt releases need a newer langgraph
            "langchain==1.0.0",
            "langchain-core==1.0.0",
        ],
    ],
    ids=["newest", "oldest"],
)
def tests_langgraph(session: nox.Session, framework: list[str]) -> None:
    """LangGraph + LangChain: node helpers, create_agent middleware, ZepStore."""
    adapter_tests(session, "langgraph", framework)


@nox.session(name="tests-livekit")
@nox.parametrize("framework", ["livekit-agents", "livekit-agents==1.4.2"], ids=["newest", "oldest"])
def tests_livekit(session: nox.Session, framework: str) -> None:
    """LiveKit Agents: ZepMemoryAgent on a real AgentSession with a scripted LLM (needs openai
    >= 3, so it never shares an environment with CrewAI)."""
    adapter_tests(session, "livekit", framework)


@nox.session(name="tests-pydantic-ai")
@nox.parametrize(
    "framework", ["pydantic-ai-slim", "pydantic-ai-slim==2.0.0"], ids=["newest", "oldest"]
)
def tests_pydantic_ai(session: nox.Session, framework: str) -> None:
    """Pydantic AI: the ZepMemory capability on a real Agent driven by FunctionModel."""
    adapter_tests(session, "pydantic-ai", framework)


@nox.session(name="tests-embeddings")
def tests_embeddings(session: nox.Session) -> None:
    """The local engine with the `embeddings` extra: dense and hybrid retrieval, the ONNX model."""
    session.install(*TEST_TOOLS, "-e", "./core[embeddings]")
    session.run("pytest", "tests/local", "tests/e2e/test_cli.py", *session.posargs)


@nox.session(default=False)
def bench(session: nox.Session) -> None:
    """Benchmarks (not part of the default run): they print JSON figures."""
    session.install("-e", "./core[embeddings]")
    session.run("python", "benchmarks/local_engine.py", *(session.posargs or ["--quick"]))
    session.run("python", "benchmarks/locomo.py")  # exits 0 with a message when the data is absent
