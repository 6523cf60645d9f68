#!/usr/bin/env python3
"""Export the small test models used as program fixtures.

Regenerate everything (from the repository root):

    python/.venv/bin/python python/export.py --out tests/fixtures
    python/.venv/bin/python python/export.py --out tests/fixtures --only conv --only cat

For every model this writes tests/fixtures/<name>/:

    vulkan.pte          lowered with VulkanPartitioner (must be fully delegated)
    plain.pte           same model, no partitioner: only CPU kernel calls
    input_<i>.npy       float32 inputs (random normal, fixed seed)
    expected_<i>.npy    eager PyTorch outputs, CPU, float32
    expected64_<i>.npy  same model and inputs run in float64
    meta.json           description, shapes/dtypes, op lists, delegation status,
                        PyTorch's own fp32-vs-fp64 error, ExecuTorch CPU check of
                        plain.pte
    vulkan.inspect.json python/inspect_pte.py --full summary of vulkan.pte
    plain.inspect.json  python/inspect_pte.py --full summary of plain.pte

Everything is seeded, so running the script twice gives byte-identical files
(with the pinned versions in python/requirements.txt).
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
import logging
import os
import shutil
import sys
import warnings
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from executorch.backends.vulkan.partitioner.vulkan_partitioner import VulkanPartitioner
from executorch.exir import to_edge_transform_and_lower
from executorch.version import __version__ as executorch_version

import inspect_pte

# ---------------------------------------------------------------------------
# Models
# ---------------------------------------------------------------------------


class AddMm(nn.Module):
    def forward(self, a, b, c):
        return torch.mm(torch.add(a, b, alpha=1.5), c)


class ConvRelu(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, kernel_size=3, stride=2, padding=1, bias=True)

    def forward(self, x):
        return F.relu(self.conv(x))


class DwConvRelu6(nn.Module):
    def __init__(self, c=8):
        super().__init__()
        self.conv = nn.Conv2d(c, c, kernel_size=3, padding=1, groups=c, bias=True)
        with torch.no_grad():
            # Larger weights than the default init so that both clamp bounds
            # (0 and 6) are actually reached by the test input.
            self.conv.weight.mul_(3.0)
        self.act = nn.ReLU6()

    def forward(self, x):
        return self.act(self.conv(x))


class LinearGelu(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 12)

    def forward(self, x):
        return F.gelu(self.fc(x))


def _randomize_bn(bn: nn.BatchNorm2d) -> None:
    with torch.no_grad():
        c = bn.num_features
        bn.weight.copy_(torch.rand(c) + 0.5)
        bn.bias.copy_(torch.randn(c) * 0.2)
        bn.running_mean.copy_(torch.randn(c) * 0.3)
        bn.running_var.copy_(torch.rand(c) + 0.5)


class Residual(nn.Module):
    def __init__(self, c=8):
        super().__init__()
        self.conv1 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(c)
        self.conv2 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(c)
        _randomize_bn(self.bn1)
        _randomize_bn(self.bn2)

    def forward(self, x):
        y = F.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return F.relu(y + x)


class Pooling(nn.Module):
    def forward(self, x):
        a = F.max_pool2d(x, kernel_size=3, stride=2, padding=1)
        b = F.avg_pool2d(x, kernel_size=2)
        c = F.adaptive_avg_pool2d(x, 1)
        return a, b, c


class Upsample(nn.Module):
    def forward(self, x):
        n = F.interpolate(x, scale_factor=2, mode="nearest")
        b = F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False)
        return n + b


class CatConv(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Conv2d(3, 4, 3, padding=1)
        self.b = nn.Conv2d(3, 5, 1)
        self.mix = nn.Conv2d(9, 6, 1)

    def forward(self, x):
        return self.mix(torch.cat([self.a(x), self.b(x)], dim=1))


class Softmax(nn.Module):
    def forward(self, x):
        return torch.softmax(x, dim=-1)


class LayerNorm(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln = nn.LayerNorm(24)
        with torch.no_grad():
            self.ln.weight.copy_(torch.rand(24) + 0.5)
            self.ln.bias.copy_(torch.randn(24) * 0.1)

    def forward(self, x):
        return self.ln(x)


class TwoInputs(nn.Module):
    def forward(self, x, y):
        return torch.sigmoid(x * y)


@dataclass
class Spec:
    name: str
    description: str
    covers: list[str]
    make: Callable[[], nn.Module]
    input_shapes: list[tuple[int, ...]]
    # Standard deviation of each random-normal input.
    input_scale: list[float] = field(default_factory=list)
    # When True a vulkan.pte with leftover kernel calls is accepted (and
    # marked in meta.json); otherwise it is an error.
    allow_partial: bool = False


SPECS: list[Spec] = [
    Spec(
        "add_mm",
        "out = (a + 1.5*b) @ c on three [2,2] inputs (seed program)",
        ["aten.add.Tensor with alpha", "aten.mm", "three graph inputs"],
        AddMm,
        [(2, 2), (2, 2), (2, 2)],
    ),
    Spec(
        "conv",
        "Conv2d 3->8, k3, stride 2, pad 1, bias, then ReLU; odd input 17x15",
        ["aten.convolution (strided, padded, bias)", "relu (fused as clamp by Vulkan)", "constants in named data"],
        ConvRelu,
        [(1, 3, 17, 15)],
    ),
    Spec(
        "dwconv",
        "depthwise Conv2d (groups=8, k3, pad 1) then ReLU6 (hardtanh 0..6)",
        ["depthwise aten.convolution (groups=C)", "hardtanh / clamp(0, 6)"],
        DwConvRelu6,
        [(1, 8, 12, 11)],
        input_scale=[2.0],
    ),
    Spec(
        "linear",
        "Linear 16->12 on a [2,5,16] input, then exact (erf) GELU",
        ["aten.linear / addmm / mm on a rank-3 input", "aten.gelu (approximate='none')"],
        LinearGelu,
        [(2, 5, 16)],
    ),
    Spec(
        "residual",
        "conv-bn-relu, conv-bn, + input, relu (BatchNorm in eval mode, random stats)",
        ["BatchNorm folded into conv", "residual add", "relu"],
        Residual,
        [(1, 8, 12, 12)],
    ),
    Spec(
        "pooling",
        "three outputs: max_pool2d k3 s2 p1, avg_pool2d k2, adaptive_avg_pool2d to 1x1",
        [
            "max_pool2d_with_indices (padding)",
            "avg_pool2d (odd size floors)",
            "adaptive avg pool 1x1 (mean over H,W)",
            "multiple graph outputs",
        ],
        Pooling,
        [(1, 4, 13, 11)],
    ),
    Spec(
        "upsample",
        "nearest x2 plus bilinear x2 (align_corners=False), summed",
        ["upsample_nearest2d", "upsample_bilinear2d (align_corners=False)", "add"],
        Upsample,
        [(1, 3, 7, 9)],
    ),
    Spec(
        "cat",
        "conv3x3 (3->4) and conv1x1 (3->5) concatenated on channels, then conv1x1 9->6",
        ["aten.cat on dim 1", "1x1 convolution", "one input used by two ops"],
        CatConv,
        [(1, 3, 10, 10)],
    ),
    Spec(
        "softmax",
        "softmax over the last dim of a [2,7,13] input",
        ["aten._softmax (last dim, odd size)"],
        Softmax,
        [(2, 7, 13)],
        input_scale=[3.0],
    ),
    Spec(
        "layer_norm",
        "LayerNorm(24) with random affine weights on [2,9,24]",
        ["aten.native_layer_norm (weight, bias, eps)", "extra mean/rstd outputs unused"],
        LayerNorm,
        [(2, 9, 24)],
    ),
    Spec(
        "two_inputs",
        "x [1,4,8,8] * y [1,4,1,1] (broadcast), then sigmoid",
        ["two inputs of different shapes", "broadcast mul", "sigmoid"],
        TwoInputs,
        [(1, 4, 8, 8), (1, 4, 1, 1)],
    ),
]


# ---------------------------------------------------------------------------
# Export
# ---------------------------------------------------------------------------


def model_seed(name: str) -> int:
    return zlib.crc32(name.encode()) & 0x7FFFFFFF


def make_inputs(spec: Spec, seed: int) -> list[torch.Tensor]:
    g = torch.Generator().manual_seed(seed + 1)
    out = []
    for i, shape in enumerate(spec.input_shapes):
        scale = spec.input_scale[i] if i < len(spec.input_scale) else 1.0
        t = (torch.randn(shape, generator=g, dtype=torch.float32) * scale).contiguous()
        assert bool(t.abs().max() > 0), "input must not be all zeros"
        out.append(t)
    return out


def as_tuple(x) -> tuple[torch.Tensor, ...]:
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def lower(module: nn.Module, inputs: Sequence[torch.Tensor], vulkan: bool) -> bytes:
    ep = torch.export.export(module, tuple(inputs), strict=True)
    if vulkan:
        edge = to_edge_transform_and_lower(ep, partitioner=[VulkanPartitioner()])
    else:
        edge = to_edge_transform_and_lower(ep)
    return bytes(edge.to_executorch().buffer)


def rel_l2(a: np.ndarray, ref: np.ndarray) -> float:
    a = a.astype(np.float64)
    ref = ref.astype(np.float64)
    den = float(np.linalg.norm(ref.ravel()))
    num = float(np.linalg.norm((a - ref).ravel()))
    return num / den if den > 0 else num


def error_stats(a: np.ndarray, ref: np.ndarray) -> dict[str, float]:
    a64 = a.astype(np.float64)
    r64 = ref.astype(np.float64)
    max_abs = float(np.max(np.abs(a64 - r64))) if a.size else 0.0
    scale = float(np.max(np.abs(r64))) if a.size else 0.0
    return {
        "rel_l2": rel_l2(a, ref),
        "max_abs": max_abs,
        "max_abs_over_max_ref": max_abs / scale if scale > 0 else max_abs,
    }


def run_plain_on_executorch(pte: bytes, inputs: Sequence[torch.Tensor]) -> list[np.ndarray] | None:
    """Run plain.pte with ExecuTorch's own CPU runtime (portable kernels)."""
    try:
        from executorch.runtime import Runtime

        rt = Runtime.get()
        prog = rt.load_program(pte)
        method = prog.load_method("forward")
        outs = method.execute([t.clone() for t in inputs])
        return [o.detach().numpy().copy() for o in outs]
    except Exception as e:  # pragma: no cover - informative only
        print(f"    [warn] could not run plain.pte on the ExecuTorch runtime: {e}")
        return None


def export_one(spec: Spec, out_root: str) -> dict:
    seed = model_seed(spec.name)
    torch.manual_seed(seed)
    model = spec.make().eval()
    inputs = make_inputs(spec, seed)

    with torch.no_grad():
        expected = [t.detach().clone() for t in as_tuple(model(*inputs))]
        model64 = copy.deepcopy(model).double()
        expected64 = [t.detach().clone() for t in as_tuple(model64(*[x.double() for x in inputs]))]

    vulkan_pte = lower(model, inputs, vulkan=True)
    plain_pte = lower(model, inputs, vulkan=False)

    vs = inspect_pte.summarize(vulkan_pte)
    ps = inspect_pte.summarize(plain_pte)

    fully = inspect_pte.is_fully_delegated(vs)
    leftover = inspect_pte.kernel_op_names(vs)
    if not fully and not spec.allow_partial:
        raise RuntimeError(
            f"{spec.name}: vulkan.pte is not fully delegated; kernel calls left: {leftover}; "
            f"instruction kinds: {[p['instruction_kinds'] for p in vs['execution_plans']]}"
        )

    d = os.path.join(out_root, spec.name)
    if os.path.isdir(d):
        shutil.rmtree(d)
    os.makedirs(d)
    with open(os.path.join(d, "vulkan.pte"), "wb") as f:
        f.write(vulkan_pte)
    with open(os.path.join(d, "plain.pte"), "wb") as f:
        f.write(plain_pte)
    for i, t in enumerate(inputs):
        np.save(os.path.join(d, f"input_{i}.npy"), t.numpy())
    for i, t in enumerate(expected):
        np.save(os.path.join(d, f"expected_{i}.npy"), t.numpy())
    for i, t in enumerate(expected64):
        np.save(os.path.join(d, f"expected64_{i}.npy"), t.numpy())

    torch_err = [error_stats(e.numpy(), e64.numpy()) for e, e64 in zip(expected, expected64)]

    et_outs = run_plain_on_executorch(plain_pte, inputs)
    et_check = None
    if et_outs is not None:
        et_check = [error_stats(o, e.numpy()) for o, e in zip(et_outs, expected)]

    def vk_summary(s: dict) -> dict:
        vds = s["vulkan_delegates"]
        return {
            "delegate_op_names": [v["op_names"] for v in vds],
            "num_constants": [len(v["constants"]) for v in vds],
            "constants_in_named_data": all(
                c["named_key"] != "" for v in vds for c in v["constants"] if c["length"] > 0
            ),
            "vkgraph_inputs": [
                [{"dims": v["values"][i]["dims"], "dtype": v["values"][i]["dtype"]} for i in v["input_ids"]]
                for v in vds
            ],
            "vkgraph_outputs": [
                [{"dims": v["values"][i]["dims"], "dtype": v["values"][i]["dtype"]} for i in v["output_ids"]]
                for v in vds
            ],
            "mem_obj_ids": [v["mem_obj_ids"] for v in vds],
        }

    meta = {
        "name": spec.name,
        "description": spec.description,
        "covers": spec.covers,
        "seed": seed,
        "generator": {
            "script": "python/export.py",
            "torch": torch.__version__,
            "executorch": executorch_version,
            "numpy": np.__version__,
        },
        "inputs": [
            {"file": f"input_{i}.npy", "shape": list(t.shape), "dtype": str(t.numpy().dtype)}
            for i, t in enumerate(inputs)
        ],
        "outputs": [
            {
                "file": f"expected_{i}.npy",
                "file64": f"expected64_{i}.npy",
                "shape": list(t.shape),
                "dtype": str(t.numpy().dtype),
            }
            for i, t in enumerate(expected)
        ],
        "torch_fp32_vs_fp64": torch_err,
        "vulkan": {
            "file": "vulkan.pte",
            "size": len(vulkan_pte),
            "sha256": hashlib.sha256(vulkan_pte).hexdigest(),
            "fully_delegated": fully,
            "kernel_calls": leftover,
            "instruction_kinds": [p["instruction_kinds"] for p in vs["execution_plans"]],
            "delegate_locations": [dd["location"] for p in vs["execution_plans"] for dd in p["delegates"]],
            "named_data_count": vs["named_data"]["count"],
            **vk_summary(vs),
        },
        "plain": {
            "file": "plain.pte",
            "size": len(plain_pte),
            "sha256": hashlib.sha256(plain_pte).hexdigest(),
            "operators": [op for p in ps["execution_plans"] for op in p["operators"]],
            "kernel_calls": inspect_pte.kernel_op_names(ps),
            "instruction_kinds": [p["instruction_kinds"] for p in ps["execution_plans"]],
            "executorch_cpu_vs_expected": et_check,
        },
    }
    with open(os.path.join(d, "meta.json"), "w") as f:
        f.write(inspect_pte.to_json(meta) + "\n")
    # Full inspect_pte summaries, for checking the C++ reader against
    # executorch's own deserializer.
    with open(os.path.join(d, "vulkan.inspect.json"), "w") as f:
        f.write(inspect_pte.to_json(vs) + "\n")
    with open(os.path.join(d, "plain.inspect.json"), "w") as f:
        f.write(inspect_pte.to_json(ps) + "\n")
    return meta


def write_index(out_root: str) -> None:
    """index.json: every fixture directory under out_root, with a one-line summary."""
    entries = []
    for name in sorted(os.listdir(out_root)):
        meta_path = os.path.join(out_root, name, "meta.json")
        if not os.path.isfile(meta_path):
            continue
        with open(meta_path) as f:
            m = json.load(f)
        entries.append(
            {
                "name": m["name"],
                "description": m["description"],
                "num_inputs": len(m["inputs"]),
                "num_outputs": len(m["outputs"]),
                "fully_delegated": m["vulkan"]["fully_delegated"],
                "delegate_op_names": m["vulkan"]["delegate_op_names"],
                "plain_kernel_calls": m["plain"]["kernel_calls"],
            }
        )
    with open(os.path.join(out_root, "index.json"), "w") as f:
        f.write(inspect_pte.to_json({"generator": "python/export.py", "fixtures": entries}) + "\n")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Export the test fixture models.")
    ap.add_argument("--out", default="tests/fixtures", help="output directory (default tests/fixtures)")
    ap.add_argument("--only", action="append", default=[], metavar="NAME", help="export only this model (repeatable)")
    ap.add_argument("--list", action="store_true", help="list the model names and exit")
    ap.add_argument("-v", "--verbose", action="store_true", help="keep executorch's INFO logging")
    args = ap.parse_args(argv)

    if args.list:
        for s in SPECS:
            print(f"{s.name:12s} {s.description}")
        return 0
    if not args.verbose:
        logging.getLogger().setLevel(logging.WARNING)
        warnings.filterwarnings("ignore")

    names = {s.name for s in SPECS}
    unknown = [n for n in args.only if n not in names]
    if unknown:
        print(f"unknown model(s): {unknown}; known: {sorted(names)}", file=sys.stderr)
        return 2
    todo = [s for s in SPECS if not args.only or s.name in args.only]

    os.makedirs(args.out, exist_ok=True)
    torch.set_num_threads(1)  # same summation order on every machine
    failures = []
    for s in todo:
        print(f"[export] {s.name}: {s.description}", flush=True)
        try:
            m = export_one(s, args.out)
        except Exception as e:
            failures.append(s.name)
            print(f"[export] {s.name}: FAILED: {e}", flush=True)
            continue
        v = m["vulkan"]
        print(f"    vulkan.pte {v['size']} B, fully delegated: {v['fully_delegated']}, ops: {v['delegate_op_names']}")
        print(f"    plain.pte  {m['plain']['size']} B, kernels: {m['plain']['kernel_calls']}")
    write_index(args.out)
    if failures:
        print(f"[export] failed: {failures}", file=sys.stderr)
        return 1
    print(f"[export] wrote {len(todo)} fixture(s) under {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
