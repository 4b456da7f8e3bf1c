"""Benchmark of the local engine: ingest rate, add-with-context and search latency, peak memory.

Usage: python benchmarks/local_engine.py [--sizes 1000,10000,100000] [--quick]
                                        [--retriever lexical|hybrid|dense|auto]
                                        [--users 1] [--synthetic-vectors] [--reopen-only]
                                        [--chat [PATH]]

For each size, a fresh database gets one user with a thread per ~50 messages, filled through
`LocalBackend.add_messages` in batches of 30 (the ingest rate counts the time spent in those
calls). Then it times `add_messages(return_context=True)` for one new user message,
`MemoryLoop.begin_turn` (what an adapter calls each turn: persist and get the rendered block) on
a running thread and as the first turn of a new thread, and an edges search with rrf. Then a
fresh process opens the file and reports its first search (hybrid: the model loads and the
user's vectors are read), 1,000 searches (episodes, limit 10, spread over the users) and its
resident memory after them. Prints one JSON document; asserts nothing.

`--users N` gives each of N users `size` messages (only the reopened process is timed);
`--synthetic-vectors` stores the messages lexically and then random unit vectors under the
embedding model's id, so a hybrid file of a million messages is made in minutes (timing and
memory only: the vectors mean nothing).

The messages are synthetic chat from a few hundred words by default; `--chat` uses LoCoMo's
conversations instead (default `../shared/data/locomo/locomo-dev.json`, read where it lies and
never copied): their turns in order, cycled to the size asked, the first speaker of each
conversation as the user, and the dataset's questions as the searches and the turns' user
sentences as the added messages. Chat holds the suffix variety and common words that synthetic
text lacks, where some costs only show.
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
import subprocess
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


class Chat:
    """Where the benchmark's text comes from: the messages stored, the user messages added with
    context, and the search queries. This one is synthetic (the word lists above)."""

    name = "synthetic"

    def message(self, rng: random.Random, n: int, at: datetime) -> Message:
        return message(rng, n, at)

    def said(self, rng: random.Random) -> str:
        return sentence(rng, USER_TEMPLATES)

    def query(self, rng: random.Random) -> str:
        return f"{rng.choice(PEOPLE)} {rng.choice(THINGS)} {rng.choice(PLACES)}"


class RecordedChat(Chat):
    """LoCoMo's conversations: turns in order (cycled), questions as queries."""

    def __init__(self, path: Path) -> None:
        data = json.loads(path.read_text(encoding="utf-8"))
        self.name = path.name
        self.turns: list[tuple[bool, str]] = []  # (said by the user, text)
        self.questions = [str(qa["question"]) for item in data for qa in item["qa"]]
        from locomo import session_keys  # the LoCoMo benchmark beside this one

        for item in data:
            body = item["conversation"]
            for key in session_keys(body):
                for turn in body[key]:
                    self.turns.append((turn["speaker"] == body["speaker_a"], str(turn["text"])))
        self.user_turns = [text for by_user, text in self.turns if by_user]
        if not self.turns or not self.questions:
            raise SystemExit(f"{path}: no LoCoMo turns or questions")

    def message(self, rng: random.Random, n: int, at: datetime) -> Message:
        by_user, text = self.turns[n % len(self.turns)]
        return Message("user" if by_user else "assistant", text, created_at=at)

    def said(self, rng: random.Random) -> str:
        return rng.choice(self.user_turns)

    def query(self, rng: random.Random) -> str:
        return rng.choice(self.questions)


LOCOMO = Path(__file__).resolve().parent.parent / ".." / "shared" / "data" / "locomo"
DEFAULT_CHAT = LOCOMO / "locomo-dev.json"


def chat_from(path: Path | None) -> Chat:
    return Chat() if path is None else RecordedChat(path)


def batches(
    rng: random.Random, total: int, per_thread: int, chat: Chat | None = None
) -> Iterator[tuple[str, list[Message]]]:
    """(thread id, up to 30 messages) in order, a new thread every `per_thread` messages."""
    chat = chat or Chat()
    start = datetime(2024, 1, 1, tzinfo=UTC)
    for first in range(0, total, per_thread):
        thread = f"thread-{first // per_thread}"
        count = min(per_thread, total - first)
        for offset in range(0, count, 30):
            size = min(30, count - offset)
            yield (
                thread,
                [
                    chat.message(
                        rng, first + offset + i, start + timedelta(minutes=first + offset + i)
                    )
                    for i in range(size)
                ],
            )


def percentiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {"p50": round(statistics.median(ordered), 3), "p95": round(p95, 3)}


def user_name(n: int) -> str:
    return "bench-user" if n == 0 else f"bench-user-{n}"


async def fill(
    path: Path,
    size: int,
    users: int,
    seed: int,
    retriever: RetrieverMode,
    synthetic: bool,
    chat: Chat | None = None,
) -> tuple[LocalBackend, int, float]:
    """Store `size` messages for each user; (backend, threads, seconds inside add_messages)."""
    rng = random.Random(seed)
    backend = LocalBackend(path, retriever="lexical" if synthetic else retriever)
    threads = 0
    ingest_seconds = 0.0  # time inside add_messages only: generating messages is not ingest
    for n in range(users):
        user = user_name(n)
        await backend.ensure_user(UserProfile(user, first_name="Sam", last_name="Rivera"))
        seen: set[str] = set()
        for thread, batch in batches(rng, size, per_thread=50, chat=chat):
            if thread not in seen:
                await backend.ensure_thread(f"{user}/{thread}", user)
                seen.add(thread)
            started = time.perf_counter()
            await backend.add_messages(f"{user}/{thread}", batch)
            ingest_seconds += time.perf_counter() - started
        threads += len(seen)
    if synthetic:
        await backend.aclose()
        synthetic_vectors(path, seed)
        backend = LocalBackend(path, retriever=retriever)
    return backend, threads, ingest_seconds


def synthetic_vectors(path: Path, seed: int) -> None:
    """Random unit vectors under the embedding model's id for every episode of the file."""
    import numpy as np

    from zepkit.local import minilm
    from zepkit.local.vectors import normalised, store_vectors

    model = minilm.shared().model_id
    rng = np.random.default_rng(seed)
    conn = sqlite3.connect(path)
    ids = [row[0] for row in conn.execute("SELECT id FROM episodes ORDER BY id")]
    for start in range(0, len(ids), 10_000):
        chunk = ids[start : start + 10_000]
        store_vectors(conn, model, chunk, normalised(rng.standard_normal((len(chunk), 384))))
        conn.commit()
    conn.close()


async def run_size(
    path: Path,
    size: int,
    samples: int,
    seed: int,
    retriever: RetrieverMode,
    synthetic: bool,
    chat: Chat,
) -> dict[str, Any]:
    rng = random.Random(seed + 1)
    backend, threads, ingest_seconds = await fill(path, size, 1, seed, retriever, synthetic, chat)

    await backend.ensure_thread("live", "bench-user")
    add_ms: list[float] = []
    for _ in range(samples):
        turn = Message("user", chat.said(rng))
        t0 = time.perf_counter()
        await backend.add_messages("live", [turn], return_context=True)
        add_ms.append((time.perf_counter() - t0) * 1000)

    memory = MemoryLoop(backend, on_error="raise")
    turn_ms: list[float] = []
    first_ms: list[float] = []
    for n in range(samples):
        said = chat.said(rng)
        t0 = time.perf_counter()
        await memory.begin_turn(Identity(user_id="bench-user", thread_id="live"), said)
        turn_ms.append((time.perf_counter() - t0) * 1000)
        said = chat.said(rng)
        t0 = time.perf_counter()
        await memory.begin_turn(Identity(user_id="bench-user", thread_id=f"new-{n}"), said)
        first_ms.append((time.perf_counter() - t0) * 1000)

    search_ms: list[float] = []
    for _ in range(samples):
        request = SearchRequest(
            chat.query(rng), user_id="bench-user", scope="edges", reranker="rrf"
        )
        t0 = time.perf_counter()
        await backend.search(request)
        search_ms.append((time.perf_counter() - t0) * 1000)
    await backend.aclose()
    return {
        "retriever": backend.retriever,
        "chat": chat.name,
        "messages": size,
        "threads": threads,
        "ingest_messages_per_s": None if synthetic else round(size / ingest_seconds),
        "add_with_context_ms": percentiles(add_ms),
        "begin_turn_ms": percentiles(turn_ms),
        "first_turn_ms": percentiles(first_ms),
        "search_ms": percentiles(search_ms),
        "peak_rss_mb_so_far": peak_rss_mb(),
    }


async def reopened(
    path: Path, users: int, retriever: RetrieverMode, seed: int, chat: Chat
) -> dict[str, Any]:
    """A fresh process's view of the file: first search, 1,000 searches, resident memory."""
    rng = random.Random(seed + 2)
    started = time.perf_counter()
    backend = LocalBackend(path, retriever=retriever)
    opened_ms = (time.perf_counter() - started) * 1000

    def request(n: int) -> SearchRequest:
        query = chat.query(rng)
        return SearchRequest(query, user_id=user_name(n % users), scope="episodes", limit=10)

    started = time.perf_counter()
    await backend.search(request(0))
    first_ms = (time.perf_counter() - started) * 1000
    search_ms: list[float] = []
    for n in range(1000):
        t0 = time.perf_counter()
        await backend.search(request(n))
        search_ms.append((time.perf_counter() - t0) * 1000)
    resident = rss_mb()
    await backend.aclose()
    return {
        "users": users,
        "open_ms": round(opened_ms, 1),
        "first_search_ms": round(first_ms, 1),
        "episodes_search_ms": percentiles(search_ms),
        "rss_mb_after_1000_searches": resident,
        "peak_rss_mb": peak_rss_mb(),
    }


def reopen(path: Path, users: int, retriever: str, seed: int, chat: Path | None) -> dict[str, Any]:
    """`reopened` run in a new Python process, so its memory is the file's alone."""
    command = [sys.executable, __file__, "--reopen-only", str(path), "--users", str(users)]
    command += ["--retriever", retriever, "--seed", str(seed)]
    command += [] if chat is None else ["--chat", str(chat)]
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    result: dict[str, Any] = json.loads(out)
    return result


def rss_mb() -> float:
    """Resident memory now (Linux; the peak elsewhere)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    return peak_rss_mb()


def peak_rss_mb() -> float:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return round(peak / (2**20 if sys.platform == "darwin" else 2**10), 1)


async def many_users(
    path: Path, size: int, args: argparse.Namespace, synth: bool
) -> dict[str, Any]:
    chat = chat_from(args.chat)
    backend, threads, seconds = await fill(
        path, size, args.users, args.seed, args.retriever, synth, chat
    )
    retriever = backend.retriever
    await backend.aclose()
    total = size * args.users
    return {
        "retriever": retriever,
        "chat": chat.name,
        "messages": total,
        "users": args.users,
        "threads": threads,
        "ingest_messages_per_s": None if synth else round(total / seconds),
    }


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
    parser.add_argument("--users", type=int, default=1, help="users of `size` messages each")
    parser.add_argument("--synthetic-vectors", action="store_true")
    parser.add_argument(
        "--chat",
        type=Path,
        nargs="?",
        const=DEFAULT_CHAT,
        help="LoCoMo's conversations as the text (default file: ../shared/data/locomo)",
    )
    parser.add_argument("--reopen-only", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.chat is not None and not args.chat.is_file():
        parser.error(f"--chat: no file at {args.chat}")
    chat = chat_from(args.chat)
    if args.reopen_only:
        result = asyncio.run(
            reopened(args.reopen_only, args.users, args.retriever, args.seed, chat)
        )
        json.dump(result, sys.stdout)
        return
    sizes = [int(size) for size in args.sizes.split(",") if size.strip()]
    samples = 50 if args.quick else 200
    synth = args.synthetic_vectors
    results = []
    for size in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "bench.sqlite"
            if args.users == 1:
                result = asyncio.run(
                    run_size(path, size, samples, args.seed, args.retriever, synth, chat)
                )
            else:
                result = asyncio.run(many_users(path, size, args, synth))
            result["database_mb"] = round(path.stat().st_size / 2**20, 1)
            result["database_bytes_per_message"] = round(path.stat().st_size / (size * args.users))
            result["reopened"] = reopen(path, args.users, args.retriever, args.seed, args.chat)
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
