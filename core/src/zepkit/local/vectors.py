"""Episode vectors: stored as float32 BLOBs in SQLite, searched from a per-graph matrix in memory.

numpy is imported only here and only when dense retrieval is on (extra `embeddings`). The matrix
of a graph is read once and then topped up with the rows added since, in place (its buffer grows
by doubling, so a top-up copies only the new rows); a count or id that moved any other way (a
delete, another process) makes it read the graph again.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from zepkit.local.ids import GRAPH_BITS, graph_range


def normalised(vectors: Sequence[Sequence[float]] | Any) -> Any:
    """Vectors as a float32 matrix with unit rows (zero rows stay zero)."""
    import numpy as np  # type: ignore[import-not-found, unused-ignore]

    matrix = np.asarray(vectors, dtype=np.float32)
    if matrix.ndim != 2:
        raise ValueError(f"an embedder must return one vector per text, got shape {matrix.shape}")
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.maximum(norms, 1e-12)


def store_vectors(
    conn: sqlite3.Connection, model: str, episodes: Sequence[int], matrix: Any
) -> None:
    """Write (or replace) the vectors of `episodes`, one matrix row each."""
    conn.executemany(
        "INSERT OR REPLACE INTO episode_vectors (episode, model, vector) VALUES (?, ?, ?)",
        [(episode, model, row.tobytes()) for episode, row in zip(episodes, matrix, strict=True)],
    )


class _GraphMatrix:
    """A graph's vectors in a buffer with room to grow: the first `size` rows are live."""

    def __init__(self, ids: Any, matrix: Any, last: int, count: int) -> None:
        self.ids = ids
        self.buffer = matrix
        self.size = len(ids)
        self.last = last
        self.count = count

    @property
    def matrix(self) -> Any:
        """The live rows (a view, no copy)."""
        return self.buffer[: self.size]

    def append(self, ids: Any, matrix: Any) -> None:
        """Add rows at the end, doubling the buffer when it is full."""
        import numpy as np  # type: ignore[import-not-found, unused-ignore]

        if len(ids) == 0:
            return
        if self.size == 0:
            self.buffer = np.zeros((0, matrix.shape[1]), dtype=np.float32)
        end = self.size + len(ids)
        if end > len(self.buffer):
            room = max(end, 2 * len(self.buffer), 64)
            buffer = np.empty((room, matrix.shape[1]), dtype=np.float32)
            buffer[: self.size] = self.buffer[: self.size]
            grown = np.empty(room, dtype=np.int64)
            grown[: self.size] = self.ids[: self.size]
            self.buffer, self.ids = buffer, grown
        self.buffer[self.size : end] = matrix
        self.ids[self.size : end] = ids
        self.size = end


class VectorIndex:
    """Cosine search over one model's episode vectors, a matrix per graph kept in memory.

    A cached matrix is trusted without a look at the file while no other connection has
    committed (SQLite's `data_version`) and this one reported its own writes: counting a large
    graph's rows on every search would cost milliseconds.
    """

    def __init__(self, model: str) -> None:
        self.model = model
        self._graphs: dict[int, _GraphMatrix] = {}
        self._version: int | None = None
        self._checked: set[int] = set()
        """Graphs whose matrix matched the file at data version `_version`."""

    def added(self, episodes: Sequence[int], matrix: Any) -> None:
        """Take in vectors this connection has just committed (appended in place when newer)."""
        import numpy as np  # type: ignore[import-not-found, unused-ignore]

        ids = np.asarray(episodes, dtype=np.int64)
        for graph in {int(key) >> GRAPH_BITS for key in ids}:
            cached = self._graphs.get(graph)
            mine = (ids >> GRAPH_BITS) == graph
            if cached is None or graph not in self._checked or ids[mine].min() <= cached.last:
                self._checked.discard(graph)  # replaced or out of order: read again when used
                continue
            cached.append(ids[mine], matrix[mine])
            cached.last = int(ids[mine].max())
            cached.count += int(mine.sum())

    def stale(self, graph: int) -> None:
        """Read the graph's vectors again before its next search (this connection deleted some)."""
        self._checked.discard(graph)

    def nearest(
        self, conn: sqlite3.Connection, graph: int, query: Any, pool: int
    ) -> list[tuple[int, float]]:
        """The `pool` episodes most similar to the unit vector `query`: (id, cosine), best first."""
        import numpy as np  # type: ignore[import-not-found, unused-ignore]

        cached = self._fresh(conn, graph)
        if cached.size == 0:
            return []
        scores = cached.matrix @ query
        take = min(pool, len(scores))
        top = np.argpartition(-scores, take - 1)[:take]
        top = top[np.argsort(-scores[top], kind="stable")]
        return [(int(cached.ids[n]), float(scores[n])) for n in top]

    def _fresh(self, conn: sqlite3.Connection, graph: int) -> _GraphMatrix:
        """The graph's matrix, brought up to date with the file."""
        (version,) = conn.execute("PRAGMA data_version").fetchone()
        if version != self._version:  # another connection committed: look at every graph again
            self._version = version
            self._checked.clear()
        cached = self._graphs.get(graph)
        if cached is not None and graph in self._checked:
            return cached
        fresh = self._synced(conn, graph)
        self._checked.add(graph)
        return fresh

    def _synced(self, conn: sqlite3.Connection, graph: int) -> _GraphMatrix:
        """The graph's matrix after comparing its last id and row count with the file."""
        low, high = graph_range(graph)
        last, count = conn.execute(
            "SELECT coalesce(max(episode), 0), count(*) FROM episode_vectors "
            "WHERE episode BETWEEN ? AND ?",
            (low, high),
        ).fetchone()
        cached = self._graphs.get(graph)
        if cached is not None and (cached.last, cached.count) == (last, count):
            return cached
        if cached is not None and last > cached.last:
            ids, matrix, seen = self._read(conn, cached.last + 1, high)
            if cached.count + seen == count:
                cached.append(ids, matrix)
                cached.last, cached.count = last, count
                return cached
        ids, matrix, _ = self._read(conn, low, high)
        cached = _GraphMatrix(ids, matrix, last, count)
        self._graphs[graph] = cached
        return cached

    def _read(self, conn: sqlite3.Connection, low: int, high: int) -> tuple[Any, Any, int]:
        """This model's (ids, matrix) in an id range, and how many rows of any model it holds."""
        import numpy as np  # type: ignore[import-not-found, unused-ignore]

        rows = conn.execute(
            "SELECT episode, model, vector FROM episode_vectors "
            "WHERE episode BETWEEN ? AND ? ORDER BY episode",
            (low, high),
        ).fetchall()
        mine = [(episode, vector) for episode, model, vector in rows if model == self.model]
        ids = np.array([episode for episode, _ in mine], dtype=np.int64)
        if not mine:
            return ids, np.zeros((0, 0), dtype=np.float32), len(rows)
        matrix = np.frombuffer(b"".join(vector for _, vector in mine), dtype=np.float32)
        return ids, matrix.reshape(len(mine), -1).copy(), len(rows)
