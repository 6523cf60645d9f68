"""The small torch modules a rebuilt TFLite graph is made of (see tflite_model.py).

Each module does one thing with plain torch ops that torch.export and ExecuTorch's
VulkanPartitioner accept; TFLiteModule runs them in order, wiring them by value keys.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from .tflite_reader import TFLiteImportError

Perm = tuple[int, ...]


def inverse_perm(p: Perm) -> Perm:
    inv = [0] * len(p)
    for i, v in enumerate(p):
        inv[v] = i
    return tuple(inv)


# ---------------------------------------------------------------------------
# Step modules: each does one thing; the plan wires them by value keys.
# ---------------------------------------------------------------------------


def activation(code: int, where: str) -> nn.Module:
    # tflite ActivationFunctionType: NONE 0, RELU 1, RELU_N1_TO_1 2, RELU6 3, TANH 4
    acts = {0: nn.Identity, 1: nn.ReLU, 2: lambda: nn.Hardtanh(-1.0, 1.0), 3: nn.ReLU6, 4: nn.Tanh}
    if code not in acts:
        raise TFLiteImportError(f"{where}: fused activation {code} is not supported")
    return acts[code]()


class Const(nn.Module):
    def __init__(self, value: np.ndarray):
        super().__init__()
        self.register_buffer("value", torch.from_numpy(np.ascontiguousarray(value)))

    def forward(self):
        return self.value


class Permute(nn.Module):
    def __init__(self, perm: Perm):
        super().__init__()
        self.perm = list(perm)

    def forward(self, x):
        return x.permute(self.perm)


class Reshape(nn.Module):
    def __init__(self, shape: Sequence[int]):
        super().__init__()
        self.shape = [int(s) for s in shape]

    def forward(self, x):
        return x.reshape(self.shape)


class Unary(nn.Module):
    FNS: dict[str, Callable] = {
        "relu": F.relu,
        "relu6": F.relu6,
        "relu_n1_to_1": lambda x: torch.clamp(x, -1.0, 1.0),
        "sigmoid": torch.sigmoid,
        "tanh": torch.tanh,
        "hardswish": F.hardswish,
        "exp": torch.exp,
        "sqrt": torch.sqrt,
        "rsqrt": torch.rsqrt,
        "neg": torch.neg,
        "abs": torch.abs,
        "log": torch.log,
        "gelu": F.gelu,
        "identity": lambda x: x,
    }

    def __init__(self, kind: str):
        super().__init__()
        self.kind = kind

    def forward(self, x):
        return self.FNS[self.kind](x)


class LeakyRelu(nn.Module):
    def __init__(self, alpha: float):
        super().__init__()
        self.alpha = float(alpha)

    def forward(self, x):
        return F.leaky_relu(x, self.alpha)


class Binary(nn.Module):
    """a <fn> b for two activations, or with one side a constant (a Python float when it
    is a single value, else a buffer already in the activation's layout)."""

    FNS: dict[str, Callable] = {
        "add": torch.add,
        "sub": torch.sub,
        "mul": torch.mul,
        "div": torch.div,
        "maximum": torch.maximum,
        "minimum": torch.minimum,
    }

    def __init__(self, kind: str, act: nn.Module, const=None, const_first: bool = False):
        super().__init__()
        self.kind, self.const_first, self.act = kind, const_first, act
        self.scalar: float | None = None
        self.has_const = const is not None
        if isinstance(const, float):
            self.scalar = const
        elif const is not None:
            self.register_buffer("const", torch.from_numpy(np.ascontiguousarray(const)))

    def _scalar_op(self, x, s: float):
        k = self.kind
        if k == "add":
            return x + s
        if k == "mul":
            return x * s
        if k == "sub":
            return s - x if self.const_first else x - s
        if k == "div":
            return s / x if self.const_first else x / s
        if k == "maximum":
            return torch.clamp(x, min=s)
        if k == "minimum":
            return torch.clamp(x, max=s)
        raise AssertionError(k)

    def forward(self, a, b=None):
        fn = self.FNS[self.kind]
        if self.scalar is not None:
            y = self._scalar_op(a, self.scalar)
        elif self.has_const:
            y = fn(self.const, a) if self.const_first else fn(a, self.const)
        else:
            y = fn(a, b)
        return self.act(y)


class Conv(nn.Module):
    """Optional explicit zero pad (left, right, top, bottom), the convolution, the fused activation."""

    def __init__(self, conv: nn.Module, pad: tuple[int, int, int, int] | None, act: nn.Module):
        super().__init__()
        self.pad = list(pad) if pad else None
        self.conv, self.act = conv, act

    def forward(self, x):
        if self.pad:
            x = F.pad(x, self.pad)
        return self.act(self.conv(x))


class TransposeConv(nn.Module):
    """ConvTranspose2d, then the crop TFLite's padding implies (rows/cols [top, top+H))."""

    def __init__(self, conv: nn.ConvTranspose2d, crop: tuple[int, int, int, int] | None, act: nn.Module):
        super().__init__()
        self.conv, self.act = conv, act
        self.crop = list(crop) if crop else None  # top, height, left, width

    def forward(self, x):
        y = self.conv(x)
        if self.crop:
            top, h, left, w = self.crop
            y = y[:, :, top : top + h, left : left + w]
        return self.act(y)


class Pool(nn.Module):
    def __init__(self, pool: nn.Module, pad: tuple[int, int, int, int] | None, act: nn.Module):
        super().__init__()
        self.pool, self.act = pool, act
        self.pad = list(pad) if pad else None

    def forward(self, x):
        if self.pad:  # only for max pooling: -inf never wins, like TFLite's skipped taps
            x = F.pad(x, self.pad, value=float("-inf"))
        return self.act(self.pool(x))


class Cat(nn.Module):
    def __init__(self, dim: int, act: nn.Module):
        super().__init__()
        self.dim, self.act = dim, act

    def forward(self, *xs):
        return self.act(torch.cat(xs, dim=self.dim))


class Slice(nn.Module):
    def __init__(self, ranges: Sequence[tuple[int, int, int]], squeeze: Sequence[int]):
        super().__init__()
        self.ranges = [tuple(r) for r in ranges]
        self.squeeze = list(squeeze)

    def forward(self, x):
        for d, (start, stop, step) in enumerate(self.ranges):
            if (start, stop, step) != (0, x.shape[d], 1):
                x = x[(slice(None),) * d + (slice(start, stop, step),)]
        if self.squeeze:
            x = x.squeeze(self.squeeze)
        return x


class Pad(nn.Module):
    def __init__(self, pads: Sequence[int], value: float):
        super().__init__()
        self.pads, self.value = list(pads), float(value)

    def forward(self, x):
        return F.pad(x, self.pads, value=self.value)


class Reduce(nn.Module):
    def __init__(self, kind: str, dims: Sequence[int], keepdim: bool):
        super().__init__()
        self.kind, self.dims, self.keepdim = kind, list(dims), keepdim

    def forward(self, x):
        if self.kind == "mean":
            return x.mean(dim=self.dims, keepdim=self.keepdim)
        if self.kind == "sum":
            return x.sum(dim=self.dims, keepdim=self.keepdim)
        if self.kind == "max":
            return torch.amax(x, dim=self.dims, keepdim=self.keepdim)
        if self.kind == "min":
            return torch.amin(x, dim=self.dims, keepdim=self.keepdim)
        raise AssertionError(self.kind)


class Interpolate(nn.Module):
    def __init__(self, size: tuple[int, int], mode: str, align_corners: bool | None):
        super().__init__()
        self.size, self.mode, self.align_corners = tuple(size), mode, align_corners

    def forward(self, x):
        return F.interpolate(x, size=self.size, mode=self.mode, align_corners=self.align_corners)


class MatrixResize(nn.Module):
    """Separable resize as two constant matrices: y = Mh @ x @ Mw^T on the last two dims
    (F.linear on W, then on H through a transpose). Used for sampling rules torch's
    interpolate does not have (TF's legacy bilinear: src = dst * in / out)."""

    def __init__(self, mh: np.ndarray | None, mw: np.ndarray | None):
        super().__init__()
        self.has_h, self.has_w = mh is not None, mw is not None
        if mh is not None:
            self.register_buffer("mh", torch.from_numpy(mh.astype(np.float32)))
        if mw is not None:
            self.register_buffer("mw", torch.from_numpy(mw.astype(np.float32)))

    def forward(self, x):
        if self.has_w:
            x = F.linear(x, self.mw)
        if self.has_h:
            x = F.linear(x.transpose(2, 3), self.mh).transpose(2, 3)
        return x


class MatMul(nn.Module):
    def __init__(self, adj_a: bool, adj_b: bool):
        super().__init__()
        self.adj_a, self.adj_b = adj_a, adj_b

    def forward(self, a, b):
        if self.adj_a:
            a = a.transpose(-1, -2)
        if self.adj_b:
            b = b.transpose(-1, -2)
        return torch.matmul(a, b)


class Softmax(nn.Module):
    def __init__(self, dim: int, beta: float):
        super().__init__()
        self.dim, self.beta = dim, float(beta)

    def forward(self, x):
        if self.beta != 1.0:
            x = x * self.beta
        return torch.softmax(x, dim=self.dim)


class Linear(nn.Module):
    def __init__(self, linear: nn.Linear, act: nn.Module):
        super().__init__()
        self.linear, self.act = linear, act

    def forward(self, x):
        return self.act(self.linear(x))


# ---------------------------------------------------------------------------
# The module the builder produces
# ---------------------------------------------------------------------------


class TFLiteModule(nn.Module):
    """A rebuilt TFLite graph: an ordered list of step modules wired by value keys."""

    def __init__(
        self,
        steps,
        input_keys,
        output_keys,
        tensor_keys,
        source: str,
        input_tensors: Sequence[int] = (),
        output_tensors: Sequence[int] = (),
    ):
        super().__init__()
        self.input_tensors = list(input_tensors)  # TFLite tensor indices of the inputs
        self.output_tensors = list(output_tensors)  # ... and of the outputs, in return order
        self.ops = nn.ModuleList([m for m, _, _ in steps])
        self._wiring = [(list(i), list(o)) for _, i, o in steps]
        self._input_keys = list(input_keys)
        self._output_keys = list(output_keys)
        # tflite tensor index -> (value key, perm) for every tensor the module computes
        self._tensor_keys: dict[int, tuple[str, Perm]] = dict(tensor_keys)
        self.source = source

    def _run(self, inputs) -> dict[str, torch.Tensor]:
        if len(inputs) != len(self._input_keys):
            raise TypeError(f"expected {len(self._input_keys)} inputs, got {len(inputs)}")
        env = dict(zip(self._input_keys, inputs))
        for m, (ins, outs) in zip(self.ops, self._wiring):
            r = m(*[env[k] for k in ins])
            if len(outs) == 1:
                env[outs[0]] = r
            else:
                env.update(zip(outs, r))
        return env

    def forward(self, *inputs):
        env = self._run(inputs)
        outs = tuple(env[k] for k in self._output_keys)
        return outs[0] if len(outs) == 1 else outs

    @torch.no_grad()
    def tflite_tensors(self, *inputs) -> dict[int, np.ndarray]:
        """Every TFLite tensor the module computes, in TFLite's layout (for layer-by-layer checks)."""
        env = self._run(inputs)
        out = {}
        for ti, (key, perm) in self._tensor_keys.items():
            if key in env:
                out[ti] = env[key].permute(inverse_perm(perm)).contiguous().numpy()
        return out
