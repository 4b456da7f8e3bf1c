"""LoCoMo retrieval benchmark of the local engine: do search and the context block find the
evidence turns?

Usage: python benchmarks/locomo.py [--data PATH] [--retriever lexical,dense,hybrid]
                                   [--reranker rrf|mmr|none] [--limit-conversations N]
                                   [--no-blocks] [--extractor URL MODEL]

Data: LoCoMo's JSON (Maharana et al., ACL 2024; CC BY-NC 4.0), read where it lies and never
copied; default `../shared/data/locomo/locomo-dev.json` relative to the repository. Each
conversation is one user, each session one thread, each turn one message "<speaker>: <text>"
(plus " [shares <caption>]") dated by its session, ingested through `MemoryLoop` only. Each
question is searched verbatim (scope episodes, limit 50) in its conversation's user and scored
against its evidence turns (turn recall). Block recall: the block `begin_turn` returns for the
question in a new thread of that user (default budget; the thread is deleted afterwards), and
the share of the question's evidence turns it carries: a turn is carried when the block holds
one of its sentences (three words or more) word for word. Figures are also given
per held-out pair of conversations (every split of the file into three and two), so a constant
tuned on some conversations can be judged on the others. Prints one JSON document per run;
asserts nothing.

`--extractor URL MODEL` adds LLM extraction by that OpenAI-compatible endpoint (API key from
`ZEPKIT_LLM_API_KEY`): every message is extracted after ingestion, and the calls and tokens it
took are reported first. Without it, extraction stays off whatever the environment says.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import math
import os
import platform
import re
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from zepkit.core import ConfigurationError, Identity, MemoryLoop, Message, Reranker
from zepkit.local import LLMExtractor, LocalBackend, hybrid
from zepkit.local.dense import MODES, RetrieverMode
from zepkit.local.text import sentences

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT / ".." / "shared" / "data" / "locomo" / "locomo-dev.json"
TURN_KS = (5, 10, 25, 50)
MIN_SENTENCE_WORDS = 3
"""Shorter sentences ("Wow!") would match anywhere: block recall looks for longer ones."""
SESSION_KS = (5, 10)
LIMIT = 50


@dataclass
class Question:
    """One question with its normalised evidence turns."""

    text: str
    category: int
    evidence: list[str]


@dataclass
class Conversation:
    """One LoCoMo sample: sessions of turns (date, [(dia_id, speaker, content)]) and questions."""

    sample_id: str
    speakers: tuple[str, str]
    sessions: list[tuple[int, datetime | None, list[tuple[str, str, str]]]]
    questions: list[Question] = field(default_factory=list)

    def turn_text(self, dia: str) -> str:
        """What a turn said, without its speaker's prefix."""
        for _, _, turns in self.sessions:
            for turn, speaker, content in turns:
                if turn == dia:
                    return content.removeprefix(f"{speaker}: ")
        raise KeyError(dia)


def parse_date(text: str) -> datetime | None:
    """LoCoMo's "1:56 pm on 8 May, 2023"."""
    try:
        return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y")
    except ValueError:
        return None


def normalise_evidence(raw: Iterable[str], known: set[str]) -> list[str]:
    """Split joined ids, fix "D:11:26" and "D30:05", and drop ids the conversation lacks."""
    found: list[str] = []
    for item in raw:
        for part in re.split(r"[;\s,]+", str(item)):
            match = re.fullmatch(r"D:?(\d+):0*(\d+)", part.strip())
            if match:
                dia = f"D{int(match.group(1))}:{int(match.group(2))}"
                if dia in known and dia not in found:
                    found.append(dia)
    return found


def session_keys(body: dict[str, Any]) -> list[str]:
    """A LoCoMo conversation's session keys in order ("session_1", "session_2", ...)."""
    return sorted((k for k in body if re.fullmatch(r"session_\d+", k)), key=lambda k: int(k[8:]))


def load(path: Path) -> list[Conversation]:
    """Conversations from a LoCoMo-format file."""
    conversations = []
    for item in json.loads(path.read_text(encoding="utf-8")):
        body = item["conversation"]
        sessions = []
        for key in session_keys(body):
            turns = []
            for turn in body[key]:
                content = f"{turn['speaker']}: {turn['text']}"
                if turn.get("blip_caption"):
                    content += f" [shares {turn['blip_caption']}]"
                turns.append((turn["dia_id"], turn["speaker"], content))
            sessions.append((int(key[8:]), parse_date(body.get(f"{key}_date_time", "")), turns))
        known = {dia for _, _, turns in sessions for dia, _, _ in turns}
        conversation = Conversation(
            item["sample_id"], (body["speaker_a"], body["speaker_b"]), sessions
        )
        for qa in item["qa"]:
            evidence = normalise_evidence(qa.get("evidence", []), known)
            conversation.questions.append(Question(qa["question"], int(qa["category"]), evidence))
        conversations.append(conversation)
    return conversations


async def ingest(memory: MemoryLoop, conversation: Conversation) -> int:
    """One user, one thread per session, one message per turn; the number of messages."""
    user = f"locomo-{conversation.sample_id}"
    await memory.ensure_user(user)
    count = 0
    for number, date, turns in conversation.sessions:
        thread = f"{user}-s{number}"
        await memory.ensure_thread(thread, user_id=user)
        messages = [
            Message(
                "user" if speaker == conversation.speakers[0] else "assistant",
                content,
                name=speaker,
                created_at=date,
                metadata={"dia_id": dia},
            )
            for dia, speaker, content in turns
        ]
        await memory.add_messages(thread, messages)
        count += len(messages)
    return count


def session_of(dia: str) -> str:
    return dia.split(":")[0]


def scores(ranked: Sequence[str], gold: Sequence[str]) -> dict[str, float]:
    """Per-question metrics from the ranked turn ids and the gold turn ids."""
    out: dict[str, float] = {}
    gold_set = set(gold)
    for k in TURN_KS:
        out[f"turn_recall@{k}"] = len(gold_set & set(ranked[:k])) / len(gold_set)
    gains = [1.0 if dia in gold_set else 0.0 for dia in ranked[:10]]
    dcg = sum(g / math.log2(n + 2) for n, g in enumerate(gains))
    ideal = sum(1.0 / math.log2(n + 2) for n in range(min(len(gold_set), 10)))
    out["turn_ndcg@10"] = dcg / ideal
    first = next((n for n, dia in enumerate(ranked, start=1) if dia in gold_set), None)
    out["turn_mrr"] = 1.0 / first if first else 0.0
    gold_sessions = {session_of(dia) for dia in gold}
    for k in SESSION_KS:
        sessions: list[str] = []
        for dia in ranked:
            if session_of(dia) not in sessions:
                sessions.append(session_of(dia))
            if len(sessions) == k:
                break
        hit = gold_sessions & set(sessions)
        if k == 5:
            out["session_recall_any@5"] = 1.0 if hit else 0.0
        out[f"session_recall_all@{k}"] = 1.0 if hit == gold_sessions else 0.0
    return out


def averaged(rows: list[dict[str, float]]) -> dict[str, float]:
    if not rows:
        return {}
    return {key: round(statistics.fmean(row[key] for row in rows), 4) for key in rows[0]}


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def ask(
    memory: MemoryLoop, conversations: list[Conversation], reranker: Reranker | None
) -> tuple[dict[str, list[dict[str, float]]], list[float]]:
    """Every question once: per-question metrics by category ("all" too) and latencies in ms."""
    rows: dict[str, list[dict[str, float]]] = defaultdict(list)
    latencies: list[float] = []
    for conversation in conversations:
        user = f"locomo-{conversation.sample_id}"
        for question in conversation.questions:
            begin = time.perf_counter()
            found = await memory.search(
                question.text, user_id=user, scope="episodes", reranker=reranker, limit=LIMIT
            )
            latencies.append((time.perf_counter() - begin) * 1000)
            if not question.evidence:
                continue
            ranked = [str((e.metadata or {}).get("dia_id")) for e in found.episodes]
            row = scores(ranked, question.evidence)
            rows["all"].append(row)
            rows[str(question.category)].append(row)
    return rows, latencies


def _folded(text: str) -> str:
    return " ".join(text.casefold().split())


def carried(block: str, turn: str) -> float:
    """1.0 when the block holds a sentence of the turn (of at least `MIN_SENTENCE_WORDS` words,
    else the whole turn) word for word, else 0.0."""
    held = _folded(block)
    parts = [
        _folded(part).rstrip(".!?…")
        for part in sentences(turn)
        if len(part.split()) >= MIN_SENTENCE_WORDS
    ] or [_folded(turn).rstrip(".!?…")]
    return float(any(part in held for part in parts))


async def blocks(
    memory: MemoryLoop, conversations: list[Conversation]
) -> tuple[dict[str, list[dict[str, float]]], list[float], list[int]]:
    """Every question's block: recall per question by category and conversation, latencies in
    ms and block lengths."""
    rows: dict[str, list[dict[str, float]]] = defaultdict(list)
    latencies: list[float] = []
    lengths: list[int] = []
    for conversation in conversations:
        user = f"locomo-{conversation.sample_id}"
        for number, question in enumerate(conversation.questions):
            identity = Identity(user_id=user, thread_id=f"{user}-question-{number}")
            begin = time.perf_counter()
            block = await memory.begin_turn(identity, question.text)
            latencies.append((time.perf_counter() - begin) * 1000)
            lengths.append(len(block))
            await memory.delete_thread(identity.thread_id)
            if not question.evidence:
                continue
            found = [carried(block, conversation.turn_text(dia)) for dia in question.evidence]
            row = {"block_recall": statistics.fmean(found)}
            rows["all"].append(row)
            rows[str(question.category)].append(row)
            rows[f"conversation:{conversation.sample_id}"].append(row)
    return rows, latencies, lengths


def held_out(
    rows: dict[str, list[dict[str, float]]], conversations: list[Conversation]
) -> dict[str, Any]:
    """Every split into a tuning part and two held-out conversations: the held-out figures."""
    ids = [c.sample_id for c in conversations]
    if len(ids) < 3:
        return {}
    splits = {}
    for a in range(len(ids)):
        for b in range(a + 1, len(ids)):
            pair = rows[f"conversation:{ids[a]}"] + rows[f"conversation:{ids[b]}"]
            splits[f"{ids[a]}+{ids[b]}"] = averaged(pair)
    keys = next(iter(splits.values())).keys()
    return {
        "held_out_pairs": splits,
        "mean": {k: round(statistics.fmean(s[k] for s in splits.values()), 4) for k in keys},
        "worst": {k: round(min(s[k] for s in splits.values()), 4) for k in keys},
    }


async def run(
    conversations: list[Conversation],
    retriever: RetrieverMode,
    rerankers: list[Reranker | None],
    with_blocks: bool = True,
    llm: LLMExtractor | None = None,
) -> list[dict[str, Any]]:
    """Ingest everything into a fresh file, then ask every question per reranker; the metrics.
    With `llm`, every message is extracted by the model after ingestion, before the questions."""
    results = []
    with tempfile.TemporaryDirectory() as folder:
        backend = LocalBackend(
            Path(folder) / "locomo.sqlite", retriever=retriever, llm=llm or False, llm_worker=False
        )
        async with MemoryLoop(backend, on_error="raise") as memory:
            started = time.perf_counter()
            messages = 0
            for conversation in conversations:
                messages += await ingest(memory, conversation)
            ingest_rate = messages / (time.perf_counter() - started)
            if llm is not None:
                await backend.extract_pending()
                results.append({"extraction": await backend.extraction_stats()})
            for reranker in rerankers:
                rows, latencies = await ask(memory, conversations, reranker)
                results.append(
                    {
                        "retriever": backend.retriever,
                        "reranker": reranker,
                        "settings": settings(),
                        "questions_scored": len(rows["all"]),
                        "overall": averaged(rows["all"]),
                        "by_category": {k: averaged(rows[k]) for k in sorted(rows) if k.isdigit()},
                        "ingest_messages_per_s": round(ingest_rate, 1),
                        "search_ms": {
                            "p50": round(percentile(latencies, 0.5), 2),
                            "p95": round(percentile(latencies, 0.95), 2),
                        },
                    }
                )
            if with_blocks:
                rows, latencies, lengths = await blocks(memory, conversations)
                results.append(
                    {
                        "retriever": backend.retriever,
                        "blocks": "begin_turn in a new thread, default budget",
                        "questions_scored": len(rows["all"]),
                        "overall": averaged(rows["all"]),
                        "by_category": {k: averaged(rows[k]) for k in sorted(rows) if k.isdigit()},
                        "cross_validation": held_out(rows, conversations),
                        "mean_block_chars": round(statistics.fmean(lengths), 1),
                        "begin_turn_ms": {
                            "p50": round(percentile(latencies, 0.5), 2),
                            "p95": round(percentile(latencies, 0.95), 2),
                        },
                    }
                )
    return results


def settings() -> dict[str, float]:
    """The ranking constants in force, so a result says what produced it."""
    return {
        "lexical_weight": hybrid.LEXICAL_WEIGHT,
        "dense_weight": hybrid.DENSE_WEIGHT,
        "min_cosine": hybrid.MIN_COSINE,
        "neighbour_weight": hybrid.NEIGHBOUR_WEIGHT,
        "session_weight": hybrid.SESSION_WEIGHT,
        "session_top": hybrid.SESSION_TOP,
        "dense_session_weight": hybrid.DENSE_SESSION_WEIGHT,
        "dense_session_top": hybrid.DENSE_SESSION_TOP,
        "date_weight": hybrid.DATE_WEIGHT,
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--retriever", default="lexical,hybrid,dense")
    parser.add_argument("--reranker", default="rrf,none", help="comma list of rrf, mmr, none")
    parser.add_argument("--limit-conversations", type=int, default=None)
    parser.add_argument("--no-blocks", action="store_true", help="skip block recall")
    parser.add_argument(
        "--extractor",
        nargs=2,
        metavar=("URL", "MODEL"),
        help="extract with this OpenAI-compatible endpoint and model (key: ZEPKIT_LLM_API_KEY)",
    )
    args = parser.parse_args(argv)
    llm = (
        LLMExtractor(
            args.extractor[0],
            args.extractor[1],
            api_key=os.environ.get("ZEPKIT_LLM_API_KEY") or None,
        )
        if args.extractor
        else None
    )
    path = args.data.resolve()
    if not path.is_file():
        print(f"LoCoMo data not found at {path}; pass --data PATH. Nothing to measure.")
        return 0
    conversations = load(path)[: args.limit_conversations]
    rerankers: list[Reranker | None] = []
    for name in args.reranker.split(","):
        if name.strip() not in ("rrf", "mmr", "none"):
            parser.error(f"unknown reranker {name!r}")
        rerankers.append(None if name.strip() == "none" else name.strip())  # type: ignore[arg-type]
    results = []
    for retriever in args.retriever.split(","):
        if retriever.strip() not in MODES:
            parser.error(f"unknown retriever {retriever!r}; one of {', '.join(MODES)}")
        mode: RetrieverMode = retriever.strip()  # type: ignore[assignment]
        try:
            results.extend(
                asyncio.run(
                    run(conversations, mode, rerankers, with_blocks=not args.no_blocks, llm=llm)
                )
            )
        except ConfigurationError as exc:
            print(f"skipping retriever {mode!r}: {exc}", file=sys.stderr)
            results.append({"retriever": mode, "skipped": str(exc)})
    report = {
        "benchmark": "LoCoMo turn retrieval (scope episodes, limit 50) and block recall",
        "data": {
            "path": str(path),
            "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
            "conversations": len(conversations),
        },
        "machine": {
            "python": platform.python_version(),
            "platform": platform.platform(),
            "cpus": os.cpu_count(),
        },
        "reference_dragon": {
            "turn_recall@5": 0.567,
            "turn_recall@10": 0.662,
            "turn_recall@25": 0.767,
            "turn_recall@50": 0.827,
        },
        "results": results,
    }
    json.dump(report, sys.stdout, indent=2)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
