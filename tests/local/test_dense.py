"""Dense and hybrid retrieval with a small deterministic embedder (needs numpy, not the model)."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

import pytest

from zepkit.core._backend import SearchRequest, UserProfile
from zepkit.core._errors import BackendError, ConfigurationError
from zepkit.core._models import Message
from zepkit.local import LocalBackend
from zepkit.testing._backend_contract import BackendContract

pytest.importorskip("numpy")

CONCEPTS = (
    {"dog", "puppy", "pet", "greyhound", "dogs"},
    {"lisbon", "porto", "portugal", "city", "travel"},
    {"piano", "music", "guitar", "song"},
)


class ConceptEmbedder:
    """Words of one concept share a dimension; every other word gets its own hashed one."""

    model_id = "test-concepts"

    def __init__(self) -> None:
        self.threads: set[str] = set()
        self.calls = 0

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.threads.add(threading.current_thread().name)
        self.calls += 1
        return [self._one(text) for text in texts]

    @staticmethod
    def _one(text: str) -> list[float]:
        vector = [0.0] * 64
        for word in text.lower().replace(".", " ").replace("?", " ").split():
            slot = next((n for n, group in enumerate(CONCEPTS) if word in group), None)
            if slot is None:
                vector[3 + sum(map(ord, word)) % 61] += 1.0
            else:
                vector[slot] += 3.0
        return vector


@pytest.fixture
async def hybrid() -> AsyncIterator[LocalBackend]:
    memory = LocalBackend(retriever="hybrid", embedder=ConceptEmbedder())
    await memory.ensure_user(UserProfile("u"))
    await memory.ensure_thread("t", "u")
    yield memory
    await memory.aclose()


async def test_hybrid_finds_what_shares_no_word_with_the_query(hybrid: LocalBackend) -> None:
    await hybrid.add_messages(
        "t",
        [Message("user", "I adopted a puppy last week."), Message("user", "I play the piano.")],
    )
    found = await hybrid.search(SearchRequest("my greyhound", user_id="u", scope="episodes"))
    assert [e.content for e in found.episodes][:1] == ["I adopted a puppy last week."]
    facts = await hybrid.search(SearchRequest("my greyhound", user_id="u", scope="edges"))
    assert "user: I adopted a puppy last week." in [f.fact for f in facts.edges]
    lexical = LocalBackend(retriever="lexical")
    await lexical.ensure_user(UserProfile("u"))
    await lexical.ensure_thread("t", "u")
    await lexical.add_messages("t", [Message("user", "I adopted a puppy last week.")])
    assert not (await lexical.search(SearchRequest("my greyhound", user_id="u"))).edges
    await lexical.aclose()


async def test_unrelated_vectors_are_not_returned(hybrid: LocalBackend) -> None:
    await hybrid.add_messages("t", [Message("user", "I adopted a puppy last week.")])
    found = await hybrid.search(SearchRequest("quarterly revenue", user_id="u", scope="episodes"))
    assert found.episodes == []


async def test_dense_only_mode_ranks_by_vectors(hybrid: LocalBackend) -> None:
    embedder = ConceptEmbedder()
    dense = LocalBackend(retriever="dense", embedder=embedder)
    await dense.ensure_user(UserProfile("u"))
    await dense.ensure_thread("t", "u")
    await dense.add_messages("t", [Message("user", "We flew to Porto."), Message("user", "Hi.")])
    found = await dense.search(SearchRequest("travel plans", user_id="u", scope="episodes"))
    # The match first; its adjacent turn may follow (neighbours take credit from a match).
    assert found.episodes[0].content == "We flew to Porto."
    assert dense.retriever == "dense" and dense.capabilities.dense_vectors
    await dense.aclose()


async def test_context_block_uses_dense_retrieval(hybrid: LocalBackend) -> None:
    await hybrid.ensure_thread("old", "u")
    await hybrid.add_messages("old", [Message("user", "My greyhound is called Pixel.")])
    context = await hybrid.add_messages(
        "t", [Message("user", "Any tips for walking my dog?")], return_context=True
    )
    assert context is not None and "greyhound is called Pixel" in context


async def test_embedding_runs_on_the_worker_thread(hybrid: LocalBackend) -> None:
    embedder = ConceptEmbedder()
    memory = LocalBackend(retriever="hybrid", embedder=embedder)
    await memory.ensure_user(UserProfile("u"))
    await memory.ensure_thread("t", "u")
    await memory.add_messages("t", [Message("user", "A puppy.")])
    await memory.search(SearchRequest("dog", user_id="u"))
    assert embedder.threads and all(n.startswith("zepkit-local") for n in embedder.threads)
    await memory.aclose()


async def test_add_with_context_embeds_once_and_repeated_queries_embed_once() -> None:
    embedder = ConceptEmbedder()
    memory = LocalBackend(retriever="hybrid", embedder=embedder)
    await memory.ensure_user(UserProfile("u"))
    await memory.ensure_thread("old", "u")
    await memory.ensure_thread("t", "u")
    await memory.add_messages("old", [Message("user", "My greyhound is called Pixel.")])
    before = embedder.calls
    context = await memory.add_messages(
        "t", [Message("user", "Any tips for walking my dog?")], return_context=True
    )
    assert context is not None and "greyhound is called Pixel" in context
    assert embedder.calls == before + 1  # the context query reuses the stored vectors
    for _ in range(3):
        await memory.search(SearchRequest("my pet", user_id="u", scope="episodes"))
    assert embedder.calls == before + 2
    await memory.aclose()


async def test_each_new_message_is_found_by_dense_search_right_away(
    hybrid: LocalBackend,
) -> None:
    await hybrid.add_messages("t", [Message("user", "I play the piano.")])
    for n in range(150):  # past several doublings of the in-memory matrix
        await hybrid.add_messages("t", [Message("user", f"note{n} about the city of Lisbon.")])
        found = await hybrid.search(
            SearchRequest(f"note{n} portugal", user_id="u", scope="episodes", reranker=None)
        )
        assert found.episodes[0].content == f"note{n} about the city of Lisbon."
    found = await hybrid.search(SearchRequest("music", user_id="u", scope="episodes"))
    assert found.episodes[0].content == "I play the piano."


async def test_vectors_are_stored_reloaded_and_deleted(db_path: Path) -> None:
    first = LocalBackend(db_path, retriever="hybrid", embedder=ConceptEmbedder())
    await first.ensure_user(UserProfile("u"))
    await first.ensure_thread("t", "u")
    await first.add_messages("t", [Message("user", "A puppy."), Message("user", "Lisbon.")])
    await first.add_data("I love music.", type="text", user_id="u")
    await first.aclose()
    with sqlite3.connect(db_path) as conn:
        rows = conn.execute("SELECT model, length(vector) FROM episode_vectors").fetchall()
    assert rows == [("test-concepts", 4 + 64)] * 3  # scale, then one int8 code a dimension

    again = LocalBackend(db_path, retriever="dense", embedder=ConceptEmbedder())
    found = await again.search(SearchRequest("song", user_id="u", scope="episodes"))
    assert [e.content for e in found.episodes] == ["I love music."]
    await again.delete_thread("t")
    found = await again.search(SearchRequest("pet", user_id="u", scope="episodes"))
    assert found.episodes == []
    await again.aclose()
    with sqlite3.connect(db_path) as conn:
        assert conn.execute("SELECT count(*) FROM episode_vectors").fetchone() == (1,)


async def test_vectors_of_another_model_are_ignored(db_path: Path) -> None:
    first = LocalBackend(db_path, retriever="hybrid", embedder=ConceptEmbedder())
    await first.ensure_user(UserProfile("u"))
    await first.ensure_thread("t", "u")
    # not a note about the user ("A puppy." is one): a search naming pets finds those anyway
    await first.add_messages("t", [Message("user", "It was a puppy.")])
    await first.aclose()

    class Other(ConceptEmbedder):
        model_id = "another-model"

    second = LocalBackend(db_path, retriever="dense", embedder=Other())
    assert (await second.search(SearchRequest("pet", user_id="u"))).edges == []
    await second.aclose()


async def test_unknown_retriever_is_refused() -> None:
    with pytest.raises(ConfigurationError, match="retriever must be one of"):
        LocalBackend(retriever="fuzzy")  # type: ignore[arg-type]


class TestHybridBackendContract(BackendContract):
    @pytest.fixture
    async def backend(self) -> AsyncIterator[LocalBackend]:
        memory = LocalBackend(retriever="hybrid", embedder=ConceptEmbedder())
        yield memory
        await memory.aclose()


async def test_vectors_another_process_writes_or_deletes_are_seen(db_path: Path) -> None:
    reader = LocalBackend(db_path, retriever="dense", embedder=ConceptEmbedder())
    writer = LocalBackend(db_path, retriever="dense", embedder=ConceptEmbedder())
    try:
        await writer.ensure_user(UserProfile("u"))
        await writer.ensure_thread("t", "u")
        await writer.add_messages("t", [Message("user", "I play the piano.")])
        pets = SearchRequest("pet", user_id="u", scope="episodes")
        assert (await reader.search(pets)).episodes == []  # the reader now caches the graph

        await writer.add_messages("t", [Message("user", "We adopted a greyhound.")])
        found = await reader.search(pets)
        assert found.episodes[0].content == "We adopted a greyhound."

        await writer.delete_thread("t")
        assert (await reader.search(pets)).episodes == []
    finally:
        await reader.aclose()
        await writer.aclose()


class LockProbingEmbedder(ConceptEmbedder):
    """Records, on each call, its thread and whether the file's write lock was taken while it
    waited (up to `wait` seconds): a write that goes on beside the embedding takes it."""

    def __init__(
        self, path: Path, *, in_process: bool, wait: float = 0.0, fail_on: str | None = None
    ) -> None:
        super().__init__()
        self.in_process = in_process
        self._path = path
        self._wait = wait
        self._fail_on = fail_on
        self.saw_lock: list[bool] = []

    def _locked(self) -> bool:
        other = sqlite3.connect(self._path, timeout=0, isolation_level=None)
        try:
            other.execute("BEGIN IMMEDIATE")
            other.execute("ROLLBACK")
            return False
        except sqlite3.OperationalError:
            return True
        finally:
            other.close()

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        deadline = time.monotonic() + self._wait
        locked = self._locked()
        while not locked and time.monotonic() < deadline:
            time.sleep(0.01)
            locked = self._locked()
        self.saw_lock.append(locked)
        if self._fail_on is not None and any(self._fail_on in text for text in texts):
            raise RuntimeError("embedding service failed")
        return super().embed(texts)


async def _probed(path: Path, embedder: LockProbingEmbedder) -> LocalBackend:
    memory = LocalBackend(path, retriever="hybrid", embedder=embedder)
    await memory.ensure_user(UserProfile("u"))
    await memory.ensure_thread("old", "u")
    await memory.ensure_thread("t", "u")
    return memory


async def test_an_in_process_embedder_runs_beside_the_write_and_the_block_is_the_same(
    db_path: Path,
) -> None:
    embedder = LockProbingEmbedder(db_path, in_process=True, wait=5.0)
    memory = await _probed(db_path, embedder)
    await memory.add_messages("old", [Message("user", "My greyhound is called Pixel.")])
    embedder.saw_lock.clear()
    context = await memory.add_messages(
        "t", [Message("user", "Any tips for walking my dog?")], return_context=True
    )
    assert context is not None and "greyhound is called Pixel" in context
    assert context == await memory.get_context("t")  # the block read ahead is the block
    assert embedder.saw_lock == [True]  # the write went on while it embedded
    assert "zepkit-embed-write" in " ".join(embedder.threads)
    await memory.aclose()


async def _same_as_a_fresh_reader(memory: LocalBackend, path: Path, queries: list[str]) -> None:
    """`memory`'s vectors in memory find what a backend that reads them from the file finds."""
    reader = LocalBackend(path, retriever="hybrid", embedder=ConceptEmbedder())
    try:
        for query in queries:
            request = SearchRequest(query, user_id="u", scope="episodes", reranker=None)
            held = [e.content for e in (await memory.search(request)).episodes]
            assert held == [e.content for e in (await reader.search(request)).episodes], query
    finally:
        await reader.aclose()


async def test_the_blocks_nearest_episodes_are_found_beside_the_write(db_path: Path) -> None:
    # The embedding thread takes the new vectors into the index (once) and finds the block's
    # nearest episodes while the write goes on: the block is the one read after the write.
    embedder = LockProbingEmbedder(db_path, in_process=True)
    memory = await _probed(db_path, embedder)
    await memory.add_messages("old", [Message("user", "My greyhound is called Pixel.")])
    await memory.add_messages("old", [Message("user", "I moved to Lisbon in May.")])
    for said in (
        "Any tips for walking my dog?",
        "We might travel to Porto next.",
        "Which song should I learn on the piano?",
        "The puppy chewed my guitar.",
    ):
        context = await memory.add_messages("t", [Message("user", said)], return_context=True)
        assert context is not None and context == await memory.get_context("t")
    await _same_as_a_fresh_reader(memory, db_path, ["pet", "portugal", "music", "chewed"])
    await memory.aclose()


async def test_vectors_taken_in_ahead_of_a_write_that_fails_are_let_go(db_path: Path) -> None:
    embedder = LockProbingEmbedder(db_path, in_process=True)
    memory = await _probed(db_path, embedder)
    await memory.add_messages("old", [Message("user", "I walk my dog at noon.")])
    await memory.add_messages("t", [Message("user", "Off to Lisbon soon.")], return_context=True)
    # The vectors' insert fails on this connection only: a temporary trigger leaves the file
    # as it was, so nothing tells the index to look at the file again.
    memory._engine.run(
        lambda conn: conn.execute(
            "CREATE TEMP TRIGGER refuse BEFORE INSERT ON episode_vectors "
            "BEGIN SELECT RAISE(ABORT, 'no room for vectors'); END"
        )
    )
    with pytest.raises(BackendError, match="no room for vectors"):
        await memory.add_messages("t", [Message("user", "I play the piano.")], return_context=True)
    memory._engine.run(lambda conn: conn.execute("DROP TRIGGER temp.refuse"))
    await _same_as_a_fresh_reader(memory, db_path, ["music song", "pet"])
    context = await memory.add_messages(
        "t", [Message("user", "The puppy loves the park.")], return_context=True
    )
    assert context is not None and "piano" not in context
    assert context == await memory.get_context("t")
    await _same_as_a_fresh_reader(memory, db_path, ["music song", "pet"])
    await memory.aclose()


async def test_a_remote_embedder_answers_before_the_write_lock_is_taken(db_path: Path) -> None:
    embedder = LockProbingEmbedder(db_path, in_process=False, wait=0.3)
    memory = await _probed(db_path, embedder)
    await memory.add_messages("old", [Message("user", "My greyhound is called Pixel.")])
    context = await memory.add_messages(
        "t", [Message("user", "Any tips for walking my dog?")], return_context=True
    )
    assert context is not None and "greyhound is called Pixel" in context
    assert embedder.saw_lock and not any(embedder.saw_lock)
    await memory.aclose()


@pytest.mark.parametrize("in_process", [True, False])
async def test_a_failed_embedding_writes_nothing(db_path: Path, in_process: bool) -> None:
    embedder = LockProbingEmbedder(db_path, in_process=in_process, fail_on="PIN")
    memory = await _probed(db_path, embedder)
    await memory.add_messages("t", [Message("user", "I walk my dog at noon.")])
    with pytest.raises(RuntimeError, match="embedding service failed"):
        await memory.add_messages("t", [Message("user", "My PIN is 4321.")], return_context=True)
    assert [m.content for m in await memory.get_messages("t")] == ["I walk my dog at noon."]
    context = await memory.add_messages(
        "t", [Message("user", "Where do I walk the puppy?")], return_context=True
    )
    assert context is None or "PIN" not in context
    await memory.aclose()


async def test_an_in_process_embedder_embeds_the_query_beside_the_lexical_side(
    tmp_path: Path,
) -> None:
    found = {}
    for in_process in (True, False):
        embedder = LockProbingEmbedder(tmp_path / f"{in_process}.db", in_process=in_process)
        memory = await _probed(tmp_path / f"{in_process}.db", embedder)
        await memory.add_messages("old", [Message("user", "My greyhound is called Pixel.")])
        await memory.add_messages("old", [Message("user", "I moved to Lisbon in May.")])
        embedder.threads.clear()
        request = SearchRequest("dog walking", user_id="u", scope="episodes", limit=5)
        found[in_process] = [e.content for e in (await memory.search(request)).episodes]
        named = " ".join(embedder.threads)
        assert ("zepkit-embed-write" in named) is in_process
        await memory.aclose()
    assert found[True] == found[False]
    assert found[True][0] == "My greyhound is called Pixel."


async def test_a_failed_query_embedding_fails_the_search(db_path: Path) -> None:
    embedder = LockProbingEmbedder(db_path, in_process=True, fail_on="PIN")
    memory = await _probed(db_path, embedder)
    await memory.add_messages("t", [Message("user", "I walk my dog at noon.")])
    with pytest.raises(RuntimeError, match="embedding service failed"):
        await memory.search(SearchRequest("my PIN dog", user_id="u", scope="episodes"))
    await memory.aclose()
