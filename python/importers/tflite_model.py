"""Rebuild a TFLite network as an NCHW torch.nn.Module, op by op.

    from importers.tflite_model import build_module
    net = build_module("model.tflite", outputs=["Identity"])   # eval-mode nn.Module, fp32
    y = net(x_nchw)

Weights stored as int8 (symmetric, per tensor or per channel) or float16 are dequantised
to float32 when the module is built (see tflite_reader.dequantize); activations are fp32.

Layout. TFLite tensors are NHWC; the module works in NCHW. Every TFLite tensor is held as
a torch tensor T together with a permutation p such that T == L.permute(p), where L is the
tensor in TFLite's own layout. Convolutions, pools and resizes want p = NCHW = (0, 3, 1, 2);
TRANSPOSE only relabels p (no data movement), and a permute is emitted only where an op needs
a layout that is not available. The model input is taken as NCHW and 4-D outputs are
returned as NCHW; other outputs keep TFLite's layout.

Exactness. Where TFLite and torch differ, the TFLite rule is written out: SAME padding is
computed as TFLite does (asymmetric pads become an explicit zero pad), the legacy bilinear
resize (align_corners = half_pixel_centers = False: src = dst * in / out) is a constant
interpolation matrix applied with F.linear, transposed convolutions crop like TFLite.

Two exact rewrites keep the graph small: MAXIMUM(x, MUL(x, a)) with 0 <= a <= 1 becomes
leaky_relu(x, a), and a zero PAD of only H/W that feeds a convolution is folded into the
convolution's padding. Ops whose results no output needs are dropped.

Each TFLite op is one small function registered in _HANDLERS; an op without a handler, or
with options a handler does not support, raises TFLiteImportError naming the operator index.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable, Iterable, Sequence

import numpy as np
import torch
import torch.nn as nn

from .tflite_reader import Graph, Operator, TFLiteImportError, read_tflite
from .tflite_steps import (
    Binary,
    Cat,
    Const,
    Conv,
    Interpolate,
    LeakyRelu,
    Linear,
    MatMul,
    MatrixResize,
    Pad,
    Perm,
    Permute,
    Pool,
    Reduce,
    Reshape,
    Slice,
    Softmax,
    TFLiteModule,
    TransposeConv,
    Unary,
    activation,
    inverse_perm,
)

NCHW: Perm = (0, 3, 1, 2)


def _ident(rank: int) -> Perm:
    return tuple(range(rank))


# ---------------------------------------------------------------------------
# Builder
# ---------------------------------------------------------------------------

Handler = Callable[["_Builder", Operator], None]
_HANDLERS: dict[str, Handler] = {}


def _handles(*names: str):
    def deco(fn: Handler) -> Handler:
        for n in names:
            _HANDLERS[n] = fn
        return fn

    return deco


class _Builder:
    def __init__(self, g: Graph):
        self.g = g
        self.steps: list[tuple[nn.Module, list[str], list[str]]] = []
        self.avail: dict[int, dict[Perm, str]] = {}  # tensor -> perm -> value key
        self.home: dict[int, tuple[str, Perm]] = {}  # first layout a tensor was produced in
        self.producer: dict[int, Operator] = {}
        for op in g.operators:
            for t in op.outputs:
                self.producer[t] = op
        self.op: Operator | None = None

    # -- errors ------------------------------------------------------------
    def fail(self, msg: str) -> TFLiteImportError:
        where = self.op.where() if self.op else "graph"
        return TFLiteImportError(f"{self.g.path}: {where}: {msg}")

    # -- tensors -----------------------------------------------------------
    def shape(self, ti: int) -> tuple[int, ...]:
        return self.g.tensors[ti].shape

    def rank(self, ti: int) -> int:
        return len(self.shape(ti))

    def is_const(self, ti: int) -> bool:
        return ti >= 0 and self.g.tensors[ti].is_constant

    def const(self, ti: int) -> np.ndarray:
        if not self.is_const(ti):
            raise self.fail(f"input tensor #{ti} {self.g.tensors[ti].name!r} must be a constant")
        return self.g.constant(ti)

    def folded(self, ti: int) -> np.ndarray | None:
        """A constant, or the float32 value of DEQUANTIZE(constant): weights stored as
        float16/int8 behind a DEQUANTIZE op are constants too."""
        if self.is_const(ti):
            return self.g.constant(ti)
        p = self.producer.get(ti)
        if p is not None and p.op == "DEQUANTIZE" and self.is_const(p.inputs[0]):
            return self.g.constant(p.inputs[0]).astype(np.float32)
        return None

    def weight(self, ti: int) -> np.ndarray:
        w = self.folded(ti)
        if w is None:
            raise self.fail(f"weight tensor #{ti} {self.g.tensors[ti].name!r} is not constant")
        return w.astype(np.float32)

    # -- values ------------------------------------------------------------
    @staticmethod
    def _key(ti: int, perm: Perm) -> str:
        return f"t{ti}" + ("" if perm == _ident(len(perm)) else "_p" + "".join(map(str, perm)))

    def layout(self, ti: int) -> Perm:
        """The layout a tensor is available in (its first one)."""
        if ti in self.home:
            return self.home[ti][1]
        if self.folded(ti) is not None:
            return _ident(self.rank(ti))
        raise self.fail(f"tensor #{ti} {self.g.tensors[ti].name!r} is used before it is computed")

    def value(self, ti: int, perm: Perm | None = None) -> str:
        """Key of tensor `ti` held in layout `perm` (its available layout when None);
        emits a permute or a constant step when needed."""
        if perm is None:
            perm = self.layout(ti)
        perm = tuple(perm)
        have = self.avail.get(ti, {})
        if perm in have:
            return have[perm]
        c = self.folded(ti) if ti not in self.home else None
        key = self._key(ti, perm)
        if c is not None:
            self.steps.append((Const(np.transpose(c, perm)), [], [key]))
        else:
            src_key, src_perm = self.home[ti] if ti in self.home else (None, None)
            if src_key is None:
                raise self.fail(f"tensor #{ti} {self.g.tensors[ti].name!r} is used before it is computed")
            rel = tuple(src_perm.index(p) for p in perm)
            self.steps.append((Permute(rel), [src_key], [key]))
        self.avail.setdefault(ti, {})[perm] = key
        return key

    def emit(self, module: nn.Module, in_keys: Sequence[str], out_ti: int, perm: Perm) -> None:
        """Add a step computing tensor out_ti, held in layout perm."""
        perm = tuple(perm)
        key = self._key(out_ti, perm)
        self.steps.append((module, list(in_keys), [key]))
        self.avail.setdefault(out_ti, {})[perm] = key
        self.home.setdefault(out_ti, (key, perm))

    def alias(self, out_ti: int, in_key: str, perm: Perm) -> None:
        """out_ti is the same data as an existing value, seen in layout perm (no step)."""
        self.avail.setdefault(out_ti, {})[tuple(perm)] = in_key
        self.home.setdefault(out_ti, (in_key, tuple(perm)))

    def const_in_layout(self, c: np.ndarray, rank: int, perm: Perm):
        """A constant operand broadcast against a rank-`rank` tensor held in layout perm:
        a Python float when it has one element, else an array in that layout."""
        if c.size == 1:
            return float(c.reshape(()))
        c = c.reshape((1,) * (rank - c.ndim) + c.shape)
        return np.ascontiguousarray(np.transpose(c, perm)).astype(np.float32)

    def activation_value(self, ti: int, rank: int, perm: Perm) -> str:
        """An activation broadcast against a rank-`rank` tensor in layout perm."""
        r = self.rank(ti)
        if r == rank:
            return self.value(ti, perm)
        key = self.value(ti, _ident(r))
        tmp = f"{key}_r{rank}"
        self.steps.append((Reshape((1,) * (rank - r) + self.shape(ti)), [key], [tmp]))
        out = f"{tmp}_p" + "".join(map(str, perm))
        self.steps.append((Permute(perm), [tmp], [out]))
        return out


def _same_pads(size: int, k: int, s: int, d: int) -> tuple[int, int]:
    """TFLite SAME padding along one axis: (before, after); the extra pixel goes after."""
    out = (size + s - 1) // s
    eff = (k - 1) * d + 1
    total = max((out - 1) * s + eff - size, 0)
    return total // 2, total - total // 2


def _padding_mode(b: _Builder, op: Operator) -> str:
    p = op.options.get("Padding", 0)
    if p not in (0, 1):
        raise b.fail(f"padding mode {p} is not supported")
    return "SAME" if p == 0 else "VALID"


def _folded_zero_pad(b: _Builder, x_ti: int) -> tuple[int, tuple[int, int, int, int]]:
    """If x is PAD(y) with zeros on H and W only, return (y, (top, bottom, left, right)) so the
    pad can be merged into a convolution; else (x, zeros)."""
    p = b.producer.get(x_ti)
    if p is None or p.op not in ("PAD", "PADV2") or b.rank(x_ti) != 4:
        return x_ti, (0, 0, 0, 0)
    if p.op == "PADV2" and len(p.inputs) > 2 and p.inputs[2] >= 0:
        v = b.folded(p.inputs[2])
        if v is None or float(v.reshape(-1)[0]) != 0.0:
            return x_ti, (0, 0, 0, 0)
    pads = b.folded(p.inputs[1])
    if pads is None:
        return x_ti, (0, 0, 0, 0)
    pads = pads.astype(np.int64).reshape(4, 2)
    if pads[0].any() or pads[3].any():
        return x_ti, (0, 0, 0, 0)
    return p.inputs[0], (int(pads[1, 0]), int(pads[1, 1]), int(pads[2, 0]), int(pads[2, 1]))


def _conv_padding(b: _Builder, op: Operator, x_ti: int, kh: int, kw: int):
    """Input tensor after folding a preceding zero PAD, and either symmetric conv padding
    (ph, pw) or an explicit F.pad tuple (left, right, top, bottom)."""
    x_ti, (t, bo, le, r) = _folded_zero_pad(b, x_ti)
    _, h, w, _ = b.shape(x_ti)
    h += t + bo
    w += le + r
    if _padding_mode(b, op) == "SAME":
        sh, sw = op.options.get("StrideH", 1), op.options.get("StrideW", 1)
        dh, dw = op.options.get("DilationHFactor", 1), op.options.get("DilationWFactor", 1)
        pt, pb = _same_pads(h, kh, sh, dh)
        pl, pr = _same_pads(w, kw, sw, dw)
        t, bo, le, r = t + pt, bo + pb, le + pl, r + pr
    if t == bo and le == r:
        return x_ti, (t, le), None
    return x_ti, (0, 0), (le, r, t, bo)


def _bias(b: _Builder, op: Operator, slot: int, n: int) -> np.ndarray | None:
    if len(op.inputs) <= slot or op.inputs[slot] < 0:
        return None
    bias = b.weight(op.inputs[slot]).reshape(-1)
    if bias.size != n:
        raise b.fail(f"bias has {bias.size} values for {n} output channels")
    return bias


def _set_params(mod: nn.Module, w: np.ndarray, bias: np.ndarray | None) -> None:
    with torch.no_grad():
        mod.weight.copy_(torch.from_numpy(np.ascontiguousarray(w)))
        if bias is not None:
            mod.bias.copy_(torch.from_numpy(bias))


# ---------------------------------------------------------------------------
# Op handlers (one per TFLite op)
# ---------------------------------------------------------------------------


@_handles("CONV_2D")
def _conv_2d(b: _Builder, op: Operator) -> None:
    w = b.weight(op.inputs[1])  # [O, KH, KW, I/groups]
    o, kh, kw, ig = w.shape
    x_ti, pad, explicit = _conv_padding(b, op, op.inputs[0], kh, kw)
    cin = b.shape(x_ti)[3]
    if cin % ig:
        raise b.fail(f"input has {cin} channels, weights expect a multiple of {ig}")
    groups = cin // ig
    conv = nn.Conv2d(
        cin,
        o,
        (kh, kw),
        stride=(op.options.get("StrideH", 1), op.options.get("StrideW", 1)),
        padding=pad,
        dilation=(op.options.get("DilationHFactor", 1), op.options.get("DilationWFactor", 1)),
        groups=groups,
        bias=len(op.inputs) > 2 and op.inputs[2] >= 0,
    )
    _set_params(conv, w.transpose(0, 3, 1, 2), _bias(b, op, 2, o))
    act = activation(op.options.get("FusedActivationFunction", 0), op.where())
    b.emit(Conv(conv, explicit, act), [b.value(x_ti, NCHW)], op.outputs[0], NCHW)


@_handles("DEPTHWISE_CONV_2D")
def _depthwise_conv_2d(b: _Builder, op: Operator) -> None:
    w = b.weight(op.inputs[1])  # [1, KH, KW, C*multiplier]
    _, kh, kw, co = w.shape
    x_ti, pad, explicit = _conv_padding(b, op, op.inputs[0], kh, kw)
    cin = b.shape(x_ti)[3]
    if co % cin:
        raise b.fail(f"{co} output channels is not a multiple of {cin} input channels")
    conv = nn.Conv2d(
        cin,
        co,
        (kh, kw),
        stride=(op.options.get("StrideH", 1), op.options.get("StrideW", 1)),
        padding=pad,
        dilation=(op.options.get("DilationHFactor", 1), op.options.get("DilationWFactor", 1)),
        groups=cin,
        bias=len(op.inputs) > 2 and op.inputs[2] >= 0,
    )
    _set_params(conv, w.transpose(3, 0, 1, 2), _bias(b, op, 2, co))
    act = activation(op.options.get("FusedActivationFunction", 0), op.where())
    b.emit(Conv(conv, explicit, act), [b.value(x_ti, NCHW)], op.outputs[0], NCHW)


def _transpose_conv(
    b: _Builder,
    op: Operator,
    x_ti: int,
    w: np.ndarray,
    bias: np.ndarray | None,
    same: bool,
    sh: int,
    sw: int,
    act: nn.Module,
) -> None:
    """TFLite transposed convolution: weights [O, KH, KW, I]; the full (in-1)*s+k result is
    cropped at `before` = TFLite's SAME padding (extra pixel cropped at the end)."""
    o, kh, kw, i = w.shape
    _, ih, iw, cin = b.shape(x_ti)
    _, oh, ow, oc = b.shape(op.outputs[0])
    if cin != i or oc != o:
        raise b.fail(f"weights {list(w.shape)} do not match input {cin} / output {oc} channels")

    def axis(in_size, out_size, k, s):
        full = (in_size - 1) * s + k
        before = 0
        if same:  # TFLite: padding of the forward conv that maps out_size -> ceil(out_size/s)
            total = max((((out_size + s - 1) // s) - 1) * s + k - out_size, 0)
            before = total // 2
        extra = max(before + out_size - full, 0)  # zeros past the end -> output_padding
        if extra >= s:
            raise b.fail(f"output size {out_size} is not reachable from input {in_size} (k={k}, s={s})")
        return before, extra

    bh, eh = axis(ih, oh, kh, sh)
    bw, ew = axis(iw, ow, kw, sw)
    full_h, full_w = (ih - 1) * sh + kh + eh, (iw - 1) * sw + kw + ew
    # symmetric crops go into torch's padding; anything else is an explicit crop
    sym = (full_h - oh == 2 * bh) and (full_w - ow == 2 * bw)
    conv = nn.ConvTranspose2d(
        cin,
        o,
        (kh, kw),
        stride=(sh, sw),
        padding=(bh, bw) if sym else 0,
        output_padding=(eh, ew),
        bias=bias is not None,
    )
    _set_params(conv, w.transpose(3, 0, 1, 2), bias)
    crop = None if sym else (bh, oh, bw, ow)
    b.emit(TransposeConv(conv, crop, act), [b.value(x_ti, NCHW)], op.outputs[0], NCHW)


@_handles("TRANSPOSE_CONV")
def _transpose_conv_builtin(b: _Builder, op: Operator) -> None:
    w = b.weight(op.inputs[1])
    bias = _bias(b, op, 3, w.shape[0])
    act = activation(op.options.get("FusedActivationFunction", 0), op.where())
    _transpose_conv(
        b,
        op,
        op.inputs[2],
        w,
        bias,
        _padding_mode(b, op) == "SAME",
        op.options.get("StrideH", 1),
        op.options.get("StrideW", 1),
        act,
    )


@_handles("CUSTOM:Convolution2DTransposeBias")
def _transpose_conv_bias_custom(b: _Builder, op: Operator) -> None:
    # MediaPipe's op: inputs (x, weights [O,KH,KW,I], bias [O]); custom options are the raw
    # C struct {TfLitePadding padding; int stride_width; int stride_height;} (SAME=1, VALID=2).
    if len(op.custom_options) < 12:
        raise b.fail(f"custom options are {len(op.custom_options)} bytes, expected 12")
    padding, sw, sh = struct.unpack("<3i", op.custom_options[:12])
    if padding not in (1, 2):
        raise b.fail(f"custom padding {padding} is not supported")
    w = b.weight(op.inputs[1])
    _transpose_conv(b, op, op.inputs[0], w, _bias(b, op, 2, w.shape[0]), padding == 1, sh, sw, nn.Identity())


def _pool(b: _Builder, op: Operator, kind: str) -> None:
    x_ti = op.inputs[0]
    _, h, w, _ = b.shape(x_ti)
    kh, kw = op.options["FilterHeight"], op.options["FilterWidth"]
    sh, sw = op.options["StrideH"], op.options["StrideW"]
    pt = pb = pl = pr = 0
    if _padding_mode(b, op) == "SAME":
        pt, pb = _same_pads(h, kh, sh, 1)
        pl, pr = _same_pads(w, kw, sw, 1)
    explicit = None
    pad = (pt, pl)
    if (pt, pl) != (pb, pr) or pt * 2 > kh or pl * 2 > kw:
        if kind == "avg":
            raise b.fail("asymmetric SAME padding of AVERAGE_POOL_2D is not supported")
        explicit, pad = (pl, pr, pt, pb), (0, 0)
    if kind == "max":
        pool = nn.MaxPool2d((kh, kw), (sh, sw), padding=pad)
    else:  # TFLite averages over the valid taps only
        pool = nn.AvgPool2d((kh, kw), (sh, sw), padding=pad, count_include_pad=False)
    act = activation(op.options.get("FusedActivationFunction", 0), op.where())
    b.emit(Pool(pool, explicit, act), [b.value(x_ti, NCHW)], op.outputs[0], NCHW)


@_handles("MAX_POOL_2D")
def _max_pool_2d(b: _Builder, op: Operator) -> None:
    _pool(b, op, "max")


@_handles("AVERAGE_POOL_2D")
def _average_pool_2d(b: _Builder, op: Operator) -> None:
    _pool(b, op, "avg")


_UNARY = {
    "RELU": "relu",
    "RELU6": "relu6",
    "RELU_N1_TO_1": "relu_n1_to_1",
    "LOGISTIC": "sigmoid",
    "TANH": "tanh",
    "HARD_SWISH": "hardswish",
    "EXP": "exp",
    "SQRT": "sqrt",
    "RSQRT": "rsqrt",
    "NEG": "neg",
    "ABS": "abs",
    "LOG": "log",
    "GELU": "gelu",
}


@_handles(*_UNARY)
def _unary(b: _Builder, op: Operator) -> None:
    if op.op == "GELU" and op.options.get("Approximate"):
        raise b.fail("approximate GELU is not supported")
    x = op.inputs[0]
    perm = b.layout(x)
    b.emit(Unary(_UNARY[op.op]), [b.value(x, perm)], op.outputs[0], perm)


@_handles("LEAKY_RELU")
def _leaky_relu(b: _Builder, op: Operator) -> None:
    x = op.inputs[0]
    perm = b.layout(x)
    b.emit(LeakyRelu(op.options["Alpha"]), [b.value(x, perm)], op.outputs[0], perm)


def _leaky_pattern(b: _Builder, op: Operator) -> tuple[int, float] | None:
    """MAXIMUM(x, MUL(x, a)) (either order) with 0 <= a <= 1 is leaky_relu(x, a) exactly."""
    for xi, mi in ((0, 1), (1, 0)):
        x, m = op.inputs[xi], op.inputs[mi]
        p = b.producer.get(m)
        if p is None or p.op != "MUL" or p.options.get("FusedActivationFunction", 0) != 0:
            continue
        for a_slot in (0, 1):
            a = b.folded(p.inputs[a_slot])
            if p.inputs[1 - a_slot] == x and a is not None and a.size == 1 and 0.0 <= float(a.reshape(())) <= 1.0:
                return x, float(a.reshape(()))
    return None


_BINARY = {"ADD": "add", "SUB": "sub", "MUL": "mul", "DIV": "div", "MAXIMUM": "maximum", "MINIMUM": "minimum"}


@_handles(*_BINARY)
def _binary(b: _Builder, op: Operator) -> None:
    if op.op == "MAXIMUM":
        leaky = _leaky_pattern(b, op)
        if leaky is not None:
            x, alpha = leaky
            perm = b.layout(x)
            b.emit(LeakyRelu(alpha), [b.value(x, perm)], op.outputs[0], perm)
            return
    out = op.outputs[0]
    rank = b.rank(out)
    act = activation(op.options.get("FusedActivationFunction", 0), op.where())
    a, c = op.inputs[:2]
    ca, cc = b.folded(a), b.folded(c)
    if ca is not None and cc is not None:
        raise b.fail("both operands are constants (constant folding is not supported)")
    if ca is not None or cc is not None:
        x, k, const_first = (c, ca, True) if ca is not None else (a, cc, False)
        perm = b.layout(x) if b.rank(x) == rank else _ident(rank)
        const = b.const_in_layout(k, rank, perm)
        b.emit(Binary(_BINARY[op.op], act, const, const_first), [b.activation_value(x, rank, perm)], out, perm)
        return
    # layout of the first full-rank operand; the other one follows it
    perm = next((b.layout(t) for t in (a, c) if b.rank(t) == rank), _ident(rank))
    b.emit(
        Binary(_BINARY[op.op], act), [b.activation_value(a, rank, perm), b.activation_value(c, rank, perm)], out, perm
    )


@_handles("CONCATENATION")
def _concatenation(b: _Builder, op: Operator) -> None:
    rank = b.rank(op.outputs[0])
    axis = op.options.get("Axis", 0) % rank
    perm = next((b.layout(t) for t in op.inputs if b.folded(t) is None), _ident(rank))
    act = activation(op.options.get("FusedActivationFunction", 0), op.where())
    b.emit(Cat(perm.index(axis), act), [b.value(t, perm) for t in op.inputs], op.outputs[0], perm)


@_handles("TRANSPOSE")
def _transpose(b: _Builder, op: Operator) -> None:
    q = tuple(int(v) for v in b.const(op.inputs[1]).reshape(-1))
    x = op.inputs[0]
    p_in = b.layout(x)
    q_inv = inverse_perm(q)
    p_out = tuple(q_inv[p] for p in p_in)  # same data, relabelled: no step
    b.alias(op.outputs[0], b.value(x, p_in), p_out)


@_handles("RESHAPE", "SQUEEZE", "EXPAND_DIMS")
def _reshape(b: _Builder, op: Operator) -> None:
    x, out = op.inputs[0], op.outputs[0]
    shape = b.shape(out)
    if math.prod(shape) != math.prod(b.shape(x)):
        raise b.fail(f"reshape {list(b.shape(x))} -> {list(shape)} changes the element count")
    b.emit(Reshape(shape), [b.value(x, _ident(b.rank(x)))], out, _ident(len(shape)))


@_handles("STRIDED_SLICE")
def _strided_slice(b: _Builder, op: Operator) -> None:
    x, out = op.inputs[0], op.outputs[0]
    o = op.options
    if o.get("EllipsisMask", 0) or o.get("NewAxisMask", 0):
        raise b.fail("ellipsis_mask / new_axis_mask are not supported")
    begin = b.const(op.inputs[1]).astype(np.int64).reshape(-1)
    end = b.const(op.inputs[2]).astype(np.int64).reshape(-1)
    strides = b.const(op.inputs[3]).astype(np.int64).reshape(-1)
    shape = b.shape(x)
    ranges, shrink = [], []
    for d, n in enumerate(shape):
        if d >= len(begin):
            ranges.append((0, n, 1))
            continue
        s = int(strides[d])
        if s <= 0:
            raise b.fail(f"stride {s} on axis {d} is not supported")
        lo = 0 if (o.get("BeginMask", 0) >> d) & 1 else int(begin[d])
        lo = min(max(lo + n if lo < 0 else lo, 0), n)
        if (o.get("ShrinkAxisMask", 0) >> d) & 1:
            ranges.append((lo, lo + 1, 1))
            shrink.append(d)
            continue
        if o.get("Offset", False):
            hi = lo + int(end[d])
        else:
            hi = n if (o.get("EndMask", 0) >> d) & 1 else int(end[d])
            hi = hi + n if hi < 0 else hi
        ranges.append((lo, min(max(hi, lo), n), s))
    perm = b.layout(x) if not shrink else _ident(len(shape))
    torch_ranges = [ranges[p] for p in perm]
    b.emit(Slice(torch_ranges, shrink), [b.value(x, perm)], out, perm if not shrink else _ident(b.rank(out)))


@_handles("PAD", "PADV2")
def _pad(b: _Builder, op: Operator) -> None:
    x, out = op.inputs[0], op.outputs[0]
    pads = b.const(op.inputs[1]).astype(np.int64).reshape(-1, 2)
    value = 0.0
    if op.op == "PADV2" and len(op.inputs) > 2 and op.inputs[2] >= 0:
        value = float(b.const(op.inputs[2]).reshape(-1)[0])
    perm = b.layout(x)
    flat: list[int] = []
    for d in reversed(range(len(perm))):  # F.pad lists the last torch dim first
        flat += [int(pads[perm[d], 0]), int(pads[perm[d], 1])]
    while len(flat) > 2 and flat[-2:] == [0, 0]:
        flat = flat[:-2]
    b.emit(Pad(flat, value), [b.value(x, perm)], out, perm)


def _reduce(b: _Builder, op: Operator, kind: str) -> None:
    x, out = op.inputs[0], op.outputs[0]
    r = b.rank(x)
    axes = sorted({int(a) % r for a in b.const(op.inputs[1]).reshape(-1)})
    keep = bool(op.options.get("KeepDims", False))
    perm = b.layout(x)
    dims = sorted(perm.index(a) for a in axes)
    if keep:
        out_perm = perm
    else:
        kept = [perm[i] for i in range(r) if i not in dims]  # logical dims, torch order
        order = sorted(kept)
        out_perm = tuple(order.index(v) for v in kept)
    b.emit(Reduce(kind, dims, keep), [b.value(x, perm)], out, out_perm)


@_handles("MEAN")
def _mean(b: _Builder, op: Operator) -> None:
    _reduce(b, op, "mean")


@_handles("SUM")
def _sum(b: _Builder, op: Operator) -> None:
    _reduce(b, op, "sum")


@_handles("REDUCE_MAX")
def _reduce_max(b: _Builder, op: Operator) -> None:
    _reduce(b, op, "max")


@_handles("REDUCE_MIN")
def _reduce_min(b: _Builder, op: Operator) -> None:
    _reduce(b, op, "min")


def bilinear_matrix(n_in: int, n_out: int, align_corners: bool, half_pixel: bool) -> np.ndarray:
    """[n_out, n_in] matrix of TFLite's bilinear sampling along one axis (scale computed in
    float32 as TFLite does). Legacy mode (both flags false): src = dst * in / out."""
    m = np.zeros((n_out, n_in), np.float64)
    if align_corners and n_out > 1:
        scale = np.float32((n_in - 1) / (n_out - 1))
    else:
        scale = np.float32(n_in / n_out)
    for d in range(n_out):
        src = (np.float32(d) + np.float32(0.5)) * scale - np.float32(0.5) if half_pixel else np.float32(d) * scale
        src = float(src)
        lo = math.floor(src)
        frac = src - lo
        i0, i1 = min(max(lo, 0), n_in - 1), min(max(lo + 1, 0), n_in - 1)
        m[d, i0] += 1.0 - frac
        m[d, i1] += frac
    return m


@_handles("RESIZE_BILINEAR")
def _resize_bilinear(b: _Builder, op: Operator) -> None:
    x, out = op.inputs[0], op.outputs[0]
    _, ih, iw, _ = b.shape(x)
    _, oh, ow, _ = b.shape(out)
    ac, hp = bool(op.options.get("AlignCorners", False)), bool(op.options.get("HalfPixelCenters", False))
    if ac and hp:
        raise b.fail("align_corners and half_pixel_centers both set")
    if hp:  # TFLite's half-pixel rule == torch align_corners=False (both clamp at 0)
        mod = Interpolate((oh, ow), "bilinear", False)
    elif ac:
        mod = Interpolate((oh, ow), "bilinear", True)
    else:  # legacy TF sampling: no torch equivalent, constant matrices
        mh = bilinear_matrix(ih, oh, False, False) if ih != oh else None
        mw = bilinear_matrix(iw, ow, False, False) if iw != ow else None
        mod = MatrixResize(mh, mw)
    b.emit(mod, [b.value(x, NCHW)], out, NCHW)


@_handles("RESIZE_NEAREST_NEIGHBOR")
def _resize_nearest(b: _Builder, op: Operator) -> None:
    x, out = op.inputs[0], op.outputs[0]
    _, ih, iw, _ = b.shape(x)
    _, oh, ow, _ = b.shape(out)
    if op.options.get("AlignCorners", False):
        raise b.fail("align_corners=True is not supported")
    # torch 'nearest' is src = floor(dst * in / out) (TFLite's legacy rule). With half-pixel
    # centres TFLite takes floor((dst + 0.5) * in / out), the same index for integer upscales.
    if op.options.get("HalfPixelCenters", False) and (oh % ih or ow % iw):
        raise b.fail(f"half-pixel nearest resize {ih}x{iw} -> {oh}x{ow} is not an integer upscale")
    b.emit(Interpolate((oh, ow), "nearest", None), [b.value(x, NCHW)], out, NCHW)


@_handles("BATCH_MATMUL")
def _batch_matmul(b: _Builder, op: Operator) -> None:
    out = op.outputs[0]
    adj = [bool(op.options.get("AdjX", False)), bool(op.options.get("AdjY", False))]
    keys = []
    for i, t in enumerate(op.inputs[:2]):
        if b.folded(t) is not None:
            keys.append(b.value(t, _ident(b.rank(t))))
            continue
        r, p = b.rank(t), b.layout(t)
        swapped = _ident(r - 2) + (r - 1, r - 2)
        if r >= 2 and p == swapped:  # held transposed already: flip the adjoint instead
            adj[i] = not adj[i]
            keys.append(b.value(t, p))
        else:
            keys.append(b.value(t, _ident(r)))
    b.emit(MatMul(adj[0], adj[1]), keys, out, _ident(b.rank(out)))


@_handles("SOFTMAX")
def _softmax(b: _Builder, op: Operator) -> None:
    x = op.inputs[0]
    perm = b.layout(x)
    b.emit(Softmax(perm.index(len(perm) - 1), op.options.get("Beta", 1.0)), [b.value(x, perm)], op.outputs[0], perm)


@_handles("FULLY_CONNECTED")
def _fully_connected(b: _Builder, op: Operator) -> None:
    w = b.weight(op.inputs[1])  # [O, I]
    o, i = w.shape
    x, out = op.inputs[0], op.outputs[0]
    key = b.value(x, _ident(b.rank(x)))
    if b.shape(x)[-1] != i or not op.options.get("KeepNumDims", False) and b.rank(x) != 2:
        tmp = key + "_flat"
        b.steps.append((Reshape((-1, i)), [key], [tmp]))
        key = tmp
    lin = nn.Linear(i, o, bias=len(op.inputs) > 2 and op.inputs[2] >= 0)
    _set_params(lin, w, _bias(b, op, 2, o))
    act = activation(op.options.get("FusedActivationFunction", 0), op.where())
    b.emit(Linear(lin, act), [key], out, _ident(b.rank(out)))


@_handles("DEQUANTIZE")
def _dequantize(b: _Builder, op: Operator) -> None:
    if b.folded(op.outputs[0]) is None:
        raise b.fail("DEQUANTIZE of a computed (non-constant) tensor is not supported")
    # constant weights: read through _Builder.folded where they are used


# ---------------------------------------------------------------------------
# Entry point
# ---------------------------------------------------------------------------


def _resolve(g: Graph, names: Iterable[int | str] | None, default: list[int]) -> list[int]:
    if names is None:
        return list(default)
    return [n if isinstance(n, int) else g.tensor_by_name(n).index for n in names]


def _live_operators(g: Graph, outputs: list[int]) -> list[Operator]:
    producer = {t: op for op in g.operators for t in op.outputs}
    live, stack = set(), list(outputs)
    while stack:
        t = stack.pop()
        op = producer.get(t)
        if op is None or op.index in live:
            continue
        live.add(op.index)
        stack.extend(i for i in op.inputs if i >= 0)
    return [op for op in g.operators if op.index in live]


def _prune(steps, output_keys):
    needed = set(output_keys)
    kept = []
    for step in reversed(steps):
        if any(k in needed for k in step[2]):
            kept.append(step)
            needed.update(step[1])
    return list(reversed(kept))


def build_module(
    model: str | Graph, outputs: Iterable[int | str] | None = None, check_shapes: bool = True
) -> TFLiteModule:
    """Rebuild `model` (a path or a read Graph) as a TFLiteModule.

    outputs: tensor names or indices to return (default: the graph's outputs); everything
    they do not depend on is dropped, which is how post-processing tails are cut off.
    The module takes the graph inputs (4-D ones as NCHW) and returns the outputs (4-D ones as NCHW).
    """
    g = model if isinstance(model, Graph) else read_tflite(model)
    out_ids = _resolve(g, outputs, g.outputs)
    b = _Builder(g)
    input_keys = []
    for ti in g.inputs:
        t = g.tensors[ti]
        if t.type_name != "FLOAT32":
            raise TFLiteImportError(f"{g.path}: input {t.name!r} is {t.type_name}; only float32 inputs are supported")
        perm = NCHW if len(t.shape) == 4 else _ident(len(t.shape))
        key = b._key(ti, perm)
        b.avail[ti] = {perm: key}
        b.home[ti] = (key, perm)
        input_keys.append(key)
    for op in _live_operators(g, out_ids):
        b.op = op
        handler = _HANDLERS.get(op.op)
        if handler is None:
            raise TFLiteImportError(f"{g.path}: {op.where()}: operator {op.op} is not supported by the importer")
        for t in op.outputs:
            if g.tensors[t].type_name not in ("FLOAT32",) and op.op != "DEQUANTIZE":
                raise b.fail(
                    f"output tensor {g.tensors[t].name!r} is {g.tensors[t].type_name}; "
                    "only float32 activations are supported (cut the graph before it)"
                )
        handler(b, op)
    b.op = None
    output_keys = []
    for ti in out_ids:
        perm = NCHW if b.rank(ti) == 4 else _ident(b.rank(ti))
        output_keys.append(b.value(ti, perm))
    steps = _prune(b.steps, output_keys)
    tensor_keys = {ti: (k, p) for ti, (k, p) in b.home.items()}
    module = TFLiteModule(steps, input_keys, output_keys, tensor_keys, g.path, g.inputs, out_ids).eval()
    if check_shapes:
        _check_shapes(module, g)
    return module


@torch.no_grad()
def _check_shapes(module: TFLiteModule, g: Graph) -> None:
    """Run once on zeros and compare every computed tensor's shape with the graph's."""
    xs = []
    for ti in g.inputs:
        s = g.tensors[ti].shape
        xs.append(torch.zeros([s[0], s[3], s[1], s[2]] if len(s) == 4 else list(s)))
    producer = {t: op for op in g.operators for t in op.outputs}
    for ti, arr in module.tflite_tensors(*xs).items():
        want = g.tensors[ti].shape
        if tuple(arr.shape) != tuple(want):
            op = producer.get(ti)
            where = op.where() if op else "input"
            raise TFLiteImportError(
                f"{g.path}: {where}: built output has shape {list(arr.shape)}, "
                f"the graph says {list(want)} (tensor {g.tensors[ti].name!r})"
            )
