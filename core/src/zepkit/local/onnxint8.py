"""Running an int8-weight ONNX file's matrix products in int8, without the `onnx` package.

The pinned model stores each weight as int8 with per-column scales and dequantizes it in the
graph (`Cast` then `Mul`), so onnxruntime would multiply in float32. `int8_matmuls` rewrites each
`MatMul(x, Cast(w_int8) * scale)` as onnxruntime's `DynamicQuantizeMatMul(x, w_int8, scale)`
(x quantized per call, int8 kernels), editing the protobuf bytes directly: only the few fields
the rewrite touches are decoded, everything else is copied as it is.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

_INT8 = 3
_FLOAT = 1
_LEN = 2
CONTRIB_DOMAIN = "com.microsoft"


def _varint(data: bytes | memoryview, pos: int) -> tuple[int, int]:
    """The varint at `pos` and the position after it."""
    value = shift = 0
    while True:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, pos


def _encode_varint(value: int) -> bytes:
    out = bytearray()
    while True:
        low = value & 0x7F
        value >>= 7
        if value:
            out.append(low | 0x80)
        else:
            out.append(low)
            return bytes(out)


def _fields(data: bytes | memoryview) -> Iterator[tuple[int, int, memoryview, memoryview]]:
    """(field number, wire type, payload, whole encoded field) for each field of a message, as
    views of `data` (a weight's megabytes are never copied)."""
    data = memoryview(data)
    pos = 0
    while pos < len(data):
        start = pos
        key, pos = _varint(data, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            _, end = _varint(data, pos)
            payload = data[pos:end]
        elif wire == 1:
            end = pos + 8
            payload = data[pos:end]
        elif wire == 5:
            end = pos + 4
            payload = data[pos:end]
        elif wire == _LEN:
            size, pos = _varint(data, pos)
            end = pos + size
            payload = data[pos:end]
        else:
            raise ValueError(f"unsupported protobuf wire type {wire}")
        pos = end
        yield number, wire, payload, data[start:end]


def _field(number: int, payload: bytes | memoryview | str) -> bytes:
    """One length-delimited field."""
    raw = payload.encode() if isinstance(payload, str) else payload
    return _encode_varint(number << 3 | _LEN) + _encode_varint(len(raw)) + raw


def _int_field(number: int, value: int) -> bytes:
    return _encode_varint(number << 3) + _encode_varint(value)


@dataclass
class _Node:
    encoded: memoryview
    op_type: str = ""
    inputs: list[str] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)


@dataclass
class _Tensor:
    dims: list[int] = field(default_factory=list)
    data_type: int = 0
    raw: memoryview | None = None


def _node(encoded: memoryview, payload: memoryview) -> _Node:
    node = _Node(encoded)
    for number, _, value, _ in _fields(payload):
        if number == 1:
            node.inputs.append(str(value, "utf-8"))
        elif number == 2:
            node.outputs.append(str(value, "utf-8"))
        elif number == 4:
            node.op_type = str(value, "utf-8")
    return node


def _tensor(payload: memoryview) -> tuple[str, _Tensor]:
    name, tensor = "", _Tensor()
    for number, wire, value, _ in _fields(payload):
        if number == 1 and wire == 0:
            tensor.dims.append(_varint(value, 0)[0])
        elif number == 1:  # packed dims
            pos = 0
            while pos < len(value):
                dim, pos = _varint(value, pos)
                tensor.dims.append(dim)
        elif number == 2:
            tensor.data_type = _varint(value, 0)[0]
        elif number == 8:
            name = str(value, "utf-8")
        elif number == 9:
            tensor.raw = value
    return name, tensor


def int8_matmuls(model: bytes) -> tuple[bytes, int]:
    """The model with its dequantized-weight MatMuls run in int8, and how many were rewritten."""
    parts = list(_fields(model))
    graph_at = next((n for n, (number, *_) in enumerate(parts) if number == 7), None)
    if graph_at is None:
        return model, 0
    graph, count = _rewrite_graph(parts[graph_at][2])
    if count == 0:
        return model, 0
    opset = _field(1, CONTRIB_DOMAIN) + _int_field(2, 1)
    out: list[bytes | memoryview] = [encoded for _, _, _, encoded in parts]
    out[graph_at] = _field(7, graph)
    out.append(_field(8, opset))
    return b"".join(out), count


def _rewrite_graph(graph: memoryview) -> tuple[bytes | memoryview, int]:
    parts = list(_fields(graph))
    nodes = [_node(encoded, payload) for number, _, payload, encoded in parts if number == 1]
    tensors = dict(_tensor(payload) for number, _, payload, _ in parts if number == 5)
    producer = {output: node for node in nodes for output in node.outputs}
    uses: dict[str, int] = {}
    for node in nodes:
        for name in node.inputs:
            uses[name] = uses.get(name, 0) + 1
    dropped: set[int] = set()
    retired: set[str] = set()
    replaced: dict[int, bytes | memoryview] = {}
    added: list[bytes | memoryview] = []
    for node in nodes:
        found = _dequantized_weight(node, producer, tensors, uses)
        if found is None:
            continue
        mul, cast, weight, scale = found
        flat = f"{scale}/per_column"
        columns = tensors[weight].dims[1]
        raw = tensors[scale].raw or b""
        tensor = _int_field(1, columns) + _int_field(2, _FLOAT) + _field(8, flat) + _field(9, raw)
        added.append(_field(5, tensor))
        body = (
            _field(1, node.inputs[0])
            + _field(1, weight)
            + _field(1, flat)
            + b"".join(_field(2, output) for output in node.outputs)
            + _field(3, f"{node.outputs[0]}/int8")
            + _field(4, "DynamicQuantizeMatMul")
            + _field(7, CONTRIB_DOMAIN)
        )
        replaced[id(node)] = _field(1, body)
        dropped.update((id(mul), id(cast)))
        if uses.get(scale) == 1:
            retired.add(scale)
    if not replaced:
        return graph, 0
    out: list[bytes | memoryview] = []
    node_iter = iter(nodes)
    for number, _, payload, encoded in parts:
        if number == 5 and retired and _tensor(payload)[0] in retired:
            continue
        if number != 1:
            out.append(encoded)
            continue
        node = next(node_iter)
        if id(node) not in dropped:
            out.append(replaced.get(id(node), encoded))
    return b"".join(out + added), len(replaced)


def _dequantized_weight(
    node: _Node, producer: dict[str, _Node], tensors: dict[str, _Tensor], uses: dict[str, int]
) -> tuple[_Node, _Node, str, str] | None:
    """(Mul, Cast, int8 weight, scale) when `node` is MatMul(x, Cast(w_int8) * per-column scale)."""
    if node.op_type != "MatMul" or len(node.inputs) != 2:
        return None
    mul = producer.get(node.inputs[1])
    if mul is None or mul.op_type != "Mul" or len(mul.inputs) != 2:
        return None
    cast = producer.get(mul.inputs[0])
    if cast is None or cast.op_type != "Cast" or len(cast.inputs) != 1:
        return None
    weight, scale = cast.inputs[0], mul.inputs[1]
    w, s = tensors.get(weight), tensors.get(scale)
    if w is None or s is None or w.data_type != _INT8 or len(w.dims) != 2:
        return None
    if s.data_type != _FLOAT or s.raw is None or s.dims not in ([1, w.dims[1]], [w.dims[1]]):
        return None
    if uses.get(node.inputs[1]) != 1 or uses.get(mul.inputs[0]) != 1:
        return None
    return mul, cast, weight, scale
