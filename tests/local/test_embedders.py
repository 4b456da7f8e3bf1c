"""The embedders: the HTTP one through httpx.MockTransport, the local model when the extra is here,
and the lexical fallback that is logged once."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import threading
from typing import Any

import httpx
import pytest

from zepkit.core._errors import BackendError, ConfigurationError
from zepkit.local import LocalBackend, dense, minilm, onnxint8
from zepkit.local.embedders import Embedder, HttpEmbedder
from zepkit.local.onnxint8 import int8_weights


def _endpoint(seen: list[httpx.Request]) -> httpx.MockTransport:
    """An OpenAI-style embeddings endpoint that answers out of order, one vector per input."""

    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        inputs = json.loads(request.content)["input"]
        data = [
            {"index": n, "embedding": [float(len(text)), float(n)]} for n, text in enumerate(inputs)
        ]
        return httpx.Response(200, json={"data": list(reversed(data))})

    return httpx.MockTransport(handle)


def test_http_embedder_batches_and_keeps_order() -> None:
    seen: list[httpx.Request] = []
    embedder = HttpEmbedder(
        "text-embedding-3-small",
        base_url="http://embeddings.test/v1/",
        api_key="sk-test",
        batch_size=2,
        transport=_endpoint(seen),
    )
    assert isinstance(embedder, Embedder)
    assert embedder.embed(["a", "bb", "ccc"]) == [[1.0, 0.0], [2.0, 1.0], [3.0, 0.0]]
    assert [str(r.url) for r in seen] == ["http://embeddings.test/v1/embeddings"] * 2
    assert seen[0].headers["Authorization"] == "Bearer sk-test"
    assert json.loads(seen[0].content)["model"] == "text-embedding-3-small"
    assert embedder.model_id == "http:text-embedding-3-small"
    embedder.close()


@pytest.mark.parametrize(
    ("response", "message"),
    [
        (httpx.Response(401, json={"error": "no"}), "HTTP 401"),
        (httpx.Response(200, json={"unexpected": []}), "unexpected body"),
        (httpx.Response(200, json={"data": []}), "0 vectors for 1"),
    ],
)
def test_http_embedder_errors_are_backend_errors(response: httpx.Response, message: str) -> None:
    transport = httpx.MockTransport(lambda request: response)
    embedder = HttpEmbedder("m", base_url="http://embeddings.test", transport=transport)
    with pytest.raises(BackendError, match=message):
        embedder.embed(["text"])


def test_http_embedder_unreachable_is_a_backend_error() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    embedder = HttpEmbedder(
        "m", base_url="http://embeddings.test", transport=httpx.MockTransport(refuse)
    )
    with pytest.raises(BackendError, match="unreachable"):
        embedder.embed(["text"])


async def test_without_the_extra_search_is_lexical_and_said_once(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(minilm, "available", lambda: False)
    monkeypatch.setattr(dense, "_told_lexical", False)
    caplog.set_level(logging.INFO, logger="zepkit.local")
    first, second = LocalBackend(), LocalBackend()
    assert first.retriever == second.retriever == "lexical"
    assert not first.capabilities.dense_vectors
    told = [r for r in caplog.records if "dense retrieval is off" in r.getMessage()]
    assert len(told) == 1 and told[0].levelno == logging.INFO
    assert "zepkit-core[embeddings]" in told[0].getMessage()
    await first.aclose()
    await second.aclose()


def test_asking_for_dense_without_an_embedder_names_the_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(minilm, "available", lambda: False)
    with pytest.raises(ConfigurationError, match=r"zepkit-core\[embeddings\]"):
        LocalBackend(retriever="hybrid")


def test_local_model_embeds_similar_sentences_close_together() -> None:
    pytest.importorskip("onnxruntime")
    pytest.importorskip("tokenizers")
    pytest.importorskip(minilm.MODEL_PACKAGE)
    np = pytest.importorskip("numpy")
    embedder = minilm.MiniLMEmbedder(threads=1)
    vectors = np.asarray(
        embedder.embed(["I adopted a puppy.", "We got a new dog.", "Quarterly revenue fell."])
    )
    assert vectors.shape == (3, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2] + 0.2


def test_local_model_vectors_do_not_depend_on_threads_or_neighbours() -> None:
    pytest.importorskip("onnxruntime")
    pytest.importorskip(minilm.MODEL_PACKAGE)
    np = pytest.importorskip("numpy")
    texts = ["Ana adopted a puppy.", "Ben: the quarterly figures are late", "ok", "Hiking! " * 40]
    together = np.asarray(minilm.MiniLMEmbedder(threads=2).embed(texts))
    alone = minilm.MiniLMEmbedder(threads=1)
    for text, vector in zip(texts, together, strict=True):
        assert np.allclose(alone.embed([text])[0], vector, atol=1e-5)


def test_local_model_reads_a_long_text_past_its_first_window() -> None:
    pytest.importorskip("onnxruntime")
    pytest.importorskip(minilm.MODEL_PACKAGE)
    np = pytest.importorskip("numpy")
    filler = "The quarterly tax filing lists revenue, costs and deductions. " * 40  # > 256 tokens
    pets = "Later that year we adopted a greyhound puppy and walked our dog every day. " * 4
    embedder = minilm.MiniLMEmbedder(threads=1)
    taxes, taxes_then_pets, dog, huge = np.asarray(
        embedder.embed([filler, filler + pets, "our pet dog", filler * 20 + pets])
    )
    # The first window of both texts is the same; only reading on tells them apart.
    assert taxes_then_pets @ dog > taxes @ dog + 0.05
    assert np.isclose(np.linalg.norm(huge), 1.0, atol=1e-4)  # bounded: embedded by its start


def test_local_model_reads_a_single_texts_tokens_before_it_runs_elsewhere() -> None:
    pytest.importorskip("onnxruntime")
    pytest.importorskip(minilm.MODEL_PACKAGE)
    np = pytest.importorskip("numpy")
    embedder = minilm.MiniLMEmbedder(threads=1)
    texts = ["Ana adopted a puppy.", "Hiking! " * 300]
    expected = np.asarray(embedder.embed(texts))  # loads the model too
    later = [embedder.embed_later([text]) for text in texts]
    several = embedder.embed_later(texts)
    model = embedder._loaded()
    tokenizer, model._tokenizer = model._tokenizer, None  # tokenizing from here on would fail
    try:
        for run, vector in zip(later, expected, strict=True):
            assert np.array_equal(np.asarray(run())[0], vector)
    finally:
        model._tokenizer = tokenizer
    assert np.array_equal(np.asarray(several()), expected)  # several texts: all on the thread
    unloaded = minilm.MiniLMEmbedder(threads=1)  # before the model loads: all on the thread
    assert np.array_equal(np.asarray(unloaded.embed_later(texts[:1])())[0], expected[0])


@pytest.mark.parametrize("settings", [{"threads": 0}, {"batch_size": 0}])
def test_local_model_settings_are_checked(settings: dict[str, int]) -> None:
    pytest.importorskip("onnxruntime")
    pytest.importorskip(minilm.MODEL_PACKAGE)
    with pytest.raises(ConfigurationError, match="must be positive"):
        minilm.MiniLMEmbedder(**settings)


def test_local_model_runs_its_matrix_products_in_int8_close_to_float32() -> None:
    onnxruntime = pytest.importorskip("onnxruntime")
    pytest.importorskip(minilm.MODEL_PACKAGE)
    np = pytest.importorskip("numpy")
    model = minilm.model_bytes()
    rewritten, count = int8_weights(model)
    # Six layers of q, k, v, output and the two feed-forward products; the word and position
    # look-ups.
    assert count == 36 + 2
    ids = np.array([[101, 1045, 4233, 1037, 17022, 1012, 102]], dtype=np.int64)
    feeds = {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": 0 * ids}
    outputs = [
        onnxruntime.InferenceSession(data, providers=["CPUExecutionProvider"]).run(None, feeds)[0]
        for data in (model, rewritten)
    ]
    pooled = [out.mean(axis=1)[0] for out in outputs]
    cosine = pooled[0] @ pooled[1] / np.linalg.norm(pooled[0]) / np.linalg.norm(pooled[1])
    assert cosine > 0.98


def test_local_model_looks_up_int8_embeddings_with_the_same_numbers() -> None:
    onnxruntime = pytest.importorskip("onnxruntime")
    pytest.importorskip(minilm.MODEL_PACKAGE)
    np = pytest.importorskip("numpy")
    model = minilm.model_bytes()
    rewritten, count = int8_weights(model, matmuls=False)
    assert count == 2  # the word and the position embeddings
    ids = np.array([[101, 1045, 4233, 1037, 17022, 1012, 102]], dtype=np.int64)
    feeds = {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": 0 * ids}
    before, after = (
        onnxruntime.InferenceSession(data, providers=["CPUExecutionProvider"]).run(None, feeds)[0]
        for data in (model, rewritten)
    )
    assert np.array_equal(before, after)


def _gather_model(weight: Any, scale: Any, axis: int) -> bytes:
    """An ONNX model `out = Gather(Cast(weight) * scale, ids, axis)`, written with the rewrite's
    own protobuf encoders (the rewrite is then checked by what onnxruntime computes)."""

    def tensor(name: str, array: Any, data_type: int) -> bytes:
        dims = b"".join(onnxint8._int_field(1, size) for size in array.shape)
        body = onnxint8._int_field(2, data_type) + onnxint8._field(8, name)
        return onnxint8._field(5, dims + body + onnxint8._field(9, array.tobytes()))

    def value(name: str, data_type: int) -> bytes:
        tensor_type = onnxint8._field(1, onnxint8._int_field(1, data_type))
        return onnxint8._field(1, name) + onnxint8._field(2, tensor_type)

    node, attribute = onnxint8._encoded_node, onnxint8._int_attribute_proto
    along = (attribute("axis", axis),)
    graph = (
        node("Cast", ["w"], ["w_float"], "cast", attributes=(attribute("to", 1),))
        + node("Mul", ["w_float", "s"], ["table"], "dequantize")
        + node("Gather", ["table", "ids"], ["out"], "look_up", attributes=along)
        + onnxint8._field(2, "tiny")
        + tensor("w", weight, 3)
        + tensor("s", scale, 1)
        + onnxint8._field(11, value("ids", 7))
        + onnxint8._field(12, value("out", 1))
    )
    opset = onnxint8._field(8, onnxint8._field(1, "") + onnxint8._int_field(2, 13))
    return onnxint8._int_field(1, 8) + opset + onnxint8._field(7, graph)


@pytest.mark.parametrize(
    ("scale_shape", "axis", "rewritten"),
    [((6, 1), 0, 1), ((1, 4), 0, 1), ((4,), 0, 1), ((4,), 1, 0), ((6, 4), 0, 0)],
)
def test_int8_look_ups_are_rewritten_only_where_the_numbers_stay_the_same(
    scale_shape: tuple[int, ...], axis: int, rewritten: int
) -> None:
    onnxruntime = pytest.importorskip("onnxruntime")
    np = pytest.importorskip("numpy")
    rng = np.random.default_rng(3)
    weight = rng.integers(-127, 128, size=(6, 4), dtype=np.int8)
    scale = rng.uniform(0.01, 0.5, size=scale_shape).astype(np.float32)
    model = _gather_model(weight, scale, axis)
    result, count = int8_weights(model)
    assert count == rewritten
    assert (result == model) == (rewritten == 0)
    ids = np.array([[0, 3, 2], [1, 1, 3]], dtype=np.int64)
    out = onnxruntime.InferenceSession(result, providers=["CPUExecutionProvider"]).run(
        None, {"ids": ids}
    )[0]
    assert np.array_equal(out, np.take(weight.astype(np.float32) * scale, ids, axis=axis))


def test_a_model_without_dequantized_weights_is_left_alone() -> None:
    model = bytes([0x08, 0x0A])  # ModelProto with ir_version 10 and no graph
    assert int8_weights(model) == (model, 0)


def test_local_model_file_is_checked_by_sha256(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip(minilm.MODEL_PACKAGE)
    assert minilm.model_path().name == "model.onnx"
    monkeypatch.setattr(minilm, "MODEL_SHA256", "0" * 64)
    with pytest.raises(ConfigurationError, match="expected sha256"):
        minilm.model_path()


def test_a_model_file_that_fails_its_check_never_reaches_onnxruntime(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The load rewrites the bytes while their sha256 is worked out beside it: a file that is not
    # the pinned one is refused before onnxruntime reads it, and so are bytes that break the
    # rewrite (their sha256 is the error, not the rewrite's).
    onnxruntime = pytest.importorskip("onnxruntime")
    pytest.importorskip("tokenizers")
    pytest.importorskip(minilm.MODEL_PACKAGE)
    path = minilm.model_path()
    sessions: list[object] = []
    monkeypatch.setattr(onnxruntime, "InferenceSession", lambda *a, **k: sessions.append(a))
    monkeypatch.setattr(minilm, "MODEL_SHA256", "0" * 64)
    with pytest.raises(ConfigurationError, match="expected sha256"):
        minilm._Model()
    monkeypatch.setattr(minilm, "_model_file", lambda: (path, b"\x0f" * 64))
    with pytest.raises(ConfigurationError, match="expected sha256"):
        minilm._Model()
    assert sessions == []


def test_the_model_loads_where_no_thread_can_start(monkeypatch: pytest.MonkeyPatch) -> None:
    # At interpreter exit no thread starts: the load's side work runs on the loading thread.
    pytest.importorskip("onnxruntime")
    pytest.importorskip("tokenizers")
    pytest.importorskip(minilm.MODEL_PACKAGE)
    np = pytest.importorskip("numpy")

    def refuse(self: threading.Thread) -> None:
        raise RuntimeError("can't create new thread at interpreter shutdown")

    monkeypatch.setattr(threading.Thread, "start", refuse)
    vectors = minilm._Model().run(["I keep bees in Oslo."])
    assert vectors.shape == (1, 384)
    assert np.isclose(float(np.linalg.norm(vectors[0])), 1.0)


def test_tokenizer_ships_with_its_licence_notice() -> None:
    folder = minilm.TOKENIZER_PATH.parent
    assert minilm.TOKENIZER_PATH.is_file()
    assert "Apache License" in (folder / "NOTICE").read_text(encoding="utf-8")
    assert "Apache License" in (folder / "LICENSE-Apache-2.0.txt").read_text(encoding="utf-8")


def test_local_model_preloads_in_the_background_and_embeds_the_same() -> None:
    pytest.importorskip("onnxruntime")
    pytest.importorskip("tokenizers")
    pytest.importorskip(minilm.MODEL_PACKAGE)
    np = pytest.importorskip("numpy")
    embedder = minilm.MiniLMEmbedder(threads=1)
    embedder.preload()
    embedder.preload()  # a second call while loading starts nothing more
    loaders = [t for t in threading.enumerate() if t.name == "zepkit-embed-load"]
    assert len(loaders) <= 1
    for thread in loaders:
        thread.join(timeout=60)
    assert embedder._model is not None
    fresh = minilm.MiniLMEmbedder(threads=1)
    text = ["I keep bees in Oslo."]
    assert np.allclose(embedder.embed(text), fresh.embed(text), atol=1e-6)


PRELOAD_THEN_USE = """
import sys
from zepkit.local import minilm
minilm.shared().preload()
numpy = sys.modules.get("numpy")
assert numpy is not None and hasattr(numpy, "ndarray"), "numpy is not fully imported yet"
import numpy as np
assert np.zeros(3).sum() == 0
"""


def test_preload_leaves_no_half_imported_numpy_for_the_callers_thread() -> None:
    # Two threads importing numpy at once can fail with ImportError ("partially initialized
    # module"); the caller's next step (reading vectors) imports numpy, so preload must finish
    # that import before its loader thread starts. A fresh interpreter, so numpy is not loaded.
    pytest.importorskip("onnxruntime")
    pytest.importorskip(minilm.MODEL_PACKAGE)
    result = subprocess.run(
        [sys.executable, "-c", PRELOAD_THEN_USE], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
