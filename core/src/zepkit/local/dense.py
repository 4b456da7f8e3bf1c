"""Choosing the retriever (lexical, dense or hybrid) and running the embedder for the engine.

"auto" means hybrid when an embedder is given or the extra `embeddings` is installed, lexical
otherwise; the fallback is logged once per process at INFO.
"""

from __future__ import annotations

import importlib.util
import logging
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from functools import partial
from typing import Any, Literal, NamedTuple, get_args

from zepkit.core._errors import ConfigurationError
from zepkit.local import minilm
from zepkit.local.embedders import Embedder
from zepkit.local.vectors import VectorIndex, blobs, decoded, normalised, store_vectors

RetrieverMode = Literal["auto", "lexical", "dense", "hybrid"]
MODES: tuple[str, ...] = get_args(RetrieverMode)

logger = logging.getLogger("zepkit.local")
_told_lexical = False
QUERY_CACHE = 256
"""Query vectors kept per backend, most recently used first: a repeated query embeds once."""


class BlockVector(NamedTuple):
    """A context block's dense half: the mean of its messages' stored vectors (None when one has
    none) and the episodes nearest it, best first (None when not scanned)."""

    vector: Any
    nearest: list[tuple[int, float]] | None


class Dense:
    """An embedder with the vector index of its model: what dense retrieval needs."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        self.index = VectorIndex(embedder.model_id)
        self._queries: OrderedDict[str, Any] = OrderedDict()
        self._lock = threading.Lock()

    def vectors(self, texts: Sequence[str]) -> Any:
        """Unit vectors for `texts` (call outside the write lock: this is the slow part)."""
        return normalised(self.embedder.embed(list(texts)))

    def vectors_later(self, texts: Sequence[str]) -> Callable[[], Any]:
        """`vectors(texts)`, to be called on another thread (an embedder that can read its
        input on the caller's thread first, `embed_later`, does so)."""
        texts = list(texts)
        later = getattr(self.embedder, "embed_later", None)
        embed = later(texts) if later is not None else partial(self.embedder.embed, texts)
        return lambda: normalised(embed())

    def query_vector(self, query: str) -> Any:
        """The unit vector of a query, from the cache when it was asked recently."""
        with self._lock:
            if query in self._queries:
                self._queries.move_to_end(query)
                return self._queries[query]
        vector = self.vectors([query])[0]
        with self._lock:
            self._queries[query] = vector
            if len(self._queries) > QUERY_CACHE:
                self._queries.popitem(last=False)
        return vector

    def stored_mean(self, conn: sqlite3.Connection, messages: Sequence[int]) -> Any:
        """The unit mean of the stored vectors of `messages`' episodes; None if one has none."""
        if not messages:
            return None
        marks = ", ".join("?" * len(messages))
        rows = conn.execute(
            "SELECT v.vector FROM episodes e JOIN episode_vectors v ON v.episode = e.id "
            f"WHERE e.message IN ({marks}) AND v.model = ? ORDER BY e.message",
            (*messages, self.embedder.model_id),
        ).fetchall()
        if len(rows) != len(messages):
            return None
        return _mean([vector for (vector,) in rows])

    def block_ahead(
        self,
        conn: sqlite3.Connection,
        graph: int,
        messages: Sequence[int],
        episodes: Sequence[int],
        pending: Future[Any],
        pool: int,
        thread: ThreadPoolExecutor,
    ) -> Future[BlockVector] | None:
        """A block's dense half, started on `thread` inside the write of `episodes` (their
        vectors `pending`), while the caller reads the lexical half: once the vectors come,
        they are taken into the index, averaged with the stored vectors of the block's other
        `messages` (what `stored_mean` reads after the write), and the `pool` episodes nearest
        that mean are found. Should the write not commit, the caller must `forget` the graph.
        None when the graph's matrix is not in memory: it is read after the write instead."""
        if not self.index.refresh_held(conn, graph):
            return None
        marks = ", ".join("?" * len(messages))
        rows: list[tuple[int, bytes | None]] = conn.execute(
            "SELECT e.id, v.vector FROM episodes e LEFT JOIN episode_vectors v "
            f"ON v.episode = e.id AND v.model = ? WHERE e.message IN ({marks}) ORDER BY e.message",
            (self.embedder.model_id, *messages),
        ).fetchall()
        new = {episode: n for n, episode in enumerate(episodes)}

        def run() -> BlockVector:
            vectors = pending.result()
            self.index.added(episodes, vectors)
            written = blobs(vectors)
            found = [written[new[episode]] if episode in new else blob for episode, blob in rows]
            stored = [blob for blob in found if blob is not None]
            if not stored or len(stored) != len(messages):  # one has no vector (another model's)
                return BlockVector(None, None)
            vector = _mean(stored)
            return BlockVector(vector, self.index.nearest_held(graph, vector, pool))

        return thread.submit(run)

    def store(self, conn: sqlite3.Connection, episodes: Sequence[int], matrix: Any) -> None:
        """Write the episodes' vectors in the caller's transaction."""
        store_vectors(conn, self.embedder.model_id, episodes, matrix)

    def nearest(
        self, conn: sqlite3.Connection, graph: int, query: str | Any, pool: int
    ) -> list[tuple[int, float]]:
        """The `pool` episodes closest to `query` (a text, or its unit vector), best first."""
        # The graph's vectors first: on a cold start they are read while the model still loads.
        self.index.prepare(conn, graph)
        vector = self.query_vector(query) if isinstance(query, str) else query
        return self.index.nearest(conn, graph, vector, pool)


def _mean(stored: Sequence[bytes]) -> Any:
    """The unit mean of stored vectors (in the order given: the sum's rounding depends on it)."""
    import numpy as np  # type: ignore[import-not-found, unused-ignore]

    matrix = np.stack([decoded(vector) for vector in stored])
    return normalised(matrix.mean(axis=0, keepdims=True))[0]


def resolve(mode: str, embedder: Embedder | None) -> tuple[str, Dense | None]:
    """The effective mode and, unless it is lexical, the dense side to use."""
    global _told_lexical
    if mode not in MODES:
        raise ConfigurationError(f"retriever must be one of {', '.join(MODES)}, not {mode!r}")
    if mode == "lexical":
        return mode, None
    if embedder is None and minilm.available():
        embedder = minilm.shared()
        embedder.preload()
    if embedder is not None:
        if importlib.util.find_spec("numpy") is None:
            raise ConfigurationError(f"dense retrieval needs numpy: {minilm.INSTALL_HINT}")
        return ("hybrid" if mode == "auto" else mode), Dense(embedder)
    if mode != "auto":
        raise ConfigurationError(
            f"retriever {mode!r} needs an embedder: pass one, or {minilm.INSTALL_HINT}"
        )
    if not _told_lexical:
        _told_lexical = True
        logger.info(
            "zepkit.local: dense retrieval is off, searching lexically (FTS5 BM25); for hybrid "
            "search %s",
            minilm.INSTALL_HINT,
        )
    return "lexical", None
