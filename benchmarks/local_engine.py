"""Benchmark of the local engine: ingest rate, add-with-context and search latency, peak memory.

Usage: python benchmarks/local_engine.py [--sizes 1000,10000,100000] [--quick]
                                        [--retriever lexical|hybrid|dense|auto]

For each size, a fresh database gets one user with a thread per ~50 messages, filled through
`LocalBackend.add_messages` in batches of 30 (the ingest rate counts the time spent in those
calls). Then it times `add_messages(return_context=True)` for one new user message,
`MemoryLoop.begin_turn` (what an adapter calls each turn: persist and get the rendered block) on
a running thread and as the first turn of a new thread, and an edges search with rrf. Prints
one JSON document; asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import resource
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from zepkit.core import Identity, MemoryLoop, Message
from zepkit.core.spi import SearchRequest, UserProfile
from zepkit.local import LocalBackend, RetrieverMode


def words(text: str) -> list[str]:
    return text.split()


PEOPLE = words(
    "Alice Bob Carla Dmitri Elena Farid Grace Hiro Ines Jamal Keiko Lars Maya Nikolai Olga Pedro "
    "Quinn Rosa Sanjay Tomas Uma Viktor Wen Ximena Yusuf Zoe"
)
PLACES = words(
    "Lisbon Porto Madrid Berlin Kyoto Osaka Nairobi Toronto Denver Oslo Prague Vienna Seoul Lima "
    "Austin Dublin Zurich Marseille Krakow Hanoi Cusco Reykjavik Tbilisi Valencia"
)
THINGS = words(
    "guitar piano marathon sourdough espresso bicycle telescope garden novel podcast chessboard "
    "kayak camera violin recipe spreadsheet laptop puppy kitten apartment mortgage vaccine "
    "passport wedding concert festival museum hiking trail yoga class pottery workshop budget "
    "promotion interview deadline vacation conference thesis startup keyboard headphones "
    "watercolor sketchbook tomato basil lemon tart dumplings ramen curry tacos"
)
VERBS = words(
    "bought sold visited cooked practised learned booked cancelled planned finished started "
    "repaired painted photographed recommended borrowed returned ordered tried loved hated"
)
ADJECTIVES = words(
    "amazing tiring expensive cheap relaxing stressful beautiful noisy quiet delicious spicy "
    "rainy sunny crowded cosy modern ancient tricky fun boring"
)
USER_TEMPLATES = (
    "I {verb} a {thing} in {place} last week.",
    "My friend {person} {verb} the {thing} and it was {adj}.",
    "Can you remind me what {person} said about the {thing}?",
    "We are flying to {place} next month for the {thing}.",
    "The {thing} was {adj}, honestly. {person} agreed.",
    "I need ideas for a {adj} {thing} near {place}.",
    "Remember that {person} is allergic to {thing}.",
)
ASSISTANT_TEMPLATES = (
    "That sounds {adj}! How did {person} like the {thing}?",
    "Noted: you {verb} a {thing} in {place}.",
    "Here are three ideas for a {thing} in {place}. Tell me which one you like.",
    "A {adj} {thing} is a great choice. Want me to plan the trip to {place}?",
    "I will remember that {person} enjoys the {thing}.",
)


def sentence(rng: random.Random, templates: tuple[str, ...]) -> str:
    return rng.choice(templates).format(
        verb=rng.choice(VERBS),
        thing=rng.choice(THINGS),
        place=rng.choice(PLACES),
        person=rng.choice(PEOPLE),
        adj=rng.choice(ADJECTIVES),
    )


def message(rng: random.Random, n: int, at: datetime) -> Message:
    user = n % 2 == 0
    templates = USER_TEMPLATES if user else ASSISTANT_TEMPLATES
    text = " ".join(sentence(rng, templates) for _ in range(rng.randint(1, 3)))
    return Message("user" if user else "assistant", text, created_at=at)


def batches(rng: random.Random, total: int, per_thread: int) -> Iterator[tuple[str, list[Message]]]:
    """(thread id, up to 30 messages) in order, a new thread every `per_thread` messages."""
    start = datetime(2024, 1, 1, tzinfo=UTC)
    for first in range(0, total, per_thread):
        thread = f"thread-{first // per_thread}"
        count = min(per_thread, total - first)
        for offset in range(0, count, 30):
            size = min(30, count - offset)
            yield (
                thread,
                [
                    message(rng, first + offset + i, start + timedelta(minutes=first + offset + i))
                    for i in range(size)
                ],
            )


def percentiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {"p50": round(statistics.median(ordered), 3), "p95": round(p95, 3)}


async def run_size(
    path: Path, size: int, samples: int, seed: int, retriever: RetrieverMode
) -> dict[str, Any]:
    rng = random.Random(seed)
    backend = LocalBackend(path, retriever=retriever)
    await backend.ensure_user(UserProfile("bench-user", first_name="Sam", last_name="Rivera"))
    threads: set[str] = set()
    ingest_seconds = 0.0  # time inside add_messages only: generating messages is not ingest
    for thread, batch in batches(rng, size, per_thread=50):
        if thread not in threads:
            await backend.ensure_thread(thread, "bench-user")
            threads.add(thread)
        started = time.perf_counter()
        await backend.add_messages(thread, batch)
        ingest_seconds += time.perf_counter() - started

    await backend.ensure_thread("live", "bench-user")
    add_ms: list[float] = []
    for _ in range(samples):
        turn = Message("user", sentence(rng, USER_TEMPLATES))
        t0 = time.perf_counter()
        await backend.add_messages("live", [turn], return_context=True)
        add_ms.append((time.perf_counter() - t0) * 1000)

    memory = MemoryLoop(backend, on_error="raise")
    turn_ms: list[float] = []
    first_ms: list[float] = []
    for n in range(samples):
        said = sentence(rng, USER_TEMPLATES)
        t0 = time.perf_counter()
        await memory.begin_turn(Identity(user_id="bench-user", thread_id="live"), said)
        turn_ms.append((time.perf_counter() - t0) * 1000)
        said = sentence(rng, USER_TEMPLATES)
        t0 = time.perf_counter()
        await memory.begin_turn(Identity(user_id="bench-user", thread_id=f"new-{n}"), said)
        first_ms.append((time.perf_counter() - t0) * 1000)

    search_ms: list[float] = []
    for _ in range(samples):
        query = f"{rng.choice(PEOPLE)} {rng.choice(THINGS)} {rng.choice(PLACES)}"
        request = SearchRequest(query, user_id="bench-user", scope="edges", reranker="rrf")
        t0 = time.perf_counter()
        await backend.search(request)
        search_ms.append((time.perf_counter() - t0) * 1000)
    await backend.aclose()
    return {
        "retriever": backend.retriever,
        "messages": size,
        "threads": len(threads),
        "ingest_messages_per_s": round(size / ingest_seconds),
        "add_with_context_ms": percentiles(add_ms),
        "begin_turn_ms": percentiles(turn_ms),
        "first_turn_ms": percentiles(first_ms),
        "search_ms": percentiles(search_ms),
        "peak_rss_mb_so_far": peak_rss_mb(),
    }


def peak_rss_mb() -> float:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return round(peak / (2**20 if sys.platform == "darwin" else 2**10), 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000", help="comma-separated message counts")
    parser.add_argument("--quick", action="store_true", help="fewer latency samples (50)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--retriever",
        default="lexical",
        choices=["lexical", "hybrid", "dense", "auto"],
        help="the local engine's retriever (hybrid and dense need zepkit-core[embeddings])",
    )
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",") if size.strip()]
    samples = 50 if args.quick else 200
    results = []
    for size in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "bench.sqlite"
            result = asyncio.run(run_size(path, size, samples, args.seed, args.retriever))
            result["database_mb"] = round(path.stat().st_size / 2**20, 1)
        results.append(result)
    report = {
        "sizes": results,
        "peak_rss_mb": peak_rss_mb(),
        "machine": {
            "cpu_count": os.cpu_count(),
            "python": platform.python_version(),
            "sqlite": sqlite3.sqlite_version,
            "platform": platform.platform(),
        },
        "samples_per_latency": samples,
    }
    json.dump(report, sys.stdout, indent=2)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
