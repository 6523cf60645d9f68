#!/usr/bin/env python3
"""Op-level check of python/importers/tfjs_graph.py against TensorFlow.js.

Builds small synthetic tfjs graph models (model.json + weight shard, random weights, fixed
seed), one per case, each aimed at one handler and its awkward corners (SAME padding that is
asymmetric, dilation, pads folded or not, lazy layouts meeting at Concat/Reshape, broadcast
constants, the three weight encodings), runs every model with npm @tensorflow/tfjs (pure-JS
CPU backend, tfjs_run.js) and with the imported torch module on the same random input, and
compares. Also checks that unsupported ops and attributes fail with a TfjsImportError that
names the node.

Usage (from the repository root, after `npm ci --prefix python`):
    python/.venv/bin/python python/importers/test_tfjs_graph.py [-k NAME]
Exit status 1 if any case fails.
"""

from __future__ import annotations

import argparse
import base64
import json
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

from importers import tfjs_graph
from importers.tfjs_reference import compare

TOLERANCE_REL_L2 = 1e-5


# ---------------------------------------------------------------------------------------------
# A tiny writer of tfjs graph models
# ---------------------------------------------------------------------------------------------


def _attr(v: Any) -> dict[str, Any]:
    if isinstance(v, bool):
        return {"b": v}
    if isinstance(v, int):
        return {"i": str(v)}
    if isinstance(v, float):
        return {"f": v}
    if isinstance(v, str):
        if v.startswith("DT_"):
            return {"type": v}
        return {"s": base64.b64encode(v.encode()).decode()}
    if isinstance(v, (list, tuple)):
        return {"list": {"i": [str(int(i)) for i in v]}} if v else {"list": {}}
    raise TypeError(v)


class GraphWriter:
    """Collects nodes and constants; save() writes model.json + weights.bin like tfjs-converter."""

    def __init__(self, rng: np.random.RandomState):
        self.rng = rng
        self.nodes: list[dict[str, Any]] = []
        self.weights: list[tuple[str, np.ndarray, str | None]] = []
        self.inputs: dict[str, list[int]] = {}

    def input(self, name: str, shape: Sequence[int]) -> str:
        self.nodes.append(
            {
                "name": name,
                "op": "Placeholder",
                "attr": {"dtype": {"type": "DT_FLOAT"}, "shape": {"shape": {"dim": [{"size": str(d)} for d in shape]}}},
            }
        )
        self.inputs[name] = list(shape)
        return name

    def const(self, name: str, value, quant: str | None = None) -> str:
        arr = np.asarray(value)
        arr = arr.astype(np.int32) if arr.dtype.kind in "iu" else arr.astype(np.float32)
        dt = "DT_INT32" if arr.dtype == np.int32 else "DT_FLOAT"
        self.nodes.append(
            {
                "name": name,
                "op": "Const",
                "attr": {
                    "dtype": {"type": dt},
                    "value": {"tensor": {"dtype": dt, "tensorShape": {"dim": [{"size": str(d)} for d in arr.shape]}}},
                },
            }
        )
        self.weights.append((name, arr, quant))
        return name

    def rand(self, name: str, shape: Sequence[int], scale: float = 0.5, quant: str | None = None) -> str:
        return self.const(name, self.rng.randn(*shape) * scale, quant)

    def op(self, name: str, op: str, inputs: Sequence[str], **attrs) -> str:
        self.nodes.append(
            {"name": name, "op": op, "input": list(inputs), "attr": {k: _attr(v) for k, v in attrs.items()}}
        )
        return name

    def save(self, folder: Path, outputs: Sequence[str]) -> Path:
        folder.mkdir(parents=True, exist_ok=True)
        blobs, specs = [], []
        for name, arr, quant in self.weights:
            spec: dict[str, Any] = {
                "name": name,
                "shape": list(arr.shape),
                "dtype": "int32" if arr.dtype == np.int32 else "float32",
            }
            if quant == "float16":
                blobs.append(arr.astype(np.float16).tobytes())
                spec["quantization"] = {"dtype": "float16", "original_dtype": "float32"}
            elif quant in ("uint8", "uint16"):
                qmax = 255 if quant == "uint8" else 65535
                lo, hi = float(arr.min()), float(arr.max())
                scale = (hi - lo) / qmax if hi > lo else 1.0
                q = np.round((arr - lo) / scale).astype(np.uint8 if quant == "uint8" else np.uint16)
                blobs.append(q.tobytes())
                spec["quantization"] = {"dtype": quant, "min": lo, "scale": scale, "original_dtype": "float32"}
            else:
                blobs.append(arr.tobytes())
            specs.append(spec)
        (folder / "weights.bin").write_bytes(b"".join(blobs))
        model = {
            "format": "graph-model",
            "generatedBy": "test_tfjs_graph.py",
            "convertedBy": None,
            "modelTopology": {"node": self.nodes, "library": {}, "versions": {}},
            "weightsManifest": [{"paths": ["weights.bin"], "weights": specs}],
            "signature": {
                "inputs": {
                    f"{n}:0": {
                        "name": f"{n}:0",
                        "dtype": "DT_FLOAT",
                        "tensorShape": {"dim": [{"size": str(d)} for d in s]},
                    }
                    for n, s in self.inputs.items()
                },
                "outputs": {o: {"name": o, "dtype": "DT_FLOAT"} for o in outputs},
            },
        }
        path = folder / "model.json"
        path.write_text(json.dumps(model))
        return path


# ---------------------------------------------------------------------------------------------
# Cases: each builds a graph on an NHWC input and returns its output tensor names
# ---------------------------------------------------------------------------------------------

Case = tuple[str, list[int], Callable[[GraphWriter, str], list[str]]]
S4 = [1, 1, 1, 1]


def conv_same_stride2(g, x):  # odd/even sizes: SAME pads differ top/bottom, left/right
    y = g.op(
        "conv",
        "Conv2D",
        [x, g.rand("w", [3, 3, 3, 5], quant="float16")],
        strides=[1, 2, 2, 1],
        padding="SAME",
        dilations=S4,
        data_format="NHWC",
    )
    y = g.op("bias", "BiasAdd", [y, g.rand("b", [5])], data_format="NHWC")
    return [g.op("act", "Relu6", [g.op("scale", "Mul", [y, g.const("k", 4.0)])])]


def conv_dilated(g, x):
    y = g.op(
        "conv",
        "Conv2D",
        [x, g.rand("w", [3, 3, 3, 4])],
        strides=S4,
        padding="SAME",
        dilations=[1, 2, 2, 1],
        data_format="NHWC",
    )
    y = g.op("add", "AddV2", [y, g.rand("b", [1, 1, 1, 4])])  # folded into the conv bias
    return [g.op("act", "LeakyRelu", [y], alpha=0.3)]


def conv_explicit(g, x):
    y = g.op(
        "conv",
        "Conv2D",
        [x, g.rand("w", [3, 2, 3, 4], quant="uint8")],
        strides=[1, 1, 2, 1],
        padding="EXPLICIT",
        explicit_paddings=[0, 0, 1, 2, 2, 1, 0, 0],
        dilations=S4,
        data_format="NHWC",
    )
    return [g.op("act", "Elu", [y])]


def conv_uint16(g, x):
    y = g.op(
        "conv",
        "Conv2D",
        [x, g.rand("w", [3, 3, 4, 6], quant="uint16")],
        strides=S4,
        padding="VALID",
        dilations=S4,
        data_format="NHWC",
    )
    return [y]


def depthwise(g, x):
    y = g.op(
        "dw",
        "DepthwiseConv2dNative",
        [x, g.rand("w", [3, 3, 3, 2])],
        strides=[1, 2, 2, 1],
        padding="SAME",
        dilations=S4,
        data_format="NHWC",
    )
    y = g.op("add", "Add", [y, g.rand("b", [6])])
    return [g.op("act", "Relu", [y])]


def conv_transpose_k3(g, x):  # SAME, stride 2, 3x3: the result is a crop of the full transpose
    y = g.op(
        "up",
        "Conv2DBackpropInput",
        [g.const("sizes", [1, 11, 13, 4]), g.rand("w", [3, 3, 4, 3]), x],
        strides=[1, 2, 2, 1],
        padding="SAME",
        dilations=S4,
        data_format="NHWC",
    )
    return [g.op("add", "Add", [y, g.rand("b", [4])])]


def conv_transpose_k2(g, x):
    y = g.op(
        "up",
        "Conv2DBackpropInput",
        [g.const("sizes", [1, 12, 14, 2]), g.rand("w", [2, 2, 2, 3]), x],
        strides=[1, 2, 2, 1],
        padding="SAME",
        dilations=S4,
        data_format="NHWC",
    )
    return [y]


def conv_transpose_valid(g, x):
    y = g.op(
        "up",
        "Conv2DBackpropInput",
        [g.const("sizes", [1, 13, 15, 2]), g.rand("w", [3, 3, 2, 3]), x],
        strides=[1, 2, 2, 1],
        padding="VALID",
        dilations=S4,
        data_format="NHWC",
    )
    return [y]


def pools(g, x):
    a = g.op("max", "MaxPool", [x], ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1], padding="SAME", data_format="NHWC")
    b = g.op("avg", "AvgPool", [x], ksize=[1, 3, 3, 1], strides=S4, padding="SAME", data_format="NHWC")
    c = g.op("avg_valid", "AvgPool", [x], ksize=[1, 2, 3, 1], strides=[1, 2, 3, 1], padding="VALID", data_format="NHWC")
    return [a, b, c]


def pads_into_conv(g, x):  # NCHW-style pads around transposes, as in converted ONNX graphs
    t = g.op("to_nchw", "Transpose", [x, g.const("p1", [0, 3, 1, 2])])
    p = g.op("pad", "Pad", [t, g.const("pads", [[0, 0], [0, 0], [1, 1], [2, 2]])])
    back = g.op("to_nhwc", "Transpose", [p, g.const("p2", [0, 2, 3, 1])])
    y = g.op(
        "conv",
        "Conv2D",
        [back, g.rand("w", [3, 5, 3, 4])],
        strides=S4,
        padding="VALID",
        dilations=S4,
        data_format="NHWC",
    )
    q = g.op("pad_asym", "Pad", [y, g.const("pads2", [[0, 0], [0, 1], [2, 0], [0, 0]])])
    z = g.op(
        "conv2",
        "Conv2D",
        [q, g.rand("w2", [2, 2, 4, 3])],
        strides=S4,
        padding="VALID",
        dilations=S4,
        data_format="NHWC",
    )
    v = g.op("padv2", "PadV2", [z, g.const("pads3", [[0, 0], [1, 1], [1, 1], [0, 0]]), g.const("cv", 1.5)])
    w = g.op(
        "conv3",
        "Conv2D",
        [v, g.rand("w3", [3, 3, 3, 2])],
        strides=S4,
        padding="VALID",
        dilations=S4,
        data_format="NHWC",
    )
    m = g.op("padm", "PadV2", [w, g.const("pads4", [[0, 0], [1, 1], [1, 1], [0, 0]]), g.const("ninf", -np.inf)])
    return [g.op("pool", "MaxPool", [m], ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1], padding="VALID", data_format="NHWC")]


def layouts(g, x):  # lazy permutations meeting Concat, SplitV, Reshape, Mean, Squeeze
    t = g.op("t", "Transpose", [x, g.const("perm", [0, 3, 1, 2])])  # NCHW view
    s = g.op("sig", "Sigmoid", [t])
    c = g.op("cat", "ConcatV2", [t, s, g.const("axis", 1)])  # channels of the NCHW view
    parts = g.op("split", "SplitV", [c, g.const("sizes", [2, -1, 1]), g.const("sd", 1)])
    r = g.op("reshape", "Reshape", [f"{parts}:1", g.const("shape", [1, -1, 6])])
    back = g.op("t2", "Transpose", [f"{parts}:2", g.const("perm2", [0, 2, 3, 1])])
    m = g.op("mean", "Mean", [back, g.const("axes", [1, 2])], keep_dims=False)
    m2 = g.op("mean_keep", "Mean", [t, g.const("axes2", [-1])], keep_dims=True)
    sq = g.op("squeeze", "Squeeze", [m2], squeeze_dims=[3])
    e = g.op("expand", "ExpandDims", [m, g.const("ax", 0)])
    sp = g.op("split2", "Split", [g.const("sa", 3), x], num_split=3)
    return [r, e, sq, f"{parts}:0", f"{sp}:2"]


def elementwise(g, x):
    a = g.op("mul", "Mul", [x, g.rand("m", [3])])
    b = g.op("sub", "Sub", [g.rand("c", [1, 1, 3]), a])  # constant first, lower rank
    c = g.op("div", "RealDiv", [b, g.op("den", "AddV2", [g.op("abs", "Abs", [x]), g.const("one", 1.0)])])
    d = g.op("max", "Maximum", [c, g.const("lo", -0.5)])
    e = g.op("min", "Minimum", [d, g.rand("hi", [3], scale=0.3)])
    row = g.op("row", "Mean", [x, g.const("axes", [1])], keep_dims=False)  # [1, W, C]
    f = g.op("bcast", "Add", [e, row])  # rank 4 + rank 3
    u = [g.op(f"u_{op}", op, [f]) for op in ("Tanh", "Neg", "Square", "Sigmoid")]
    pos = g.op("pos", "AddV2", [g.op("sq", "Square", [x]), g.const("eps", 0.25)])
    v = [g.op(f"v_{op}", op, [pos]) for op in ("Sqrt", "Rsqrt")]
    ex = g.op("exp", "Exp", [g.op("small", "Mul", [x, g.const("h", 0.5)])])
    return [g.op("sum", "AddN", u + v + [ex])]


def resize(g, x):
    up = g.op("up", "ResizeBilinear", [x, g.const("s1", [11, 13])], align_corners=False, half_pixel_centers=True)
    down = g.op("down", "ResizeBilinear", [x, g.const("s2", [3, 4])], align_corners=False, half_pixel_centers=True)
    ac = g.op("ac", "ResizeBilinear", [x, g.const("s3", [9, 8])], align_corners=True, half_pixel_centers=False)
    return [up, down, ac]


CASES: list[Case] = [
    ("conv_same_stride2", [1, 9, 10, 3], conv_same_stride2),
    ("conv_dilated", [1, 8, 9, 3], conv_dilated),
    ("conv_explicit", [1, 7, 9, 3], conv_explicit),
    ("conv_uint16", [1, 6, 7, 4], conv_uint16),
    ("depthwise", [1, 9, 8, 3], depthwise),
    ("conv_transpose_k3", [1, 6, 7, 3], conv_transpose_k3),
    ("conv_transpose_k2", [1, 6, 7, 3], conv_transpose_k2),
    ("conv_transpose_valid", [1, 6, 7, 3], conv_transpose_valid),
    ("pools", [1, 9, 10, 3], pools),
    ("pads_into_conv", [1, 8, 9, 3], pads_into_conv),
    ("layouts", [1, 5, 6, 3], layouts),
    ("elementwise", [1, 5, 6, 3], elementwise),
    ("resize", [1, 5, 7, 3], resize),
]


def check_errors(work: Path) -> list[str]:
    """Unsupported things must raise TfjsImportError naming the node."""
    problems = []
    rng = np.random.RandomState(0)
    expectations = []
    g = GraphWriter(rng)
    x = g.input("x", [1, 4, 4, 3])
    expectations.append((g, [g.op("weird", "Cumsum", [x, g.const("a", 1)])], "weird"))
    g = GraphWriter(rng)
    x = g.input("x", [1, 4, 4, 3])
    expectations.append(
        (
            g,
            [
                g.op(
                    "legacy", "ResizeBilinear", [x, g.const("s", [8, 8])], align_corners=False, half_pixel_centers=False
                )
            ],
            "legacy",
        )
    )
    g = GraphWriter(rng)
    x = g.input("x", [1, 4, 4, 3])
    expectations.append(
        (
            g,
            [
                g.op(
                    "nchw",
                    "Conv2D",
                    [x, g.rand("w", [1, 1, 4, 2])],
                    strides=S4,
                    padding="VALID",
                    dilations=S4,
                    data_format="NCHW",
                )
            ],
            "nchw",
        )
    )
    g = GraphWriter(rng)  # grouped Conv2D: TensorFlow.js cannot run it, so the importer refuses it
    x = g.input("x", [1, 4, 4, 4])
    expectations.append(
        (
            g,
            [
                g.op(
                    "grouped",
                    "Conv2D",
                    [x, g.rand("w", [1, 1, 2, 2])],
                    strides=S4,
                    padding="VALID",
                    dilations=S4,
                    data_format="NHWC",
                )
            ],
            "grouped",
        )
    )
    for i, (g, outs, node) in enumerate(expectations):
        path = g.save(work / f"err{i}", outs)
        try:
            tfjs_graph.build_module(str(path))
            problems.append(f"error case {node}: no error raised")
        except tfjs_graph.TfjsImportError as e:
            if node not in str(e):
                problems.append(f"error case {node}: message does not name the node: {e}")
            else:
                print(f"  error case {node}: ok ({e})")
    return problems


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-k", help="run only cases whose name contains this")
    args = ap.parse_args(argv)
    cases = [c for c in CASES if not args.k or args.k in c[0]]
    failures: list[str] = []
    with tempfile.TemporaryDirectory(prefix="tfjs_op_test_") as tmp:
        work = Path(tmp)
        jobs, built = [], []
        for idx, (name, shape, fn) in enumerate(cases):
            seed = 1000 + idx
            g = GraphWriter(np.random.RandomState(seed))
            x = g.input("x", shape)
            outs = [o if ":" in o else f"{o}:0" for o in fn(g, x)]
            path = g.save(work / name, outs)
            inp = np.random.RandomState(seed + 1).randn(*shape).astype(np.float32)
            np.save(work / name / "in.npy", inp)
            jobs.append(
                {
                    "model": str(path),
                    "runs": [{"inputs": {"x:0": "in.npy"}, "outputs": {o: f"out{k}.npy" for k, o in enumerate(outs)}}],
                }
            )
            built.append((name, path, inp, outs))
        for j in jobs:  # output paths relative to each model's folder
            folder = Path(j["model"]).parent
            run = j["runs"][0]
            run["inputs"] = {k: str(folder / v) for k, v in run["inputs"].items()}
            run["outputs"] = {k: str(folder / v) for k, v in run["outputs"].items()}
        job = work / "all.json"
        job.write_text(json.dumps({"models": jobs}))
        run_tfjs_job(job)
        for name, path, inp, outs in built:
            try:
                module = tfjs_graph.build_module(str(path), outputs=outs)
                # The same graph taking its input as NCHW (input_perms) must give the same outputs.
                nchw = tfjs_graph.build_module(str(path), outputs=outs, input_perms={"x:0": tfjs_graph.NHWC_TO_NCHW})
                x = torch.from_numpy(inp)
                with torch.no_grad():
                    mine = module(x)
                    mine_nchw = nchw(x.permute(0, 3, 1, 2).contiguous())
                worst, ref_max = 0.0, 0.0
                for k, (o, a, b) in enumerate(zip(outs, mine, mine_nchw)):
                    ref = np.load(path.parent / f"out{k}.npy")
                    ref_max = max(ref_max, float(np.abs(ref).max()))
                    if not np.any(ref):
                        failures.append(f"{name} {o}: TensorFlow.js output is all zeros (the case checks nothing)")
                    for label, got in (("", a), (" (NCHW input)", b)):
                        c = compare(got.numpy(), ref)
                        worst = max(worst, c["rel_l2"])
                        if c["rel_l2"] > TOLERANCE_REL_L2:
                            failures.append(f"{name} {o}{label}: rel L2 {c['rel_l2']:.3g}, max abs {c['max_abs']:.3g}")
                print(f"  {name:<22} {len(outs)} outputs, worst rel L2 {worst:.3g} (max |ref| {ref_max:.3g})")
            except Exception as e:  # report every case, then fail
                failures.append(f"{name}: {type(e).__name__}: {e}")
                print(f"  {name:<22} FAILED: {e}")
        if not args.k:
            failures += check_errors(work)
    for f in failures:
        print("FAIL", f)
    print(f"{len(cases)} cases, {len(failures)} failures")
    return 1 if failures else 0


def run_tfjs_job(job: Path) -> None:
    import subprocess

    script = Path(__file__).with_name("tfjs_run.js")
    proc = subprocess.run(["node", str(script), str(job)], capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"tfjs_run.js failed:\n{proc.stdout}\n{proc.stderr}")


if __name__ == "__main__":
    sys.exit(main())
