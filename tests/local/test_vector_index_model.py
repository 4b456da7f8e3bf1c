"""The vector index against the file it caches: random writes, deletes, rewrites and backfills,
from the index's own connection (which tells it) and from another one (which does not), with
every layout, split and chunk made small. After each step a search must find what a plain scan
of the file finds: the same scores, the same best ones, no row twice."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from zepkit.local import coarse, scan, schema, vectors
from zepkit.local.ids import GRAPH_BITS, graph_range

np = pytest.importorskip("numpy")

MODEL = "m"
DIM = 40  # not a multiple of 64: the last sign word is part padding
GRAPHS = (1, 2)


def _file_scores(
    conn: sqlite3.Connection, graph: int, query: Any, pool: int, coarse_rows: int
) -> dict[int, float]:
    """Each stored row's score as the index computes it (the int8 codes times the int8 query),
    limited to the coarse pass's pick when the graph is that large: the rows within the
    smallest Hamming distance to the query's signs that takes in as many as it asks for
    `pool` results (`coarse.candidates`)."""
    low, high = graph_range(graph)
    rows = conn.execute(
        "SELECT episode, vector FROM episode_vectors WHERE episode BETWEEN ? AND ? AND model = ?",
        (low, high, MODEL),
    ).fetchall()
    if not rows:
        return {}
    ids = np.array([episode for episode, _ in rows])
    codes = np.stack([np.frombuffer(blob, dtype=np.int8, offset=4) for _, blob in rows])
    scales = np.array([np.frombuffer(blob, dtype="<f4", count=1)[0] for _, blob in rows])
    small, scale = scan.quantised(query)
    sums = codes.astype(np.int64) @ small.astype(np.int64)
    scores = sums.astype(np.float32) * np.float32(scale) * scales.astype(np.float32)
    want = coarse.candidates(pool, len(rows))
    if len(rows) >= coarse_rows and want < len(rows):
        distances = ((codes >= 0) != (query >= 0)).sum(axis=1)
        cut = np.sort(distances)[want - 1]
        ids, scores = ids[distances <= cut], scores[distances <= cut]
    return dict(zip(ids.tolist(), scores.tolist(), strict=True))


class _World:
    """A file of two graphs' vectors, two connections to it and an index on the first."""

    def __init__(self, path: Path, seed: int, coarse_rows: int, cache_bytes: int) -> None:
        self.rng = random.Random(seed)
        self.numbers = np.random.default_rng(seed)
        self.mine = sqlite3.connect(path, isolation_level=None)  # no episodes: foreign keys off
        schema.migrate(self.mine)
        self.theirs = sqlite3.connect(path, isolation_level=None)
        self.coarse_rows = coarse_rows
        self.index = vectors.VectorIndex(MODEL, cache_bytes=cache_bytes, coarse_rows=coarse_rows)
        self.next_id = {graph: graph_range(graph)[0] + 1 for graph in GRAPHS}
        # A few clusters: near ties and identical signs happen, as in real conversation.
        self.centres = self.numbers.standard_normal((4, DIM))

    def vectors(self, count: int) -> Any:
        picked = self.centres[self.numbers.integers(0, len(self.centres), count)]
        matrix = picked + 0.5 * self.numbers.standard_normal((count, DIM))
        if self.rng.random() < 0.05:
            matrix[0] = 0.0  # an embedder may return a zero vector
        return vectors.normalised(matrix)

    def stored(self, graph: int) -> list[int]:
        return [
            episode
            for (episode,) in self.mine.execute(
                "SELECT episode FROM episode_vectors WHERE episode >> ? = ?", (GRAPH_BITS, graph)
            )
        ]

    def write(self, graph: int, ids: list[int], mine: bool) -> str:
        """Store vectors for `ids` on one connection; the index hears of it only from its own."""
        matrix = self.vectors(len(ids))
        conn = self.mine if mine else self.theirs
        conn.execute("BEGIN IMMEDIATE")
        vectors.store_vectors(conn, MODEL, ids, matrix)
        conn.execute("COMMIT")
        if mine:
            self.index.added(ids, matrix)
        return f"wrote {len(ids)} to graph {graph} ({'mine' if mine else 'theirs'})"

    def step(self) -> str:
        graph, choice, mine = self.rng.choice(GRAPHS), self.rng.random(), self.rng.random() < 0.6
        stored = self.stored(graph)
        if choice < 0.35:  # new episodes, sometimes after ids left unused
            count = self.rng.choice([1, 1, 2, 5, 40])
            ids = list(range(self.next_id[graph], self.next_id[graph] + count))
            self.next_id[graph] += count + self.rng.choice([0, 0, 3])
            return self.write(graph, ids, mine)
        if choice < 0.45 and stored:
            gone = self.rng.sample(stored, min(len(stored), self.rng.choice([1, 3, 10])))
            conn = self.mine if mine else self.theirs
            conn.execute("BEGIN IMMEDIATE")
            conn.executemany("DELETE FROM episode_vectors WHERE episode = ?", [(n,) for n in gone])
            conn.execute("COMMIT")
            if mine:
                self.index.stale(graph)
            return f"deleted {len(gone)} of graph {graph}"
        if choice < 0.52 and stored:  # rewritten: same rows and last id, new vectors
            return self.write(graph, self.rng.sample(stored, min(len(stored), 3)), mine)
        if choice < 0.56:  # a backfill: an older id that never had a vector
            first = graph_range(graph)[0] + 1
            unused = sorted(set(range(first, self.next_id[graph])) - set(stored))
            if unused:
                return self.write(graph, [self.rng.choice(unused)], mine)
        if choice < 0.58:
            self.index.forget(graph)
            return f"forgot graph {graph}"
        return self.search(graph)

    def search(self, graph: int) -> str:
        query = self.vectors(1)[0]
        pool = self.rng.choice([1, 3, 10, 150])
        found = self.index.nearest(self.mine, graph, query, pool)
        scores = _file_scores(self.mine, graph, query, pool, self.coarse_rows)
        best = sorted(scores.values(), reverse=True)[:pool]
        assert len({episode for episode, _ in found}) == len(found)
        assert len(found) == len(best)
        for (episode, score), expected in zip(found, best, strict=True):
            assert score == pytest.approx(scores[episode], abs=1e-4)
            assert score == pytest.approx(expected, abs=1e-4)
        return f"searched graph {graph} for {pool}"


@pytest.mark.parametrize("seed", range(12))
def test_every_search_finds_what_a_scan_of_the_file_finds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    settings = random.Random(seed)
    monkeypatch.setattr(vectors, "TILE_ROWS", settings.choice([1, 3, 8, 64]))
    monkeypatch.setattr(vectors, "BLOCK_ROWS", settings.choice([64, 128, 1000]))
    monkeypatch.setattr(vectors, "_READ_ROWS", settings.choice([5, 50, 8192]))
    monkeypatch.setattr(vectors, "LARGE_READ_ROWS", settings.choice([10, 8192]))
    monkeypatch.setattr(vectors, "SPLIT_SCAN_ROWS", settings.choice([2, 50, 6144]))
    monkeypatch.setattr(coarse, "SPLIT_ROWS", settings.choice([10, 262144]))
    monkeypatch.setattr(coarse, "_CHUNK", settings.choice([7, 131072]))
    monkeypatch.setattr(coarse, "_BUILD_CHUNK", settings.choice([5, 16384]))
    monkeypatch.setattr(coarse, "CANDIDATES", settings.choice([4, 20, 8192]))
    monkeypatch.setattr(coarse, "POOL_FACTOR", settings.choice([1, 2, 48]))
    monkeypatch.setattr(coarse, "ROWS_PER_CANDIDATE", settings.choice([2, 16, 128]))
    coarse_rows = settings.choice([30, 100, 10**9]) if coarse.available() else 10**9
    world = _World(tmp_path / "v.sqlite", seed, coarse_rows, settings.choice([0, 5000, 10**9]))
    done: list[str] = []
    for _ in range(250):
        try:
            done.append(world.step())
        except AssertionError as failure:
            raise AssertionError(f"seed {seed}, after: {done[-6:]}") from failure
    assert sum(entry.startswith("searched") for entry in done) > 50
