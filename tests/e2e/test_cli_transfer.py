"""`zepkit export` and `zepkit import` as a user runs them: counts at the end, progress on
stderr, a re-run that adds nothing, and errors in one line with no half-written file left."""

from __future__ import annotations

import asyncio
import functools
import re
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from zepkit.core import MemoryLoop, _cli
from zepkit.core._progress import Progress

pytestmark = pytest.mark.slow


def zepkit(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "zepkit.core._cli", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.fixture
def source(tmp_path: Path, transfer_seed: Callable[[MemoryLoop], Awaitable[None]]) -> Path:
    db = tmp_path / "source.db"

    async def fill() -> None:
        async with MemoryLoop.local(db, on_error="raise") as memory:
            await transfer_seed(memory)

    asyncio.run(fill())
    return db


def test_export_then_import_then_again(
    source: Path, tmp_path: Path, records: Callable[[str], list[dict[str, Any]]]
) -> None:
    out, target, back = tmp_path / "memory.jsonl", tmp_path / "target.db", tmp_path / "back.jsonl"
    where = re.escape(str(out))
    exported = zepkit("export", "--db", str(source), "--out", str(out))
    assert exported.returncode == 0, exported.stderr
    assert re.fullmatch(
        rf"exported 2 users, 3 threads, 70 messages, 2 data items, \d+ facts to {where}\n",
        exported.stdout,
    )
    assert not (tmp_path / "memory.jsonl.partial").exists()

    imported = zepkit("import", "--db", str(target), str(out))
    assert imported.returncode == 0, imported.stderr
    assert re.fullmatch(
        rf"imported 2 users, 3 threads, 70 messages, 2 data items \(\d+ facts not imported: "
        rf"the target derives its own\) from {where}\n",
        imported.stdout,
    )
    again = zepkit("import", "--db", str(target), str(out))
    assert re.fullmatch(
        rf"imported 2 users, 3 threads, 0 messages, 0 data items \(70 messages and 2 data "
        rf"items already there; \d+ facts not imported: the target derives its own\) "
        rf"from {where}\n",
        again.stdout,
    )
    assert zepkit("export", "--db", str(target), "--out", str(back)).returncode == 0
    assert records(back.read_text(encoding="utf-8")) == records(out.read_text(encoding="utf-8"))

    one = zepkit("export", "--db", str(source), "--user", "bo", "--out", str(out))
    assert one.stdout.startswith("exported 1 users, 1 threads, 1 messages, 0 data items")


def test_progress_goes_to_stderr(
    source: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(_cli, "Progress", functools.partial(Progress, every=0.0))
    out = tmp_path / "memory.jsonl"
    assert _cli.main(["export", "--db", str(source), "--out", str(out)]) == 0
    assert _cli.main(["import", "--db", str(tmp_path / "target.db"), str(out)]) == 0
    captured = capsys.readouterr()
    assert "exporting: 70 messages\n" in captured.err
    assert "importing: 70 messages\n" in captured.err
    assert "exported 2 users" in captured.out and "imported 2 users" in captured.out


def test_errors_are_one_line_and_leave_no_file(source: Path, tmp_path: Path) -> None:
    out = tmp_path / "memory.jsonl"
    unknown = zepkit("export", "--db", str(source), "--user", "nobody", "--out", str(out))
    assert unknown.returncode == 2
    assert unknown.stderr == "zepkit: user 'nobody' does not exist; call ensure_user first\n"
    assert list(tmp_path.glob("memory.jsonl*")) == []

    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type": "user", "user_id": "u"}\n', encoding="utf-8")
    refused = zepkit("import", "--db", str(tmp_path / "target.db"), str(bad))
    assert refused.returncode == 2
    assert refused.stderr == ("zepkit: line 1: not a zepkit export (no header line first)\n")
    missing = zepkit("import", "--db", str(tmp_path / "target.db"), str(tmp_path / "nope"))
    assert missing.returncode == 2 and "no file at" in missing.stderr
