"""The single-op cases exported by python/export_ops.py into tests/ops/.

Each Case is a tiny torch.nn.Module that calls one registered op (one argument
variant), plus its inputs. `op` is the registered name (python/list_ops.py) the
case checks; export_ops.py verifies that the exported program really contains
it (in the VkGraph chain of vulkan.pte, or for ops the Vulkan partitioner does
not take, as a CPU KernelCall of plain.pte that the engine reads as that op).

Export paths (Case.path):

  standard        torch.export -> to_edge_transform_and_lower(partitioner=
                  [VulkanPartitioner()]) -> to_executorch, and the same without a
                  partitioner for plain.pte (what python/export.py does).
  preserve        as standard, but `preserve` ops are kept from decomposition:
                  added to the partitioner's ops_to_not_decompose (vulkan.pte)
                  and to EdgeCompileConfig(preserve_ops=...) (plain.pte). Used
                  for registered names that the standard path never emits.
  skip_dim_order  EdgeCompileConfig(_skip_dim_order=True): ExecuTorch keeps
                  aten._to_copy / aten.clone instead of rewriting them to
                  dim_order_ops._to_dim_order_copy / _clone_dim_order.

Keep shapes small and odd; inputs are random normal unless the op's domain
needs otherwise (Inp.kind).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import torch
import torch.nn as nn
import torch.nn.functional as F

A = torch.ops.aten


@dataclass(frozen=True)
class Inp:
    shape: tuple[int, ...]
    # normal: randn * scale; positive: U(lo, lo + scale); away0: sign * (lo + |randn| * scale);
    # halves: randn * scale rounded to multiples of 0.5 (ties for round());
    # int: randint(lo, hi) of `dtype`; bool: randn > 0.
    kind: str = "normal"
    dtype: torch.dtype = torch.float32
    scale: float = 1.0
    lo: float = 0.0
    hi: float = 0.0


def N(*shape, scale=1.0) -> Inp:
    return Inp(tuple(shape), "normal", scale=scale)


def P(*shape, lo=0.1, scale=3.0) -> Inp:
    return Inp(tuple(shape), "positive", lo=lo, scale=scale)


def I(*shape, lo=-8, hi=9, dtype=torch.int32) -> Inp:  # noqa: E743  (N, P, I: the case table's input kinds)
    return Inp(tuple(shape), "int", dtype=dtype, lo=lo, hi=hi)


@dataclass
class Case:
    op: str  # registered op name this case checks
    case: str  # variant slug (directory suffix)
    desc: str  # what the variant exercises
    make: Callable[[], nn.Module]
    inputs: list[Inp]
    # "vulkan": op must be in the VkGraph chain of vulkan.pte. "plain": the Vulkan partitioner
    # does not take it; it must be a KernelCall of plain.pte (read by the engine as `op`).
    where: str = "vulkan"
    path: str = "standard"  # standard | preserve | skip_dim_order
    # preserve path: OpOverloads kept from decomposition. vulkan.pte keeps them through the
    # partitioner's ops_to_not_decompose only when where == "vulkan" (the partitioner must then
    # take them); otherwise vulkan.pte is the standard export.
    preserve: list = field(default_factory=list)
    # plain.pte keeps them through EdgeCompileConfig(preserve_ops); False where the op has no
    # out variant (aten.max_pool2d), so plain.pte cannot keep it and is the standard export.
    preserve_plain: bool = True
    note: str = ""  # anything surprising about this case


def StateBuffer(shape: tuple[int, ...]) -> torch.Tensor:  # noqa: N802  (a case-table factory, like N, P, I)
    """A zero tensor that Fn registers as a buffer (a model's state, written in place)."""
    return torch.zeros(shape)


class Fn(nn.Module):
    """forward(*xs) = fn(self, *xs); keyword arguments become submodules / attributes."""

    def __init__(self, fn: Callable, **attrs):
        super().__init__()
        self.fn = fn
        for k, v in attrs.items():
            if isinstance(v, torch.Tensor) and not isinstance(v, nn.Parameter):
                self.register_buffer(k, v)  # state the forward may write in place (copy_)
            else:
                setattr(self, k, v)

    def forward(self, *xs):
        return self.fn(self, *xs)


def f(fn: Callable, **attrs) -> Callable[[], nn.Module]:
    """Factory of an Fn module (attrs may be factories, called at construction)."""

    def make():
        return Fn(fn, **{k: (v() if callable(v) and not isinstance(v, nn.Module) else v) for k, v in attrs.items()})

    return make


def unary(fn: Callable) -> Callable[[], nn.Module]:
    return f(lambda s, x: fn(x))


def _rand_affine(m: nn.Module) -> nn.Module:
    """Non-trivial affine weights (and running stats for batch norm)."""
    with torch.no_grad():
        if getattr(m, "weight", None) is not None:
            m.weight.copy_(torch.rand(m.weight.shape) + 0.5)
        if getattr(m, "bias", None) is not None:
            m.bias.copy_(torch.randn(m.bias.shape) * 0.2)
        if getattr(m, "running_mean", None) is not None:
            m.running_mean.copy_(torch.randn(m.running_mean.shape) * 0.3)
            m.running_var.copy_(torch.rand(m.running_var.shape) + 0.5)
    return m


def conv(*a, scale: float = 1.0, **k) -> Callable[[], nn.Module]:
    def make():
        c = nn.Conv2d(*a, **k)
        if scale != 1.0:
            with torch.no_grad():
                c.weight.mul_(scale)
        return c

    return make


def convt(*a, **k) -> Callable[[], nn.Module]:
    return lambda: nn.ConvTranspose2d(*a, **k)


def cases() -> list[Case]:
    C: list[Case] = []

    def add(*a, **k):
        C.append(Case(*a, **k))

    # The cases are a table, one add() per case, read across; the formatter would put every
    # argument of a long call on its own line (about three times as many lines).
    # fmt: off
    # ------------------------------------------------------------------ elementwise binary
    add("aten.add.Tensor", "same_shape", "x + y, [3,5,7]", f(lambda s, x, y: x + y), [N(3, 5, 7), N(3, 5, 7)])
    add("aten.add.Tensor", "broadcast", "x [2,3,5] + y [3,1] (broadcast on both sides)",
        f(lambda s, x, y: x + y), [N(2, 3, 5), N(3, 1)])
    add("aten.add.Tensor", "broadcast_rank4", "x [1,4,7,5] + y [1,4,1,1]",
        f(lambda s, x, y: x + y), [N(1, 4, 7, 5), N(1, 4, 1, 1)])
    add("aten.add.Tensor", "alpha", "torch.add(x, y, alpha=1.5)",
        f(lambda s, x, y: torch.add(x, y, alpha=1.5)), [N(3, 7), N(3, 7)])
    add("aten.add.Tensor", "alpha_neg_int", "torch.add(x, y, alpha=-2) (integer alpha)",
        f(lambda s, x, y: torch.add(x, y, alpha=-2)), [N(3, 7), N(3, 7)])
    add("aten.add.Tensor", "int32", "int32 x + int32 y", f(lambda s, x, y: x + y), [I(3, 7), I(3, 7)])
    add("aten.add.Tensor", "int64", "int64 x + int64 y (INT32 tensors in the VkGraph)",
        f(lambda s, x, y: x + y), [I(3, 7, dtype=torch.int64), I(3, 7, dtype=torch.int64)])
    add("aten.mul.Tensor", "same_shape", "x * y, [3,5,7]", f(lambda s, x, y: x * y), [N(3, 5, 7), N(3, 5, 7)])
    add("aten.mul.Tensor", "broadcast", "x [2,3,5] * y [5]", f(lambda s, x, y: x * y), [N(2, 3, 5), N(5)])
    add("aten.mul.Tensor", "broadcast_rank4", "x [1,4,7,5] * y [1,4,1,1]",
        f(lambda s, x, y: x * y), [N(1, 4, 7, 5), N(1, 4, 1, 1)])
    add("aten.mul.Tensor", "int32", "int32 x * int32 y", f(lambda s, x, y: x * y), [I(3, 7), I(3, 7)])

    sub = "aten.sub.Tensor"
    add(sub, "same_shape", "x - y, [3,5,7]", f(lambda s, x, y: x - y), [N(3, 5, 7), N(3, 5, 7)])
    add(sub, "broadcast", "x [2,3,5] - y [3,1]", f(lambda s, x, y: x - y), [N(2, 3, 5), N(3, 1)])
    add(sub, "alpha", "torch.sub(x, y, alpha=2) (integer alpha)", f(lambda s, x, y: torch.sub(x, y, alpha=2)),
        [N(3, 7), N(3, 7)])
    add(sub, "alpha_float", "torch.sub(x, y, alpha=0.25)", f(lambda s, x, y: torch.sub(x, y, alpha=0.25)),
        [N(3, 7), N(3, 7)])
    add(sub, "int32", "int32 x - int32 y", f(lambda s, x, y: x - y), [I(3, 7), I(3, 7)])
    dv = "aten.div.Tensor"
    add(dv, "same_shape", "x / y, y away from 0", f(lambda s, x, y: x / y),
        [N(3, 5, 7), Inp((3, 5, 7), "away0", lo=0.25)])
    add(dv, "broadcast", "x [2,3,5] / y [5]", f(lambda s, x, y: x / y), [N(2, 3, 5), Inp((5,), "away0", lo=0.5)])
    dm = "aten.div.Tensor_mode"
    for mode in ("floor", "trunc"):
        add(dm, mode, f"torch.div(x, y, rounding_mode='{mode}') on floats",
            f(lambda s, x, y, mode=mode: torch.div(x, y, rounding_mode=mode)),
            [N(3, 5, 7, scale=4.0), Inp((3, 5, 7), "away0", lo=0.5)])
        add(dm, f"{mode}_int32", f"torch.div(x, y, rounding_mode='{mode}') on int32 (y nonzero)",
            f(lambda s, x, y, mode=mode: torch.div(x, y, rounding_mode=mode)),
            [I(3, 5, 7, lo=-20, hi=21), I(3, 5, 7, lo=1, hi=6)])
    for nm, fn in [("maximum", torch.maximum), ("minimum", torch.minimum)]:
        # The Vulkan partitioner has minimum but no maximum.
        w, note = ("plain", "the Vulkan partitioner does not take it") if nm == "maximum" else ("vulkan", "")
        add(f"aten.{nm}.default", "same_shape", f"torch.{nm}(x, y)", f(lambda s, x, y, fn=fn: fn(x, y)),
            [N(3, 5, 7), N(3, 5, 7)], where=w, note=note)
        add(f"aten.{nm}.default", "broadcast", f"torch.{nm}(x [2,3,5], y [3,1])",
            f(lambda s, x, y, fn=fn: fn(x, y)), [N(2, 3, 5), N(3, 1)], where=w, note=note)
    for md, fn in [("fmod", torch.fmod), ("remainder", torch.remainder)]:
        md_note = f"the Vulkan partitioner does not take {md}"
        add(f"aten.{md}.Tensor", "float", f"torch.{md}(x, y), either sign, |y| >= 0.3",
            f(lambda s, x, y, fn=fn: fn(x, y)), [N(3, 5, 7, scale=6.0), Inp((3, 5, 7), "away0", lo=0.3)],
            where="plain", note=md_note)
        add(f"aten.{md}.Tensor", "broadcast_int32", f"torch.{md}(x [3,5,7], y [7]) on int32, y nonzero",
            f(lambda s, x, y, fn=fn: fn(x, y)), [I(3, 5, 7, lo=-20, hi=21), I(7, lo=1, hi=6)],
            where="plain", note=md_note)
        add(f"aten.{md}.Scalar", "float", f"torch.{md}(x, -1.25)", unary(lambda x, fn=fn: fn(x, -1.25)),
            [N(3, 5, 7, scale=6.0)], where="plain", note=md_note)
    pt = "aten.pow.Tensor_Tensor"
    add(pt, "positive_base", "torch.pow(x, y), x > 0", f(lambda s, x, y: torch.pow(x, y)), [P(3, 5, 7), N(3, 5, 7)])
    add(pt, "broadcast", "torch.pow(x [2,3,5] > 0, y [5])", f(lambda s, x, y: torch.pow(x, y)), [P(2, 3, 5), N(5)])
    ps = "aten.pow.Tensor_Scalar"
    add(ps, "frac_exp", "torch.pow(x, 2.5), x > 0", unary(lambda x: torch.pow(x, 2.5)), [P(3, 5, 7)])
    add(ps, "square", "x ** 2 (integer exponent, negative bases)", unary(lambda x: x ** 2), [N(3, 5, 7)])
    add(ps, "cube", "x ** 3 (odd integer exponent keeps the sign)", unary(lambda x: x ** 3), [N(3, 5, 7)])
    add(ps, "neg_exp", "x ** -1.5, x > 0", unary(lambda x: x ** -1.5), [P(3, 5, 7, lo=0.2)])
    # Scalar forms: ExecuTorch turns `x * 2.5` into mul.Tensor with a constant rank-0 tensor
    # (and `1 - x` into sub.Tensor); only a direct torch.ops.aten.*.Scalar call keeps the name,
    # and the Vulkan partitioner does not take those, so they are plain.pte KernelCalls.
    sc_note = ("`x op 2.5` in a module becomes aten.<op>.Tensor with a constant rank-0 tensor "
               "(et_vk.prepack in the VkGraph); only a direct torch.ops.aten call keeps the Scalar "
               "form, which the Vulkan partitioner does not take")
    add("aten.add.Scalar", "direct", "torch.ops.aten.add.Scalar(x, 2.5)", unary(lambda x: A.add.Scalar(x, 2.5)),
        [N(3, 5, 7)], where="plain", note=sc_note)
    add("aten.add.Scalar", "alpha", "torch.ops.aten.add.Scalar(x, 2, alpha=3)",
        unary(lambda x: A.add.Scalar(x, 2, alpha=3)), [N(3, 5, 7)], where="plain", note=sc_note)
    add("aten.add.Scalar", "int32", "torch.ops.aten.add.Scalar(x, 3) on int32",
        unary(lambda x: A.add.Scalar(x, 3)), [I(3, 5, 7)], where="plain", note=sc_note)
    add("aten.sub.Scalar", "direct", "torch.ops.aten.sub.Scalar(x, 0.75)", unary(lambda x: A.sub.Scalar(x, 0.75)),
        [N(3, 5, 7)], where="plain", note=sc_note)
    rsub_note = ("even a direct torch.ops.aten.rsub.Scalar call is decomposed (to sub.Tensor with a "
                 "constant); kept only with preserve_ops")
    add("aten.rsub.Scalar", "direct", "torch.ops.aten.rsub.Scalar(x, 1.0) (1 - x), kept from decomposition",
        unary(lambda x: A.rsub.Scalar(x, 1.0)), [N(3, 5, 7)], where="plain", path="preserve",
        preserve=[A.rsub.Scalar], note=rsub_note)
    add("aten.rsub.Scalar", "alpha", "torch.ops.aten.rsub.Scalar(x, 2.0, alpha=0.5) (2 - 0.5 x), kept",
        unary(lambda x: A.rsub.Scalar(x, 2.0, alpha=0.5)), [N(3, 5, 7)], where="plain", path="preserve",
        preserve=[A.rsub.Scalar], note=rsub_note)
    add("aten.mul.Scalar", "direct", "torch.ops.aten.mul.Scalar(x, -2.5)", unary(lambda x: A.mul.Scalar(x, -2.5)),
        [N(3, 5, 7)], where="plain", note=sc_note)
    add("aten.mul.Scalar", "int32", "torch.ops.aten.mul.Scalar(x, 3) on int32", unary(lambda x: A.mul.Scalar(x, 3)),
        [I(3, 5, 7)], where="plain", note=sc_note)
    add("aten.div.Scalar", "direct", "torch.ops.aten.div.Scalar(x, 3.0)", unary(lambda x: A.div.Scalar(x, 3.0)),
        [N(3, 5, 7)], where="plain", note=sc_note)
    for cmp, fn in [("eq", torch.eq), ("ne", torch.ne), ("lt", torch.lt), ("le", torch.le), ("gt", torch.gt),
                    ("ge", torch.ge)]:
        # The Vulkan partitioner has ne.Scalar but no ne.Tensor.
        w, note = ("plain", "the Vulkan partitioner does not take it") if cmp == "ne" else ("vulkan", "")
        add(f"aten.{cmp}.Tensor", "float", f"torch.{cmp}(x, y) on values in steps of 0.5 (ties occur), bool out",
            f(lambda s, x, y, fn=fn: fn(x, y)), [Inp((3, 5, 7), "halves"), Inp((3, 5, 7), "halves")],
            where=w, note=note)
        add(f"aten.{cmp}.Tensor", "broadcast", f"torch.{cmp}(x [2,3,5], y [3,1])",
            f(lambda s, x, y, fn=fn: fn(x, y)), [Inp((2, 3, 5), "halves"), Inp((3, 1), "halves")],
            where=w, note=note)
        add(f"aten.{cmp}.Tensor", "int32", f"torch.{cmp}(x, y) on int32",
            f(lambda s, x, y, fn=fn: fn(x, y)), [I(3, 5, 7, lo=-3, hi=4), I(3, 5, 7, lo=-3, hi=4)],
            where=w, note=note)
        add(f"aten.{cmp}.Scalar", "float", f"torch.{cmp}(x, 0.5) on values in steps of 0.5",
            unary(lambda x, fn=fn: fn(x, 0.5)), [Inp((3, 5, 7), "halves")])
        add(f"aten.{cmp}.Scalar", "int_scalar", f"torch.{cmp}(x, 1) (integer scalar) on a float tensor",
            unary(lambda x, fn=fn: fn(x, 1)), [Inp((3, 5, 7), "halves")])
    wh = "aten.where.self"
    add(wh, "same_shape", "torch.where(c, x, y), c a bool input", f(lambda s, c, x, y: torch.where(c, x, y)),
        [Inp((3, 5, 7), "bool", dtype=torch.bool), N(3, 5, 7), N(3, 5, 7)])
    add(wh, "broadcast", "torch.where(c [3,1], x [2,3,5], y [5])", f(lambda s, c, x, y: torch.where(c, x, y)),
        [Inp((3, 1), "bool", dtype=torch.bool), N(2, 3, 5), N(5)])
    add(wh, "masked_fill", "x.masked_fill(c, -1.5) as exported: scalar_tensor and where",
        f(lambda s, x, c: x.masked_fill(c, -1.5)), [N(3, 5, 7), Inp((5, 7), "bool", dtype=torch.bool)],
        where="plain", note="masked_fill exports as aten.scalar_tensor + aten.where.self")
    add(wh, "from_compare", "torch.where(x > y, x, y) (condition computed in the graph)",
        f(lambda s, x, y: torch.where(x > y, x, y)), [N(3, 5, 7), N(3, 5, 7)])

    # ------------------------------------------------------------------ elementwise unary
    # The Vulkan partitioner has no log, erf, reciprocal, floor, ceil, trunc, sign: those are
    # checked through plain.pte's KernelCalls (vulkan.pte keeps them as CPU kernel calls too).
    vk_unary = {"relu", "sigmoid", "tanh", "exp", "sqrt", "rsqrt", "neg", "abs", "sin", "cos", "round"}
    for name, fn, inp in [
        ("relu", torch.relu, N(3, 5, 7)),
        ("sigmoid", torch.sigmoid, N(3, 5, 7, scale=3.0)),
        ("tanh", torch.tanh, N(3, 5, 7, scale=2.0)),
        ("exp", torch.exp, N(3, 5, 7, scale=2.0)),
        ("log", torch.log, P(3, 5, 7, lo=0.05, scale=5.0)),
        ("log1p", torch.log1p, P(3, 5, 7, lo=-0.95, scale=4.0)),
        ("sqrt", torch.sqrt, P(3, 5, 7, lo=0.0, scale=5.0)),
        ("rsqrt", torch.rsqrt, P(3, 5, 7, lo=0.05, scale=5.0)),
        ("neg", torch.neg, N(3, 5, 7)),
        ("abs", torch.abs, N(3, 5, 7)),
        ("sin", torch.sin, N(3, 5, 7, scale=4.0)),
        ("cos", torch.cos, N(3, 5, 7, scale=4.0)),
        ("erf", torch.erf, N(3, 5, 7, scale=1.5)),
        ("reciprocal", torch.reciprocal, Inp((3, 5, 7), "away0", lo=0.25)),
        ("floor", torch.floor, N(3, 5, 7, scale=3.0)),
        ("ceil", torch.ceil, N(3, 5, 7, scale=3.0)),
        ("round", torch.round, Inp((3, 5, 7), "halves", scale=3.0)),
        ("trunc", torch.trunc, N(3, 5, 7, scale=3.0)),
        ("sign", torch.sign, Inp((3, 5, 7), "halves", scale=1.0)),
    ]:
        add(f"aten.{name}.default", "float", f"torch.{name}(x), float32 [3,5,7]", unary(fn), [inp],
            where="vulkan" if name in vk_unary else "plain",
            note="" if name in vk_unary else "the Vulkan partitioner does not take it (no operator implementation)")
    for name, fn in [("relu", torch.relu), ("neg", torch.neg), ("abs", torch.abs), ("sign", torch.sign)]:
        add(f"aten.{name}.default", "int32", f"torch.{name}(x), int32 [3,5,7]", unary(fn), [I(3, 5, 7)],
            where="plain", note="the Vulkan partitioner takes unary ops on floats only")
    add("aten.hardswish.default", "float", "F.hardswish(x) (kept whole by the Vulkan partitioner)",
        unary(F.hardswish), [N(3, 5, 7, scale=3.0)])
    add("aten.hardsigmoid.default", "float", "F.hardsigmoid(x), kept from decomposition",
        unary(F.hardsigmoid), [N(3, 5, 7, scale=3.0)], where="plain", path="preserve",
        preserve=[A.hardsigmoid.default],
        note="standard path decomposes it (add, clamp, clamp, div with scalar constants)")
    add("aten.silu.default", "float", "F.silu(x), kept from decomposition",
        unary(F.silu), [N(3, 5, 7, scale=3.0)], where="plain", path="preserve",
        preserve=[A.silu.default], note="standard path decomposes it to sigmoid * x")
    add("aten.gelu.default", "none", "F.gelu(x) (erf form)", unary(F.gelu), [N(3, 5, 7, scale=2.0)])
    add("aten.gelu.default", "tanh", "F.gelu(x, approximate='tanh')",
        unary(lambda x: F.gelu(x, approximate="tanh")), [N(3, 5, 7, scale=2.0)])
    add("aten.hardtanh.default", "default", "F.hardtanh(x) (-1..1)", unary(F.hardtanh), [N(3, 5, 7, scale=2.0)])
    add("aten.hardtanh.default", "bounds", "F.hardtanh(x, -0.5, 0.75)",
        unary(lambda x: F.hardtanh(x, -0.5, 0.75)), [N(3, 5, 7)])
    add("aten.hardtanh.default", "relu6", "F.relu6(x) (hardtanh 0..6)", unary(F.relu6), [N(3, 5, 7, scale=4.0)])
    add("aten.clamp.default", "both", "torch.clamp(x, -0.5, 0.8)",
        unary(lambda x: torch.clamp(x, -0.5, 0.8)), [N(3, 5, 7)])
    add("aten.clamp.default", "min_only", "torch.clamp(x, min=-0.25)",
        unary(lambda x: torch.clamp(x, min=-0.25)), [N(3, 5, 7)])
    add("aten.clamp.default", "max_only", "torch.clamp(x, max=0.3)",
        unary(lambda x: torch.clamp(x, max=0.3)), [N(3, 5, 7)])
    add("aten.clamp.default", "int_bounds", "torch.clamp(x, -1, 2) (integer bounds on a float tensor)",
        unary(lambda x: torch.clamp(x, -1, 2)), [N(3, 5, 7, scale=2.0)])
    add("aten.leaky_relu.default", "default_slope", "F.leaky_relu(x) (slope 0.01)",
        unary(F.leaky_relu), [N(3, 5, 7)])
    add("aten.leaky_relu.default", "slope0p2", "F.leaky_relu(x, 0.2)",
        unary(lambda x: F.leaky_relu(x, 0.2)), [N(3, 5, 7)])

    # ------------------------------------------------------------------ convolution
    cv = "aten.convolution.default"
    add(cv, "k3", "Conv2d 3->5 k3 (stride 1, no padding), bias", f(lambda s, x: s.c(x), c=conv(3, 5, 3)),
        [N(1, 3, 9, 7)])
    add(cv, "stride2_pad1", "Conv2d 3->6 k3 s2 p1", f(lambda s, x: s.c(x), c=conv(3, 6, 3, stride=2, padding=1)),
        [N(1, 3, 11, 9)])
    add(cv, "asym", "Conv2d 4->3 k(3,2) s(2,1) p(1,0)",
        f(lambda s, x: s.c(x), c=conv(4, 3, (3, 2), stride=(2, 1), padding=(1, 0))), [N(1, 4, 9, 7)])
    add(cv, "dilation2", "Conv2d 3->4 k3 dilation 2 padding 2",
        f(lambda s, x: s.c(x), c=conv(3, 4, 3, dilation=2, padding=2)), [N(1, 3, 9, 11)])
    add(cv, "groups2", "Conv2d 4->6 k3 groups 2 padding 1",
        f(lambda s, x: s.c(x), c=conv(4, 6, 3, groups=2, padding=1)), [N(1, 4, 7, 9)])
    add(cv, "depthwise", "depthwise Conv2d 6->6 k3 groups 6 padding 1",
        f(lambda s, x: s.c(x), c=conv(6, 6, 3, groups=6, padding=1)), [N(1, 6, 9, 7)])
    add(cv, "depthwise_stride2", "depthwise Conv2d 5->5 k5 s2 p2 groups 5",
        f(lambda s, x: s.c(x), c=conv(5, 5, 5, stride=2, padding=2, groups=5)), [N(1, 5, 11, 9)])
    add(cv, "pointwise", "1x1 Conv2d 6->5", f(lambda s, x: s.c(x), c=conv(6, 5, 1)), [N(1, 6, 7, 9)])
    add(cv, "no_bias", "Conv2d 3->5 k3 p1, bias=False", f(lambda s, x: s.c(x), c=conv(3, 5, 3, padding=1, bias=False)),
        [N(1, 3, 7, 9)])
    add(cv, "batch2", "Conv2d 3->4 k3 p1 on a batch of 2", f(lambda s, x: s.c(x), c=conv(3, 4, 3, padding=1)),
        [N(2, 3, 7, 5)], where="plain", note="the Vulkan partitioner takes 4-D convolutions with batch 1 only")
    add(cv, "transposed", "ConvTranspose2d 4->3 k3 s1", f(lambda s, x: s.c(x), c=convt(4, 3, 3)), [N(1, 4, 5, 7)])
    add(cv, "transposed_s2_outpad1", "ConvTranspose2d 4->3 k3 s2 p1 output_padding 1",
        f(lambda s, x: s.c(x), c=convt(4, 3, 3, stride=2, padding=1, output_padding=1)), [N(1, 4, 5, 7)])
    add(cv, "transposed_no_bias", "ConvTranspose2d 3->5 k2 s2, bias=False",
        f(lambda s, x: s.c(x), c=convt(3, 5, 2, stride=2, bias=False)), [N(1, 3, 5, 7)])
    add(cv, "transposed_groups2", "ConvTranspose2d 4->6 k3 s2 groups 2",
        f(lambda s, x: s.c(x), c=convt(4, 6, 3, stride=2, groups=2)), [N(1, 4, 5, 5)])
    add(cv, "conv1d", "Conv1d 3->5 k3 s2 p1 on [1,3,13]",
        f(lambda s, x: s.c(x), c=lambda: nn.Conv1d(3, 5, 3, stride=2, padding=1)), [N(1, 3, 13)])
    add(cv, "conv1d_depthwise", "depthwise Conv1d 4->4 k3 p1 groups 4 on [1,4,11]",
        f(lambda s, x: s.c(x), c=lambda: nn.Conv1d(4, 4, 3, padding=1, groups=4)), [N(1, 4, 11)])
    cc = "et_vk.conv_with_clamp.default"
    add(cc, "relu", "Conv2d 3->5 k3 p1 + ReLU (fused: clamp 0..DBL_MAX)",
        f(lambda s, x: F.relu(s.c(x)), c=conv(3, 5, 3, padding=1)), [N(1, 3, 9, 7)])
    add(cc, "relu6", "Conv2d 3->5 k3 s2 p1 + ReLU6 (fused: clamp 0..6)",
        f(lambda s, x: F.relu6(s.c(x)), c=conv(3, 5, 3, stride=2, padding=1, scale=4.0)), [N(1, 3, 9, 11, scale=2.0)])
    add(cc, "hardtanh", "Conv2d 3->4 k3 + hardtanh(-0.5, 0.5)",
        f(lambda s, x: F.hardtanh(s.c(x), -0.5, 0.5), c=conv(3, 4, 3)), [N(1, 3, 7, 9)])
    add(cc, "depthwise_relu6", "depthwise Conv2d 6 k3 p1 + ReLU6",
        f(lambda s, x: F.relu6(s.c(x)), c=conv(6, 6, 3, padding=1, groups=6, scale=3.0)), [N(1, 6, 7, 9, scale=2.0)])
    add(cc, "pointwise_relu", "1x1 Conv2d 5->4 no bias + ReLU",
        f(lambda s, x: F.relu(s.c(x)), c=conv(5, 4, 1, bias=False)), [N(1, 5, 7, 9)])
    add(cc, "transposed_relu", "ConvTranspose2d 4->3 k3 s2 + ReLU",
        f(lambda s, x: F.relu(s.c(x)), c=convt(4, 3, 3, stride=2)), [N(1, 4, 5, 7)])

    # ------------------------------------------------------------------ pooling
    mp = "aten.max_pool2d_with_indices.default"
    add(mp, "k3_s2_p1", "F.max_pool2d(x, 3, 2, 1)", unary(lambda x: F.max_pool2d(x, 3, 2, 1)), [N(1, 4, 13, 11)])
    add(mp, "k2", "F.max_pool2d(x, 2) (stride = kernel, odd size floors)", unary(lambda x: F.max_pool2d(x, 2)),
        [N(1, 3, 9, 7)])
    add(mp, "ceil_mode", "F.max_pool2d(x, 3, 2, ceil_mode=True)",
        unary(lambda x: F.max_pool2d(x, 3, 2, ceil_mode=True)), [N(1, 3, 10, 8)])
    add(mp, "dilation2", "F.max_pool2d(x, 3, 1, 1, dilation=2)",
        unary(lambda x: F.max_pool2d(x, 3, 1, 1, dilation=2)), [N(1, 3, 9, 11)])
    add(mp, "indices", "F.max_pool2d(x, 3, 2, 1, return_indices=True): values and int64 indices",
        unary(lambda x: F.max_pool2d(x, 3, 2, 1, return_indices=True)), [N(1, 3, 9, 7)])
    add(mp, "rect", "F.max_pool2d(x, (3,2), (2,1), (1,0))",
        unary(lambda x: F.max_pool2d(x, (3, 2), (2, 1), (1, 0))), [N(2, 3, 9, 7)])
    add("aten.max_pool2d.default", "k3_s2_p1", "F.max_pool2d(x, 3, 2, 1), aten.max_pool2d kept by the partitioner",
        unary(lambda x: F.max_pool2d(x, 3, 2, 1)), [N(1, 4, 13, 11)], path="preserve",
        preserve=[A.max_pool2d.default], preserve_plain=False,
        note="standard path: max_pool2d_with_indices; there is no aten::max_pool2d.out, so plain.pte "
             "uses the standard path")
    add("aten.max_pool2d.default", "ceil_mode", "F.max_pool2d(x, 2, ceil_mode=True), kept by the partitioner",
        unary(lambda x: F.max_pool2d(x, 2, ceil_mode=True)), [N(1, 3, 9, 7)], path="preserve",
        preserve=[A.max_pool2d.default], preserve_plain=False)
    ap = "aten.avg_pool2d.default"
    add(ap, "k2", "F.avg_pool2d(x, 2) (odd size floors)", unary(lambda x: F.avg_pool2d(x, 2)), [N(1, 4, 9, 7)])
    add(ap, "k3_s2_p1", "F.avg_pool2d(x, 3, 2, 1) (count_include_pad=True)",
        unary(lambda x: F.avg_pool2d(x, 3, 2, 1)), [N(1, 3, 11, 9)])
    add(ap, "k3_s2_p1_exclude_pad", "F.avg_pool2d(x, 3, 2, 1, count_include_pad=False)",
        unary(lambda x: F.avg_pool2d(x, 3, 2, 1, count_include_pad=False)), [N(1, 3, 11, 9)])
    add(ap, "ceil_mode", "F.avg_pool2d(x, 3, 2, ceil_mode=True)",
        unary(lambda x: F.avg_pool2d(x, 3, 2, ceil_mode=True)), [N(1, 3, 10, 8)])
    add(ap, "ceil_mode_pad", "F.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=True)",
        unary(lambda x: F.avg_pool2d(x, 3, 2, 1, ceil_mode=True)), [N(1, 3, 10, 8)])
    add(ap, "divisor_override", "F.avg_pool2d(x, 3, 2, 1, divisor_override=5)",
        unary(lambda x: F.avg_pool2d(x, 3, 2, 1, divisor_override=5)), [N(1, 3, 9, 11)])
    add(ap, "rect", "F.avg_pool2d(x, (2,3), (1,2), (1,1))",
        unary(lambda x: F.avg_pool2d(x, (2, 3), (1, 2), (1, 1))), [N(2, 3, 7, 9)])
    aap = "aten._adaptive_avg_pool2d.default"
    add(aap, "out3x2", "F.adaptive_avg_pool2d(x, (3,2)) on 7x5 (overlapping windows)",
        unary(lambda x: F.adaptive_avg_pool2d(x, (3, 2))), [N(1, 4, 7, 5)], where="plain")
    add(aap, "out4x4", "F.adaptive_avg_pool2d(x, 4) on 9x11", unary(lambda x: F.adaptive_avg_pool2d(x, 4)),
        [N(2, 3, 9, 11)], where="plain")
    add("aten.adaptive_avg_pool2d.default", "out3x2", "F.adaptive_avg_pool2d(x, (3,2)), kept from decomposition",
        unary(lambda x: F.adaptive_avg_pool2d(x, (3, 2))), [N(1, 4, 7, 5)], where="plain", path="preserve",
        preserve=[A.adaptive_avg_pool2d.default],
        note="standard path: aten._adaptive_avg_pool2d (or aten.mean.dim for output 1x1)")

    # ------------------------------------------------------------------ resize
    un = "aten.upsample_nearest2d.vec"
    add(un, "scale2", "F.interpolate(x, scale_factor=2, mode='nearest')",
        unary(lambda x: F.interpolate(x, scale_factor=2, mode="nearest")), [N(1, 3, 5, 7)])
    add(un, "scale2x3", "F.interpolate(x, scale_factor=(2,3), mode='nearest')",
        unary(lambda x: F.interpolate(x, scale_factor=(2, 3), mode="nearest")), [N(1, 3, 5, 4)])
    add(un, "size", "F.interpolate(x, size=(11,6), mode='nearest') (non-integer ratios)",
        unary(lambda x: F.interpolate(x, size=(11, 6), mode="nearest")), [N(1, 2, 5, 7)])
    add(un, "down", "F.interpolate(x, size=(3,4), mode='nearest') (downsample)",
        unary(lambda x: F.interpolate(x, size=(3, 4), mode="nearest")), [N(1, 2, 7, 9)])
    ub = "aten.upsample_bilinear2d.vec"
    for ac in (False, True):
        t = "ac" if ac else "noac"
        add(ub, f"scale2_{t}", f"bilinear scale 2, align_corners={ac}",
            unary(lambda x, ac=ac: F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=ac)),
            [N(1, 3, 5, 7)])
        add(ub, f"size_{t}", f"bilinear to size (9,13) from 5x7, align_corners={ac}",
            unary(lambda x, ac=ac: F.interpolate(x, size=(9, 13), mode="bilinear", align_corners=ac)),
            [N(1, 2, 5, 7)])
        add(ub, f"down_{t}", f"bilinear to size (4,3) from 9x7 (downsample), align_corners={ac}",
            unary(lambda x, ac=ac: F.interpolate(x, size=(4, 3), mode="bilinear", align_corners=ac)),
            [N(1, 2, 9, 7)])
    add(ub, "scale1p5_noac", "bilinear scale_factor 1.5, align_corners=False",
        unary(lambda x: F.interpolate(x, scale_factor=1.5, mode="bilinear", align_corners=False)),
        [N(1, 2, 6, 5)])
    add("aten.pixel_shuffle.default", "r2", "F.pixel_shuffle(x, 2) on [1,8,3,5]",
        unary(lambda x: F.pixel_shuffle(x, 2)), [N(1, 8, 3, 5)])
    add("aten.pixel_shuffle.default", "r3", "F.pixel_shuffle(x, 3) on [1,18,3,4]",
        unary(lambda x: F.pixel_shuffle(x, 3)), [N(1, 18, 3, 4)])

    # ------------------------------------------------------------------ shape
    vc = "aten.view_copy.default"
    add(vc, "reshape", "x.reshape(5, 21) of [3,5,7]", unary(lambda x: x.reshape(5, 21)), [N(3, 5, 7)])
    add(vc, "infer_dim", "x.view(-1, 7) of [3,5,7]", unary(lambda x: x.view(-1, 7)), [N(3, 5, 7)])
    add(vc, "flatten", "torch.flatten(x, 1) of [2,3,5,7]", unary(lambda x: torch.flatten(x, 1)), [N(2, 3, 5, 7)])
    add(vc, "unflatten", "x.view(3, 5, 1, 7) of [15,7]", unary(lambda x: x.view(3, 5, 1, 7)), [N(15, 7)])
    pc = "aten.permute_copy.default"
    add(pc, "3d", "x.permute(2, 0, 1) of [3,5,7]", unary(lambda x: x.permute(2, 0, 1)), [N(3, 5, 7)])
    add(pc, "nchw_to_nhwc", "x.permute(0, 2, 3, 1) of [2,3,5,7]", unary(lambda x: x.permute(0, 2, 3, 1)),
        [N(2, 3, 5, 7)])
    add(pc, "transpose", "x.transpose(0, 1) of [5,7]", unary(lambda x: x.transpose(0, 1)), [N(5, 7)])
    add(pc, "transpose_neg", "x.transpose(-1, -3) of [2,3,5,7]", unary(lambda x: x.transpose(-1, -3)),
        [N(2, 3, 5, 7)])
    ct = "aten.cat.default"
    add(ct, "three_dim1", "torch.cat([a, b, c], 1) with 2, 3 and 4 channels",
        f(lambda s, a, b, c: torch.cat([a, b, c], 1)), [N(1, 2, 5, 7), N(1, 3, 5, 7), N(1, 4, 5, 7)])
    add(ct, "dim0", "torch.cat([a, b], 0)", f(lambda s, a, b: torch.cat([a, b], 0)), [N(3, 5), N(2, 5)])
    add(ct, "neg_dim", "torch.cat([a, b], -1)", f(lambda s, a, b: torch.cat([a, b], -1)), [N(2, 3, 5), N(2, 3, 4)])
    add(ct, "five", "torch.cat of five inputs on dim 2",
        f(lambda s, a, b, c, d, e: torch.cat([a, b, c, d, e], 2)),
        [N(2, 3, 1), N(2, 3, 2), N(2, 3, 3), N(2, 3, 1), N(2, 3, 5)])
    ss = "aten.split_with_sizes_copy.default"
    add(ss, "sizes", "torch.split(x, [2, 3, 4], dim=1)", unary(lambda x: torch.split(x, [2, 3, 4], 1)),
        [N(2, 9, 5)])
    add(ss, "uneven_chunks", "torch.split(x, 2, dim=-1) of 7 (last chunk 1)", unary(lambda x: torch.split(x, 2, -1)),
        [N(3, 5, 7)])
    add(ss, "chunk", "torch.chunk(x, 3, dim=0)", unary(lambda x: torch.chunk(x, 3, 0)), [N(9, 5)])
    add("aten.split_copy.Tensor", "split2", "torch.ops.aten.split_copy.Tensor(x, 2, 1), kept from decomposition",
        unary(lambda x: A.split_copy.Tensor(x, 2, 1)), [N(3, 5, 4)], where="plain", path="preserve",
        preserve=[A.split_copy.Tensor], note="standard path: torch.split gives split_with_sizes_copy")
    sl = "aten.slice_copy.Tensor"
    add(sl, "range", "x[:, 1:4]", unary(lambda x: x[:, 1:4]), [N(3, 7, 5)])
    add(sl, "step2", "x[:, 1:6:2]", unary(lambda x: x[:, 1:6:2]), [N(3, 7, 5)])
    add(sl, "open_end", "x[..., 2:]", unary(lambda x: x[..., 2:]), [N(3, 5, 7)])
    add(sl, "neg_start", "x[-3:] (dim 0)", unary(lambda x: x[-3:]), [N(7, 5)])
    add(sl, "step3_open", "x[:, ::3]", unary(lambda x: x[:, ::3]), [N(3, 8, 5)])
    sel = "aten.select_scatter.default"
    sel_note = ("the standard path decomposes select_scatter into arange, eq, unsqueeze, expand and where "
                "(the where_self__select_scatter case); kept only with preserve_ops")
    add(sel, "dim1", "torch.select_scatter(x, y, 1, 2), kept from decomposition",
        f(lambda s, x, y: torch.select_scatter(x, y, 1, 2)), [N(3, 5, 7), N(3, 7)], where="plain",
        path="preserve", preserve=[A.select_scatter.default], note=sel_note)
    add(sel, "neg_index", "torch.select_scatter(x, y, -1, -3), kept from decomposition",
        f(lambda s, x, y: torch.select_scatter(x, y, -1, -3)), [N(3, 5, 7), N(3, 5)], where="plain",
        path="preserve", preserve=[A.select_scatter.default], note=sel_note)
    add("aten.where.self", "select_scatter", "torch.select_scatter(x, y, 1, 2) as exported: arange, eq, where",
        f(lambda s, x, y: torch.select_scatter(x, y, 1, 2)), [N(3, 5, 7), N(3, 7)], where="plain")
    sct = "aten.slice_scatter.default"
    add(sct, "dim1", "torch.slice_scatter(x, y, 1, 1, 4)", f(lambda s, x, y: torch.slice_scatter(x, y, 1, 1, 4)),
        [N(3, 7, 5), N(3, 3, 5)], where="plain")
    add(sct, "step2_neg", "torch.slice_scatter(x, y, -1, -5, None, 2)",
        f(lambda s, x, y: torch.slice_scatter(x, y, -1, -5, None, 2)), [N(3, 2, 7), N(3, 2, 3)], where="plain")
    add("aten.copy.default", "broadcast", "torch.ops.aten.copy(x, y [5]) (y broadcast to x's shape)",
        f(lambda s, x, y: A.copy.default(x, y)), [N(3, 5), N(5)], where="plain")
    add("aten.copy_.default", "buffer", "a buffer written with copy_(x), then read (a model's state)",
        f(lambda s, x: s.state.copy_(x) * 2.0, state=lambda: StateBuffer((3, 5))), [N(3, 5)], where="plain")
    sc = "aten.select_copy.int"
    add(sc, "dim1", "x[:, 2]", unary(lambda x: x[:, 2]), [N(3, 5, 7)])
    add(sc, "neg_index", "x[..., -1]", unary(lambda x: x[..., -1]), [N(3, 5, 7)])
    add(sc, "dim0", "x[1]", unary(lambda x: x[1]), [N(3, 5, 7)])
    uq = "aten.unsqueeze_copy.default"
    add(uq, "dim0", "x.unsqueeze(0)", unary(lambda x: x.unsqueeze(0)), [N(3, 5)])
    add(uq, "neg_dim", "x.unsqueeze(-1)", unary(lambda x: x.unsqueeze(-1)), [N(3, 5)])
    add(uq, "middle", "x.unsqueeze(1)", unary(lambda x: x.unsqueeze(1)), [N(3, 5, 7)])
    sq = "aten.squeeze_copy.dims"
    add(sq, "dim1", "x.squeeze(1)", unary(lambda x: x.squeeze(1)), [N(3, 1, 5)])
    add(sq, "all", "x.squeeze() (every size-1 dim)", unary(lambda x: x.squeeze()), [N(1, 3, 1, 5)])
    add(sq, "dims", "x.squeeze((1, 3))", unary(lambda x: x.squeeze((1, 3))), [N(3, 1, 5, 1)])
    add("aten.squeeze_copy.dim", "dim1", "torch.ops.aten.squeeze_copy.dim(x, 1), kept from decomposition",
        unary(lambda x: A.squeeze_copy.dim(x, 1)), [N(3, 1, 5)], where="plain", path="preserve",
        preserve=[A.squeeze_copy.dim], note="standard path: squeeze_copy.dims")
    add("aten.squeeze_copy.default", "all", "torch.ops.aten.squeeze_copy.default(x), kept from decomposition",
        unary(lambda x: A.squeeze_copy.default(x)), [N(1, 3, 1, 5)], where="plain", path="preserve",
        preserve=[A.squeeze_copy.default], note="standard path: squeeze_copy.dims")
    ex = "aten.expand_copy.default"
    add(ex, "broadcast", "x [3,1] expanded to [2,3,5]", unary(lambda x: x.expand(2, 3, 5)), [N(3, 1)])
    add(ex, "minus1", "x [1,4,1] expanded with (3, -1, 5)", unary(lambda x: x.expand(3, -1, 5)), [N(1, 4, 1)])
    add(ex, "expand_as", "x [5] expand_as y [3,5] (y unused otherwise)",
        f(lambda s, x, y: x.expand_as(y)), [N(5), N(3, 5)])
    add("aten.clone.default", "layout_transition",
        "avg_pool2d -> reshape -> mm: the Vulkan backend inserts aten.clone.default to move the pool's "
        "channels-packed texture into a buffer before the view",
        f(lambda s, x, w: F.avg_pool2d(x, 2).reshape(6, 5) @ w), [N(1, 3, 4, 10), N(5, 4)],
        note="torch.clone itself is removed by the Vulkan backend (RemoveRedundantOpsTransform); this clone "
             "is inserted by its memory-layout pass")
    add("aten.clone.default", "skip_dim_order", "torch.clone(x) with _skip_dim_order=True",
        unary(lambda x: torch.clone(x)), [N(3, 5, 7)], where="plain", path="skip_dim_order",
        note="standard path: dim_order_ops._clone_dim_order (plain); removed in vulkan.pte")
    tc = "aten._to_copy.default"
    for name, src, dst in [("f32_to_i32", None, torch.int32), ("i32_to_f32", torch.int32, torch.float32),
                           ("f32_to_f16", None, torch.float16), ("f32_to_bool", None, torch.bool),
                           ("i32_to_bool", torch.int32, torch.bool), ("f16_to_f32", torch.float16, torch.float32)]:
        if src is None:
            inp = N(3, 5, 7, scale=4.0)
        elif src == torch.float16:
            inp = Inp((3, 5, 7), "normal", dtype=torch.float16, scale=4.0)
        else:
            inp = I(3, 5, 7, lo=-3, hi=4)
        add(tc, name, f"x.to({dst}) from {src or torch.float32}, _skip_dim_order=True",
            unary(lambda x, dst=dst: x.to(dst)), [inp], path="skip_dim_order",
            note="standard path: dim_order_ops._to_dim_order_copy.default (see those cases)")
    tdo = "dim_order_ops._to_dim_order_copy.default"
    for name, src, dst in [("f32_to_i32", None, torch.int32), ("i32_to_f32", torch.int32, torch.float32),
                           ("f32_to_f16", None, torch.float16), ("f32_to_bool", None, torch.bool),
                           ("bool_to_f32", torch.bool, torch.float32), ("i64_to_f32", torch.int64, torch.float32),
                           ("f32_to_i64", None, torch.int64)]:
        if src is None:
            inp = N(3, 5, 7, scale=4.0)
        elif src == torch.bool:
            inp = Inp((3, 5, 7), "bool", dtype=torch.bool)
        else:
            inp = I(3, 5, 7, lo=-3, hi=4, dtype=src)
        add(tdo, name, f"x.to({dst}) from {src or torch.float32} (what ExecuTorch makes of .to(dtype))",
            unary(lambda x, dst=dst: x.to(dst)), [inp])
    add("dim_order_ops._clone_dim_order.default", "clone", "torch.clone(x) (ExecuTorch's form of aten.clone)",
        unary(lambda x: torch.clone(x)), [N(3, 5, 7)], where="plain",
        note="the Vulkan backend removes a clone of unchanged shape and dtype, so only plain.pte has it")
    add("et_vk.prepack.default", "const_operand", "x [3,5] + c (a constant [5] parameter): the Vulkan "
        "backend prepacks the constant operand", f(lambda s, x: x + s.c, c=lambda: nn.Parameter(torch.randn(5))),
        [N(3, 5)], note="prepack's output tensor has no mem_obj_id; plain.pte is just aten::add.out")
    add("et_vk.prepack.default", "scalar", "x * 2.5: ExecuTorch makes the scalar a constant rank-0 tensor, "
        "which the Vulkan backend prepacks", unary(lambda x: x * 2.5), [N(3, 5, 7)])
    add("et_vk.prepack.default", "int_scalar", "x + 1 (integer scalar: prepacked INT32 constant, then "
        "_to_dim_order_copy to float32)", unary(lambda x: x + 1), [N(3, 5, 7)])
    rp = "aten.repeat.default"
    add(rp, "2d", "x.repeat(2, 3) of [3,5]", unary(lambda x: x.repeat(2, 3)), [N(3, 5)])
    add(rp, "new_dims", "x.repeat(2, 1, 1, 2) of [3,5,1]", unary(lambda x: x.repeat(2, 1, 1, 2)), [N(3, 5, 1)])
    # torch.roll has no case yet: ExecuTorch 1.5.1 decomposes it into arange, add, fmod and
    # index_select per dim, and its VulkanPartitioner then fails on that graph (FuseBatchNormPass:
    # "fake mode ... doesn't match", the arange's lifted constant); plain.pte exports. The unit
    # tests (ShapeOps.RollAlongDimsAndFlattened) check aten.roll.default.
    isel = "aten.index_select.default"
    ix_note = "the Vulkan partitioner does not take index_select"
    add(isel, "dim1", "torch.index_select(x, 1, idx), idx int64 [6] with repeats",
        f(lambda s, x: torch.index_select(x, 1, s.idx), idx=lambda: torch.tensor([4, 0, 2, 2, 1, 4])),
        [N(3, 5, 7)], where="plain", note=ix_note)
    ga = "aten.gather.default"
    add(ga, "dim1", "torch.gather(x [3,5,7], 1, idx [3,4,7])",
        f(lambda s, x: torch.gather(x, 1, s.idx), idx=lambda: torch.randint(0, 5, (3, 4, 7))),
        [N(3, 5, 7)])
    add(ga, "last_smaller", "torch.gather(x [3,5,7], -1, idx [2,5,3]) (index smaller than x off the dim)",
        f(lambda s, x: torch.gather(x, -1, s.idx), idx=lambda: torch.randint(0, 7, (2, 5, 3))),
        [N(3, 5, 7)])
    sc_idx = lambda: torch.randint(0, 5, (3, 4, 7))  # noqa: E731  (repeated indices into dim 1 of [3,5,7])
    add("aten.scatter.src", "dim1", "x.scatter(1, idx, y) (repeated indices: the last write)",
        f(lambda s, x, y: x.scatter(1, s.idx, y), idx=sc_idx), [N(3, 5, 7), N(3, 4, 7)], where="plain")
    add("aten.scatter.value", "dim1", "x.scatter(1, idx, 2.5)", f(lambda s, x: x.scatter(1, s.idx, 2.5), idx=sc_idx),
        [N(3, 5, 7)], where="plain")
    add("aten.scatter_add.default", "dim1", "x.scatter_add(1, idx, y)",
        f(lambda s, x, y: x.scatter_add(1, s.idx, y), idx=sc_idx), [N(3, 5, 7), N(3, 4, 7)], where="plain")
    for red, inc in [("amax", True), ("mean", False), ("prod", True)]:
        add("aten.scatter_reduce.two", f"{red}{'' if inc else '_no_self'}",
            f"x.scatter_reduce(1, idx, y, '{red}', include_self={inc})",
            f(lambda s, x, y, red=red, inc=inc: x.scatter_reduce(1, s.idx, y, red, include_self=inc), idx=sc_idx),
            [N(3, 5, 7), N(3, 4, 7)], where="plain")
    ar = "aten.arange.start_step"
    ar_note = "the Vulkan partitioner does not take arange"
    add(ar, "int", "x + torch.arange(2, 23, 3) (int64 arange, added to an int64 input)",
        f(lambda s, x: x + torch.arange(2, 23, 3)), [I(7, dtype=torch.int64)], where="plain", note=ar_note)
    add(ar, "float", "x * torch.arange(-1.0, 2.0, 0.25) (float arange)",
        f(lambda s, x: x * torch.arange(-1.0, 2.0, 0.25)), [N(3, 12)], where="plain", note=ar_note)
    add("aten.arange.default", "direct", "x + torch.ops.aten.arange.default(9), kept from decomposition",
        f(lambda s, x: x + A.arange.default(9)), [I(9, dtype=torch.int64)], where="plain", path="preserve",
        preserve=[A.arange.default], note="the standard path rewrites arange(end) to arange.start_step")
    fl = "aten.flip.default"
    add(fl, "dim1", "torch.flip(x, [1])", unary(lambda x: torch.flip(x, [1])), [N(3, 5, 7)])
    add(fl, "dims0_2", "torch.flip(x, [0, -1])", unary(lambda x: torch.flip(x, [0, -1])), [N(3, 5, 7)])
    cp = "aten.constant_pad_nd.default"
    add(cp, "last_dim", "F.pad(x, (1, 2))", unary(lambda x: F.pad(x, (1, 2))), [N(3, 5, 7)])
    add(cp, "two_dims_value", "F.pad(x, (1, 1, 2, 0), value=0.5)", unary(lambda x: F.pad(x, (1, 1, 2, 0), value=0.5)),
        [N(1, 3, 5, 7)])
    add(cp, "three_dims", "F.pad(x, (0, 1, 1, 0, 2, 1), value=-1.0)",
        unary(lambda x: F.pad(x, (0, 1, 1, 0, 2, 1), value=-1.0)), [N(2, 3, 5, 4)])
    add(cp, "negative", "F.pad(x, (-1, 2, 1, -2)) (negative pads crop)", unary(lambda x: F.pad(x, (-1, 2, 1, -2))),
        [N(1, 2, 6, 7)])
    add("aten.alias_copy.default", "alias", "torch.ops.aten.alias(x * y) * x",
        f(lambda s, x, y: A.alias.default(x * y) * x), [N(3, 5, 7), N(3, 5, 7)], where="plain",
        note="ExecuTorch turns aten.alias into alias_copy; the Vulkan backend removes alias_copy "
             "(RemoveRedundantOpsTransform), so it is only in plain.pte")

    # ------------------------------------------------------------------ factories, logical, strided
    fac_note = "x is unused (a factory op takes no tensor)"
    add("aten.full.default", "float", "torch.full((3,5), 2.5)", unary(lambda x: torch.full((3, 5), 2.5)),
        [N(3, 5)], note=fac_note)
    add("aten.full.default", "int32", "torch.full((2,3,4), 7, dtype=torch.int32)",
        unary(lambda x: torch.full((2, 3, 4), 7, dtype=torch.int32)), [N(3, 5)], note=fac_note)
    add("aten.full_like.default", "float", "torch.full_like(x, -1.25)", unary(lambda x: torch.full_like(x, -1.25)),
        [N(3, 5, 7)])
    add("aten.full_like.default", "zeros_like", "torch.zeros_like(x) (ExecuTorch makes it full_like(x, 0))",
        unary(torch.zeros_like), [N(3, 5, 7)])
    keep_note = "the standard path turns it into aten.full / aten.full_like"
    for nm, fn in [("zeros", lambda x: torch.zeros(3, 5)), ("ones", lambda x: torch.ones(2, 3, 4))]:
        add(f"aten.{nm}.default", "float", f"torch.{nm}(...), kept from decomposition", unary(fn), [N(3, 5)],
            path="preserve", preserve=[getattr(A, nm).default], note=f"{keep_note}; {fac_note}")
    for nm, fn in [("zeros_like", torch.zeros_like), ("ones_like", torch.ones_like)]:
        add(f"aten.{nm}.default", "float", f"torch.{nm}(x), kept from decomposition", unary(fn), [N(3, 5, 7)],
            path="preserve", preserve=[getattr(A, nm).default], note=keep_note)
    add("aten.fill.Scalar", "float", "torch.ops.aten.fill.Scalar(x, 2.5), kept from decomposition",
        unary(lambda x: A.fill.Scalar(x, 2.5)), [N(3, 5, 7)], where="plain", path="preserve",
        preserve=[A.fill.Scalar], note="the standard path turns it into aten.full_like; the Vulkan "
        "partitioner does not take fill")
    add("aten.logical_not.default", "bool", "torch.logical_not(c), c a bool input", unary(torch.logical_not),
        [Inp((3, 5, 7), "bool", dtype=torch.bool)])
    add("aten.logical_not.default", "float", "torch.logical_not(x) on floats with zeros (bool out)",
        unary(torch.logical_not), [Inp((3, 5, 7), "halves")], where="plain",
        note="the Vulkan partitioner takes logical_not of bool tensors only")
    for lg, fn in [("and", torch.logical_and), ("or", torch.logical_or), ("xor", torch.logical_xor)]:
        op = f"aten.logical_{lg}.default"
        # The Vulkan partitioner takes logical_and / logical_or of bool tensors only.
        w, note = ("vulkan", "") if lg != "xor" else ("plain", "the Vulkan partitioner does not take logical_xor")
        add(op, "bool", f"torch.logical_{lg}(c, d), bool inputs", f(lambda s, c, d, fn=fn: fn(c, d)),
            [Inp((3, 5, 7), "bool", dtype=torch.bool), Inp((3, 5, 7), "bool", dtype=torch.bool)], where=w, note=note)
        add(op, "mixed_broadcast", f"torch.logical_{lg}(c [3,1,7] bool, x [5,7] float with zeros)",
            f(lambda s, c, x, fn=fn: fn(c, x)), [Inp((3, 1, 7), "bool", dtype=torch.bool), Inp((5, 7), "halves")],
            where="plain", note=f"the Vulkan partitioner takes logical_{lg} of bool tensors only")
    anote = "the Vulkan partitioner does not take any"
    add("aten.any.dim", "bool", "torch.any(c, dim=1), c a bool input", unary(lambda c: torch.any(c, dim=1)),
        [Inp((3, 5, 7), "bool", dtype=torch.bool)], where="plain", note=anote)
    add("aten.any.dim", "bool_keepdim_last", "torch.any(c, dim=-1, keepdim=True) on sparse true values",
        unary(lambda c: torch.any(c, dim=-1, keepdim=True)), [Inp((3, 5, 4), "bool", dtype=torch.bool)],
        where="plain", note=anote)
    add("aten.any.dim", "float", "torch.any(x, dim=0) on floats with zeros",
        unary(lambda x: torch.any(x, dim=0)), [Inp((3, 5, 7), "halves", scale=0.4)], where="plain", note=anote)
    asn = "the Vulkan partitioner does not take as_strided_copy"
    add("aten.as_strided_copy.default", "window", "torch.as_strided(x, (3,4), (5,1), 2) of [4,5]",
        unary(lambda x: torch.as_strided(x, (3, 4), (5, 1), 2)), [N(4, 5)], where="plain", note=asn)
    add("aten.as_strided_copy.default", "overlap", "torch.as_strided(x, (4,3), (2,1)) of [11] (overlapping rows)",
        unary(lambda x: torch.as_strided(x, (4, 3), (2, 1))), [N(11)], where="plain", note=asn)

    # ------------------------------------------------------------------ reductions
    sm = "aten._softmax.default"
    add(sm, "last_dim", "torch.softmax(x, -1)", unary(lambda x: torch.softmax(x, -1)), [N(2, 7, 13, scale=3.0)])
    add(sm, "dim0", "torch.softmax(x, 0)", unary(lambda x: torch.softmax(x, 0)), [N(5, 7, 3, scale=3.0)])
    add(sm, "dim1_rank4", "torch.softmax(x, 1) of [2,5,3,7]", unary(lambda x: torch.softmax(x, 1)),
        [N(2, 5, 3, 7, scale=3.0)])
    add("aten.softmax.int", "dim1", "torch.softmax(x, 1), aten.softmax.int kept from decomposition",
        unary(lambda x: torch.softmax(x, 1)), [N(3, 7, 5, scale=3.0)], where="plain", path="preserve",
        preserve=[A.softmax.int], note="standard path: aten._softmax")
    lsm = "aten._log_softmax.default"
    add(lsm, "last_dim", "torch.log_softmax(x, -1)", unary(lambda x: torch.log_softmax(x, -1)),
        [N(2, 7, 13, scale=3.0)])
    add(lsm, "dim0", "torch.log_softmax(x, 0)", unary(lambda x: torch.log_softmax(x, 0)), [N(5, 7, 3, scale=3.0)])
    add(lsm, "dim1", "F.log_softmax(x, 1) of [3,9,5]", unary(lambda x: F.log_softmax(x, 1)), [N(3, 9, 5, scale=3.0)])
    add("aten.log_softmax.int", "dim1", "torch.log_softmax(x, 1), aten.log_softmax.int kept from decomposition",
        unary(lambda x: torch.log_softmax(x, 1)), [N(3, 7, 5, scale=3.0)], where="plain", path="preserve",
        preserve=[A.log_softmax.int], note="standard path: aten._log_softmax")
    # The Vulkan partitioner takes a reduction over the last dim, or over 1 or 2 dims with
    # keepdim=True; other dims without keepdim are checked through plain.pte.
    red_note = "the Vulkan partitioner reduces other dims than the last only with keepdim=True"
    for op, fn, nm in [("aten.mean.dim", torch.mean, "mean"), ("aten.sum.dim_IntList", torch.sum, "sum")]:
        add(op, "last_dim", f"torch.{nm}(x, -1)", unary(lambda x, fn=fn: fn(x, -1)), [N(3, 5, 7)])
        add(op, "dim1_keepdim", f"torch.{nm}(x, 1, keepdim=True)", unary(lambda x, fn=fn: fn(x, 1, keepdim=True)),
            [N(3, 5, 7)])
        add(op, "dim0_keepdim", f"torch.{nm}(x, 0, keepdim=True)", unary(lambda x, fn=fn: fn(x, 0, keepdim=True)),
            [N(5, 3, 7)])
        add(op, "hw_keepdim", f"torch.{nm}(x, (-1, -2), keepdim=True) of [1,3,7,5]",
            unary(lambda x, fn=fn: fn(x, (-1, -2), keepdim=True)), [N(1, 3, 7, 5)])
        add(op, "dims0_2_keepdim", f"torch.{nm}(x, (0, 2), keepdim=True)",
            unary(lambda x, fn=fn: fn(x, (0, 2), keepdim=True)), [N(3, 5, 7)])
        add(op, "dim0", f"torch.{nm}(x, 0)", unary(lambda x, fn=fn: fn(x, 0)), [N(5, 3, 7)],
            where="plain", note=red_note)
        add(op, "dims0_2", f"torch.{nm}(x, (0, 2))", unary(lambda x, fn=fn: fn(x, (0, 2))), [N(3, 5, 7)],
            where="plain", note=red_note)
    add("aten.mean.dim", "adaptive_1x1", "F.adaptive_avg_pool2d(x, 1) (becomes mean over H, W)",
        unary(lambda x: F.adaptive_avg_pool2d(x, 1)), [N(1, 4, 7, 9)])
    add("aten.mean.default", "all", "torch.mean(x) (every dim, rank-0 output)", unary(torch.mean), [N(3, 5, 7)],
        where="plain")
    add("aten.sum.default", "all", "torch.sum(x), aten.sum.default kept from decomposition", unary(torch.sum),
        [N(3, 5, 7)], where="plain", path="preserve", preserve=[A.sum.default],
        note="standard path: aten.sum.dim_IntList (plain KernelCall aten::sum.IntList_out)")
    add("aten.sum.dim_IntList", "all", "torch.sum(x) (every dim; a CPU kernel: Vulkan does not take it)",
        unary(torch.sum), [N(3, 5, 7)], where="plain")
    add("aten.sort.default", "dim1", "torch.sort(x, dim=1) (values and indices)",
        unary(lambda x: tuple(torch.sort(x, dim=1))), [N(3, 5, 7)], where="plain",
        note="the Vulkan partitioner does not take sort")
    add("aten.sort.default", "argsort_desc", "torch.argsort(x, dim=-1, descending=True) (a sort's indices)",
        unary(lambda x: torch.argsort(x, dim=-1, descending=True)), [N(3, 5, 7)], where="plain",
        note="argsort exports as aten.sort; the Vulkan partitioner does not take it")
    add("aten.topk.default", "last_k3", "torch.topk(x, 3) (values and indices)",
        unary(lambda x: tuple(torch.topk(x, 3))), [N(3, 5, 7)], where="plain",
        note="the Vulkan partitioner does not take topk")
    add("aten.topk.default", "smallest_dim0", "torch.topk(x, 2, dim=0, largest=False)",
        unary(lambda x: tuple(torch.topk(x, 2, dim=0, largest=False))), [N(3, 5, 7)], where="plain",
        note="the Vulkan partitioner does not take topk")
    cs = "aten.cumsum.default"
    add(cs, "dim1", "torch.cumsum(x, 1)", unary(lambda x: torch.cumsum(x, 1)), [N(3, 5, 7)], where="plain",
        note="the Vulkan partitioner does not take cumsum")
    add(cs, "int64_last", "torch.cumsum(x, -1) on int64", unary(lambda x: torch.cumsum(x, -1)),
        [I(3, 9, dtype=torch.int64)], where="plain", note="the Vulkan partitioner does not take cumsum")
    for op, fn, nm in [("aten.amax.default", torch.amax, "amax"), ("aten.amin.default", torch.amin, "amin")]:
        add(op, "last_dim", f"torch.{nm}(x, -1)", unary(lambda x, fn=fn: fn(x, -1)), [N(3, 5, 7)])
        add(op, "dim1_keepdim", f"torch.{nm}(x, 1, keepdim=True)", unary(lambda x, fn=fn: fn(x, 1, keepdim=True)),
            [N(3, 5, 7)])
        add(op, "dims0_2_keepdim", f"torch.{nm}(x, (0, 2), keepdim=True)",
            unary(lambda x, fn=fn: fn(x, (0, 2), keepdim=True)), [N(3, 5, 7)])
        add(op, "dims0_2", f"torch.{nm}(x, (0, 2))", unary(lambda x, fn=fn: fn(x, (0, 2))), [N(3, 5, 7)],
            where="plain", note=red_note)
    for op, fn, nm in [("aten.argmax.default", torch.argmax, "argmax"),
                       ("aten.argmin.default", torch.argmin, "argmin")]:
        add(op, "last_dim", f"torch.{nm}(x, -1) (int64 output)", unary(lambda x, fn=fn: fn(x, -1)), [N(3, 5, 7)])
        add(op, "dim1_keepdim", f"torch.{nm}(x, 1, keepdim=True)", unary(lambda x, fn=fn: fn(x, 1, keepdim=True)),
            [N(3, 5, 7)])
        add(op, "dim0_keepdim", f"torch.{nm}(x, 0, keepdim=True)", unary(lambda x, fn=fn: fn(x, 0, keepdim=True)),
            [N(5, 3, 7)])
        add(op, "dim0", f"torch.{nm}(x, 0)", unary(lambda x, fn=fn: fn(x, 0)), [N(5, 3, 7)],
            where="plain", note=red_note)
        add(op, "flat", f"torch.{nm}(x) (flattened, rank-0 output)", unary(lambda x, fn=fn: fn(x)), [N(3, 5, 7)],
            where="plain", note="the Vulkan partitioner does not take a reduction over every dim")

    # ------------------------------------------------------------------ norms
    ln = "aten.native_layer_norm.default"
    add(ln, "affine", "LayerNorm(13) with random weight and bias on [3,5,13]",
        f(lambda s, x: s.n(x), n=lambda: _rand_affine(nn.LayerNorm(13))), [N(3, 5, 13, scale=2.0)])
    add(ln, "no_affine", "LayerNorm(13, elementwise_affine=False)",
        f(lambda s, x: s.n(x), n=lambda: nn.LayerNorm(13, elementwise_affine=False)), [N(3, 5, 13, scale=2.0)])
    add(ln, "two_dims", "LayerNorm([5, 7]) with weight and bias on [3,5,7], eps 1e-3",
        f(lambda s, x: s.n(x), n=lambda: _rand_affine(nn.LayerNorm([5, 7], eps=1e-3))), [N(3, 5, 7, scale=2.0)])
    add(ln, "weight_only", "F.layer_norm(x, [11], weight) (no bias)",
        f(lambda s, x, w: F.layer_norm(x, [11], w)), [N(3, 11, scale=2.0), N(11)])
    bn = "aten._native_batch_norm_legit_no_training.default"
    add(bn, "affine", "BatchNorm2d(5) eval, random stats and affine (not folded: no conv before it)",
        f(lambda s, x: s.n(x), n=lambda: _rand_affine(nn.BatchNorm2d(5)).eval()), [N(2, 5, 7, 3)])
    add(bn, "no_affine", "BatchNorm2d(4, affine=False) eval, random stats",
        f(lambda s, x: s.n(x), n=lambda: _rand_affine(nn.BatchNorm2d(4, affine=False)).eval()), [N(1, 4, 7, 5)])
    add(bn, "bn1d", "BatchNorm1d(6) eval on [2,6,9], eps 1e-3",
        f(lambda s, x: s.n(x), n=lambda: _rand_affine(nn.BatchNorm1d(6, eps=1e-3)).eval()), [N(2, 6, 9)])
    gn = "aten.native_group_norm.default"
    add(gn, "affine", "GroupNorm(3, 6) with random weight and bias on [2,6,5,7]",
        f(lambda s, x: s.n(x), n=lambda: _rand_affine(nn.GroupNorm(3, 6))), [N(2, 6, 5, 7, scale=2.0)])
    add(gn, "no_affine", "GroupNorm(2, 4, affine=False) on [1,4,7,5]",
        f(lambda s, x: s.n(x), n=lambda: nn.GroupNorm(2, 4, affine=False)), [N(1, 4, 7, 5, scale=2.0)])
    add(gn, "one_group", "GroupNorm(1, 5) on [2,5,3,3], eps 1e-3",
        f(lambda s, x: s.n(x), n=lambda: _rand_affine(nn.GroupNorm(1, 5, eps=1e-3))), [N(2, 5, 3, 3)])
    add(gn, "per_channel", "GroupNorm(4, 4) (one channel per group) on [1,4,5,7]",
        f(lambda s, x: s.n(x), n=lambda: _rand_affine(nn.GroupNorm(4, 4))), [N(1, 4, 5, 7)])

    # ------------------------------------------------------------------ matmul
    add("aten.mm.default", "odd", "torch.mm(a [7,5], b [5,9])", f(lambda s, a, b: torch.mm(a, b)), [N(7, 5), N(5, 9)])
    add("aten.mm.default", "vec4", "torch.mm(a [6,8], b [8,12]) (K, N multiples of 4)",
        f(lambda s, a, b: torch.mm(a, b)), [N(6, 8), N(8, 12)])
    add("aten.mm.default", "const_weight", "x [5,7] @ W (a constant [7,3] parameter)",
        f(lambda s, x: torch.mm(x, s.w), w=lambda: nn.Parameter(torch.randn(7, 3))), [N(5, 7)])
    add("aten.bmm.default", "odd", "torch.bmm(a [3,5,7], b [3,7,4])", f(lambda s, a, b: torch.bmm(a, b)),
        [N(3, 5, 7), N(3, 7, 4)])
    add("aten.bmm.default", "batch1", "torch.bmm(a [1,9,5], b [1,5,6])", f(lambda s, a, b: torch.bmm(a, b)),
        [N(1, 9, 5), N(1, 5, 6)])
    am = "aten.addmm.default"
    add(am, "bias_row", "torch.addmm(bias [9], a [7,5], b [5,9])", f(lambda s, c, a, b: torch.addmm(c, a, b)),
        [N(9), N(7, 5), N(5, 9)])
    add(am, "bias_full", "torch.addmm(c [7,9], a, b)", f(lambda s, c, a, b: torch.addmm(c, a, b)),
        [N(7, 9), N(7, 5), N(5, 9)])
    add(am, "beta_alpha", "torch.addmm(c, a, b, beta=0.5, alpha=2.0)",
        f(lambda s, c, a, b: torch.addmm(c, a, b, beta=0.5, alpha=2.0)), [N(7, 9), N(7, 5), N(5, 9)])
    lin = "aten.linear.default"
    add(lin, "bias", "nn.Linear(7, 5) on [3,7]", f(lambda s, x: s.l(x), l=lambda: nn.Linear(7, 5)), [N(3, 7)])
    add(lin, "no_bias", "nn.Linear(7, 5, bias=False) on [3,7]",
        f(lambda s, x: s.l(x), l=lambda: nn.Linear(7, 5, bias=False)), [N(3, 7)])
    add(lin, "rank3", "nn.Linear(9, 6) on [2,5,9] (view_copy around the linear)",
        f(lambda s, x: s.l(x), l=lambda: nn.Linear(9, 6)), [N(2, 5, 9)])
    add(lin, "vec4", "nn.Linear(16, 8) on [5,16]", f(lambda s, x: s.l(x), l=lambda: nn.Linear(16, 8)), [N(5, 16)])
    add(lin, "weight_input", "F.linear(x, w, b) with weight and bias as graph inputs",
        f(lambda s, x, w, b: F.linear(x, w, b)), [N(3, 7), N(5, 7), N(5)])
    add("aten.matmul.default", "3d_2d", "torch.matmul(a [2,3,5], b [5,4]), aten.matmul kept from decomposition",
        f(lambda s, a, b: torch.matmul(a, b)), [N(2, 3, 5), N(5, 4)], where="plain", path="preserve",
        preserve=[A.matmul.default], note="standard path: view_copy + mm (or bmm / expand / view)")
    add("aten.matmul.default", "batched", "torch.matmul(a [2,3,5], b [2,5,4]), kept from decomposition",
        f(lambda s, a, b: torch.matmul(a, b)), [N(2, 3, 5), N(2, 5, 4)], where="plain", path="preserve",
        preserve=[A.matmul.default])
    # fmt: on
    return C


# Registered names no module can make the exporter emit, and why (checked by export_ops.py:
# each must really have no case).
NOT_PRODUCIBLE: dict[str, str] = {
    "aten._unsafe_view.default": (
        "torch.export does emit it (a reshape that needs a copy, or "
        "torch.ops.aten._unsafe_view called directly), but ExecuTorch's edge dialect rewrites "
        "every view op to its *_copy form: vulkan.pte carries aten.view_copy.default and plain.pte "
        "aten::view_copy.out, also with EdgeCompileConfig(preserve_ops=[aten._unsafe_view.default]) "
        "(tried: no error, still view_copy); the Vulkan partitioner has no _unsafe_view either"
    ),
    "aten.alias.default": (
        "torch.ops.aten.alias in forward() is exported as aten.alias, but ExecuTorch's edge "
        "dialect rewrites it to aten.alias_copy.default (plain.pte: aten::alias_copy.out, which the "
        "alias_copy case checks), also with preserve_ops (tried); the Vulkan backend then removes "
        "alias/alias_copy/clone of unchanged shape and dtype (RemoveRedundantOpsTransform), so "
        "no VkGraph holds either"
    ),
}


def short_name(op: str, all_ops: Sequence[str] = ()) -> str:
    """'aten.convolution.default' -> 'convolution', 'aten.add.Tensor' -> 'add_Tensor',
    'et_vk.conv_with_clamp.default' -> 'conv_with_clamp': the op name plus its overload unless
    that is 'default' (stable when other overloads get registered; export_ops.py checks the
    directory names are unique)."""
    ns, name, overload = op.split(".")
    return name if overload == "default" else f"{name}_{overload}"
