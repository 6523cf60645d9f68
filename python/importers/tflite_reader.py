"""Read a .tflite flatbuffer into plain Python objects (no TensorFlow needed).

The flatbuffer is decoded with the PyPI `tflite` package (the schema's generated
Python accessors, pure Python, depends only on `flatbuffers`). It was chosen over
flatc + schema.fbs because it needs no schema file or code generation step, and over
the copy of the schema inside `ai_edge_litert` because that package is a 20 MB
binary wheel that the importer itself should not need (only validation uses it).

What this module gives:
    read_tflite(path) -> Graph           tensors, operators (first subgraph), inputs, outputs
    Graph.constant(i) -> np.ndarray      a constant tensor, weights dequantised to float32
                                          (int8/uint8/int16: (q - zero_point) * scale, per tensor
                                          or per channel; float16: upcast)
    Operator.options                     the builtin options table as a dict of plain values
"""

from __future__ import annotations

import inspect
import pathlib
from dataclasses import dataclass, field

import numpy as np
import tflite
from tflite.BuiltinOperator import BuiltinOperator
from tflite.BuiltinOptions import BuiltinOptions
from tflite.TensorType import TensorType

_OP_NAMES = {v: k for k, v in vars(BuiltinOperator).items() if not k.startswith("_")}
_OPTION_NAMES = {v: k for k, v in vars(BuiltinOptions).items() if not k.startswith("_")}
_TYPE_NAMES = {v: k for k, v in vars(TensorType).items() if not k.startswith("_")}

# TFLite tensor type -> numpy dtype of the stored bytes (little endian, as written).
_NP_TYPES = {
    TensorType.FLOAT32: np.float32,
    TensorType.FLOAT16: np.float16,
    TensorType.FLOAT64: np.float64,
    TensorType.INT32: np.int32,
    TensorType.INT64: np.int64,
    TensorType.INT16: np.int16,
    TensorType.INT8: np.int8,
    TensorType.UINT8: np.uint8,
    TensorType.BOOL: np.bool_,
    TensorType.UINT16: np.uint16,
    TensorType.UINT32: np.uint32,
    TensorType.UINT64: np.uint64,
}

CUSTOM = BuiltinOperator.CUSTOM


class TFLiteImportError(ValueError):
    """A model the importer cannot read or rebuild; the message names the operator."""


@dataclass
class Quantization:
    scale: np.ndarray  # float32, one per tensor or one per channel
    zero_point: np.ndarray  # int64, same length as scale
    axis: int  # quantized_dimension (meaningful when per channel)


@dataclass
class Tensor:
    index: int
    name: str
    shape: tuple[int, ...]
    type_name: str  # "FLOAT32", "INT8", ...
    raw: np.ndarray | None  # stored data reshaped to `shape`, None for activations
    quant: Quantization | None

    @property
    def is_constant(self) -> bool:
        return self.raw is not None


@dataclass
class Operator:
    index: int
    op: str  # builtin name ("CONV_2D") or "CUSTOM:<code>"
    version: int
    inputs: list[int]  # tensor indices, -1 for an absent optional input
    outputs: list[int]
    options: dict[str, object] = field(default_factory=dict)
    custom_options: bytes = b""

    def where(self) -> str:
        return f"operator #{self.index} ({self.op})"


@dataclass
class Graph:
    path: str
    description: str
    tensors: list[Tensor]
    operators: list[Operator]
    inputs: list[int]
    outputs: list[int]

    def tensor_by_name(self, name: str) -> Tensor:
        for t in self.tensors:
            if t.name == name:
                return t
        raise TFLiteImportError(f"{self.path}: no tensor named {name!r}")

    def constant(self, index: int) -> np.ndarray:
        """The constant tensor `index` as float32 (dequantised) or its integer values."""
        t = self.tensors[index]
        if t.raw is None:
            raise TFLiteImportError(f"tensor #{index} {t.name!r} is not a constant")
        return dequantize(t)


def dequantize(t: Tensor) -> np.ndarray:
    """float16 -> float32; quantised integers -> (q - zero_point) * scale as float32;
    other integer tensors (shapes, indices) are returned unchanged."""
    raw = t.raw
    if raw.dtype == np.float16 or raw.dtype == np.float64:
        return raw.astype(np.float32)
    if raw.dtype == np.float32:
        return raw
    if t.quant is not None and raw.dtype in (np.int8, np.uint8, np.int16):
        q = raw.astype(np.float64)
        scale, zp = t.quant.scale.astype(np.float64), t.quant.zero_point.astype(np.float64)
        if scale.size > 1:
            if scale.size != raw.shape[t.quant.axis]:
                raise TFLiteImportError(
                    f"tensor #{t.index} {t.name!r}: {scale.size} scales for axis {t.quant.axis} "
                    f"of shape {list(raw.shape)}"
                )
            bshape = [1] * raw.ndim
            bshape[t.quant.axis] = scale.size
            scale, zp = scale.reshape(bshape), zp.reshape(bshape)
        return ((q - zp) * scale).astype(np.float32)
    return raw


def _read_options(op) -> dict[str, object]:
    """Decode the builtin options table generically: every accessor of the generated
    options class that takes no argument gives one entry (vectors via *AsNumpy)."""
    kind = op.BuiltinOptionsType()
    if kind == 0:
        return {}
    cls_name = _OPTION_NAMES.get(kind)
    cls = getattr(tflite, cls_name, None) if cls_name else None
    if cls is None:
        raise TFLiteImportError(f"unknown builtin options type {kind}")
    table = op.BuiltinOptions()
    obj = cls()
    obj.Init(table.Bytes, table.Pos)
    out: dict[str, object] = {}
    for name, fn in inspect.getmembers(cls, inspect.isfunction):
        if name.startswith(("_", "Init", "GetRootAs")) or name.endswith(("Length", "IsNone", "BufferHasIdentifier")):
            continue
        if len(inspect.signature(fn).parameters) != 1:
            continue  # element accessors (j); the *AsNumpy form is read instead
        value = getattr(obj, name)()
        if name.endswith("AsNumpy"):
            name = name[: -len("AsNumpy")]
            value = [] if isinstance(value, int) else [int(v) for v in value]
        out[name] = value
    return out


def _buffer_bytes(model, buf: bytes, index: int) -> bytes | None:
    b = model.Buffers(index)
    if b is None:
        return None
    if b.Offset() > 1:  # large models keep data after the flatbuffer, addressed from file start
        return buf[b.Offset() : b.Offset() + b.Size()]
    if b.DataLength() == 0:
        return None
    return b.DataAsNumpy().tobytes()


def read_tflite(path) -> Graph:
    path = str(path)
    buf = pathlib.Path(path).read_bytes()
    if buf[4:8] != b"TFL3":
        raise TFLiteImportError(f"{path}: not a TFLite flatbuffer (file identifier {buf[4:8]!r}, expected b'TFL3')")
    model = tflite.Model.GetRootAs(buf, 0)
    if model.SubgraphsLength() != 1:
        raise TFLiteImportError(
            f"{path}: {model.SubgraphsLength()} subgraphs; only single-subgraph models are supported"
        )
    g = model.Subgraphs(0)

    tensors: list[Tensor] = []
    for i in range(g.TensorsLength()):
        t = g.Tensors(i)
        shape = tuple(int(s) for s in t.ShapeAsNumpy()) if t.ShapeLength() else ()
        type_name = _TYPE_NAMES.get(t.Type(), str(t.Type()))
        data = _buffer_bytes(model, buf, t.Buffer())
        raw = None
        if data is not None:
            dtype = _NP_TYPES.get(t.Type())
            if dtype is None:
                raise TFLiteImportError(f"{path}: constant tensor #{i} {t.Name()!r} has unsupported type {type_name}")
            raw = np.frombuffer(data, dtype=dtype).reshape(shape).copy()
        quant = None
        q = t.Quantization()
        if q is not None and q.ScaleLength() > 0:
            zp = q.ZeroPointAsNumpy() if q.ZeroPointLength() else np.zeros(q.ScaleLength())
            quant = Quantization(
                np.asarray(q.ScaleAsNumpy(), np.float32), np.asarray(zp, np.int64), int(q.QuantizedDimension())
            )
        tensors.append(Tensor(i, t.Name().decode(), shape, type_name, raw, quant))

    operators: list[Operator] = []
    for i in range(g.OperatorsLength()):
        o = g.Operators(i)
        code = model.OperatorCodes(o.OpcodeIndex())
        builtin = max(code.BuiltinCode(), code.DeprecatedBuiltinCode())
        name = (
            f"CUSTOM:{code.CustomCode().decode()}"
            if builtin == CUSTOM
            else _OP_NAMES.get(builtin, f"BUILTIN_{builtin}")
        )
        inputs = [int(x) for x in o.InputsAsNumpy()] if o.InputsLength() else []
        outputs = [int(x) for x in o.OutputsAsNumpy()] if o.OutputsLength() else []
        op = Operator(i, name, code.Version(), inputs, outputs)
        try:
            op.options = _read_options(o)
        except TFLiteImportError as e:
            raise TFLiteImportError(f"{path}: {op.where()}: {e}") from None
        if o.CustomOptionsLength():
            op.custom_options = o.CustomOptionsAsNumpy().tobytes()
        operators.append(op)

    desc = model.Description().decode(errors="replace") if model.Description() else ""
    return Graph(
        path, desc, tensors, operators, [int(x) for x in g.InputsAsNumpy()], [int(x) for x in g.OutputsAsNumpy()]
    )
