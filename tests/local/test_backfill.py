"""Vectors for episodes stored without one: told at open, made by `embed_missing`."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from pathlib import Path

import pytest

from zepkit.core._backend import SearchRequest, UserProfile
from zepkit.core._errors import ConfigurationError
from zepkit.core._models import Message
from zepkit.local import LocalBackend

pytest.importorskip("numpy")

PETS = {"dog", "puppy", "pet", "greyhound"}


class PetEmbedder:
    """Pet words share one dimension; every other word hashes to its own."""

    model_id = "test-pets"

    def __init__(self) -> None:
        self.texts: list[str] = []

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.texts.extend(texts)
        return [self._one(text) for text in texts]

    @staticmethod
    def _one(text: str) -> list[float]:
        vector = [0.0] * 32
        for word in text.lower().replace(".", " ").replace(":", " ").split():
            vector[0 if word in PETS else 1 + sum(map(ord, word)) % 31] += 1.0
        return vector


async def store_lexically(path: Path, count: int) -> None:
    backend = LocalBackend(path, retriever="lexical")
    await backend.ensure_user(UserProfile("u"))
    await backend.ensure_thread("t", "u")
    said = [Message("user", f"Note {n} about taxes.") for n in range(count - 1)]
    await backend.add_messages("t", [*said, Message("user", "We adopted a greyhound.")])
    await backend.aclose()


async def test_episodes_without_vectors_are_told_and_then_embedded(
    db_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    await store_lexically(db_path, 5)
    embedder = PetEmbedder()
    backend = LocalBackend(db_path, retriever="dense", embedder=embedder)
    try:
        pets = SearchRequest("puppy", user_id="u", scope="episodes")
        with caplog.at_level(logging.WARNING, logger="zepkit.local"):
            assert (await backend.search(pets)).episodes == []  # dense search cannot see them
            for _ in range(1000):  # counted on the thread that reads ahead at open
                if "zepkit embed" in caplog.text:
                    break
                await asyncio.sleep(0.01)
        assert "5 episodes" in caplog.text and "zepkit embed" in caplog.text

        assert await backend.embed_missing(batch_size=2) == 5
        stored = [*(f"Note {n} about taxes." for n in range(4)), "We adopted a greyhound."]
        assert embedder.texts == ["puppy", *stored]  # the query, then each episode once
        found = await backend.search(pets)
        assert found.episodes[0].content == "We adopted a greyhound."
        assert await backend.embed_missing() == 0
    finally:
        await backend.aclose()

    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="zepkit.local"):
        again = LocalBackend(db_path, retriever="dense", embedder=PetEmbedder())
        await again.search(pets)
        await again.aclose()
    assert caplog.text == ""


async def test_another_embedders_vectors_are_replaced(db_path: Path) -> None:
    first = LocalBackend(db_path, retriever="hybrid", embedder=PetEmbedder())
    await first.ensure_user(UserProfile("u"))
    await first.ensure_thread("t", "u")
    await first.add_messages("t", [Message("user", "A puppy.")])
    await first.aclose()

    class Other(PetEmbedder):
        model_id = "another-model"

    second = LocalBackend(db_path, retriever="dense", embedder=Other())
    try:
        assert await second.embed_missing() == 1
        found = await second.search(SearchRequest("dog", user_id="u", scope="episodes"))
        assert [e.content for e in found.episodes] == ["A puppy."]
    finally:
        await second.aclose()


async def test_a_lexical_backend_has_nothing_to_embed_with(db_path: Path) -> None:
    await store_lexically(db_path, 2)
    backend = LocalBackend(db_path, retriever="lexical")
    try:
        with pytest.raises(ConfigurationError, match="hybrid"):
            await backend.embed_missing()
        with pytest.raises(ValueError, match="batch_size"):
            await backend.embed_missing(batch_size=0)
    finally:
        await backend.aclose()
