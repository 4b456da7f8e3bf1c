"""The self-hosted server under load, on loopback only. Prints JSON.

Starts `zepkit-serve` (lexical local engine, no auth, 127.0.0.1, a free port) as a child process,
then measures:
- latency, with the real zep-cloud 4.x SDK: p50/p95 of `thread.add_messages(return_context=True)`
  through the server, next to the same call on an in-process `LocalBackend` over the same kind
  of data (the server's overhead);
- throughput: CLIENTS concurrent clients, each its own user and thread, each playing TURNS turns
  (the user's message added with return_context, a search of the user's graph, the assistant's
  reply added), spread over CLIENT_PROCESSES processes (so that one client process, bound to
  one core by its interpreter lock, is not what limits the server): turns per second (over
  the whole phase, and while all the clients were playing, before the first one finished), errors,
  and acknowledged messages lost (counted back through the messages list), and the CPU time
  each turn costs the server (all its workers; split into the event loops, which run uvicorn,
  Starlette, the handlers and the local engine's calls, and the other threads: a backend's own
  thread, the embedder's) and the clients (all client processes); on a shared machine, CPU per
  turn is steadier than time. `--client` picks who plays the turns: `lean` (an HTTP load
  client sending the SDK's very requests and checking each answer, so the figure is the
  server's), `sdk` (the zep-cloud 4.x SDK, as an agent would), or `both` (default: one phase
  each, on new users). `busiest_thread_busy` is the share of the run the server's busiest
  thread was running or waiting for a core (near 1: that thread is what bounds its worker).
Bounded: every phase has a fixed number of calls (`--turns` sets the load phase's) and the child is
stopped at the end.
`--quick` shortens both. CPU figures read Linux's /proc.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
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


def _server_threads(pid: int) -> dict[tuple[int, int], tuple[float, float]]:
    """Per thread of the server and of its live workers, (seconds on a core, seconds waiting for
    one), from Linux's schedstat; keyed (process, thread): a process's own id is its main thread,
    the event loop, and its other threads are helpers (a backend's own thread, the embedder's)."""
    pids = [pid]
    children = Path(f"/proc/{pid}/task/{pid}/children")
    if children.exists():
        pids += [int(child) for child in children.read_text().split()]
    found = {}
    for each in pids:
        for task in Path(f"/proc/{each}/task").iterdir():
            try:
                running, waiting = task.joinpath("schedstat").read_text().split()[:2]
            except OSError:  # the thread ended meanwhile
                continue
            found[(each, int(task.name))] = (int(running) / 1e9, int(waiting) / 1e9)
    return found


def _server_cpu(
    before: dict[tuple[int, int], tuple[float, float]],
    after: dict[tuple[int, int], tuple[float, float]],
    turns: int,
    elapsed: float,
) -> dict[str, float]:
    """CPU per turn of the event loops and of the other threads, and the busiest thread's share
    of the run (on a core or waiting for one)."""
    loops = others = busiest = 0.0
    for (pid, tid), (running, waiting) in after.items():
        ran_before, waited_before = before.get((pid, tid), (0.0, 0.0))
        ran, waited = running - ran_before, waiting - waited_before
        if pid == tid:
            loops += ran
        else:
            others += ran
        busiest = max(busiest, (ran + waited) / elapsed)
    return {
        "server_cpu_ms_per_turn": round((loops + others) / turns * 1000, 2),
        "server_event_loop_cpu_ms_per_turn": round(loops / turns * 1000, 2),
        "server_other_threads_cpu_ms_per_turn": round(others / turns * 1000, 2),
        "busiest_thread_busy": round(busiest, 2),
    }


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


async def _thread(client: AsyncZep, name: str) -> tuple[str, str]:
    """A new user named `name` with one thread: (the thread's uuid, the user's graph uuid)."""
    user = await client.user.create(user_id=name)
    assert user.uuid_ is not None
    thread = await client.thread.create(user_uuid=user.uuid_)
    assert thread.uuid_ is not None
    return thread.uuid_, user.uuid_


async def _through_server(base_url: str, turns: int) -> dict[str, float]:
    client = AsyncZep(api_key="unused", base_url=base_url, max_retries=0)
    thread, _ = await _thread(client, "latency")
    samples = []
    for i in range(turns):
        started = time.perf_counter()
        await client.thread.add_messages(
            thread, messages=[AddMessage(role="user", content=_text(i))], return_context=True
        )
        samples.append(time.perf_counter() - started)
    return _percentiles(samples)


class LeanClient:
    """A load client as an HTTP load tool is one: one kept-alive HTTP/1.1 connection, sending the
    very requests the SDK sends (method, path, headers, JSON body; a fresh Idempotency-Key each)
    and checking each answer's status and shape, without the SDK's models."""

    def __init__(self, base_url: str, headers: dict[str, str]) -> None:
        found = re.fullmatch(r"http://([^:/]+):(\d+)(/.*)", base_url)
        assert found, base_url
        self.host, self.port, self.prefix = found[1], int(found[2]), found[3]
        lines = [f"{name}: {value}" for name, value in headers.items()]
        lines += ["Accept: */*", "Accept-Encoding: gzip, deflate", "Connection: keep-alive"]
        self.head = "\r\n".join([f"Host: {self.host}:{self.port}", *lines, ""])
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def call(self, path: str, body: dict[str, Any]) -> tuple[int, Any]:
        """POST `body` to `path` (under the base URL): (status, the JSON answer)."""
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        assert self.reader is not None
        data = json.dumps(body, separators=(",", ":")).encode()
        self.writer.write(
            f"POST {self.prefix}{path} HTTP/1.1\r\n{self.head}Content-Type: application/json\r\n"
            f"Idempotency-Key: {uuid.uuid4()}\r\nContent-Length: {len(data)}\r\n\r\n".encode()
            + data
        )
        head = await self.reader.readuntil(b"\r\n\r\n")
        status = int(head[9:12])
        length = re.search(rb"(?i)\r\ncontent-length: *(\d+)", head)
        assert length, head
        return status, json.loads(await self.reader.readexactly(int(length[1])))

    async def aclose(self) -> None:
        if self.writer is not None:
            self.writer.close()
            await self.writer.wait_closed()


async def _lean_turn(client: LeanClient, thread: str, graph: str, n: int) -> int:
    """`_turn`'s three requests, as the SDK sends them, each answer checked."""
    text = _text(n)
    status, answer = await client.call(
        f"/threads/{thread}/messages",
        {"messages": [{"content": text, "role": "user"}], "return_context": True},
    )
    if status != 202 or len(answer["messages"]) != 1 or not isinstance(answer["context"], str):
        raise RuntimeError(f"add_messages answered {status}")
    status, answer = await client.call(f"/graphs/{graph}/search/edges?page_size=5", {"query": text})
    if status != 200 or not isinstance(answer["items"], list):
        raise RuntimeError(f"search answered {status}")
    status, answer = await client.call(
        f"/threads/{thread}/messages",
        {"messages": [{"content": f"Noted, thanks. ({n})", "role": "assistant"}]},
    )
    if status != 202 or len(answer["messages"]) != 1:
        raise RuntimeError(f"add_messages answered {status}")
    return 2


async def _turn(client: AsyncZep, thread: str, graph: str, n: int) -> int:
    """One turn as an agent plays it: the user's message in (with the context block back), a
    search of the user's graph, the reply stored; how many messages the server acknowledged."""
    text = _text(n)
    await client.thread.add_messages(
        thread, messages=[AddMessage(role="user", content=text)], return_context=True
    )
    await client.graph.search_edges(graph, query=text, page_size=5)
    await client.thread.add_messages(
        thread, messages=[AddMessage(role="assistant", content=f"Noted, thanks. ({n})")]
    )
    return 2


async def _clients(
    base_url: str,
    threads: dict[int, tuple[str, str]],
    turns: int,
    warm: tuple[str, str],
    ready: Any,
    go: Any,
    sdk: bool,
) -> tuple[int, int, float, list[list[float]]]:
    """Play `turns` turns in each of `threads` (numbered as in the whole run), all at once, after
    two turns in the thread `warm` (the SDK's first calls build what later calls
    reuse), telling `ready` and waiting for `go`; the errors, the messages acknowledged, this
    process's CPU seconds while playing, and when (`time.monotonic`) each client ended each
    turn."""
    # httpx keeps 20 idle connections by default: more clients than that in one process would
    # open a new connection for most calls (measured: 635 connections for 640 turns with 32).
    pool = httpx.AsyncClient(
        timeout=60, limits=httpx.Limits(max_keepalive_connections=len(threads))
    )
    client = AsyncZep(api_key="unused", base_url=base_url, max_retries=0, httpx_client=pool)
    headers = client._client_wrapper.get_headers()  # the SDK's own headers, for the lean client
    lean = {n: LeanClient(base_url, headers) for n in [*threads, -1]}
    for i in range(2):
        if sdk:
            await _turn(client, *warm, i)
        else:
            await _lean_turn(lean[-1], *warm, i)
    ready.release()
    await asyncio.to_thread(go.wait)
    errors = acknowledged = 0
    ended: list[list[float]] = []

    async def run(target: tuple[str, str], n: int) -> None:
        nonlocal errors, acknowledged
        mine: list[float] = []
        ended.append(mine)
        for i in range(turns):
            try:
                if sdk:
                    stored = await _turn(client, *target, n * turns + i)
                else:
                    stored = await _lean_turn(lean[n], *target, n * turns + i)
                acknowledged += stored  # after the await: `x += await f()` reads x before it
            except Exception:
                errors += 1
            mine.append(time.monotonic())

    cpu = time.process_time()
    await asyncio.gather(*(run(target, n) for n, target in threads.items()))
    cpu = time.process_time() - cpu
    await pool.aclose()
    for each in lean.values():
        await each.aclose()
    return errors, acknowledged, cpu, ended


def _all_playing(started: float, ended: list[list[float]]) -> tuple[int, float]:
    """The turns ended while every client was still playing (until the first one finished its
    last turn), and that span in seconds: the rate of the whole run also counts its tail, where
    the clients of a worker that got more of them play on alone."""
    first_done = min(times[-1] for times in ended)
    return sum(t <= first_done for times in ended for t in times), first_done - started


def _client_process(
    base_url: str,
    threads: dict[int, tuple[str, str]],
    turns: int,
    warm: tuple[str, str],
    ready: Any,
    go: Any,
    results: Any,
    sdk: bool,
) -> None:
    """One client process: plays its share of the clients and reports (errors, messages
    acknowledged, CPU seconds)."""
    results.put(asyncio.run(_clients(base_url, threads, turns, warm, ready, go, sdk)))


async def _load(
    base_url: str, clients: int, turns: int, processes: int, server_pid: int, sdk: bool
) -> dict[str, Any]:
    client = AsyncZep(api_key="unused", base_url=base_url, max_retries=0, timeout=60)
    kind = "sdk" if sdk else "lean"
    threads = [await _thread(client, f"load-{kind}-{n}") for n in range(clients)]
    context = multiprocessing.get_context("spawn")
    ready, go, results = context.Semaphore(0), context.Event(), context.Queue()
    workers = []
    for k in range(processes):
        share = dict(list(enumerate(threads))[k::processes])
        warm = await _thread(client, f"warm-{kind}-{k}")
        args = (base_url, share, turns, warm, ready, go, results, sdk)
        workers.append(context.Process(target=_client_process, args=args))
    for worker in workers:
        worker.start()
    for _ in workers:  # bounded: a client process that cannot start fails the run
        if not await asyncio.to_thread(ready.acquire, True, 120):
            raise SystemExit("a client process did not start")
    before, started = _server_threads(server_pid), time.monotonic()
    go.set()
    played = [await asyncio.to_thread(results.get, True, 600) for _ in workers]
    elapsed = time.monotonic() - started
    after = _server_threads(server_pid)
    for worker in workers:
        worker.join()
    errors = sum(errors for errors, _, _, _ in played)
    acknowledged = sum(count for _, count, _, _ in played)
    client_cpu = sum(cpu for _, _, cpu, _ in played)
    together, span = _all_playing(started, [times for *_, ended in played for times in ended])
    stored = 0
    for thread, _ in threads:
        page = await client.thread.list_messages(thread, page_size=1)
        stored += page.response.total_size if page.response and page.response.total_size else 0
    sent = clients * turns
    return {
        "client": kind,
        "clients": clients,
        "client_processes": processes,
        "turns": sent,
        "seconds": round(elapsed, 2),
        "turns_per_second": round(sent / elapsed, 1),
        "turns_per_second_all_playing": round(together / span, 1),
        "errors": errors,
        "messages_acknowledged": acknowledged,
        "messages_stored": stored,
        "lost": max(0, acknowledged - stored),
        **_server_cpu(before, after, sent, elapsed),
        "client_cpu_ms_per_turn": round(client_cpu / sent * 1000, 2),
    }


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer calls")
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--workers", type=int, default=1, help="the server's --workers")
    parser.add_argument(
        "--client-processes", type=int, default=2, help="processes the clients are spread over"
    )
    parser.add_argument(
        "--client",
        choices=["lean", "sdk", "both"],
        default="both",
        help="the throughput phase's client: lean HTTP, the SDK, or both one after the other",
    )
    parser.add_argument(
        "--turns", type=int, help="turns each load client plays (default 20, 5 with --quick)"
    )
    args = parser.parse_args()
    latency_turns, load_turns = (50, 5) if args.quick else (300, 20)
    if args.turns is not None:
        if args.turns < 1:
            parser.error("--turns must be at least 1")
        load_turns = args.turns
    with tempfile.TemporaryDirectory() as folder:
        data = Path(folder)
        in_process = await _in_process(data, latency_turns)
        child, base_url = _start_server(data / "served", args.workers)
        try:
            served = await _through_server(base_url, latency_turns)
            load = {
                kind: await _load(
                    base_url,
                    args.clients,
                    load_turns,
                    args.client_processes,
                    child.pid,
                    kind == "sdk",
                )
                for kind in (["lean", "sdk"] if args.client == "both" else [args.client])
            }
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
