"""The `zepkit` command as a user runs it: demo, search and context."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest

from zepkit.core._backend import UserProfile
from zepkit.core._models import Message
from zepkit.local import LocalBackend, minilm

pytestmark = pytest.mark.slow


def zepkit(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "zepkit.core._cli", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=cwd,
    )


def _block(output: str) -> str:
    start = output.index("<ZEP_CONTEXT>")
    return output[start : output.index("</ZEP_CONTEXT>", start)]


def test_demo_shows_a_session_one_fact_in_session_twos_context(tmp_path: Path) -> None:
    db = tmp_path / "demo.db"
    result = zepkit("demo", "--db", str(db))
    assert result.returncode == 0, result.stderr
    block = _block(result.stdout)
    assert "Biscuit" in block  # told in session 1, recalled in session 2's first turn
    assert "What the memory stored" in result.stdout
    assert db.exists()


def test_demo_keeps_its_memory_for_the_cli_and_replays_cleanly(tmp_path: Path) -> None:
    first = zepkit("demo", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert (tmp_path / "zepkit-demo.db").exists()
    assert "zepkit search --db zepkit-demo.db --user demo-maya" in first.stdout
    again = zepkit("demo", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert _block(again.stdout).count("peanuts") == 1  # a replay starts its threads afresh
    found = zepkit(
        "search", "--db", "zepkit-demo.db", "--user", "demo-maya", "peanut", cwd=tmp_path
    )
    assert found.returncode == 0 and found.stdout.count("peanuts") == 1


def test_search_and_context_look_into_a_database(tmp_path: Path) -> None:
    db = tmp_path / "demo.db"
    assert zepkit("demo", "--db", str(db)).returncode == 0
    found = zepkit("search", "--db", str(db), "--user", "demo-maya", "peanuts")
    assert found.returncode == 0, found.stderr
    assert "peanuts" in found.stdout and found.stdout.startswith("- ")
    nodes = zepkit("search", "--db", str(db), "--user", "demo-maya", "--scope", "nodes", "Biscuit")
    assert "Biscuit" in nodes.stdout
    context = zepkit("context", "--db", str(db), "--thread", "demo-session-2")
    assert context.returncode == 0, context.stderr
    assert "<ZEP_CONTEXT>" in context.stdout


def test_cli_errors_are_one_readable_line(tmp_path: Path) -> None:
    missing = zepkit("search", "--db", str(tmp_path / "nope.db"), "--user", "u", "q")
    assert missing.returncode == 2 and "no database" in missing.stderr
    db = tmp_path / "demo.db"
    zepkit("demo", "--db", str(db))
    unknown = zepkit("context", "--db", str(db), "--thread", "no-such-thread")
    assert unknown.returncode == 2
    assert "Traceback" not in unknown.stderr and "no-such-thread" in unknown.stderr


async def _store_without_vectors(db: Path) -> None:
    backend = LocalBackend(db, retriever="lexical")
    await backend.ensure_user(UserProfile("u"))
    await backend.ensure_thread("t", "u")
    await backend.add_messages(
        "t", [Message("user", "We adopted a greyhound."), Message("user", "ok")]
    )
    await backend.aclose()


def test_embed_gives_stored_episodes_vectors_or_names_the_extra(tmp_path: Path) -> None:
    db = tmp_path / "lexical.db"
    asyncio.run(_store_without_vectors(db))
    result = zepkit("embed", "--db", str(db))
    if minilm.available():
        assert result.returncode == 0, result.stderr
        assert result.stdout.strip() == "embedded 2 episodes"
        assert "no vector" not in result.stderr  # no advice to run the command being run
        assert zepkit("embed", "--db", str(db)).stdout.strip() == "embedded 0 episodes"
    else:
        assert result.returncode == 2
        assert "zepkit-core[embeddings]" in result.stderr and "Traceback" not in result.stderr


def test_the_readme_tells_what_the_demo_really_shows(tmp_path: Path) -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    told = readme.split("## Try it")[1].split("Run the whole test suite")[0]
    for claim in ("`demo-maya`", "`demo-session-1`", "`demo-session-2`", "`zepkit-demo.db`"):
        assert claim in told
    assert "dog" in told and "peanut allergy" in told
    result = zepkit("demo", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    for shown in (
        "demo-maya",
        "demo-session-1",
        "demo-session-2",
        "zepkit search",
        "zepkit context",
    ):
        assert shown in result.stdout
    block = _block(result.stdout)
    assert "dog" in block and "allergic to peanuts" in block
    assert (tmp_path / "zepkit-demo.db").exists()
