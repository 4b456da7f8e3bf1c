"""The vector store: int8 codes, the in-memory matrices (blocks, eviction), the float32 upgrade."""

from __future__ import annotations

import sqlite3
import struct
import sys
from pathlib import Path
from typing import Any

import pytest

from zepkit.core import Message
from zepkit.core.spi import SearchRequest, UserProfile
from zepkit.local import LocalBackend, coarse, connection, scan, schema, vectors
from zepkit.local.ids import graph_range

np = pytest.importorskip("numpy")
needs_coarse = pytest.mark.skipif(
    not coarse.available(), reason="the coarse scan counts bits with numpy 2"
)


def unit_rows(count: int, dim: int = 48, seed: int = 0) -> object:
    rng = np.random.default_rng(seed)
    return vectors.normalised(rng.standard_normal((count, dim)))


def test_codes_keep_cosines_to_about_three_decimals() -> None:
    matrix = unit_rows(200)
    back = np.stack([vectors.decoded(blob) for blob in vectors.blobs(matrix)])
    exact = matrix @ matrix[0]
    assert np.abs(back @ matrix[0] - exact).max() < 0.01
    assert len(vectors.blobs(matrix)[0]) == 4 + 48


def test_the_scan_and_its_numpy_fallback_agree() -> None:
    matrix = unit_rows(300)
    codes, scales = vectors.encoded(matrix)
    stored = codes.view("u1") ^ 0x80
    query = matrix[7]
    fast = scan.dot(stored, query) * scales
    slow = (stored.astype(np.float32) @ query - scan.ZERO * float(query.sum())) * scales
    assert np.abs(fast - slow).max() < 0.01
    assert int(np.argmax(fast)) == 7


@pytest.mark.parametrize("dim", [48, 384])
def test_the_scan_adds_the_largest_products_exactly(dim: int) -> None:
    # Codes and query at the int8 extremes: pairs of products beyond 16 bits, which a kernel
    # without int8 dot-product instructions saturates unless the scan feeds it unsigned.
    pytest.importorskip("onnxruntime")
    codes = np.full((3, dim), 255, dtype=np.uint8)
    codes[1] = 0  # code -128
    codes[2, ::2] = 1  # alternating -127 and 127
    query = np.full(dim, 1.0 / np.sqrt(dim), dtype=np.float32)
    exact = (codes.astype(np.float32) - scan.ZERO) @ query
    assert np.abs(scan.dot(codes, query) - exact).max() < 1e-3 * np.abs(exact).max()


@pytest.mark.parametrize("dim", [48, 384])
def test_the_tile_scan_adds_the_largest_products_exactly_and_as_numpy_does(
    dim: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("onnxruntime")
    tiles = np.random.default_rng(dim).integers(0, 256, (3, dim, 5), dtype=np.uint8)
    tiles[0] = 255  # code 127 everywhere: pairs of products beyond 16 bits
    tiles[1, :, 0] = 0  # code -128
    query = vectors.normalised(np.random.default_rng(1).standard_normal((1, dim)))[0]
    query[:] = np.abs(query).max() * np.sign(query)  # every component at the int8 extreme
    exact = ((tiles.astype(np.float32) - scan.ZERO).transpose(0, 2, 1) @ query).reshape(-1)
    fast = scan.dot_tiles(tiles, query)
    assert np.abs(fast - exact).max() < 1e-3 * np.abs(exact).max()
    monkeypatch.setitem(scan._tile_sessions, dim, None)  # as without onnxruntime
    assert np.abs(scan.dot_tiles(tiles, query) - exact).max() < 1e-3 * np.abs(exact).max()


@pytest.mark.parametrize(("tile", "split"), [(64, 1), (64, 1001), (100, 1_501), (7, 1), (2048, 1)])
def test_rows_kept_in_tiles_score_as_rows_kept_side_by_side(
    tile: int, split: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(vectors, "TILE_ROWS", tile)
    monkeypatch.setattr(vectors, "SPLIT_SCAN_ROWS", split)  # halves cut inside tiles too
    rows = clustered_rows(3_003, seed=5)
    codes, scales = vectors.encoded(rows[:3_000])
    tiled = vectors._GraphMatrix(last=0, count=0, rewrites=0)
    side_by_side = vectors._GraphMatrix(last=0, count=0, rewrites=0, by_row=True)
    for start, end in ((0, 650), (650, 651), (651, 2_100), (2_100, 3_000)):
        for matrix in (tiled, side_by_side):
            matrix.append(np.arange(start, end) + 10, codes[start:end], scales[start:end])
    assert not any(block.by_row for block in tiled.blocks)
    assert np.concatenate([block.rows() for block in tiled.blocks]).tolist() == codes.tolist()
    for query in rows[3_000:]:
        ids, cosines = tiled.scores(query)
        assert ids.tolist() == list(range(10, 3_010))
        assert np.allclose(cosines, side_by_side.scores(query)[1], rtol=0, atol=1e-6)
        assert np.abs(cosines - (codes.astype(np.float32) @ query) * scales).max() < 0.01
    tiled.by_rows()  # as when top-ups take a graph to the coarse scan's size
    assert tiled.by_row and [block.by_row for block in tiled.blocks] == [True]
    assert tiled.blocks[0].rows().tolist() == codes.tolist()
    assert np.allclose(tiled.scores(rows[-1])[1], side_by_side.scores(rows[-1])[1], atol=1e-6)


@needs_coarse
def test_a_graph_grown_past_the_coarse_size_is_kept_by_row_and_scanned_coarse(
    tmp_path: Path,
) -> None:
    conn = _graph_file(tmp_path / "v.sqlite", graphs=1, rows=100)
    index = vectors.VectorIndex("m", coarse_rows=150)
    exact = vectors.VectorIndex("m", coarse_rows=10**9)
    index.nearest(conn, 1, unit_rows(1)[0], pool=1)
    assert not index._graphs[1].by_row  # 100 rows: scanned exactly, kept in tiles
    low, _ = graph_range(1)
    extra = unit_rows(80, seed=6)
    ids = [low + 101 + n for n in range(80)]
    vectors.store_vectors(conn, "m", ids, extra)
    index.added(ids, extra)
    found = index.nearest(conn, 1, extra[40], pool=5)
    assert index._graphs[1].by_row and index._graphs[1].size == 180
    assert found == exact.nearest(conn, 1, extra[40], pool=5)
    assert found[0][0] == ids[40]


def _graph_file(path: Path, graphs: int, rows: int) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None)  # no episodes rows: foreign keys off
    schema.migrate(conn)
    for graph in range(1, graphs + 1):
        low, _ = graph_range(graph)
        ids = [low + n for n in range(1, rows + 1)]
        vectors.store_vectors(conn, "m", ids, unit_rows(rows, seed=graph))
    return conn


def test_matrices_of_graphs_not_in_use_are_evicted_past_the_budget(tmp_path: Path) -> None:
    conn = _graph_file(tmp_path / "v.sqlite", graphs=3, rows=100)
    index = vectors.VectorIndex("m", cache_bytes=8000)  # room for about one other graph
    for graph in (1, 2, 3, 1):
        query = unit_rows(100, seed=graph)[5]
        (best, cosine), *_ = index.nearest(conn, graph, query, pool=3)
        assert best == graph_range(graph)[0] + 6 and cosine > 0.99
    assert list(index._graphs) == [3, 1]


def test_top_ups_never_copy_a_full_sized_block(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(vectors, "BLOCK_ROWS", 50)
    conn = _graph_file(tmp_path / "v.sqlite", graphs=1, rows=60)
    index = vectors.VectorIndex("m")
    index.nearest(conn, 1, unit_rows(1)[0], pool=1)
    first = index._graphs[1].blocks[0]
    low, _ = graph_range(1)
    extra = unit_rows(150, seed=9)
    ids = [low + 61 + n for n in range(150)]
    for at in range(0, 150, 5):
        vectors.store_vectors(conn, "m", ids[at : at + 5], extra[at : at + 5])
        index.added(ids[at : at + 5], extra[at : at + 5])
    matrix = index._graphs[1]
    assert matrix.blocks[0] is first and matrix.size == 210
    assert all(len(block.ids) <= 50 for block in matrix.blocks[1:])
    (best, _), *_ = index.nearest(conn, 1, extra[120], pool=1)
    assert best == ids[120]


def test_a_matrix_grown_a_turn_at_a_time_stays_a_few_blocks(tmp_path: Path) -> None:
    conn = _graph_file(tmp_path / "v.sqlite", graphs=1, rows=10)
    index = vectors.VectorIndex("m")
    index.nearest(conn, 1, unit_rows(1)[0], pool=1)
    low, _ = graph_range(1)
    extra = unit_rows(1000, seed=4)
    ids = [low + 11 + n for n in range(1000)]
    for n in range(1000):  # one vector a turn, as a chat adds them
        vectors.store_vectors(conn, "m", ids[n : n + 1], extra[n : n + 1])
        index.added(ids[n : n + 1], extra[n : n + 1])
    grown = index._graphs[1]
    assert len(grown.blocks) == 1 and grown.size == 1010
    fresh = vectors.VectorIndex("m")
    for probe in (extra[0], extra[555], extra[999], unit_rows(1, seed=77)[0]):
        assert index.nearest(conn, 1, probe, pool=5) == fresh.nearest(conn, 1, probe, pool=5)


async def test_float32_vectors_of_an_older_file_are_upgraded(
    db_path: Path, words: Any, as_version_6: Any
) -> None:
    embedder = words()
    memory = LocalBackend(db_path, retriever="hybrid", embedder=embedder)
    await memory.ensure_user(UserProfile("u"))
    await memory.ensure_thread("t", "u")
    await memory.add_messages("t", [Message("user", "A puppy."), Message("user", "Lisbon.")])
    await memory.aclose()
    with sqlite3.connect(db_path) as conn:  # write the vectors as schema 3 stored them
        as_version_6(conn)
        for episode, content in conn.execute(
            "SELECT e.id, e.content FROM episodes e JOIN episode_vectors v ON v.episode = e.id"
        ).fetchall():
            unit = vectors.normalised(embedder.embed([content]))[0]
            raw = struct.pack(f"{len(unit)}f", *unit)
            conn.execute("UPDATE episode_vectors SET vector = ? WHERE episode = ?", (raw, episode))
        for undo in (  # and without what schemas 5 and 6 added
            "DROP TRIGGER vector_stats_insert",
            "DROP TRIGGER vector_stats_delete",
            "DROP TRIGGER vector_stats_update",
            "DROP TABLE vector_stats",
            "DROP TABLE llm_usage",
            "DROP TABLE llm_jobs",
            "DROP INDEX statements_llm",
            "ALTER TABLE statements DROP COLUMN origin",
            "ALTER TABLE entities DROP COLUMN summary",
            "ALTER TABLE users DROP COLUMN summary",
        ):
            conn.execute(undo)
        conn.execute("PRAGMA user_version = 3")

    again = LocalBackend(db_path, retriever="dense", embedder=words())
    found = await again.search(SearchRequest("my dog", user_id="u", scope="episodes"))
    assert [e.content for e in found.episodes][:1] == ["A puppy."]
    await again.aclose()
    with sqlite3.connect(db_path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone() == (schema.SCHEMA_VERSION,)
        lengths = {n for (n,) in conn.execute("SELECT length(vector) FROM episode_vectors")}
    assert lengths == {4 + 64}


def clustered_rows(count: int, dim: int = 384, clusters: int = 40, seed: int = 3) -> object:
    """Unit rows around a few centres (as real embeddings bunch by topic)."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((clusters, dim))
    picks = rng.integers(0, clusters, count)
    return vectors.normalised(centres[picks] + 0.6 * rng.standard_normal((count, dim)))


@needs_coarse
def test_the_coarse_scan_finds_the_exact_scans_best_rows_on_clustered_data() -> None:
    rows = clustered_rows(30_020)  # the last 20 are queries near the same topics
    codes, scales = vectors.encoded(rows[:30_000])
    matrix = vectors._GraphMatrix(last=0, count=0, rewrites=0)
    for start in range(0, 30_000, 7_000):  # several blocks, as top-ups make them
        end = min(start + 7_000, 30_000)
        matrix.append(np.arange(start, end), codes[start:end], scales[start:end])
    assert len(matrix.blocks) > 1
    for query in rows[30_000:]:
        ids, exact = matrix.scores(query)
        best = set(ids[np.argsort(-exact)[:10]].tolist())
        near, cosines = matrix.coarse_scores(query, want=2000)
        assert 2000 <= len(near) < 30_000
        assert set(near[np.argsort(-cosines)[:10]].tolist()) == best
        where = {int(key): n for n, key in enumerate(ids)}
        for key, cosine in zip(near[:50], cosines[:50], strict=True):
            assert cosine == exact[where[int(key)]]  # rescored exactly, not estimated


@needs_coarse
def test_signs_added_by_a_top_up_are_filled_at_the_next_coarse_scan() -> None:
    rows = clustered_rows(300)
    codes, scales = vectors.encoded(rows)
    matrix = vectors._GraphMatrix(last=0, count=0, rewrites=0)
    matrix.append(np.arange(200), codes[:200], scales[:200])
    matrix.coarse_scores(rows[0], want=10)
    matrix.append(np.arange(200, 300), codes[200:], scales[200:])
    near, cosines = matrix.coarse_scores(rows[250], want=10)
    assert int(near[np.argmax(cosines)]) == 250


@needs_coarse
def test_only_graphs_past_the_threshold_are_scanned_coarse(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    conn = _graph_file(tmp_path / "v.sqlite", graphs=2, rows=100)
    low, _ = graph_range(2)
    more = [low + n for n in range(101, 301)]
    vectors.store_vectors(conn, "m", more, unit_rows(200, seed=9))
    coarse_calls: list[int] = []
    original = vectors._GraphMatrix.coarse_scores

    def spy(self: vectors._GraphMatrix, query: object, want: int) -> tuple[object, object]:
        coarse_calls.append(self.size)
        return original(self, query, want)

    monkeypatch.setattr(vectors._GraphMatrix, "coarse_scores", spy)
    index = vectors.VectorIndex("m", coarse_rows=300)
    exact = vectors.VectorIndex("m", coarse_rows=10**9)
    for graph in (1, 2):
        query = unit_rows(100, seed=graph)[5]
        found = index.nearest(conn, graph, query, pool=3)
        assert [key for key, _ in found] == [key for key, _ in exact.nearest(conn, graph, query, 3)]
    assert coarse_calls == [300]  # graph 1 (100 rows) stayed exact, graph 2 (300) went coarse


def test_the_coarse_pick_keeps_every_row_tied_at_the_cut() -> None:
    distances = np.array([5, 1, 3, 3, 3, 9, 0], dtype=np.uint16)
    assert coarse.closest(distances, 3).tolist() == [1, 2, 3, 4, 6]
    assert coarse.closest(distances, 7).tolist() == list(range(7))
    assert coarse.candidates(10, 100_000) == coarse.CANDIDATES
    assert coarse.candidates(10**6, 100_000) == coarse.POOL_FACTOR * 10**6
    # a large graph keeps a share of its rows however small the pool
    assert coarse.candidates(10, 10**7) == 10**7 // coarse.ROWS_PER_CANDIDATE


def test_a_large_read_leaves_the_page_cache_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(vectors, "LARGE_READ_ROWS", 50)
    conn = _graph_file(tmp_path / "v.sqlite", graphs=1, rows=100)
    conn.execute("PRAGMA cache_size = -4096")
    sizes: list[int] = []
    original = vectors.VectorIndex._read_rows

    def spy(self: vectors.VectorIndex, *args: object) -> tuple[object, int]:
        sizes.append(conn.execute("PRAGMA cache_size").fetchone()[0])
        return original(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(vectors.VectorIndex, "_read_rows", spy)
    index = vectors.VectorIndex("m")
    assert len(index.nearest(conn, 1, unit_rows(100, seed=1)[3], pool=5)) == 5
    assert sizes == [connection.PASSING_CACHE_PAGES]
    assert conn.execute("PRAGMA cache_size").fetchone()[0] == -4096


def test_the_heap_is_trimmed_where_glibc_allows_it() -> None:
    import platform

    from zepkit.local import heap

    glibc = sys.platform.startswith("linux") and platform.libc_ver()[0] == "glibc"
    assert heap.trim() is glibc


def test_a_graph_read_in_several_chunks_keeps_each_id_with_its_vector(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(vectors, "_READ_ROWS", 70)
    conn = _graph_file(tmp_path / "v.sqlite", graphs=2, rows=200)
    low, _ = graph_range(2)
    conn.execute("DELETE FROM episode_vectors WHERE episode % 7 = 0")  # gaps in the ids
    gap = next(low + n for n in range(1, 201) if (low + n) % 7 == 0)
    vectors.store_vectors(conn, "other", [gap], unit_rows(1, seed=5))  # another model's row
    index = vectors.VectorIndex("m")
    rows = unit_rows(200, seed=2)
    kept = [n for n in range(1, 201) if (low + n) % 7 != 0]
    matrix = index._fresh(conn, 2)
    assert matrix.size == len(kept) and len(matrix.blocks) == 1
    assert matrix.blocks[0].ids[: matrix.size].tolist() == [low + n for n in kept]
    for n in kept[::17]:
        (best, cosine), *_ = index.nearest(conn, 2, rows[n - 1], pool=1)
        assert best == low + n and cosine > 0.99


@needs_coarse
def test_a_large_graphs_distances_measured_in_two_halves_are_the_single_pass_ones(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rng = np.random.default_rng(7)
    rows = 3 * 1000 + 17  # halves that are not whole chunks
    codes = rng.integers(0, 256, size=(rows, 384), dtype=np.uint8)
    signs = coarse.Signs(rows, 384)
    signs.extend(codes, rows)
    vector = rng.standard_normal(384)
    query = coarse.query_words(vector)
    monkeypatch.setattr(coarse, "_CHUNK", 256)
    monkeypatch.setattr(coarse, "SPLIT_ROWS", 10**9)
    single = signs.distances(query)
    monkeypatch.setattr(coarse, "SPLIT_ROWS", 1000)
    halves = signs.distances(query)
    # a code of 128 or more is a component of 0 or more: its sign bit differs from the query's
    expected = ((codes >= 128) != (vector >= 0)).sum(axis=1)
    assert single.tolist() == halves.tolist() == expected.tolist()


@pytest.mark.parametrize("split", [1, 1001, 10**9])
def test_a_scan_in_two_halves_scores_every_row_as_one_pass_does(
    split: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = clustered_rows(3_003, seed=3)  # three uneven blocks: halves cut inside a block
    codes, scales = vectors.encoded(rows[:3_000])
    matrix = vectors._GraphMatrix(last=0, count=0, rewrites=0)
    for start, end in ((0, 700), (700, 2_100), (2_100, 3_000)):
        matrix.append(np.arange(start, end) + 10, codes[start:end], scales[start:end])
    query = rows[3_000]
    expected = (codes.astype(np.float32) @ query) * scales
    monkeypatch.setattr(vectors, "SPLIT_SCAN_ROWS", split)
    ids, cosines = matrix.scores(query)
    assert ids.tolist() == list(range(10, 3_010))
    assert np.abs(cosines - expected).max() < 0.01
    if not coarse.available():
        return
    near, close = matrix.coarse_scores(query, want=1_500)
    assert near.tolist() == sorted(near.tolist()) and len(near) >= 1_500
    assert close.tolist() == cosines[near - 10].tolist()


def test_vector_stats_follow_every_insert_rewrite_and_delete(tmp_path: Path) -> None:
    conn = _graph_file(tmp_path / "v.sqlite", graphs=2, rows=10)
    index, other = vectors.VectorIndex("m"), vectors.VectorIndex("m2")
    assert [index.stats(conn, graph) for graph in (1, 2)] == [(10, 0), (10, 0)]
    low, _ = graph_range(1)
    vectors.store_vectors(conn, "m", [low + 11, low + 12], unit_rows(2, seed=9))
    assert index.stats(conn, 1) == (12, 0)
    vectors.store_vectors(conn, "m2", [low + 1], unit_rows(1, seed=9))  # another model's now
    assert (index.stats(conn, 1), other.stats(conn, 1)) == ((11, 1), (1, 1))
    conn.execute("DELETE FROM episode_vectors WHERE episode IN (?, ?)", (low + 1, low + 2))
    assert (index.stats(conn, 1), other.stats(conn, 1)) == ((10, 2), (0, 2))
    assert index.stats(conn, 2) == (10, 0)
    assert index.stats(conn, 3) == (0, 0)


def test_a_vector_rewritten_by_another_connection_is_seen(tmp_path: Path) -> None:
    path = tmp_path / "v.sqlite"
    mine = _graph_file(path, graphs=1, rows=100)
    index = vectors.VectorIndex("m")
    low, _ = graph_range(1)
    target = unit_rows(1, seed=99)[0]
    assert index.nearest(mine, 1, target, pool=1)[0][1] < 0.9
    theirs = sqlite3.connect(path, isolation_level=None)
    # Same row count and last id as before: only the rewrite count tells the matrix is stale.
    vectors.store_vectors(theirs, "m", [low + 5], target.reshape(1, -1))
    theirs.close()
    (best, cosine), *_ = index.nearest(mine, 1, target, pool=1)
    assert best == low + 5 and cosine > 0.99


async def test_a_version_5_file_counts_its_stored_vectors(
    db_path: Path, words: Any, as_version_6: Any
) -> None:
    memory = LocalBackend(db_path, retriever="hybrid", embedder=words())
    await memory.ensure_user(UserProfile("u"))
    await memory.ensure_thread("t", "u")
    await memory.add_messages("t", [Message("user", "A puppy."), Message("user", "Lisbon.")])
    await memory.aclose()
    with sqlite3.connect(db_path) as conn:
        as_version_6(conn)
        for undo in (
            "DROP TRIGGER vector_stats_insert",
            "DROP TRIGGER vector_stats_delete",
            "DROP TRIGGER vector_stats_update",
            "DROP TABLE vector_stats",
            "PRAGMA user_version = 5",
        ):
            conn.execute(undo)

    again = LocalBackend(db_path, retriever="hybrid", embedder=words())
    found = await again.search(SearchRequest("my dog", user_id="u", scope="episodes"))
    assert [e.content for e in found.episodes][:1] == ["A puppy."]
    await again.aclose()
    with sqlite3.connect(db_path) as conn:
        assert conn.execute("SELECT model, rows, rewrites FROM vector_stats").fetchall() == [
            ("test-words", 2, 0)
        ]


async def test_an_episode_written_after_a_delete_is_searched_by_its_own_vector(
    words: Any,
) -> None:
    memory = LocalBackend(retriever="dense", embedder=words())
    try:
        await memory.ensure_user(UserProfile("u"))
        await memory.ensure_thread("first", "u")
        await memory.add_messages("first", [Message("user", "Our puppy.")])
        dog = SearchRequest("dog", user_id="u", scope="episodes")
        assert [e.content for e in (await memory.search(dog)).episodes] == ["Our puppy."]
        await memory.delete_thread("first")
        await memory.ensure_thread("second", "u")
        # The deleted episode's vector must leave the matrix; the new one is found by its own.
        await memory.add_messages("second", [Message("user", "Lisbon.")])
        assert (await memory.search(dog)).episodes == []
        city = SearchRequest("lisbon", user_id="u", scope="episodes")
        assert [e.content for e in (await memory.search(city)).episodes] == ["Lisbon."]
    finally:
        await memory.aclose()
