"""What LLM extraction did and cost in one database: the queue, the calls, the tokens per turn
(`zepkit stats`)."""

from __future__ import annotations

import sqlite3
from typing import Any

LAST_ERRORS = 5


def extraction_stats(conn: sqlite3.Connection) -> dict[str, Any]:
    """The queue by state, calls and tokens in all and per extracted user turn, per model, and
    the latest errors of dead jobs; zeros for a file from before LLM extraction existed."""
    if not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'llm_usage'").fetchone():
        return _report({}, [], [])
    queue = dict(conn.execute("SELECT state, count(*) FROM llm_jobs GROUP BY state").fetchall())
    models = conn.execute(
        "SELECT model, count(*), sum(ok), coalesce(sum(prompt_tokens), 0), "
        "coalesce(sum(completion_tokens), 0), coalesce(sum(CASE WHEN ok THEN user_turns END), 0), "
        "avg(seconds) FROM llm_usage GROUP BY model ORDER BY model"
    ).fetchall()
    errors = conn.execute(
        "SELECT error, count(*) FROM llm_jobs WHERE state = 'dead' GROUP BY error "
        "ORDER BY max(message) DESC LIMIT ?",
        (LAST_ERRORS,),
    ).fetchall()
    return _report(queue, models, errors)


def _report(
    queue: dict[str, int], models: list[tuple[Any, ...]], errors: list[tuple[Any, ...]]
) -> dict[str, Any]:
    calls = sum(row[1] for row in models)
    ok = sum(row[2] for row in models)
    prompt = sum(row[3] for row in models)
    completion = sum(row[4] for row in models)
    turns = sum(row[5] for row in models)
    return {
        "jobs": {state: queue.get(state, 0) for state in ("pending", "claimed", "dead")},
        "calls": {"total": calls, "answered": ok, "failed": calls - ok},
        "tokens": {"prompt": prompt, "completion": completion, "total": prompt + completion},
        "user_turns_extracted": turns,
        "per_user_turn": {
            "calls": round(calls / turns, 3) if turns else None,
            "tokens": round((prompt + completion) / turns, 1) if turns else None,
        },
        "models": [
            {
                "model": model,
                "calls": count,
                "answered": answered,
                "prompt_tokens": p,
                "completion_tokens": c,
                "mean_seconds": round(seconds, 3) if seconds is not None else None,
            }
            for model, count, answered, p, c, _, seconds in models
        ],
        "dead_errors": [{"error": error, "jobs": count} for error, count in errors],
    }
