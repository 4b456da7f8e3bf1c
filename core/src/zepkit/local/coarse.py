"""The coarse pass of a large graph's dense scan: one sign bit a dimension, Hamming distance.

A vector's signs keep most of its direction (the share of differing signs grows with the angle
between two vectors), in a twelfth of its int8 codes' bytes. A graph of `MIN_ROWS` rows or more
is scanned by Hamming distance to the query's signs first; only the closest `candidates(pool)`
rows are then scored exactly from their int8 codes. Smaller graphs keep the exact scan alone.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

MIN_ROWS = 65536
"""Live rows from which a graph's scan goes coarse first (below it: every row scored exactly)."""
CANDIDATES = 4096
"""Rows scored exactly after the coarse pass, at least (more for a large pool or graph). On
LoCoMo's real turn vectors and 100k mixtures of them, with its questions as queries, the coarse
pass kept 99.85% of the exact top 50 and 99.4% of the top 150 with 4,096 rows (99.97% and 99.9%
with 8,192, which took about 0.4 ms more of a 100k add with context: more than
`vectors.SPLIT_SCAN_ROWS`, they were scored as two halves on two threads)."""
POOL_FACTOR = 27
"""Rows asked per result for a pool too large for `CANDIDATES` (the block's pool of 150 asks
`CANDIDATES`: 27 x 150 is 4,050)."""
ROWS_PER_CANDIDATE = 128
"""A graph's rows per row asked at least: what the coarse pass keeps falls with the share of
rows it asks (1M mixtures: 99.0% of the top 50 with 4,096 rows, 99.67% with 7,812)."""
SPLIT_ROWS = 262144
"""Rows from which the coarse pass runs on two threads (below it the second thread costs more
than it saves)."""
_BUILD_CHUNK = 16384
"""Rows whose signs are made at a time: the unpacked bits of a step stay small (6 MB)."""
_CHUNK = 131072
"""Rows per step of the distance loop: long enough for numpy to keep the interpreter lock
released most of the time (two threads at 16,384 rows were slower than one), short enough for
small scratch arrays (1 MB)."""


def available() -> bool:
    """True when numpy counts bits itself (numpy 2.0 and later); else the scan stays exact."""
    import numpy as np  # type: ignore[import-not-found, unused-ignore]

    return hasattr(np, "bitwise_count")


def candidates(pool: int, rows: int) -> int:
    """How many of the coarse pass's closest rows are scored exactly for `pool` results from a
    graph of `rows` rows."""
    return max(CANDIDATES, POOL_FACTOR * pool, rows // ROWS_PER_CANDIDATE)


def words(dim: int) -> int:
    """64-bit words holding the signs of a `dim`-wide vector."""
    return (dim + 63) // 64


def packed(bits: Any, dim: int) -> Any:
    """Rows of 0/1 `bits` [n, dim] as sign words [n, words(dim)] (padding bits are 0)."""
    import numpy as np  # type: ignore[import-not-found, unused-ignore]

    out = np.zeros((len(bits), words(dim) * 8), dtype=np.uint8)
    out[:, : (dim + 7) // 8] = np.packbits(bits, axis=1)
    return out.view(np.uint64)


class Signs:
    """The sign words of a block's rows, word-major (one contiguous run of rows per word, so
    each pass of the distance loop reads memory in order); the first `size` rows are filled."""

    def __init__(self, rows: int, dim: int) -> None:
        import numpy as np  # type: ignore[import-not-found, unused-ignore]

        self.dim = dim
        self.bits = np.zeros((words(dim), rows), dtype=np.uint64)
        self.size = 0

    @property
    def nbytes(self) -> int:
        return int(self.bits.nbytes)

    def extend(self, codes: Any, size: int) -> None:
        """Fill the signs of rows up to `size` from their uint8 codes (int8 + 128: the top bit
        is set for a code of 0 or more)."""
        for start in range(self.size, size, _BUILD_CHUNK):
            end = min(start + _BUILD_CHUNK, size)
            self.bits[:, start:end] = packed(codes[start:end] >> 7, self.dim).T
            self.size = end

    def distances(self, query: Any) -> Any:
        """Hamming distance from each filled row to the query's sign words, as uint16; a graph of
        `SPLIT_ROWS` rows or more is measured in two halves at once (numpy lets go of the
        interpreter lock in each step)."""
        import numpy as np  # type: ignore[import-not-found, unused-ignore]

        out = np.empty(self.size, dtype=np.uint16)
        if self.size < SPLIT_ROWS:
            self._measure(query, out, 0, self.size)
            return out
        middle = self.size // 2
        other = helper().submit(self._measure, query, out, middle, self.size)
        self._measure(query, out, 0, middle)
        other.result()
        return out

    def _measure(self, query: Any, out: Any, first: int, last: int) -> None:
        """Fill `out[first:last]` with the rows' distances, a chunk at a time."""
        import numpy as np  # type: ignore[import-not-found, unused-ignore]

        scratch = np.empty(min(_CHUNK, last - first), dtype=np.uint64)
        counts = np.empty(len(scratch), dtype=np.uint8)
        for start in range(first, last, _CHUNK):
            end = min(start + _CHUNK, last)
            step, these, total = scratch[: end - start], counts[: end - start], out[start:end]
            total[:] = 0
            for word, value in enumerate(query):
                np.bitwise_xor(self.bits[word, start:end], value, out=step)
                np.bitwise_count(step, out=these)
                np.add(total, these, out=total)


_HELPER: ThreadPoolExecutor | None = None
_HELPER_LOCK = threading.Lock()


def helper() -> ThreadPoolExecutor:
    """The one thread that takes the second half of a large scan (made on first use)."""
    global _HELPER
    with _HELPER_LOCK:
        if _HELPER is None:
            _HELPER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="zepkit-scan")
        return _HELPER


def query_words(query: Any) -> Any:
    """The sign words of a float query vector."""
    import numpy as np  # type: ignore[import-not-found, unused-ignore]

    return packed((np.asarray(query) >= 0).reshape(1, -1), len(query))[0]


def closest(distances: Any, want: int) -> Any:
    """Indices (ascending) of the rows within the smallest distance that takes in `want` rows
    (ties at that distance all come along, so the pick does not depend on row order)."""
    import numpy as np  # type: ignore[import-not-found, unused-ignore]

    if want >= len(distances):
        return np.arange(len(distances))
    within = np.cumsum(np.bincount(distances))
    cut = int(np.searchsorted(within, want))
    return np.flatnonzero(distances <= cut)
