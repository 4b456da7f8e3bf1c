"""Context-block benchmark: does the block of a new conversation carry what the user told us?

Usage: python benchmarks/context.py [--data PATH] [--retriever lexical,hybrid] [--show-failures]
       [--extractor URL MODEL]

Data: a file in the format of `context-dev.json` (see its README), read where it lies; default
`../shared/data/context/context-dev.json` relative to the repository. Every case is loaded into
one store through `MemoryLoop` (the user and the other user with their own threads, user messages
named with the first name); then, per case, `begin_turn` runs for the user on a new thread with
the question. A case passes when every `must` string is in the block (case-insensitive); a leak
is a `must_not` string in it. Both are looked for in the block without its "(Date range: ...)"
notes, which hold the clock's time of the run: a case's "4:45" is no leak because the messages
were stored at 13:04:45. Prints one JSON document per run; asserts nothing.

`--extractor URL MODEL` adds LLM extraction by that OpenAI-compatible endpoint (API key from
`ZEPKIT_LLM_API_KEY`): after loading, every waiting message is extracted before the questions,
and the run reports the calls and tokens it took. Without it, extraction stays off whatever the
environment says.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import platform
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from zepkit.core import ConfigurationError, Identity, MemoryLoop, Message
from zepkit.local import LLMExtractor, LocalBackend
from zepkit.local.dense import MODES, RetrieverMode

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT / ".." / "shared" / "data" / "context" / "context-dev.json"


async def load_user(
    memory: MemoryLoop, user_id: str, first_name: str | None, sessions: list[list[dict[str, str]]]
) -> None:
    """One thread per session, user messages named with the first name."""
    await memory.ensure_user(user_id, first_name=first_name)
    for number, turns in enumerate(sessions):
        thread = f"{user_id}-past-{number}"
        await memory.ensure_thread(thread, user_id=user_id)
        messages = [
            Message(
                turn["role"],
                turn["content"],
                name=first_name if turn["role"] == "user" else None,
            )
            for turn in turns
        ]
        await memory.add_messages(thread, messages)


DATE_RANGE = re.compile(r" ?\(Date range: [^)]*\)")
"""A statement's validity note in the block: times of the run, not of the case."""


def scored_text(block: str) -> str:
    """The block as the case's strings are looked for in it: lower-cased, without date ranges."""
    return DATE_RANGE.sub("", block).lower()


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def extractor(option: Sequence[str] | None) -> LLMExtractor | None:
    """The `--extractor URL MODEL` endpoint, or None."""
    if not option:
        return None
    url, model = option
    return LLMExtractor(url, model, api_key=os.environ.get("ZEPKIT_LLM_API_KEY") or None)


async def run(
    cases: list[dict[str, Any]], retriever: RetrieverMode, llm: LLMExtractor | None = None
) -> dict[str, Any]:
    """Load every case into one fresh file, then ask each question; the figures."""
    extraction: dict[str, Any] | None = None
    with tempfile.TemporaryDirectory() as folder:
        backend = LocalBackend(
            Path(folder) / "context.sqlite", retriever=retriever, llm=llm or False, llm_worker=False
        )
        async with MemoryLoop(backend, on_error="raise") as memory:
            for case in cases:
                user = case["user"]
                await load_user(memory, user["user_id"], user.get("first_name"), case["sessions"])
                other = case.get("other_user")
                if other:
                    await load_user(
                        memory, other["user_id"], other.get("first_name"), other["sessions"]
                    )
            if llm is not None:
                await backend.extract_pending()
                extraction = await backend.extraction_stats()
            passed, leaks, lengths, latencies = 0, 0, [], []
            failures = []
            for case in cases:
                user = case["user"]
                identity = Identity(
                    user_id=user["user_id"],
                    thread_id=f"{user['user_id']}-new",
                    first_name=user.get("first_name"),
                )
                begin = time.perf_counter()
                block = await memory.begin_turn(identity, case["question"])
                latencies.append((time.perf_counter() - begin) * 1000)
                lowered = scored_text(block)
                lengths.append(len(block))
                missing = [m for m in case["must"] if m.lower() not in lowered]
                leaked = [m for m in case.get("must_not", []) if m.lower() in lowered]
                passed += not missing
                leaks += len(leaked)
                if missing or leaked:
                    failures.append(
                        {"id": case["id"], "missing": missing, "leaked": leaked, "block": block}
                    )
    return {
        "retriever": backend.retriever,
        "cases": len(cases),
        "passed": passed,
        "leaks": leaks,
        "mean_block_chars": round(statistics.fmean(lengths), 1) if lengths else 0,
        "begin_turn_ms": {
            "p50": round(percentile(latencies, 0.5), 2),
            "p95": round(percentile(latencies, 0.95), 2),
        },
        "failures": failures,
        **({"extraction": extraction} if extraction is not None else {}),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--retriever", default="lexical,hybrid")
    parser.add_argument(
        "--show-failures", action="store_true", help="print the block of every failed case"
    )
    parser.add_argument(
        "--extractor",
        nargs=2,
        metavar=("URL", "MODEL"),
        help="extract with this OpenAI-compatible endpoint and model (off by default)",
    )
    args = parser.parse_args(argv)
    llm = extractor(args.extractor)
    path = args.data.resolve()
    if not path.is_file():
        print(f"context data not found at {path}; pass --data PATH. Nothing to measure.")
        return 0
    cases = json.loads(path.read_text(encoding="utf-8"))["cases"]
    results: list[dict[str, Any]] = []
    for name in args.retriever.split(","):
        if name.strip() not in MODES:
            parser.error(f"unknown retriever {name!r}; one of {', '.join(MODES)}")
        mode: RetrieverMode = name.strip()  # type: ignore[assignment]
        try:
            result = asyncio.run(run(cases, mode, llm))
        except ConfigurationError as exc:
            print(f"skipping retriever {mode!r}: {exc}", file=sys.stderr)
            results.append({"retriever": mode, "skipped": str(exc)})
            continue
        if not args.show_failures:
            result["failures"] = [item["id"] for item in result["failures"]]
        results.append(result)
    report = {
        "benchmark": "context blocks of a new conversation (begin_turn, default budget)",
        "data": {
            "path": str(path),
            "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
            "cases": len(cases),
        },
        "machine": {
            "python": platform.python_version(),
            "platform": platform.platform(),
            "cpus": os.cpu_count(),
        },
        "results": results,
    }
    json.dump(report, sys.stdout, indent=2)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
