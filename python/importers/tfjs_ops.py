"""The op table of the tfjs importer: one small handler per TF op, built from torch ops that
torch.export and ExecuTorch's VulkanPartitioner accept.

A handler gets the module (for constants: m.derived / m.host_to_tensor), the node and its input
values, and returns a value (or a list, for multi-output ops). Values are host numpy arrays
(constants, folded at trace time) or TVal tensors with a lazy layout (see tfjs_graph.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from .tfjs_format import Node, TfjsImportError

# ---------------------------------------------------------------------------------------------
# Values flowing through the graph
# ---------------------------------------------------------------------------------------------

Perm = tuple[int, ...]


def _identity(rank: int) -> Perm:
    return tuple(range(rank))


def _inverse(perm: Sequence[int]) -> Perm:
    inv = [0] * len(perm)
    for i, p in enumerate(perm):
        inv[p] = i
    return tuple(inv)


class TVal:
    """A tensor value: tf_value == pad(t).permute(perm).

    pad is None or a list (one per torch axis of t) of (before, after) constant padding that
    has not been applied yet, with pad_value.
    """

    __slots__ = ("t", "perm", "pad", "pad_value")

    def __init__(
        self,
        t: torch.Tensor,
        perm: Perm | None = None,
        pad: list[tuple[int, int]] | None = None,
        pad_value: float = 0.0,
    ):
        self.t = t
        self.perm = tuple(perm) if perm is not None else _identity(t.dim())
        self.pad = pad
        self.pad_value = pad_value

    @property
    def rank(self) -> int:
        return self.t.dim()

    def torch_shape(self) -> list[int]:
        shape = [int(s) for s in self.t.shape]
        if self.pad:
            shape = [s + b + a for s, (b, a) in zip(shape, self.pad)]
        return shape

    def tf_shape(self) -> list[int]:
        ts = self.torch_shape()
        return [ts[p] for p in self.perm]

    def unpadded(self) -> TVal:
        """Same value with any pending pad applied."""
        if not self.pad:
            return self
        flat: list[int] = []
        for before, after in reversed(self.pad):  # F.pad lists the last axis first
            flat += [before, after]
        return TVal(F.pad(self.t, flat, value=self.pad_value), self.perm)

    def layout(self, want: Sequence[int]) -> torch.Tensor:
        """A torch tensor r (pads applied) with tf_value == r.permute(want)."""
        v = self.unpadded()
        inv_want = _inverse(want)
        c = tuple(v.perm[inv_want[j]] for j in range(len(want)))
        return v.t if c == _identity(len(c)) else v.t.permute(c)

    def plain(self) -> torch.Tensor:
        """The value in TF's own axis order."""
        return self.layout(_identity(self.rank))


Value = TVal | np.ndarray


def _is_host(v: Value) -> bool:
    return isinstance(v, np.ndarray)


OpFn = Callable[[Any, Node, list[Value]], Value | list[Value]]
OPS: dict[str, OpFn] = {}


def _op(*names: str):
    def reg(fn: OpFn) -> OpFn:
        for n in names:
            OPS[n] = fn
        return fn

    return reg


# ---------------------------------------------------------------------------------------------
# Op handlers: one small function per TF op
# ---------------------------------------------------------------------------------------------


def _host(node: Node, ins: list[Value], i: int, what: str) -> np.ndarray:
    v = ins[i]
    if not _is_host(v):
        raise TfjsImportError(f"node {node.name!r} (op {node.op}): {what} (input {i}) must be a constant")
    return v


def _tensor(node: Node, ins: list[Value], i: int) -> TVal:
    v = ins[i]
    if _is_host(v):
        raise TfjsImportError(
            f"node {node.name!r} (op {node.op}): input {i} is a constant; only tensors are supported here"
        )
    return v


def _axis(axis: int, rank: int) -> int:
    return axis + rank if axis < 0 else axis


@_op("Identity", "StopGradient", "Snapshot")
def _identity_op(m, node, ins):
    return ins[0]


# -- elementwise ---------------------------------------------------------------------------------

_UNARY: dict[str, tuple[Callable[[torch.Tensor, Node], torch.Tensor], Callable[[np.ndarray], np.ndarray]]] = {
    "Relu": (lambda x, n: F.relu(x), lambda a: np.maximum(a, 0)),
    "Relu6": (lambda x, n: F.hardtanh(x, 0.0, 6.0), lambda a: np.clip(a, 0, 6)),
    "LeakyRelu": (lambda x, n: F.leaky_relu(x, n.attr.get("alpha", 0.2)), None),
    "Sigmoid": (lambda x, n: torch.sigmoid(x), lambda a: 1 / (1 + np.exp(-a))),
    "Tanh": (lambda x, n: torch.tanh(x), np.tanh),
    "Elu": (lambda x, n: F.elu(x), None),
    "Exp": (lambda x, n: torch.exp(x), np.exp),
    "Neg": (lambda x, n: torch.neg(x), np.negative),
    "Abs": (lambda x, n: torch.abs(x), np.abs),
    "Sqrt": (lambda x, n: torch.sqrt(x), np.sqrt),
    "Rsqrt": (lambda x, n: torch.rsqrt(x), lambda a: 1 / np.sqrt(a)),
    "Square": (lambda x, n: x * x, np.square),
}


def _unary(m, node, ins):
    tfn, nfn = _UNARY[node.op]
    if _is_host(ins[0]):
        if nfn is None:
            raise TfjsImportError(f"node {node.name!r} (op {node.op}): constant input is not supported")
        return nfn(ins[0])
    v = ins[0].unpadded()
    return TVal(tfn(v.t, node), v.perm)


for _name in _UNARY:
    OPS[_name] = _unary

_BINARY: dict[str, tuple[Callable, Callable]] = {
    "Add": (torch.add, np.add),
    "AddV2": (torch.add, np.add),
    "Sub": (torch.sub, np.subtract),
    "Mul": (torch.mul, np.multiply),
    "RealDiv": (torch.div, np.divide),
    "Maximum": (torch.maximum, np.maximum),
    "Minimum": (torch.minimum, np.minimum),
}


def _binary_values(m, node, a: Value, b: Value, tfn, nfn, name_a: str, name_b: str) -> Value:
    if _is_host(a) and _is_host(b):
        return nfn(a, b).astype(np.result_type(a, b))
    if _is_host(a) or _is_host(b):
        t, c, cname, t_first = (b, a, name_a, False) if _is_host(a) else (a, b, name_b, True)
        t = t.unpadded()
        cv = m.host_to_tensor(cname, c, t)
        if isinstance(cv, float) and tfn in (torch.maximum, torch.minimum):
            cv = torch.full((), cv)
        out = tfn(t.t, cv) if t_first else tfn(cv, t.t)
        return TVal(out, t.perm)
    a, b = a.unpadded(), b.unpadded()
    if a.rank == b.rank:
        return TVal(tfn(a.t, b.layout(a.perm)), a.perm)
    return TVal(tfn(a.plain(), b.plain()))  # ranks differ: TF broadcasting == torch broadcasting


def _binary(m, node, ins):
    tfn, nfn = _BINARY[node.op]
    return _binary_values(m, node, ins[0], ins[1], tfn, nfn, m.input_name(node, 0), m.input_name(node, 1))


for _name in _BINARY:
    OPS[_name] = _binary


@_op("AddN")
def _add_n(m, node, ins):
    acc = ins[0]
    for i in range(1, len(ins)):
        acc = _binary_values(m, node, acc, ins[i], torch.add, np.add, m.input_name(node, i - 1), m.input_name(node, i))
    return acc


@_op("BiasAdd")
def _bias_add(m, node, ins):
    x = _tensor(node, ins, 0).unpadded()
    b = _host(node, ins, 1, "bias")
    if node.attr.get("data_format", "NHWC") != "NHWC":
        raise TfjsImportError(
            f"node {node.name!r} (op BiasAdd): data_format {node.attr['data_format']!r} is not supported"
        )
    return _binary_values(m, node, x, b, torch.add, np.add, "", m.input_name(node, 1) + "/bias_add")


# -- constant folding of shape arithmetic ----------------------------------------------------------


@_op("SparseToDense")
def _sparse_to_dense(m, node, ins):
    idx = _host(node, ins, 0, "sparse_indices").astype(np.int64)
    shape = [int(s) for s in _host(node, ins, 1, "output_shape").reshape(-1)]
    vals = _host(node, ins, 2, "sparse_values")
    default = _host(node, ins, 3, "default_value")
    out = np.full(shape, default.reshape(()), dtype=vals.dtype if vals.size else default.dtype)
    if idx.size:
        idx = idx.reshape(-1, 1) if idx.ndim <= 1 else idx
        vals = np.broadcast_to(vals, (idx.shape[0],))
        for row, val in zip(idx, vals):
            out[tuple(row)] = val
    return out


@_op("Cast")
def _cast(m, node, ins):
    dst = node.attr.get("DstT", "DT_FLOAT")
    if _is_host(ins[0]):
        np_dt = {"DT_FLOAT": np.float32, "DT_INT32": np.int32, "DT_INT64": np.int32, "DT_BOOL": np.bool_}.get(dst)
        if np_dt is None:
            raise TfjsImportError(f"node {node.name!r} (op Cast): DstT {dst} is not supported")
        return ins[0].astype(np_dt)
    if dst != "DT_FLOAT":
        raise TfjsImportError(f"node {node.name!r} (op Cast): only casts of tensors to float are supported")
    return ins[0]


@_op("Shape")
def _shape(m, node, ins):
    v = ins[0]
    return np.array(v.shape if _is_host(v) else v.tf_shape(), dtype=np.int32)


# -- layout ops --------------------------------------------------------------------------------------


@_op("Transpose")
def _transpose(m, node, ins):
    q = [int(i) for i in _host(node, ins, 1, "perm").reshape(-1)]
    if _is_host(ins[0]):
        return np.transpose(ins[0], q)
    v = ins[0]
    return TVal(v.t, tuple(v.perm[i] for i in q), v.pad, v.pad_value)


@_op("Reshape")
def _reshape(m, node, ins):
    shape = [int(s) for s in _host(node, ins, 1, "shape").reshape(-1)]
    if _is_host(ins[0]):
        return ins[0].reshape(shape)
    return TVal(ins[0].plain().reshape(shape))


@_op("Squeeze")
def _squeeze(m, node, ins):
    if _is_host(ins[0]):
        dims = node.attr.get("squeeze_dims") or None
        return np.squeeze(ins[0], axis=tuple(dims) if dims else None)
    v = ins[0]
    shape = v.tf_shape()
    dims = [_axis(d, v.rank) for d in (node.attr.get("squeeze_dims") or [])] or [
        i for i, s in enumerate(shape) if s == 1
    ]
    return TVal(v.plain().reshape([s for i, s in enumerate(shape) if i not in dims]))


@_op("ExpandDims")
def _expand_dims(m, node, ins):
    axis = int(_host(node, ins, 1, "axis").reshape(()))
    if _is_host(ins[0]):
        return np.expand_dims(ins[0], axis)
    v = ins[0]
    return TVal(v.plain().unsqueeze(_axis(axis, v.rank + 1)))


def _common_layout(node: Node, m, ins: list[Value], names: list[str]) -> tuple[list[torch.Tensor], Perm]:
    """Bring tensor values (and constants) to the layout of the first tensor."""
    first = next(v for v in ins if not _is_host(v))
    perm = first.unpadded().perm
    out = []
    for v, n in zip(ins, names):
        if _is_host(v):
            inv = _inverse(perm)
            out.append(m.derived(("concat", n, perm), lambda v=v, inv=inv: np.transpose(v, inv)))
        else:
            if v.rank != first.rank:
                raise TfjsImportError(f"node {node.name!r} (op {node.op}): inputs of different rank")
            out.append(v.layout(perm))
    return out, perm


@_op("ConcatV2")
def _concat(m, node, ins):
    axis = int(_host(node, ins, len(ins) - 1, "axis").reshape(()))
    parts = ins[:-1]
    if all(_is_host(v) for v in parts):
        return np.concatenate(parts, axis=axis)
    names = [m.input_name(node, i) for i in range(len(parts))]
    ts, perm = _common_layout(node, m, parts, names)
    return TVal(torch.cat(ts, dim=perm[_axis(axis, len(perm))]), perm)


@_op("SplitV")
def _split_v(m, node, ins):
    v = _tensor(node, ins, 0).unpadded()
    sizes = [int(s) for s in _host(node, ins, 1, "size_splits").reshape(-1)]
    axis = _axis(int(_host(node, ins, 2, "axis").reshape(())), v.rank)
    dim_size = v.tf_shape()[axis]
    if sizes.count(-1) == 1:
        sizes[sizes.index(-1)] = dim_size - (sum(sizes) + 1)
    if sum(sizes) != dim_size:
        raise TfjsImportError(f"node {node.name!r} (op SplitV): sizes {sizes} do not add up to {dim_size}")
    return [TVal(t, v.perm) for t in torch.split(v.t, sizes, dim=v.perm[axis])]


@_op("Split")
def _split(m, node, ins):
    v = _tensor(node, ins, 1).unpadded()
    axis = _axis(int(_host(node, ins, 0, "axis").reshape(())), v.rank)
    n = int(node.attr.get("num_split", 1))
    size = v.tf_shape()[axis]
    if size % n:
        raise TfjsImportError(f"node {node.name!r} (op Split): {size} is not divisible by {n}")
    return [TVal(t, v.perm) for t in torch.split(v.t, size // n, dim=v.perm[axis])]


@_op("Pad", "PadV2")
def _pad(m, node, ins):
    pads = _host(node, ins, 1, "paddings").reshape(-1, 2).astype(int)
    value = float(_host(node, ins, 2, "constant_values").reshape(())) if node.op == "PadV2" else 0.0
    if _is_host(ins[0]):
        return np.pad(ins[0], pads, constant_values=value)
    v = ins[0]
    if v.pad is not None and v.pad_value != value:
        v = v.unpadded()
    torch_pad = [list(p) for p in (v.pad or [(0, 0)] * v.rank)]
    for i, (before, after) in enumerate(pads):
        if before < 0 or after < 0:
            raise TfjsImportError(f"node {node.name!r} (op {node.op}): negative padding {pads.tolist()}")
        torch_pad[v.perm[i]][0] += int(before)
        torch_pad[v.perm[i]][1] += int(after)
    return TVal(v.t, v.perm, [tuple(p) for p in torch_pad], value)


# -- convolution / pooling ------------------------------------------------------------------------

_NHWC_VIEW = (0, 2, 3, 1)  # perm that makes an NCHW torch tensor an NHWC TF value


def _layout_of(node: Node) -> Perm:
    # Only NHWC: TensorFlow.js itself runs convs/pools in NHWC only, so an NCHW node could not
    # be checked against it (and the TF CPU kernels that produced these graphs are NHWC too).
    fmt = node.attr.get("data_format", "NHWC")
    if fmt == "NHWC":
        return _NHWC_VIEW
    raise TfjsImportError(f"node {node.name!r} (op {node.op}): data_format {fmt!r} is not supported")


def _hw(node: Node, key: str, default: int = 1) -> tuple[int, int]:
    """(h, w) of a 4-entry strides/ksize/dilations attribute in the node's data_format."""
    vals = node.attr.get(key) or [default] * 4
    if len(vals) != 4:
        raise TfjsImportError(f"node {node.name!r} (op {node.op}): {key} {vals} is not 4-D")
    if vals[0] != 1 or vals[3] != 1:
        raise TfjsImportError(f"node {node.name!r} (op {node.op}): {key} {vals} on batch/channel axis")
    return int(vals[1]), int(vals[2])


def _spatial_input(node: Node, v: TVal) -> tuple[torch.Tensor, list[tuple[int, int]], float]:
    """NCHW torch tensor of a conv/pool input and its pending spatial pad ([(t, b), (l, r)], value).

    Pending pads on the batch or channel axis are applied here; spatial ones are returned for
    the caller to fold into its own padding.
    """
    want = _layout_of(node)
    if v.pad is None:
        return v.layout(want), [(0, 0), (0, 0)], 0.0
    # NCHW axis j of the result is tf axis inv_want[j], which lives on torch axis v.perm[...] of v.
    inv_want = _inverse(want)
    src_axis = [v.perm[inv_want[j]] for j in range(4)]
    if any(v.pad[src_axis[j]] != (0, 0) for j in (0, 1)):
        return v.layout(want), [(0, 0), (0, 0)], 0.0
    bare = TVal(v.t, v.perm)
    return bare.layout(want), [v.pad[src_axis[2]], v.pad[src_axis[3]]], v.pad_value


def _same_pads(size: int, k: int, s: int, d: int) -> tuple[int, int]:
    eff = (k - 1) * d + 1
    out = -(-size // s)
    total = max((out - 1) * s + eff - size, 0)
    return total // 2, total - total // 2


def _window_pads(
    node: Node, in_hw: Sequence[int], k: Sequence[int], s: Sequence[int], d: Sequence[int]
) -> list[tuple[int, int]]:
    padding = node.attr.get("padding", "VALID")
    if padding == "VALID":
        return [(0, 0), (0, 0)]
    if padding == "SAME":
        return [_same_pads(in_hw[i], k[i], s[i], d[i]) for i in range(2)]
    if padding == "EXPLICIT":
        ep = node.attr.get("explicit_paddings") or []
        if len(ep) != 8:
            raise TfjsImportError(f"node {node.name!r} (op {node.op}): explicit_paddings {ep}")
        return [(ep[2], ep[3]), (ep[4], ep[5])]  # NHWC order: H, then W
    raise TfjsImportError(f"node {node.name!r} (op {node.op}): padding {padding!r} is not supported")


def _add_pads(a, b):
    return [(a[i][0] + b[i][0], a[i][1] + b[i][1]) for i in range(2)]


def _pad_nchw(x: torch.Tensor, pads, value: float) -> torch.Tensor:
    (top, bottom), (left, right) = pads
    return F.pad(x, [left, right, top, bottom], value=value) if (top or bottom or left or right) else x


def _conv_bias(m, node: Node) -> torch.Tensor | None:
    name = m._fused_bias.get(node.name)
    if name is None:
        return None
    return m.derived(("bias", name), lambda: m._const_array(name).reshape(-1))


def _conv_common(m, node, x_val: TVal, weight: torch.Tensor, k_hw, groups: int):
    s = _hw(node, "strides")
    d = _hw(node, "dilations")
    x, pending, pad_value = _spatial_input(node, x_val)
    if pad_value != 0.0:  # a non-zero constant pad cannot become conv padding
        x, pending = _pad_nchw(x, pending, pad_value), [(0, 0), (0, 0)]
    in_hw = [x.shape[2] + pending[0][0] + pending[0][1], x.shape[3] + pending[1][0] + pending[1][1]]
    pads = _add_pads(pending, _window_pads(node, in_hw, k_hw, s, d))
    if pads[0][0] == pads[0][1] and pads[1][0] == pads[1][1]:
        padding = (pads[0][0], pads[1][0])
    else:
        x, padding = _pad_nchw(x, pads, 0.0), (0, 0)
    y = F.conv2d(x, weight, _conv_bias(m, node), stride=s, padding=padding, dilation=d, groups=groups)
    return TVal(y, _layout_of(node))


@_op("Conv2D")
def _conv2d(m, node, ins):
    x = _tensor(node, ins, 0)
    w_name = m.input_name(node, 1)
    w = _host(node, ins, 1, "filter")  # HWIO
    _layout_of(node)
    cin = x.tf_shape()[3]
    if w.ndim != 4 or cin != w.shape[2]:
        # (TF allows grouped Conv2D with cin a multiple of the filter's; TensorFlow.js does not,
        # so such a graph could not be checked against it.)
        raise TfjsImportError(
            f"node {node.name!r} (op Conv2D): filter {list(w.shape)} does not fit {cin} "
            "input channels (grouped Conv2D is not supported)"
        )
    weight = m.derived(("conv", w_name), lambda: w.transpose(3, 2, 0, 1))  # OIHW
    return _conv_common(m, node, x, weight, w.shape[:2], 1)


@_op("DepthwiseConv2dNative")
def _depthwise(m, node, ins):
    x = _tensor(node, ins, 0)
    w_name = m.input_name(node, 1)
    w = _host(node, ins, 1, "filter")  # [H, W, C, M]; output channel c*M + m
    kh, kw, c, mult = w.shape
    weight = m.derived(("dwconv", w_name), lambda: w.reshape(kh, kw, c * mult).transpose(2, 0, 1)[:, None])
    return _conv_common(m, node, x, weight, (kh, kw), c)


@_op("Conv2DBackpropInput")
def _conv_transpose(m, node, ins):
    sizes = [int(v) for v in _host(node, ins, 0, "input_sizes").reshape(-1)]
    w = _host(node, ins, 1, "filter")  # [H, W, out, in]
    x_val = _tensor(node, ins, 2)
    want = _layout_of(node)
    x = x_val.layout(want)
    out_hw = (sizes[1], sizes[2]) if want == _NHWC_VIEW else (sizes[2], sizes[3])
    kh, kw = int(w.shape[0]), int(w.shape[1])
    s = _hw(node, "strides")
    d = _hw(node, "dilations")
    # The forward conv (result -> x) pads the result by `pads`; its transpose yields the full
    # (I-1)*s + keff rows, of which rows [before, before + O) are the result.
    pads = _window_pads(node, out_hw, (kh, kw), s, d)
    weight = m.derived(("convT", m.input_name(node, 1)), lambda: w.transpose(3, 2, 0, 1))  # [in, out, H, W]
    bias = _conv_bias(m, node)
    padding, out_pad, simple = [], [], True
    for i in range(2):
        full = (x.shape[2 + i] - 1) * s[i] + ((kh, kw)[i] - 1) * d[i] + 1
        extra = out_hw[i] - (full - 2 * pads[i][0])
        padding.append(pads[i][0])
        out_pad.append(extra)
        if not (0 <= extra < max(s[i], d[i])):
            simple = False
    if simple:
        y = F.conv_transpose2d(x, weight, bias, stride=s, padding=padding, output_padding=out_pad, dilation=d)
    else:
        y = F.conv_transpose2d(x, weight, None, stride=s, dilation=d)
        for i in range(2):
            start, length = pads[i][0], out_hw[i]
            have = y.shape[2 + i]
            if start + length > have:
                grow = [0, 0, 0, 0]
                grow[(1 - i) * 2 + 1] = start + length - have
                y = F.pad(y, grow)
            y = y.narrow(2 + i, start, length)
        if bias is not None:
            y = y + bias.reshape(1, -1, 1, 1)
    return TVal(y, want)


@_op("MaxPool")
def _max_pool(m, node, ins):
    x, pending, value = _spatial_input(node, _tensor(node, ins, 0))
    k, s = _hw(node, "ksize"), _hw(node, "strides")
    in_hw = [x.shape[2] + sum(pending[0]), x.shape[3] + sum(pending[1])]
    window = _window_pads(node, in_hw, k, s, (1, 1))  # TF pads SAME max pools with -inf
    if any(pending[i] != (0, 0) for i in range(2)) and value > -3.0e38:
        x, pending = _pad_nchw(x, pending, value), [(0, 0), (0, 0)]
    pads = _add_pads(pending, window)
    symmetric = pads[0][0] == pads[0][1] and pads[1][0] == pads[1][1]
    if symmetric and pads[0][0] <= k[0] // 2 and pads[1][0] <= k[1] // 2:
        y = F.max_pool2d(x, k, s, padding=(pads[0][0], pads[1][0]))
    else:
        y = F.max_pool2d(_pad_nchw(x, pads, float("-inf")), k, s)
    return TVal(y, _layout_of(node))


@_op("AvgPool")
def _avg_pool(m, node, ins):
    x = _tensor(node, ins, 0).layout(_layout_of(node))  # pending pads are real data for AvgPool
    k, s = _hw(node, "ksize"), _hw(node, "strides")
    pads = _window_pads(node, x.shape[2:], k, s, (1, 1))
    if pads == [(0, 0), (0, 0)]:
        y = F.avg_pool2d(x, k, s)
    elif pads[0][0] == pads[0][1] and pads[1][0] == pads[1][1] and pads[0][0] <= k[0] // 2 and pads[1][0] <= k[1] // 2:
        # TF's SAME average pool divides by the number of real (unpadded) cells.
        y = F.avg_pool2d(x, k, s, padding=(pads[0][0], pads[1][0]), count_include_pad=False)
    else:
        raise TfjsImportError(f"node {node.name!r} (op AvgPool): asymmetric SAME padding {pads} is not supported")
    return TVal(y, _layout_of(node))


@_op("Mean")
def _mean(m, node, ins):
    axes = [int(a) for a in _host(node, ins, 1, "reduction_indices").reshape(-1)]
    keep = bool(node.attr.get("keep_dims", False))
    if _is_host(ins[0]):
        return np.mean(ins[0], axis=tuple(axes), keepdims=keep).astype(ins[0].dtype)
    v = ins[0].unpadded()
    axes = sorted({_axis(a, v.rank) for a in axes})
    torch_axes = [v.perm[a] for a in axes]
    y = torch.mean(v.t, dim=torch_axes, keepdim=keep)
    if keep:
        return TVal(y, v.perm)
    kept_torch = [j for j in range(v.rank) if j not in torch_axes]
    return TVal(y, tuple(kept_torch.index(v.perm[i]) for i in range(v.rank) if i not in axes))


@_op("ResizeBilinear")
def _resize_bilinear(m, node, ins):
    size = [int(s) for s in _host(node, ins, 1, "size").reshape(-1)]
    align = bool(node.attr.get("align_corners", False))
    half = bool(node.attr.get("half_pixel_centers", False))
    x = _tensor(node, ins, 0).layout(_NHWC_VIEW)  # TF resizes NHWC images
    if half and not align:
        y = F.interpolate(x, size=size, mode="bilinear", align_corners=False)
    elif align and not half:
        y = F.interpolate(x, size=size, mode="bilinear", align_corners=True)
    else:
        raise TfjsImportError(
            f"node {node.name!r} (op ResizeBilinear): align_corners={align}, "
            f"half_pixel_centers={half} (the legacy sampler) is not supported"
        )
    return TVal(y, _NHWC_VIEW)
