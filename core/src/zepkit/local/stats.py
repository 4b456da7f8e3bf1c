"""Per-graph term statistics: how many sentences hold each word, for the query planner.

A message counts every sentence it has, chatter included (chatter makes no statement, yet its
words are in the episode search reads), so the statistics do not depend on the extractor.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Collection, Iterable, Sequence

from zepkit.local.bulk import insert_rows
from zepkit.local.text import sentences, stems


def message_sentences(content: str, speaker: str | None) -> list[str]:
    """What a message adds to the term statistics: each sentence with its speaker's prefix."""
    prefix = f"{speaker}: " if speaker else ""
    return [prefix + sentence for sentence in sentences(content)]


def _held_by(texts: Iterable[str]) -> Counter[str]:
    """How many of `texts` hold each stem."""
    counts: Counter[str] = Counter()
    for text in texts:
        counts.update(stems(text))
    return counts


def sentence_counts(contents: Sequence[str]) -> dict[str, int]:
    """How many sentences of `contents` hold each stem, as `count_terms` counts a message (its
    speaker's name aside): what these messages add to the graph's counts."""
    return dict(_held_by(sentence for content in contents for sentence in sentences(content)))


def count_terms(conn: sqlite3.Connection, graph: int, texts: Sequence[str], *, sign: int) -> None:
    """Add (sign 1) or remove (sign -1) statements from the graph's term and statement counts."""
    if not texts:
        return
    counts = _held_by(texts)
    insert_rows(
        conn,
        "INSERT INTO terms (graph, term, df)",
        [(graph, term, sign * df) for term, df in counts.items()],
        "ON CONFLICT (graph, term) DO UPDATE SET df = df + excluded.df",
    )
    if sign < 0:
        conn.execute("DELETE FROM terms WHERE graph = ? AND df <= 0", (graph,))
    conn.execute(
        "UPDATE graphs SET statements = statements + ? WHERE id = ?", (sign * len(texts), graph)
    )


def document_frequencies(
    conn: sqlite3.Connection, graph: int, keys: Collection[str]
) -> tuple[dict[str, int], int]:
    """How many of the graph's statements hold each stem in `keys`, and how many it has."""
    marks = ", ".join("?" * len(keys))
    df: dict[str, int] = dict(
        conn.execute(
            f"SELECT term, df FROM terms WHERE graph = ? AND term IN ({marks})", (graph, *keys)
        ).fetchall()
    )
    row = conn.execute("SELECT statements FROM graphs WHERE id = ?", (graph,)).fetchone()
    return df, int(row[0]) if row else 0
