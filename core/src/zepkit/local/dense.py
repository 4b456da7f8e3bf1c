"""Choosing the retriever (lexical, dense or hybrid) and running the embedder for the engine.

"auto" means hybrid when an embedder is given or the extra `embeddings` is installed, lexical
otherwise; the fallback is logged once per process at INFO.
"""

from __future__ import annotations

import importlib.util
import logging
import sqlite3
from collections.abc import Sequence
from typing import Any, Literal, get_args

from zepkit.core.errors import ConfigurationError
from zepkit.local import minilm
from zepkit.local.embedders import Embedder
from zepkit.local.vectors import VectorIndex, normalised, store_vectors

RetrieverMode = Literal["auto", "lexical", "dense", "hybrid"]
MODES: tuple[str, ...] = get_args(RetrieverMode)

logger = logging.getLogger("zepkit.local")
_told_lexical = False


class Dense:
    """An embedder with the vector index of its model: what dense retrieval needs."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        self.index = VectorIndex(embedder.model_id)

    def vectors(self, texts: Sequence[str]) -> Any:
        """Unit vectors for `texts` (call outside the write lock: this is the slow part)."""
        return normalised(self.embedder.embed(list(texts)))

    def store(self, conn: sqlite3.Connection, episodes: Sequence[int], matrix: Any) -> None:
        """Write the episodes' vectors in the caller's transaction."""
        store_vectors(conn, self.embedder.model_id, episodes, matrix)

    def nearest(
        self, conn: sqlite3.Connection, graph: int, query: str, pool: int
    ) -> list[tuple[int, float]]:
        """The `pool` episodes of the graph closest to `query`: (id, cosine), best first."""
        return self.index.nearest(conn, graph, self.vectors([query])[0], pool)


def resolve(mode: str, embedder: Embedder | None) -> tuple[str, Dense | None]:
    """The effective mode and, unless it is lexical, the dense side to use."""
    global _told_lexical
    if mode not in MODES:
        raise ConfigurationError(f"retriever must be one of {', '.join(MODES)}, not {mode!r}")
    if mode == "lexical":
        return mode, None
    if embedder is None and minilm.available():
        embedder = minilm.shared()
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
