"""The self-hosted server under load, on loopback only. Prints JSON.

Starts `zepkit-serve` (lexical local engine, no auth, 127.0.0.1, a free port) as a child process,
then measures with the real zep-cloud 4.x SDK:
- latency: p50/p95 of `thread.add_messages(return_context=True)` through the server, next to the
  same call on an in-process `LocalBackend` over the same kind of data (the server's overhead);
- throughput: CLIENTS concurrent clients, each its own user and thread, each sending TURNS turns
  (add_messages with return_context): turns per second, errors, and messages lost (counted back
  through the messages list), and the CPU time each turn costs the server (all its workers) and
  the client (the SDK in this process): on a shared machine, CPU per turn is steadier than time.
Bounded: every phase has a fixed number of calls and the child is stopped at the end.
`--quick` shortens both.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from zep_cloud.client import AsyncZep
from zep_cloud.types import AddMessage

from zepkit.core import Message
from zepkit.core.spi import UserProfile
from zepkit.local import LocalBackend

SENTENCES = [
    "I adopted a greyhound named Comet last spring.",
    "My sister Maya lives in Lisbon and teaches chemistry.",
    "I am training for the Halifax marathon in October.",
    "We switched to a vegetarian diet at home this year.",
    "My favourite colour is turquoise, like the sea in Crete.",
    "The team meeting moved to Thursdays at ten.",
]


def _text(i: int) -> str:
    return f"{SENTENCES[i % len(SENTENCES)]} (note {i})"


def _percentiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {
        "p50_ms": round(statistics.median(ordered) * 1000, 2),
        "p95_ms": round(ordered[int(len(ordered) * 0.95) - 1] * 1000, 2),
    }


def _cpu_seconds(pid: int) -> float:
    """CPU time (user + system) of a process and of its live children (Linux's /proc)."""
    pids = [pid]
    children = Path(f"/proc/{pid}/task/{pid}/children")
    if children.exists():
        pids += [int(child) for child in children.read_text().split()]
    total = 0
    for each in pids:
        fields = Path(f"/proc/{each}/stat").read_text().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def _start_server(data: Path, workers: int) -> tuple[subprocess.Popen[str], str]:
    command = [
        sys.executable, "-m", "zepkit.server.cli", "--db", str(data), "--port", "0",
        "--no-auth", "--retriever", "lexical", "--workers", str(workers),
    ]  # fmt: skip
    child = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None
    found = re.search(r"listening on (http://127\.0\.0\.1:\d+)", child.stdout.readline())
    if not found:
        child.kill()
        raise SystemExit("the server did not start")
    return child, found[1] + "/api/v4"


async def _in_process(data: Path, turns: int) -> dict[str, float]:
    backend = LocalBackend(data / "in-process.db", retriever="lexical")
    try:
        await backend.ensure_user(UserProfile("bench"))
        await backend.ensure_thread("bench-thread", "bench")
        samples = []
        for i in range(turns):
            started = time.perf_counter()
            await backend.add_messages(
                "bench-thread", [Message("user", _text(i))], return_context=True
            )
            samples.append(time.perf_counter() - started)
        return _percentiles(samples)
    finally:
        await backend.aclose()


async def _thread(client: AsyncZep, name: str) -> str:
    user = await client.user.create(user_id=name)
    assert user.uuid_ is not None
    thread = await client.thread.create(user_uuid=user.uuid_)
    assert thread.uuid_ is not None
    return thread.uuid_


async def _through_server(base_url: str, turns: int) -> dict[str, float]:
    client = AsyncZep(api_key="unused", base_url=base_url, max_retries=0)
    thread = await _thread(client, "latency")
    samples = []
    for i in range(turns):
        started = time.perf_counter()
        await client.thread.add_messages(
            thread, messages=[AddMessage(role="user", content=_text(i))], return_context=True
        )
        samples.append(time.perf_counter() - started)
    return _percentiles(samples)


async def _load(base_url: str, clients: int, turns: int, server_pid: int) -> dict[str, Any]:
    client = AsyncZep(api_key="unused", base_url=base_url, max_retries=0, timeout=60)
    threads = [await _thread(client, f"load-{n}") for n in range(clients)]
    errors = 0

    async def run(thread: str, n: int) -> None:
        nonlocal errors
        for i in range(turns):
            try:
                await client.thread.add_messages(
                    thread,
                    messages=[AddMessage(role="user", content=_text(n * turns + i))],
                    return_context=True,
                )
            except Exception:
                errors += 1

    started, server_cpu, client_cpu = (
        time.perf_counter(),
        _cpu_seconds(server_pid),
        time.process_time(),
    )
    await asyncio.gather(*(run(thread, n) for n, thread in enumerate(threads)))
    elapsed = time.perf_counter() - started
    server_cpu = _cpu_seconds(server_pid) - server_cpu
    client_cpu = time.process_time() - client_cpu
    stored = 0
    for thread in threads:
        page = await client.thread.list_messages(thread, page_size=1)
        stored += page.response.total_size if page.response and page.response.total_size else 0
    sent = clients * turns
    return {
        "clients": clients,
        "turns": sent,
        "seconds": round(elapsed, 2),
        "turns_per_second": round(sent / elapsed, 1),
        "errors": errors,
        "lost": sent - errors - stored,
        "server_cpu_ms_per_turn": round(server_cpu / sent * 1000, 2),
        "client_cpu_ms_per_turn": round(client_cpu / sent * 1000, 2),
    }


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer calls")
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--workers", type=int, default=1, help="the server's --workers")
    args = parser.parse_args()
    latency_turns, load_turns = (50, 5) if args.quick else (300, 20)
    with tempfile.TemporaryDirectory() as folder:
        data = Path(folder)
        in_process = await _in_process(data, latency_turns)
        child, base_url = _start_server(data / "served", args.workers)
        try:
            served = await _through_server(base_url, latency_turns)
            load = await _load(base_url, args.clients, load_turns, child.pid)
        finally:
            child.send_signal(signal.SIGTERM)
            child.wait(timeout=30)
    print(
        json.dumps(
            {
                "benchmark": "server",
                "cpus": os.cpu_count(),
                "retriever": "lexical",
                "workers": args.workers,
                "add_messages_return_context": {
                    "in_process": in_process,
                    "through_server": served,
                    "overhead_p50_ms": round(served["p50_ms"] - in_process["p50_ms"], 2),
                },
                "load": load,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    asyncio.run(main())
