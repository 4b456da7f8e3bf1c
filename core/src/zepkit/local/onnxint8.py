"""Running an int8-weight ONNX file in int8, without the `onnx` package.

The pinned model stores each weight as int8 with a scale and dequantizes it in the graph (`Cast`
then `Mul`). Left so, onnxruntime multiplies in float32 and its constant folding keeps a float32
copy of every weight: the word-embedding table alone becomes 47 MB of memory (12 MB as int8).
`int8_weights` rewrites each `MatMul(x, Cast(w_int8) * scale)` as onnxruntime's
`DynamicQuantizeMatMul(x, w_int8, scale)` (x quantized per call, int8 kernels), and each look-up
`Gather(Cast(w_int8) * scale, ids)` as the look-up of the int8 rows, dequantized after: the same
numbers, computed for the rows looked up only. It edits the protobuf bytes directly: only the few
fields the rewrite touches are decoded, everything else is copied as it is.
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


_INT_ATTRIBUTE = 2


@dataclass
class _Node:
    encoded: memoryview
    op_type: str = ""
    inputs: list[str] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    attributes: dict[str, memoryview] = field(default_factory=dict)
    """Each attribute's encoded AttributeProto, by name."""


@dataclass
class _Tensor:
    dims: list[int] = field(default_factory=list)
    data_type: int = 0
    raw: memoryview | None = None


@dataclass
class _Rewrite:
    """What replaces one node: its new nodes' bytes, the nodes that only fed it (dropped), the
    initializers nothing reads any more, and the new ones."""

    nodes: bytes
    dropped: tuple[_Node, ...]
    retired: tuple[str, ...] = ()
    added: tuple[bytes, ...] = ()
    contrib: bool = False


def _node(encoded: memoryview, payload: memoryview) -> _Node:
    node = _Node(encoded)
    for number, _, value, _ in _fields(payload):
        if number == 1:
            node.inputs.append(str(value, "utf-8"))
        elif number == 2:
            node.outputs.append(str(value, "utf-8"))
        elif number == 4:
            node.op_type = str(value, "utf-8")
        elif number == 5:
            name = next((str(text, "utf-8") for key, _, text, _ in _fields(value) if key == 1), "")
            node.attributes[name] = value
    return node


def _int_attribute(node: _Node, name: str, default: int) -> int | None:
    """The node's integer attribute `name`: `default` when absent, None when it is no integer."""
    attribute = node.attributes.get(name)
    if attribute is None:
        return default
    values = [_varint(value, 0)[0] for key, wire, value, _ in _fields(attribute) if key == 3]
    return values[0] if len(values) == 1 else None


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


def _encoded_node(
    op_type: str,
    inputs: list[str],
    outputs: list[str],
    name: str,
    *,
    domain: str = "",
    attributes: tuple[bytes, ...] = (),
) -> bytes:
    """A NodeProto as the graph's field 1."""
    body = (
        b"".join(_field(1, item) for item in inputs)
        + b"".join(_field(2, item) for item in outputs)
        + _field(3, name)
        + _field(4, op_type)
        + b"".join(_field(5, attribute) for attribute in attributes)
        + (_field(7, domain) if domain else b"")
    )
    return _field(1, body)


def _int_attribute_proto(name: str, value: int) -> bytes:
    return _field(1, name) + _int_field(3, value) + _int_field(20, _INT_ATTRIBUTE)


def int8_weights(model: bytes, *, matmuls: bool = True) -> tuple[bytes, int]:
    """The model with its dequantized-weight look-ups, and (when `matmuls`: onnxruntime's
    contrib operator) its matrix products, run on the int8 weights; and how many nodes were
    rewritten."""
    parts = list(_fields(model))
    graph_at = next((n for n, (number, *_) in enumerate(parts) if number == 7), None)
    if graph_at is None:
        return model, 0
    graph, count, contrib = _rewrite_graph(parts[graph_at][2], matmuls)
    if count == 0:
        return model, 0
    # The graph's pieces go into the model as they are, with one join at the end: each join of
    # a level would copy the megabytes of weights again (tens of milliseconds of every load).
    size = sum(len(piece) for piece in graph)
    out: list[bytes | memoryview] = [encoded for _, _, _, encoded in parts[:graph_at]]
    out += [_encode_varint(7 << 3 | _LEN) + _encode_varint(size), *graph]
    out += [encoded for _, _, _, encoded in parts[graph_at + 1 :]]
    if contrib:
        out.append(_field(8, _field(1, CONTRIB_DOMAIN) + _int_field(2, 1)))
    return b"".join(out), count


def _rewrite_graph(graph: memoryview, matmuls: bool) -> tuple[list[bytes | memoryview], int, bool]:
    """The graph's fields after the rewrite, as pieces to join, and how many nodes were
    rewritten (no pieces when none was)."""
    parts = list(_fields(graph))
    nodes = [_node(encoded, payload) for number, _, payload, encoded in parts if number == 1]
    tensors = dict(_tensor(payload) for number, _, payload, _ in parts if number == 5)
    producer = {output: node for node in nodes for output in node.outputs}
    uses: dict[str, int] = {}
    for node in nodes:
        for name in node.inputs:
            uses[name] = uses.get(name, 0) + 1
    rewrites: dict[int, _Rewrite] = {}
    for node in nodes:
        rewrite = None
        if matmuls and node.op_type == "MatMul" and len(node.inputs) == 2:
            found = _dequantized(node.inputs[1], producer, tensors, uses)
            rewrite = None if found is None else _int8_matmul(node, *found, tensors, uses)
        elif node.op_type == "Gather" and len(node.inputs) == 2:
            found = _dequantized(node.inputs[0], producer, tensors, uses)
            rewrite = None if found is None else _int8_gather(node, *found, tensors)
        if rewrite is not None:
            rewrites[id(node)] = rewrite
    if not rewrites:
        return [], 0, False
    dropped = {id(gone) for rewrite in rewrites.values() for gone in rewrite.dropped}
    retired = {name for rewrite in rewrites.values() for name in rewrite.retired}
    out: list[bytes | memoryview] = []
    node_iter = iter(nodes)
    for number, _, payload, encoded in parts:
        if number == 5 and retired and _tensor(payload)[0] in retired:
            continue
        if number != 1:
            out.append(encoded)
            continue
        node = next(node_iter)
        if id(node) in dropped:
            continue
        rewrite = rewrites.get(id(node))
        out.append(encoded if rewrite is None else rewrite.nodes)
    out.extend(tensor for rewrite in rewrites.values() for tensor in rewrite.added)
    contrib = any(rewrite.contrib for rewrite in rewrites.values())
    return out, len(rewrites), contrib


def _dequantized(
    name: str, producer: dict[str, _Node], tensors: dict[str, _Tensor], uses: dict[str, int]
) -> tuple[_Node, _Node, str, str] | None:
    """(Mul, Cast, int8 weight, float scale) when `name` is the output of `Cast(w_int8) * scale`,
    read by one node only, with `w_int8` a 2-D initializer."""
    if uses.get(name) != 1:
        return None
    mul = producer.get(name)
    if mul is None or mul.op_type != "Mul" or len(mul.inputs) != 2:
        return None
    cast = producer.get(mul.inputs[0])
    if cast is None or cast.op_type != "Cast" or len(cast.inputs) != 1:
        return None
    weight, scale = cast.inputs[0], mul.inputs[1]
    w, s = tensors.get(weight), tensors.get(scale)
    if w is None or s is None or w.data_type != _INT8 or len(w.dims) != 2:
        return None
    if s.data_type != _FLOAT or s.raw is None or uses.get(mul.inputs[0]) != 1:
        return None
    return mul, cast, weight, scale


def _int8_matmul(
    node: _Node,
    mul: _Node,
    cast: _Node,
    weight: str,
    scale: str,
    tensors: dict[str, _Tensor],
    uses: dict[str, int],
) -> _Rewrite | None:
    """`MatMul(x, Cast(w_int8) * per-column scale)` as `DynamicQuantizeMatMul(x, w_int8, scale)`."""
    columns = tensors[weight].dims[1]
    if tensors[scale].dims not in ([1, columns], [columns]):
        return None
    flat = f"{scale}/per_column"
    raw = tensors[scale].raw or b""
    tensor = _int_field(1, columns) + _int_field(2, _FLOAT) + _field(8, flat) + _field(9, raw)
    inputs = [node.inputs[0], weight, flat]
    name = f"{node.outputs[0]}/int8"
    return _Rewrite(
        nodes=_encoded_node(
            "DynamicQuantizeMatMul", inputs, node.outputs, name, domain=CONTRIB_DOMAIN
        ),
        dropped=(mul, cast),
        retired=(scale,) if uses.get(scale) == 1 else (),
        added=(_field(5, tensor),),
        contrib=True,
    )


def _int8_gather(
    node: _Node, mul: _Node, cast: _Node, weight: str, scale: str, tensors: dict[str, _Tensor]
) -> _Rewrite | None:
    """`Gather(Cast(w_int8) * scale, ids)` on axis 0, the scale per row or per column, as the
    int8 rows looked up, cast, and multiplied by their scales."""
    rows, columns = tensors[weight].dims
    per_row = tensors[scale].dims == [rows, 1]
    if _int_attribute(node, "axis", 0) != 0:
        return None
    if not per_row and tensors[scale].dims not in ([1, columns], [columns]):
        return None
    out, ids = node.outputs[0], node.inputs[1]
    axis = (_int_attribute_proto("axis", 0),)
    picked = _encoded_node("Gather", [weight, ids], [f"{out}/int8"], f"{out}/int8", attributes=axis)
    scales = scale
    if per_row:
        scales = f"{out}/scales"
        picked += _encoded_node("Gather", [scale, ids], [scales], scales, attributes=axis)
    to_float = (_int_attribute_proto("to", _FLOAT),)
    picked += _encoded_node(
        "Cast", [f"{out}/int8"], [f"{out}/float"], f"{out}/float", attributes=to_float
    )
    picked += _encoded_node("Mul", [f"{out}/float", scales], node.outputs, f"{out}/dequantized")
    return _Rewrite(nodes=picked, dropped=(mul, cast))
