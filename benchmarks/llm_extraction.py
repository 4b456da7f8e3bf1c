"""LLM extraction benchmark: does a slow model slow the turns down, and what does it cost?

Usage: python benchmarks/llm_extraction.py [--turns N] [--users N] [--model-seconds S]
                                           [--pause S] [--every N]

A stub OpenAI-compatible endpoint on loopback takes `--model-seconds` (default 2) per call and
answers with one fact per user message, reporting tokens as characters / 4. The same scripted
conversation (`--users` users taking turns, each turn `begin_turn` then `capture_reply`, with
`--pause` seconds of "agent thinking" between turns) runs through `MemoryLoop` on a fresh file
twice: extraction off, then on with the in-process worker. Reported: `begin_turn` latency per run
(the p95 with extraction on should stay within 10% of off), and with extraction on the calls and
tokens per user turn once the queue is drained. Prints one JSON document; asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import re
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from zepkit.core import Identity, MemoryLoop
from zepkit.local import LLMExtractor, LocalBackend

PLACES = ("Lisbon", "Porto", "Oslo", "Bergen", "Kyoto", "Osaka", "Lima", "Cusco")
HOBBIES = ("bees", "rowing", "chess", "pottery", "climbing", "the cello", "sourdough", "kites")


def say(user: int, turn: int) -> tuple[str, str]:
    """The user's message and the assistant's reply of one turn: varied, fact-bearing."""
    place = PLACES[(user + turn) % len(PLACES)]
    hobby = HOBBIES[(user * 3 + turn) % len(HOBBIES)]
    said = (
        f"Last weekend I was in {place} again and spent the whole time on {hobby}; "
        f"my friend number {turn} came along."
    )
    return said, f"That sounds like a good weekend in {place}. How long have you done {hobby}?"


def stub_handler(delay: float) -> type[BaseHTTPRequestHandler]:
    class Stub(BaseHTTPRequestHandler):
        """A chat completions endpoint that thinks `delay` seconds, then states one fact per
        user message it was shown."""

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers["Content-Length"]))
            body = json.loads(raw)
            time.sleep(delay)
            prompt = body["messages"][1]["content"]
            shown = json.loads(prompt)
            facts = [
                {
                    "fact": f"{shown['user']} said: {message['content']}",
                    "message": message["id"],
                    "entities": re.findall(r"\b[A-Z][a-z]+\b", message["content"])[:3],
                    "about_user": True,
                    "valid_at": None,
                    "supersedes": [],
                }
                for message in shown["messages"]
                if message["role"] == "user"
            ]
            content = json.dumps(
                {"facts": facts, "entities": [], "user_summary": f"{shown['user']} travels."}
            )
            reply = json.dumps(
                {
                    "choices": [{"message": {"role": "assistant", "content": content}}],
                    "usage": {
                        "prompt_tokens": len(raw) // 4,  # instructions, schema and batch
                        "completion_tokens": len(content) // 4,
                    },
                }
            ).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Stub


@contextmanager
def stub_model(delay: float) -> Iterator[str]:
    """The stub endpoint on loopback while the block runs; its base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), stub_handler(delay))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def conversation(
    llm: LLMExtractor | None, turns: int, users: int, pause: float
) -> dict[str, Any]:
    """Run the conversation on a fresh file; begin_turn latencies and, with `llm`, its cost."""
    with tempfile.TemporaryDirectory() as folder:
        backend = LocalBackend(Path(folder) / "bench.sqlite", llm=llm or False)
        latencies: list[float] = []
        async with MemoryLoop(backend, on_error="raise") as memory:
            people = [
                Identity(user_id=f"user-{n}", thread_id=f"user-{n}-t", first_name=f"Person{n}")
                for n in range(users)
            ]
            for turn in range(turns):
                person = people[turn % users]
                said, reply = say(turn % users, turn // users)
                started = time.perf_counter()
                await memory.begin_turn(person, said, turn_id=f"t{turn}")
                latencies.append((time.perf_counter() - started) * 1000)
                await memory.capture_reply(person, reply, turn_id=f"t{turn}")
                await asyncio.sleep(pause)
            result: dict[str, Any] = {
                "begin_turn_ms": {
                    "p50": round(percentile(latencies, 0.5), 2),
                    "p95": round(percentile(latencies, 0.95), 2),
                    "max": round(max(latencies), 2),
                }
            }
            if llm is not None:
                during = await backend.extraction_stats()
                drain_started = time.perf_counter()
                await backend.extract_pending()
                stats = await backend.extraction_stats()
                result["extraction"] = {
                    "calls_during_the_turns": during["calls"]["total"],
                    "drain_seconds_after": round(time.perf_counter() - drain_started, 2),
                    "calls": stats["calls"],
                    "tokens": stats["tokens"],
                    "user_turns_extracted": stats["user_turns_extracted"],
                    "per_user_turn": stats["per_user_turn"],
                }
        return result


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--turns", type=int, default=200, help="user turns in all (default 200)")
    parser.add_argument("--users", type=int, default=4, help="users taking turns (default 4)")
    parser.add_argument("--model-seconds", type=float, default=2.0, help="seconds per call")
    parser.add_argument("--pause", type=float, default=0.05, help="seconds between turns")
    parser.add_argument("--every", type=int, default=5, help="user turns per batch (default 5)")
    args = parser.parse_args(argv)
    with stub_model(args.model_seconds) as url:
        llm = LLMExtractor(url, "stub", every=args.every, idle_seconds=30.0)
        off = asyncio.run(conversation(None, args.turns, args.users, args.pause))
        on = asyncio.run(conversation(llm, args.turns, args.users, args.pause))
        llm.close()
    ratio = on["begin_turn_ms"]["p95"] / off["begin_turn_ms"]["p95"]
    report = {
        "benchmark": "begin_turn latency with LLM extraction off and on (stub model)",
        "settings": {
            "turns": args.turns,
            "users": args.users,
            "model_seconds_per_call": args.model_seconds,
            "pause_between_turns_s": args.pause,
            "every": args.every,
        },
        "machine": {
            "python": platform.python_version(),
            "platform": platform.platform(),
            "cpus": os.cpu_count(),
        },
        "extractor_off": off,
        "extractor_on": on,
        "p95_on_over_off": round(ratio, 3),
        "p95_within_10_percent": ratio <= 1.10,
    }
    json.dump(report, sys.stdout, indent=2)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
