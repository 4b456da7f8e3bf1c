"""The `zepkit` command as a newcomer meets it: a version, help on every option, errors in plain
words, visible progress on long work, and Ctrl-C that ends it with one line."""

from __future__ import annotations

import argparse
import asyncio
import importlib
import io
import subprocess
import sys
from pathlib import Path

import pytest

from zepkit.core import __version__
from zepkit.core._backend import UserProfile
from zepkit.core._cli import build_parser, main
from zepkit.core._models import Message
from zepkit.core._progress import Progress
from zepkit.local import LocalBackend, minilm

pytestmark = pytest.mark.slow


def zepkit(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "zepkit.core._cli", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_version() -> None:
    result = zepkit("--version")
    assert result.returncode == 0
    assert result.stdout.strip() == f"zepkit {__version__}"


def _parsers() -> list[argparse.ArgumentParser]:
    parser = build_parser()
    (commands,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return [parser, *commands.choices.values()]


@pytest.mark.parametrize("parser", _parsers(), ids=lambda p: p.prog)
def test_every_option_and_command_has_help(parser: argparse.ArgumentParser) -> None:
    for action in parser._actions:
        assert action.help, f"{parser.prog}: {action.option_strings or action.dest} has no help"


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--limit", "500"], "500 is not a whole number from 1 to 50"),
        (["--limit", "ten"], "'ten' is not a whole number from 1 to 50"),
        (["  "], "the search text is empty"),
        (["x" * 401], "the search text has 401 characters; at most 400 are searched"),
    ],
)
def test_bad_search_input_is_refused_in_plain_words(
    tmp_path: Path, args: list[str], said: str
) -> None:
    db = tmp_path / "memory.db"
    db.touch()
    result = zepkit("search", "--db", str(db), "--user", "u", *args)
    assert result.returncode == 2
    assert said in result.stderr and "Traceback" not in result.stderr


def test_a_folder_is_not_a_database(tmp_path: Path) -> None:
    result = zepkit("context", "--db", str(tmp_path), "--thread", "t")
    assert result.returncode == 2
    assert "is a folder; give the database file in it" in result.stderr


def test_ctrl_c_ends_the_command_with_one_line(tmp_path: Path) -> None:
    """A real SIGINT while a command awaits: asyncio cancels it, the database closes, one line."""
    script = f"""
import asyncio, os, signal, sys
from zepkit.core import _cli as cli

async def wait_for_ctrl_c(db_path):
    async with cli.MemoryLoop.local(db_path):
        os.kill(os.getpid(), signal.SIGINT)
        await asyncio.sleep(30)

cli.run_demo = wait_for_ctrl_c
sys.exit(cli.main(["demo", "--db", {str(tmp_path / "memory.db")!r}]))
"""
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 130
    assert result.stderr == "zepkit: interrupted\n"


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_rewrites_one_line_on_a_terminal_and_clears_it() -> None:
    stream = _Terminal()
    progress = Progress("embedding", unit="episodes", stream=stream)
    progress.update(256)
    progress.update(1024)
    progress.done()
    written = stream.getvalue()
    assert "\rembedding: 256 episodes" in written and "\rembedding: 1,024 episodes" in written
    assert "\n" not in written and written.endswith("\r")


def test_progress_in_a_log_is_a_line_every_few_seconds() -> None:
    stream = io.StringIO()
    progress = Progress("exporting", stream=stream, every=0.0)
    progress.update(5)
    progress.update(9)
    progress.done()
    assert stream.getvalue() == "exporting: 5\nexporting: 9\n"
    quiet = io.StringIO()
    slow = Progress("exporting", stream=quiet, every=3600.0)
    slow.update(5)
    assert quiet.getvalue() == ""


async def _store(db: Path, count: int) -> None:
    backend = LocalBackend(db, retriever="lexical")
    await backend.ensure_user(UserProfile("u"))
    await backend.ensure_thread("t", "u")
    await backend.add_messages("t", [Message("user", f"Note number {n}.") for n in range(count)])
    await backend.aclose()


@pytest.mark.skipif(not minilm.available(), reason="the embeddings extra is not installed")
async def test_embed_reports_progress_after_each_batch(tmp_path: Path) -> None:
    db = tmp_path / "memory.db"
    await _store(db, 5)
    seen: list[int] = []
    async with LocalBackend(db, retriever="hybrid") as backend:
        assert await backend.embed_missing(batch_size=2, progress=seen.append) == 5
    assert seen == [2, 4, 5]


@pytest.mark.skipif(minilm.available(), reason="the embeddings extra is installed")
def test_embed_without_the_model_says_what_to_install(tmp_path: Path) -> None:
    db = tmp_path / "memory.db"
    asyncio.run(_store(db, 1))
    result = zepkit("embed", "--db", str(db))
    assert result.returncode == 2
    assert result.stderr.startswith("zepkit: embedding needs the local embedding model: ")
    assert 'pip install "zepkit-core[embeddings]"' in result.stderr


def test_serve_without_the_server_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "zepkit.server", None)  # as if it were not installed
    monkeypatch.delitem(sys.modules, "zepkit.server.cli", raising=False)
    assert main(["serve", "--db", "memory"]) == 2
    assert capsys.readouterr().err == (
        'zepkit: "zepkit serve" needs zepkit[server]: pip install "zepkit[server]"\n'
    )


def test_mcp_without_the_mcp_server_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "zepkit.mcp", None)  # as if it were not installed
    monkeypatch.delitem(sys.modules, "zepkit.mcp._cli", raising=False)
    assert main(["mcp", "--db", "memory.db", "--user-id", "maya"]) == 2
    assert capsys.readouterr().err == (
        'zepkit: "zepkit mcp" needs zepkit[mcp]: pip install "zepkit[mcp]"\n'
    )


def test_a_missing_dependency_of_an_installed_command_is_not_hidden(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(name: str) -> None:
        raise ModuleNotFoundError("No module named 'uvicorn'", name="uvicorn")

    monkeypatch.setattr(importlib, "import_module", broken)
    with pytest.raises(ModuleNotFoundError, match="uvicorn"):
        main(["serve", "--db", "memory"])
