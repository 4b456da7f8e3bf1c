"""Episode vectors: stored as int8 codes with a scale, searched from a per-graph matrix in memory.

A stored vector is a BLOB: its float32 scale (little-endian) then one int8 code per dimension,
`vector ~ code * scale` with the largest component at code 127; cosines keep about three
decimals, which ranking does not notice, at a quarter of float32's bytes. numpy is imported only
here and only when dense retrieval is on (extra `embeddings`).

A graph's matrix lives in blocks that are filled in place and never copied: a load reads the
rows straight into one block, a top-up fills the last block and adds a new one when it is full.
Matrices are kept for the most recently searched graphs up to `CACHE_BYTES` (the graph in use
always stays), and those of the users who wrote last are read ahead when a file opens
(`zepkit.local.warmup`). Whether a matrix still matches the file is one row of `vector_stats`
(rows and rewrites, kept by triggers): rows only added are read on top, anything else (a delete,
a rewrite, another process's backfill) makes the graph be read again. A graph of
`coarse.MIN_ROWS` rows or more is scanned by its sign bits first and only the closest rows are
scored exactly (`zepkit.local.coarse`), from codes kept side by side; a smaller graph's codes
are kept in tiles, each row down a column, which the exact scan multiplies several times faster.
"""

from __future__ import annotations

import sqlite3
import struct
import threading
from array import array
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

from zepkit.local import coarse, heap, scan
from zepkit.local.connection import passing_read, read_transaction
from zepkit.local.ids import GRAPH_BITS, graph_range
from zepkit.local.warmup import Warmup

CACHE_BYTES = 128 * 2**20
"""Memory for the matrices of graphs other than the one being searched, least recent dropped."""
_READ_ROWS = 8192
_CHUNK_SQL = (
    # One row a chunk: its vectors joined in SQLite (8k Python bytes objects cost more than the
    # read) and its ids as text, both aggregated in the same pass, so they line up.
    "SELECT CAST(group_concat(vector, x'') AS BLOB), group_concat(episode), max(episode), "
    "count(*), max(length(vector)) FROM (SELECT episode, vector FROM episode_vectors "
    "WHERE episode > ? AND episode <= ? AND model = ? ORDER BY episode LIMIT ?)"
)
LARGE_READ_ROWS = 8192
"""A graph of this many vectors or more is read with a small page cache (`passing_read`)."""
BLOCK_ROWS = 16384
"""The most rows a block added by a top-up holds (a load's block holds the whole graph)."""
TILE_ROWS = 2048
"""Rows a tile of an exactly scanned block holds: its codes (768 KB at 384 dimensions) stay in
the core's cache while they are multiplied. On one thread, 61,440 rows took 4.4 ms in 2,048-row
tiles, 7.1 in 4,096-row ones and 6.5 as one tile (60,000 rows side by side: 16.5)."""


def normalised(vectors: Sequence[Sequence[float]] | Any) -> Any:
    """Vectors as a float32 matrix with unit rows (zero rows stay zero)."""
    import numpy as np  # type: ignore[import-not-found, unused-ignore]

    matrix = np.asarray(vectors, dtype=np.float32)
    if matrix.ndim != 2:
        raise ValueError(f"an embedder must return one vector per text, got shape {matrix.shape}")
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.maximum(norms, 1e-12)


def encoded(matrix: Any) -> tuple[Any, Any]:
    """A float matrix as (int8 codes, float32 scale per row)."""
    import numpy as np  # type: ignore[import-not-found, unused-ignore]

    matrix = np.asarray(matrix, dtype=np.float32)
    scales = (np.abs(matrix).max(axis=1) / 127.0).astype(np.float32)
    safe = np.where(scales > 0, scales, 1.0)[:, None]
    return np.round(matrix / safe).astype(np.int8), scales


def blobs(matrix: Any) -> list[bytes]:
    """The stored form of each row of a float matrix."""
    codes, scales = encoded(matrix)
    return [scale.tobytes() + row.tobytes() for row, scale in zip(codes, scales, strict=True)]


def decoded(blob: bytes) -> Any:
    """The float32 vector a stored BLOB holds."""
    import numpy as np  # type: ignore[import-not-found, unused-ignore]

    scale = np.frombuffer(blob, dtype="<f4", count=1)[0]
    return np.frombuffer(blob, dtype=np.int8, offset=4).astype(np.float32) * scale


def from_float32(blob: bytes) -> bytes:
    """A vector stored as raw float32 (schema 3 and before) in today's form; pure Python."""
    values = array("f", blob)
    top = max((abs(value) for value in values), default=0.0)
    scale = top / 127.0
    if scale == 0.0:
        return struct.pack("<f", 0.0) + bytes(len(values))
    codes = bytes(round(value / scale) & 0xFF for value in values)
    return struct.pack("<f", scale) + codes


def store_vectors(
    conn: sqlite3.Connection, model: str, episodes: Sequence[int], matrix: Any
) -> None:
    """Write (or replace) the vectors of `episodes`, one matrix row each (an upsert, not a
    REPLACE: SQLite's REPLACE deletes without running the delete trigger `vector_stats` needs)."""
    conn.executemany(
        "INSERT INTO episode_vectors (episode, model, vector) VALUES (?, ?, ?) "
        "ON CONFLICT (episode) DO UPDATE SET model = excluded.model, vector = excluded.vector",
        list(zip(episodes, [model] * len(episodes), blobs(matrix), strict=True)),
    )


class _Block:
    """Rows of one graph: ids, uint8 codes (int8 + 128) and scales; the first `size` are live.

    Codes are kept side by side (`by_row`: [rows, dim], for a coarse scan, which gathers the rows
    it picks) or in tiles of `TILE_ROWS` ([tiles, dim, width], a row's codes down one column of
    its tile: an exact scan's, several times faster to multiply, see `zepkit.local.scan`).
    """

    def __init__(self, rows: int, dim: int, by_row: bool) -> None:
        import numpy as np  # type: ignore[import-not-found, unused-ignore]

        self.by_row = by_row
        self.dim = dim
        self.codes: Any
        if by_row:
            self.codes = np.empty((rows, dim), dtype=np.uint8)
        else:
            width = max(1, min(rows, TILE_ROWS))
            tiles = -(-rows // width)
            rows = tiles * width  # whole tiles: the room rounds up
            self.codes = np.empty((tiles, dim, width), dtype=np.uint8)
        self.ids = np.empty(rows, dtype=np.int64)
        self.scales = np.empty(rows, dtype=np.float32)
        self.size = 0
        self._signs: coarse.Signs | None = None
        """Sign words for the coarse scan, made at the first coarse scan (large graphs only)."""

    @property
    def room(self) -> int:
        return len(self.ids) - self.size

    @property
    def nbytes(self) -> int:
        signs = 0 if self._signs is None else self._signs.nbytes
        return int(self.ids.nbytes + self.codes.nbytes + self.scales.nbytes) + signs

    def signs(self) -> coarse.Signs:
        """The sign words of the live rows (rows added since the last call are filled now)."""
        if not self.by_row:
            raise ValueError("only a block kept by row has sign words")
        if self._signs is None:
            self._signs = coarse.Signs(len(self.ids), self.dim)
        self._signs.extend(self.codes, self.size)
        return self._signs

    def rows(self) -> Any:
        """The live rows' signed int8 codes, side by side ([size, dim])."""
        if self.by_row:
            stored = self.codes[: self.size]
        else:
            stored = self.codes.transpose(0, 2, 1).reshape(-1, self.dim)[: self.size]
        return (stored ^ 0x80).view("i1")

    def take(self, other: _Block) -> None:
        """Append the live rows of `other` (there must be room)."""
        if self.by_row and other.by_row:
            end = self.size + other.size
            self.ids[self.size : end] = other.ids[: other.size]
            self.codes[self.size : end] = other.codes[: other.size]
            self.scales[self.size : end] = other.scales[: other.size]
            self.size = end
        else:
            self.put(other.ids[: other.size], other.rows(), other.scales[: other.size])

    def put(self, ids: Any, codes: Any, scales: Any) -> None:
        """Append rows of signed int8 `codes` (there must be room)."""
        end = self.size + len(ids)
        self.ids[self.size : end] = ids
        self.scales[self.size : end] = scales
        stored = codes.view("u1") ^ 0x80  # code + 128
        if self.by_row:
            self.codes[self.size : end] = stored
        else:
            width, at = self.codes.shape[2], self.size
            while at < end:  # tile by tile: each row's codes go down one column
                tile, column = divmod(at, width)
                step = min(width - column, end - at)
                part = stored[at - self.size : at - self.size + step]
                self.codes[tile, :, column : column + step] = part.T
                at += step
        self.size = end

    def scored(self, query: Any, low: int, high: int) -> tuple[Any, Any]:
        """(ids, cosines) of live rows `low` to `high`; kept in tiles, of the rows of the tiles
        that start there (a tile goes wholly to the part of the scan its first row is in)."""
        if self.by_row:
            cosines = scan.dot(self.codes[low:high], query) * self.scales[low:high]
            return self.ids[low:high], cosines
        width = self.codes.shape[2]
        first, last = -(-low // width), -(-high // width)
        start, end = first * width, min(last * width, self.size)
        if start >= end:
            return self.ids[:0], self.scales[:0]
        cosines = scan.dot_tiles(self.codes[first:last], query)[: end - start]
        return self.ids[start:end], cosines * self.scales[start:end]


class _GraphMatrix:
    """A graph's vectors as blocks: `count` rows up to id `last`, as the file held them after
    `rewrites` deletes or rewrites of its rows (`VectorIndex.stats`); `by_row`: how its blocks
    keep their codes (see `_Block`)."""

    def __init__(self, last: int, count: int, rewrites: int, by_row: bool = False) -> None:
        self.blocks: list[_Block] = []
        self.last = last
        self.count = count
        self.rewrites = rewrites
        self.by_row = by_row

    @property
    def size(self) -> int:
        return sum(block.size for block in self.blocks)

    @property
    def nbytes(self) -> int:
        return sum(block.nbytes for block in self.blocks)

    def append(self, ids: Any, codes: Any, scales: Any) -> None:
        """Add rows at the end, into the last block's room and then into new blocks."""
        done = 0
        while done < len(ids):
            if not self.blocks or self.blocks[-1].room == 0:
                self._grow(len(ids) - done, codes.shape[1])
            block = self.blocks[-1]
            take = min(block.room, len(ids) - done)
            block.put(
                ids[done : done + take], codes[done : done + take], scales[done : done + take]
            )
            done += take

    def _grow(self, wanted: int, dim: int) -> None:
        """Make room for `wanted` more rows. Blocks smaller than `BLOCK_ROWS` are merged into the
        new one while they fit, twice their rows: a matrix grown a turn at a time stays a few
        blocks (each is one scan run per search), and a large block is never copied."""
        small = [block for block in self.blocks if len(block.ids) < BLOCK_ROWS]
        held = sum(block.size for block in small)
        rows = min(BLOCK_ROWS, max(64, 2 * (held + wanted)))
        if not small or held + wanted > rows:
            self.blocks.append(_Block(min(BLOCK_ROWS, max(64, wanted)), dim, self.by_row))
            return
        merged = _Block(rows, dim, self.by_row)
        for block in small:
            merged.take(block)
        self.blocks = [block for block in self.blocks if len(block.ids) >= BLOCK_ROWS]
        self.blocks.append(merged)

    def by_rows(self) -> None:
        """Keep the codes side by side from now on (a graph scanned exactly until top-ups took
        it to the coarse scan's size): one block, the rows copied once."""
        if self.by_row:
            return
        live = [block for block in self.blocks if block.size]
        self.blocks, self.by_row = [], True
        if live:
            block = _Block(sum(old.size for old in live), live[0].dim, True)
            for old in live:
                block.take(old)
            self.blocks.append(block)

    def scores(self, query: Any) -> tuple[Any, Any]:
        """(ids, cosines to the unit vector `query`) of every live row."""
        live = [block for block in self.blocks if block.size]
        starts = _starts(live)

        def part(first: int, last: int) -> tuple[Any, Any]:
            ids, parts = [], []
            for block, start in zip(live, starts, strict=False):
                low, high = max(first - start, 0), min(last - start, block.size)
                if low < high:
                    some, cosines = block.scored(query, low, high)
                    ids.append(some)
                    parts.append(cosines)
            return _joined(ids, parts)

        return _in_halves(starts[-1], part)

    def coarse_scores(self, query: Any, want: int) -> tuple[Any, Any]:
        """(ids, cosines) of the rows whose signs are closest to the query's, at least `want`
        of them (all rows tied at the cut-off distance come along)."""
        import numpy as np  # type: ignore[import-not-found, unused-ignore]

        self.by_rows()
        live = [block for block in self.blocks if block.size]
        starts = _starts(live)
        signs = coarse.query_words(query)
        near = coarse.closest(np.concatenate([b.signs().distances(signs) for b in live]), want)

        def part(first: int, last: int) -> tuple[Any, Any]:
            # The chosen rows of every block gathered side by side, then scored in one scan
            # call: a graph grown by top-ups has several blocks, and each call has a fixed cost.
            chosen = near[first:last]
            ids, codes, scales = [], [], []
            for block, start in zip(live, starts, strict=False):
                rows = chosen[
                    np.searchsorted(chosen, start) : np.searchsorted(chosen, start + block.size)
                ]
                if len(rows):
                    ids.append(np.take(block.ids, rows - start))
                    codes.append(np.take(block.codes, rows - start, axis=0))
                    scales.append(np.take(block.scales, rows - start))
            if not codes:
                return _joined([], [])
            return _one(ids), scan.dot(_one(codes), query) * _one(scales)

        return _in_halves(len(near), part)


SPLIT_SCAN_ROWS = 6144
"""Rows from which a scan's exact scoring is shared with a second thread (onnxruntime and numpy's
copies let go of the interpreter lock). On 2 cores: rows in tiles, 16,384 took 0.81 instead of
1.22 ms and 4,096 0.42 instead of 0.35; a coarse scan's 8,192 rows side by side 2.3 instead of
3.7 ms."""


def _starts(live: Sequence[_Block]) -> list[int]:
    """Each block's first row in the blocks' rows side by side, then the total."""
    starts = [0]
    for block in live:
        starts.append(starts[-1] + block.size)
    return starts


def _one(arrays: list[Any]) -> Any:
    """The arrays end to end (a lone one as it is: no copy)."""
    import numpy as np  # type: ignore[import-not-found, unused-ignore]

    return arrays[0] if len(arrays) == 1 else np.concatenate(arrays)


def _joined(ids: list[Any], scores: list[Any]) -> tuple[Any, Any]:
    """Ids and their scores end to end (empty arrays for none)."""
    import numpy as np  # type: ignore[import-not-found, unused-ignore]

    if not ids:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float32)
    return _one(ids), _one(scores)


def _in_halves(rows: int, part: Callable[[int, int], tuple[Any, Any]]) -> tuple[Any, Any]:
    """`part(0, rows)`, run as two halves on two threads from `SPLIT_SCAN_ROWS` rows."""
    if rows < SPLIT_SCAN_ROWS:
        return part(0, rows)
    middle = rows // 2
    other = coarse.helper().submit(part, middle, rows)
    ids, scores = part(0, middle)
    more_ids, more = other.result()
    return _joined([ids, more_ids], [scores, more])


class VectorIndex:
    """Cosine search over one model's episode vectors, a matrix per graph kept in memory.

    A cached matrix is trusted without a look at the file while no other connection has
    committed (SQLite's `data_version`) and this one reported its own writes: counting a large
    graph's rows on every search would cost milliseconds.
    """

    def __init__(
        self, model: str, cache_bytes: int = CACHE_BYTES, coarse_rows: int = coarse.MIN_ROWS
    ) -> None:
        # `coarse_rows`: graphs with at least this many rows are scanned coarse first.
        self.model = model
        self.cache_bytes = cache_bytes
        self.coarse_rows = coarse_rows if coarse.available() else 2**62
        self._graphs: OrderedDict[int, _GraphMatrix] = OrderedDict()
        self._version: int | None = None
        self._checked: set[int] = set()
        """Graphs whose matrix matched the file at data version `_version`."""
        self._warmup: Warmup[_GraphMatrix] | None = None

    def added(self, episodes: Sequence[int], matrix: Any) -> None:
        """Take in vectors this connection has just committed (appended in place when newer), or
        is about to commit: then the graph must be `forget`-ten should the commit not come."""
        import numpy as np  # type: ignore[import-not-found, unused-ignore]

        ids = np.asarray(episodes, dtype=np.int64)
        codes, scales = encoded(matrix)
        for graph in {int(key) >> GRAPH_BITS for key in ids}:
            cached = self._cached(graph)
            mine = (ids >> GRAPH_BITS) == graph
            if cached is not None and ids[mine].min() <= cached.last:
                # Vectors of older episodes (a backfill, another model's replaced): the row
                # count and last id may not move, so only a new read can be trusted.
                self._graphs.pop(graph)
                cached = None
            if cached is None or graph not in self._checked:
                self._checked.discard(graph)  # read again (or topped up) when used
                continue
            cached.append(ids[mine], codes[mine], scales[mine])
            cached.last = int(ids[mine].max())
            cached.count += int(mine.sum())

    def stale(self, graph: int) -> None:
        """Read the graph's vectors again before its next search (this connection deleted some)."""
        self._checked.discard(graph)

    def forget(self, graph: int) -> None:
        """Drop the graph's matrix from memory (its user was deleted, or vectors `added` ahead of
        their commit did not commit): the next search reads it again."""
        self._graphs.pop(graph, None)
        self._checked.discard(graph)

    def refresh_held(self, conn: sqlite3.Connection, graph: int) -> bool:
        """Bring the graph's matrix up to date if it is held (True); False, reading nothing,
        if it is not (a writer under the write lock leaves a whole matrix to its next search)."""
        if graph not in self._graphs:
            return False
        self._fresh(conn, graph)
        return True

    def prepare(self, conn: sqlite3.Connection, graph: int) -> None:
        """Bring the graph's matrix up to date now (its next search then only scans)."""
        self._fresh(conn, graph)

    def nearest(
        self, conn: sqlite3.Connection, graph: int, query: Any, pool: int
    ) -> list[tuple[int, float]]:
        """The `pool` episodes most similar to the unit vector `query`: (id, cosine), best first."""
        return self._ranked(self._fresh(conn, graph), query, pool)

    def nearest_held(self, graph: int, query: Any, pool: int) -> list[tuple[int, float]] | None:
        """`nearest` over the graph's matrix as held, without a look at the file (None when it
        is not held): for a writer that brought it up to date (`refresh_held`) and `added` its
        own vectors since, inside its transaction, scanning while that transaction goes on."""
        cached = self._graphs.get(graph)
        if cached is None or graph not in self._checked:
            return None
        return self._ranked(cached, query, pool)

    def _ranked(self, cached: _GraphMatrix, query: Any, pool: int) -> list[tuple[int, float]]:
        """The `pool` rows of `cached` closest to `query`: (id, cosine), best first."""
        import numpy as np  # type: ignore[import-not-found, unused-ignore]

        if cached.size == 0:
            return []
        vector = np.asarray(query, dtype=np.float32)
        if cached.size >= self.coarse_rows:
            ids, scores = cached.coarse_scores(vector, coarse.candidates(pool, cached.size))
        else:
            ids, scores = cached.scores(vector)
        take = min(pool, len(scores))
        top = np.argpartition(-scores, take - 1)[:take]
        top = top[np.argsort(-scores[top], kind="stable")]
        return [(int(ids[n]), float(scores[n])) for n in top]

    def _fresh(self, conn: sqlite3.Connection, graph: int) -> _GraphMatrix:
        """The graph's matrix, brought up to date with the file, now the most recently used."""
        (version,) = conn.execute("PRAGMA data_version").fetchone()
        if version != self._version:  # another connection committed: look at every graph again
            self._version = version
            self._checked.clear()
        cached = self._cached(graph)
        if cached is None or graph not in self._checked:
            cached = self._synced(conn, graph)
            self._checked.add(graph)
        self._graphs[graph] = cached
        self._graphs.move_to_end(graph)
        self._evict()
        return cached

    def _cached(self, graph: int) -> _GraphMatrix | None:
        """The graph's matrix held, or read ahead at open (not checked against the file yet)."""
        cached = self._graphs.get(graph)
        if cached is None and self._warmup is not None:
            cached = self._warmup.take(graph)
            if cached is not None:
                self._graphs[graph] = cached
        return cached

    def _evict(self) -> None:
        """Drop the least recently searched matrices until the others fit `cache_bytes`."""
        held = sum(matrix.nbytes for matrix in list(self._graphs.values())[:-1])
        while held > self.cache_bytes and len(self._graphs) > 1:
            graph, matrix = self._graphs.popitem(last=False)
            self._checked.discard(graph)
            held -= matrix.nbytes

    def _synced(self, conn: sqlite3.Connection, graph: int) -> _GraphMatrix:
        """The graph's matrix after comparing its row count and rewrites with the file's
        (`vector_stats`, kept by triggers: one row to read, however large the graph)."""
        rows, rewrites = self.stats(conn, graph)
        cached = self._graphs.get(graph)
        if cached is not None and (cached.count, cached.rewrites) == (rows, rewrites):
            return cached
        if cached is not None and cached.rewrites == rewrites and rows > cached.count:
            # Rows were only added: those after the last one held are all of them, or the
            # additions include older ids (a backfill) and the graph is read again.
            _, high = graph_range(graph)
            block = self._read(conn, cached.last + 1, high, rows - cached.count, by_row=True)
            added = 0 if block is None else block.size
            if cached.count + added == rows:
                if block is not None:
                    ids = block.ids[:added]
                    cached.append(ids, block.rows(), block.scales[:added])
                    cached.last = int(ids[-1])
                cached.count = rows
                return cached
        self._graphs.pop(graph, None)  # let the old matrix go before the new one is read
        fresh = self.read_matrix(conn, graph)
        assert fresh is not None  # nothing can stop this read
        return fresh

    def stats(self, conn: sqlite3.Connection, graph: int) -> tuple[int, int]:
        """The graph's stored rows of this model and how many rows were ever deleted or
        rewritten (two numbers that move with every change a matrix must see)."""
        row = conn.execute(
            "SELECT rows, rewrites FROM vector_stats WHERE graph = ? AND model = ?",
            (graph, self.model),
        ).fetchone()
        return (0, 0) if row is None else (int(row[0]), int(row[1]))

    def read_matrix(
        self, conn: sqlite3.Connection, graph: int, stop: threading.Event | None = None
    ) -> _GraphMatrix | None:
        """The graph's matrix read from the file, in one snapshot of it when the caller's
        transaction is open (None if `stop` was set meanwhile)."""
        low, high = graph_range(graph)
        rows, rewrites = self.stats(conn, graph)
        by_row = rows >= self.coarse_rows
        block = self._read(conn, low, high, rows, by_row, stop)
        if stop is not None and stop.is_set():
            return None
        fresh = _GraphMatrix(last=0, count=0, rewrites=rewrites, by_row=by_row)
        if block is not None:
            fresh.blocks.append(block)
            fresh.last, fresh.count = int(block.ids[block.size - 1]), block.size
            if block.size >= self.coarse_rows:  # made now, not at the first search
                block.signs()
            if block.nbytes >= heap.TRIM_BYTES:  # the rows' bytes passed through the heap
                heap.trim()
        return fresh

    def warm(
        self,
        connect: Callable[[], sqlite3.Connection],
        then: Callable[[sqlite3.Connection], None] | None = None,
    ) -> None:
        """Start reading the matrices of the graphs written last, on a thread of their own with
        a connection from `connect`, and run `then` on it after (`zepkit.local.warmup`)."""
        self._warmup = Warmup(connect, self._read_ahead, self._rows, self.cache_bytes, then)

    def _rows(self, conn: sqlite3.Connection, graph: int) -> int:
        """How many vectors of this model the graph holds (one row of `vector_stats`)."""
        return self.stats(conn, graph)[0]

    def _read_ahead(
        self, conn: sqlite3.Connection, graph: int, stop: threading.Event
    ) -> _GraphMatrix | None:
        """`read_matrix` on the warm-up's connection, in one snapshot."""
        with read_transaction(conn):
            return self.read_matrix(conn, graph, stop)

    def close(self) -> None:
        """Stop a warm-up still reading."""
        if self._warmup is not None:
            self._warmup.stop()
            self._warmup = None

    def _read(
        self,
        conn: sqlite3.Connection,
        low: int,
        high: int,
        expected: int,
        by_row: bool,
        stop: threading.Event | None = None,
    ) -> _Block | None:
        """This model's rows in an id range read into one block (None if it has none), kept
        `by_row` or in tiles. `expected` sizes the block; `stop`, once set, ends the read at its
        next chunk."""
        if expected < LARGE_READ_ROWS:
            return self._read_rows(conn, low, high, expected, by_row, stop)
        with passing_read(conn):
            return self._read_rows(conn, low, high, expected, by_row, stop)

    def _read_rows(
        self,
        conn: sqlite3.Connection,
        low: int,
        high: int,
        expected: int,
        by_row: bool,
        stop: threading.Event | None,
    ) -> _Block | None:
        """`_read` under whatever page cache is set."""
        import numpy as np  # type: ignore[import-not-found, unused-ignore]

        block: _Block | None = None
        after = low - 1
        while stop is None or not stop.is_set():
            joined, listed, last, count, width = conn.execute(
                _CHUNK_SQL, (after, high, self.model, _READ_ROWS)
            ).fetchone()
            if not count:
                break
            after = last
            raw = np.frombuffer(joined, dtype=np.uint8).reshape(count, width)
            ids = np.fromstring(listed, dtype=np.int64, sep=",")
            if len(ids) != count:
                raise ValueError(f"read {len(ids)} ids for {count} vectors")
            if block is None:
                block = _Block(max(expected, count), width - 4, by_row)
            if block.room < count:  # rows added since `expected` was read (not one snapshot)
                grown = _Block(block.size + max(count, block.size), width - 4, by_row)
                grown.take(block)
                block = grown
            block.put(ids, raw[:, 4:].view(np.int8), raw[:, :4].copy().view("<f4")[:, 0])
        return block
