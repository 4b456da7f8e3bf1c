"""The dense scan: int8 vector codes times an int8 query, through onnxruntime's `MatMulInteger`.

Codes are kept in memory as uint8 (the int8 code plus 128) because onnxruntime's fast int8
kernels take an unsigned left side with a zero point. The query goes in as int8 where the CPU's
kernel adds the products exactly (int8 dot-product instructions); on CPUs without them the
uint8 x int8 kernel adds pairs of products in 16 bits and saturates (cosines off by up to 0.04),
so there the query goes in as uint8 with a zero point too: the same integer sums, no saturation.
A probe at set-up picks the way.

That scan (`dot`) multiplies rows kept side by side, which a coarse scan gathers; the kernel
works out a strip of output columns at once and a single query is one column, so most of its
work is thrown away. An exactly scanned graph keeps its codes in tiles instead, each row's codes
down one column (`dot_tiles`): the query is the left side and every row an output column, two
to four times faster (uint8 on both sides with zero points, exact on every kernel). The
one-node ONNX graphs are written as protobuf bytes here (no `onnx` package). Without
onnxruntime (an embedder of one's own with numpy only) the scan casts the codes to float32 a
block or a tile at a time instead: same scores, slower.
"""

from __future__ import annotations

import threading
from typing import Any, NamedTuple

ZERO = 128
"""Offset added to an int8 code to keep it as uint8 in memory."""
_UINT8, _INT8, _INT32 = 2, 3, 6
_sessions: dict[int, _Scan | None] = {}
_tile_sessions: dict[int, Any] = {}
_lock = threading.Lock()


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        low, value = value & 0x7F, value >> 7
        out.append(low | 0x80 if value else low)
        if not value:
            return bytes(out)


def _bytes(number: int, payload: bytes | str) -> bytes:
    data = payload.encode() if isinstance(payload, str) else payload
    return _varint(number << 3 | 2) + _varint(len(data)) + data


def _int(number: int, value: int) -> bytes:
    return _varint(number << 3) + _varint(value)


def _value(name: str, elem: int, dims: list[int | str]) -> bytes:
    """A ValueInfoProto: a tensor input or output with its element type and shape."""
    shape = b"".join(
        _bytes(1, _bytes(2, dim) if isinstance(dim, str) else _int(1, dim)) for dim in dims
    )
    return _bytes(1, name) + _bytes(2, _bytes(1, _int(1, elem) + _bytes(2, shape)))


def model_bytes(dim: int, signed: bool = True) -> bytes:
    """The ModelProto of `Y[n, 1] = MatMulInteger(A[n, dim] uint8, B[dim, 1], 128[, 128])`, B
    int8 (`signed`) or uint8 with its own zero point 128."""
    right = _INT8 if signed else _UINT8
    points = ("zero",) if signed else ("zero", "zero")
    node = b"".join(_bytes(1, name) for name in ("A", "B", *points)) + _bytes(2, "Y")
    node += _bytes(4, "MatMulInteger")
    graph = _bytes(1, node) + _bytes(2, "scan")
    graph += _bytes(11, _value("A", _UINT8, ["n", dim])) + _bytes(11, _value("B", right, [dim, 1]))
    graph += _bytes(11, _value("zero", _UINT8, [])) + _bytes(12, _value("Y", _INT32, ["n", 1]))
    return _int(1, 8) + _bytes(8, _bytes(1, "") + _int(2, 13)) + _bytes(7, graph)


def tiles_model_bytes(dim: int) -> bytes:
    """The ModelProto of `Y[t, 1, w] = MatMulInteger(Q[1, dim], T[t, dim, w], 128, 128)`, both
    sides uint8: a query times every tile of a block in one run."""
    node = b"".join(_bytes(1, name) for name in ("Q", "T", "zero", "zero")) + _bytes(2, "Y")
    node += _bytes(4, "MatMulInteger")
    graph = _bytes(1, node) + _bytes(2, "tiles")
    graph += _bytes(11, _value("Q", _UINT8, [1, dim]))
    graph += _bytes(11, _value("T", _UINT8, ["t", dim, "w"]))
    graph += _bytes(11, _value("zero", _UINT8, []))
    graph += _bytes(12, _value("Y", _INT32, ["t", 1, "w"]))
    return _int(1, 8) + _bytes(8, _bytes(1, "") + _int(2, 13)) + _bytes(7, graph)


class _Scan(NamedTuple):
    session: Any
    signed: bool
    """True: the query is fed as int8; False: as uint8 (int8 + 128)."""


def _made(model: bytes) -> Any:
    """A one-core onnxruntime session for `model`, or None without onnxruntime."""
    try:
        import onnxruntime as ort  # type: ignore[import-untyped, import-not-found, unused-ignore]
    except ImportError:
        return None
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1  # searches run side by side, one core each
    options.inter_op_num_threads = 1
    options.enable_cpu_mem_arena = False  # its output goes back to the heap
    return ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])


def _session(dim: int) -> _Scan | None:
    """The scan session for `dim`-wide codes, or None without onnxruntime."""
    with _lock:
        if dim not in _sessions:
            signed = _made(model_bytes(dim, True))
            if signed is None:
                _sessions[dim] = None
            elif _adds_exactly(signed, dim):
                _sessions[dim] = _Scan(signed, True)
            else:
                _sessions[dim] = _Scan(_made(model_bytes(dim, False)), False)
        return _sessions[dim]


def _tile_session(dim: int) -> Any:
    """The tile scan's session for `dim`-wide codes; None without onnxruntime, or where its
    kernel would not add the largest products exactly (then numpy scans the tiles)."""
    with _lock:
        if dim not in _tile_sessions:
            session = _made(tiles_model_bytes(dim))
            exact = session is not None and _tiles_add_exactly(session, dim)
            _tile_sessions[dim] = session if exact else None
        return _tile_sessions[dim]


def _tiles_add_exactly(session: Any, dim: int) -> bool:
    """Whether the tile kernel gets the largest products right (uint8 x uint8 kernels widen to
    16 bits before they multiply, so they all should)."""
    import numpy as np  # type: ignore[import-not-found, unused-ignore]

    top = np.full((1, dim), 255, dtype=np.uint8)
    tile = np.full((1, dim, 1), 255, dtype=np.uint8)
    (out,) = session.run(None, {"Q": top, "T": tile, "zero": np.array(ZERO, dtype=np.uint8)})
    return int(out[0, 0, 0]) == dim * 127 * 127


def _adds_exactly(session: Any, dim: int) -> bool:
    """Whether the int8 kernel gets the largest products right: codes of 127 (stored 255) times
    a query of 127s, whose pairs exceed what 16 bits hold."""
    import numpy as np  # type: ignore[import-not-found, unused-ignore]

    codes = np.full((1, dim), 255, dtype=np.uint8)
    query = np.full((dim, 1), 127, dtype=np.int8)
    (out,) = session.run(None, {"A": codes, "B": query, "zero": np.array(ZERO, dtype=np.uint8)})
    return int(out[0, 0]) == dim * 127 * 127


def warm(dim: int) -> None:
    """Set up the scans for `dim`-wide codes now rather than at the first search."""
    _session(dim)
    _tile_session(dim)


def quantised(query: Any) -> tuple[Any, float]:
    """A float vector as int8 codes and the scale that maps them back."""
    import numpy as np  # type: ignore[import-not-found, unused-ignore]

    top = float(np.abs(query).max()) if len(query) else 0.0
    if top == 0.0:
        return np.zeros(len(query), dtype=np.int8), 0.0
    scale = top / 127.0
    return np.round(query / scale).astype(np.int8), scale


def dot(codes: Any, query: Any) -> Any:
    """`(codes - 128) @ query` as float32, for uint8 `codes` [n, dim] and a float `query`."""
    import numpy as np  # type: ignore[import-not-found, unused-ignore]

    scan = _session(codes.shape[1])
    if scan is None:
        return codes.astype(np.float32) @ query - ZERO * float(query.sum())
    small, scale = quantised(query)
    right = small if scan.signed else small.view(np.uint8) ^ np.uint8(ZERO)
    (out,) = scan.session.run(
        None, {"A": codes, "B": right.reshape(-1, 1), "zero": np.array(ZERO, dtype=np.uint8)}
    )
    return out[:, 0].astype(np.float32) * np.float32(scale)


def dot_tiles(tiles: Any, query: Any) -> Any:
    """`(codes - 128) @ query` as float32 for uint8 `tiles` [t, dim, w], a row's codes down a
    tile's column: w scores a tile, tile after tile."""
    import numpy as np  # type: ignore[import-not-found, unused-ignore]

    session = _tile_session(tiles.shape[1])
    if session is None:  # a tile at a time: a float32 copy of one tile, not of them all
        query = query.astype(np.float32)
        out = np.concatenate([query @ tile.astype(np.float32) for tile in tiles])
        return out - np.float32(ZERO * float(query.sum()))
    small, scale = quantised(query)
    left = (small.view(np.uint8) ^ np.uint8(ZERO)).reshape(1, -1)
    zero = np.array(ZERO, dtype=np.uint8)
    (out,) = session.run(None, {"Q": left, "T": tiles, "zero": zero})
    return out.reshape(-1).astype(np.float32) * np.float32(scale)
