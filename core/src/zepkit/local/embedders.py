"""The `Embedder` plug-in point for dense retrieval, and an embedder for OpenAI-compatible APIs.

An embedder turns texts into vectors; the engine stores them beside the episodes and ranks by
cosine similarity. The default local one lives in `zepkit.local.minilm` (extra `embeddings`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from zepkit.core._errors import BackendError, ConfigurationError

if TYPE_CHECKING:  # imported where used: opening a local backend does not need httpx
    import httpx


@runtime_checkable
class Embedder(Protocol):
    """Texts to vectors of a fixed size; called on the backend's own threads, never the loop.

    An embedder may say `in_process = True` (it computes here, in milliseconds): the engine then
    embeds a write's texts while it writes them. Others answer before the write lock is taken."""

    @property
    def model_id(self) -> str:
        """Names the model: stored with each vector, so vectors of two models are never mixed."""
        ...

    def embed(self, texts: Sequence[str]) -> Sequence[Sequence[float]]:
        """One vector per text, in order (any scale: the engine normalises them)."""
        ...


class HttpEmbedder:
    """Embeddings from an OpenAI-compatible `POST {base_url}/embeddings` endpoint."""

    def __init__(
        self,
        model: str,
        *,
        base_url: str = "https://api.openai.com/v1",
        api_key: str | None = None,
        batch_size: int = 64,
        timeout: float = 30.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        # `api_key` defaults to OPENAI_API_KEY when that is set; local servers often need none.
        import httpx

        if batch_size < 1:
            raise ConfigurationError(f"batch_size must be positive, got {batch_size}")
        key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY")
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        self._model = model
        self._batch_size = batch_size
        self._client = httpx.Client(
            base_url=base_url.rstrip("/"), headers=headers, timeout=timeout, transport=transport
        )

    @property
    def model_id(self) -> str:
        """The endpoint's model name."""
        return f"http:{self._model}"

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Vectors for `texts`, asked for in batches of `batch_size`."""
        vectors: list[list[float]] = []
        for start in range(0, len(texts), self._batch_size):
            vectors.extend(self._batch(list(texts[start : start + self._batch_size])))
        return vectors

    def close(self) -> None:
        """Close the HTTP client."""
        self._client.close()

    def _batch(self, texts: list[str]) -> list[list[float]]:
        import httpx

        try:
            response = self._client.post("/embeddings", json={"model": self._model, "input": texts})
            response.raise_for_status()
            body: Any = response.json()
            items = sorted(body["data"], key=lambda item: int(item["index"]))
            vectors = [[float(x) for x in item["embedding"]] for item in items]
        except httpx.HTTPStatusError as exc:
            raise BackendError(
                f"embedding endpoint answered HTTP {exc.response.status_code}"
            ) from exc
        except httpx.HTTPError as exc:
            raise BackendError(f"embedding endpoint unreachable: {type(exc).__name__}") from exc
        except (KeyError, TypeError, ValueError) as exc:
            raise BackendError(f"embedding endpoint sent an unexpected body: {exc!r}") from exc
        if len(vectors) != len(texts):
            raise BackendError(f"embedding endpoint sent {len(vectors)} vectors for {len(texts)}")
        return vectors
