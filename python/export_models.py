#!/usr/bin/env python3
"""Export the real-architecture model set (random weights) with goldens.

Narrow set (committed, small: every block and op of the architecture kept,
fewer channels / repeats, small inputs):

    python/.venv/bin/python python/export_models.py --out tests/models
    python/.venv/bin/python python/export_models.py --out tests/models --only resnet18 --only vit

Full-size set (not committed; real architectures at their usual input sizes):

    python/.venv/bin/python python/export_models.py --full            # -> .cache/models
    python/.venv/bin/python python/export_models.py --full --out DIR --only resnet50

Each model gets a directory with the same layout as tests/fixtures (see
python/README.md): vulkan.pte (VulkanPartitioner), plain.pte (no partitioner),
input_<i>.npy, expected_<i>.npy (eager fp32), expected64_<i>.npy (eager fp64),
meta.json, vulkan.inspect.json / plain.inspect.json. A vulkan.pte that is not
fully delegated is kept and marked ("fully_delegated": false, "kernel_calls").

Weights are random (fixed seed = CRC-32 of the model name), conditioned by
python/models/common.py (non-trivial norms, BatchNorm statistics calibrated on
random inputs). Models are in eval mode. One torch thread, so reruns are
byte-identical with the pinned versions.
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
import time
import warnings
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import torch
import torch.nn as nn
import torchvision
from executorch.backends.vulkan.partitioner.vulkan_partitioner import VulkanPartitioner
from executorch.exir import to_edge_transform_and_lower
from executorch.version import __version__ as executorch_version

import export as fixtures  # shared helpers: seeds, error stats, ExecuTorch CPU run
import inspect_pte
from models import common, midas_small, tv_variants as tv, yolo

# ---------------------------------------------------------------------------
# Model set
# ---------------------------------------------------------------------------

Builder = Callable[[bool], tuple[nn.Module, dict]]


@dataclass
class ModelSpec:
    name: str
    task: str
    stands_for: str
    description: str
    covers: list[str]
    build: Builder  # build(full) -> (module, variant)
    narrow_hw: int  # square input size of the narrow (committed) variant
    full_hw: int  # usual input size of the full-size architecture
    output_names: list[str] = field(default_factory=lambda: ["output"])
    notes: list[str] = field(default_factory=list)


def _yolo11(full: bool):
    if full:
        return yolo.YOLO("11", nc=80, imgsz=640), {}
    kw = dict(nc=8, imgsz=96, width=1 / 16, depth=0.5, max_channels=512, psa_heads=2, box_channels=16)
    m = yolo.YOLO("11", **kw)
    return m, {
        "scale": "n (depth 0.50, width 0.25, max_channels 1024) -> depth 0.50, width 1/16, max_channels 512",
        "channels": m.channels,
        "num_classes": "80 -> 8",
        "c2psa_heads": "c // 64 = 2 -> 2 (head_dim 8 instead of 64)",
        "detect_box_channels": "64 -> 16 (last 1x1 still outputs 4 x 16 DFL bins)",
        "imgsz": "640 -> 96 (anchors baked in for 12x12, 6x6, 3x3)",
    }


def _yolov8(full: bool):
    if full:
        return yolo.YOLO("v8", nc=80, imgsz=640, depth=0.33), {}
    kw = dict(nc=8, imgsz=96, width=1 / 16, depth=0.33, max_channels=256, box_channels=16)
    m = yolo.YOLO("v8", **kw)
    return m, {
        "scale": "n (depth 0.33, width 0.25, max_channels 1024) -> depth 0.33, width 1/16, max_channels 256",
        "channels": m.channels,
        "num_classes": "80 -> 8",
        "detect_box_channels": "64 -> 16 (last 1x1 still outputs 4 x 16 DFL bins)",
        "imgsz": "640 -> 96 (anchors baked in for 12x12, 6x6, 3x3)",
    }


CLS_COVERS = {
    "mobilenet_v2": [
        "InvertedResidual (expand 1x1, depthwise 3x3, project 1x1, residual add)",
        "ReLU6 (hardtanh)",
        "adaptive avg pool + flatten + dropout + linear",
    ],
    "mobilenet_v3_small": [
        "InvertedResidual with squeeze-excite (avg pool, 1x1 convs, hardsigmoid, mul)",
        "hardswish",
        "depthwise 5x5",
        "linear-hardswish-linear classifier",
    ],
    "mobilenet_v3_large": ["InvertedResidual with and without SE", "ReLU and hardswish blocks", "depthwise 3x3/5x5"],
    "resnet18": [
        "BasicBlock (conv-bn-relu, conv-bn, identity or 1x1/s2 downsample, add, relu)",
        "7x7/s2 stem conv",
        "max pool 3x3/s2 pad 1",
    ],
    "resnet50": ["Bottleneck (1x1, 3x3, 1x1 with expansion 4, downsample)", "7x7/s2 stem", "max pool"],
    "efficientnet_b0": [
        "MBConv with squeeze-excite (SiLU, sigmoid gate)",
        "depthwise 3x3/5x5",
        "SiLU",
        "stochastic depth (identity in eval)",
    ],
    "squeezenet1_1": [
        "Fire modules (squeeze 1x1, expand 1x1 and 3x3, cat)",
        "ceil_mode max pools",
        "final 1x1 conv + relu + adaptive avg pool (no linear)",
        "conv with no padding",
    ],
    "shufflenet_v2_x1_0": [
        "channel split (chunk) and channel shuffle (view/transpose/view)",
        "depthwise conv stride 2 branches",
        "cat",
    ],
    "regnet_x_400mf": ["ResBottleneckBlock with grouped 3x3 convs (group width 8)", "projection shortcut"],
    "convnext_tiny": [
        "CNBlock: depthwise 7x7, permute to NHWC, LayerNorm, Linear 4x, GELU, Linear, permute back,"
        " layer scale mul, residual add",
        "LayerNorm2d (permute + layer_norm) in stem / downsampling",
        "4x4/s4 patchify stem conv, 2x2/s2 downsampling convs",
    ],
    "swin_t": [
        "4x4/s4 patch conv, permute to NHWC, LayerNorm",
        "window attention: pad to the window, torch.roll by half a window, window partition "
        "(view/permute), relative position bias, attention mask built from slices, reverse roll",
        "PatchMerging (strided slices, cat, LayerNorm, Linear)",
        "MLP with GELU, stochastic depth (identity in eval), avg pool head",
    ],
    "swin_v2_t": [
        "Swin V2 blocks: scaled cosine attention (normalize q and k, learned logit scale clamp/exp)",
        "continuous relative position bias (a small MLP over log-spaced coordinates, 16 sigmoid)",
        "res-post-norm, PatchMergingV2",
    ],
    "vit": [
        "16x16/s16 patch conv",
        "class token cat + position embedding add",
        "LayerNorm (eps 1e-6)",
        "nn.MultiheadAttention (in-proj linear, head split, scaled q k^T, softmax, v, out-proj)",
        "MLP: Linear, GELU, Linear",
        "select class token + linear head",
    ],
}

CLASSIFIERS = [
    ("mobilenet_v2", "torchvision.models.mobilenet_v2()", tv.mobilenet_v2),
    ("mobilenet_v3_small", "torchvision.models.mobilenet_v3_small()", tv.mobilenet_v3_small),
    ("mobilenet_v3_large", "torchvision.models.mobilenet_v3_large()", tv.mobilenet_v3_large),
    ("resnet18", "torchvision.models.resnet18()", tv.resnet18),
    ("resnet50", "torchvision.models.resnet50()", tv.resnet50),
    ("efficientnet_b0", "torchvision.models.efficientnet_b0()", tv.efficientnet_b0),
    ("squeezenet1_1", "torchvision.models.squeezenet1_1()", tv.squeezenet1_1),
    ("shufflenet_v2_x1_0", "torchvision.models.shufflenet_v2_x1_0()", tv.shufflenet_v2_x1_0),
    ("regnet_x_400mf", "torchvision.models.regnet_x_400mf()", tv.regnet_x_400mf),
    ("convnext_tiny", "torchvision.models.convnext_tiny()", tv.convnext_tiny),
    ("vit", "torchvision.models.vit_b_16()", tv.vit),
    ("swin_t", "torchvision.models.swin_t()", tv.swin_t),
    ("swin_v2_t", "torchvision.models.swin_v2_t()", tv.swin_v2_t),
]

SPECS: list[ModelSpec] = [
    ModelSpec(
        n,
        "classification",
        sf,
        f"{sf.split('.')[-1][:-2]} image classifier (random weights)",
        CLS_COVERS[n],
        b,
        narrow_hw=80,
        full_hw=224,
        output_names=["logits"],
    )
    for n, sf, b in CLASSIFIERS
] + [
    ModelSpec(
        "deeplabv3_mobilenet_v3_large",
        "segmentation",
        "torchvision.models.segmentation.deeplabv3_mobilenet_v3_large(weights=None, weights_backbone=None)",
        "DeepLabV3 with a dilated MobileNetV3-Large backbone; returns the 'out' logits",
        [
            "dilated depthwise convs (dilation 2)",
            "ASPP: 1x1, three atrous 3x3 branches, image pooling branch "
            "(adaptive avg pool, 1x1, bilinear upsample from 1x1), cat, 1x1 project",
            "bilinear upsample to input size (align_corners=False)",
        ],
        tv.deeplabv3_mobilenet_v3_large,
        narrow_hw=72,
        full_hw=256,
        output_names=["out"],
    ),
    ModelSpec(
        "lraspp_mobilenet_v3_large",
        "segmentation",
        "torchvision.models.segmentation.lraspp_mobilenet_v3_large(weights=None, weights_backbone=None)",
        "LR-ASPP with a dilated MobileNetV3-Large backbone; returns the 'out' logits",
        [
            "two feature levels (stride 8 and 16)",
            "sigmoid attention (avg pool, 1x1, sigmoid, mul)",
            "bilinear upsample to a non-integer size",
            "add of two classifiers",
        ],
        tv.lraspp_mobilenet_v3_large,
        narrow_hw=72,
        full_hw=256,
        output_names=["out"],
    ),
    ModelSpec(
        "fcn_resnet50",
        "segmentation",
        "torchvision.models.segmentation.fcn_resnet50(weights=None, weights_backbone=None)",
        "FCN with a dilated ResNet-50 backbone (output stride 8); returns the 'out' logits",
        [
            "dilated 3x3 convs (dilation 2 and 4) in Bottlenecks",
            "FCNHead (3x3, BN, ReLU, dropout, 1x1)",
            "bilinear upsample x8 to input size",
        ],
        tv.fcn_resnet50,
        narrow_hw=72,
        full_hw=256,
        output_names=["out"],
    ),
    ModelSpec(
        "ssdlite320_mobilenet_v3_large",
        "detection",
        "torchvision.models.detection.ssdlite320_mobilenet_v3_large(weights=None, weights_backbone=None)"
        " backbone + head (no transform, no anchors/decode/NMS)",
        "SSDLite: MobileNetV3-Large feature extractor (C4 split inside an InvertedResidual), 4 extra blocks, "
        "SSDLite heads; returns raw bbox_regression [N, A, 4] and cls_logits [N, A, C]",
        [
            "feature taps at the C4 expansion layer",
            "extra blocks (1x1, depthwise 3x3/s2, 1x1, ReLU6) down to 1x1",
            "6 prediction levels: depthwise 3x3 + 1x1",
            "view/permute/reshape of head outputs, cat over levels",
        ],
        tv.ssdlite320_mobilenet_v3_large,
        narrow_hw=96,
        full_hw=320,
        output_names=["bbox_regression", "cls_logits"],
    ),
    ModelSpec(
        "yolo11n",
        "detection",
        "YOLO11n (ultralytics yolo11.yaml, scale n), python/models/yolo.py",
        "YOLO11n-style detector: Conv-BN-SiLU, C3k2 (C2f with Bottleneck / C3k), SPPF, C2PSA attention, "
        "PAN-FPN neck, decoupled Detect head with DFL; returns cat(xywh boxes, sigmoid scores) [N, 4+nc, A]",
        [
            "Conv-BN-SiLU",
            "C3k2 / C2f: chunk(2) + cat",
            "C3k: two 1x1 branches + cat",
            "SPPF: 3 x max pool 5x5/s1",
            "C2PSA: split, qkv 1x1 conv, view/split heads, q^T k (matmul), softmax, v attn^T (matmul), "
            "depthwise 3x3 positional conv, FFN",
            "nearest 2x upsample + cat",
            "DWConv 3x3 in the class branch",
            "DFL: view/transpose, softmax over 16 bins, 1x1 conv with arange weights",
            "box decode with constant anchors/strides: sub, add, div, mul, cat",
            "sigmoid",
        ],
        _yolo11,
        narrow_hw=96,
        full_hw=640,
        output_names=["predictions"],
        notes=["no NMS; output channels 0..3 are xywh boxes in pixels, 4.. are class scores"],
    ),
    ModelSpec(
        "yolov8n",
        "detection",
        "YOLOv8n (ultralytics yolov8.yaml, scale n), python/models/yolo.py",
        "YOLOv8n-style detector: Conv-BN-SiLU, C2f, SPPF, PAN-FPN neck, decoupled Detect head with DFL; "
        "returns cat(xywh boxes, sigmoid scores) [N, 4+nc, A]",
        [
            "C2f: chunk(2), Bottlenecks with residual add, cat",
            "SPPF",
            "nearest upsample + cat",
            "Detect head (plain 3x3 convs in both branches), DFL softmax + arange 1x1 conv",
            "box decode",
            "sigmoid",
        ],
        _yolov8,
        narrow_hw=96,
        full_hw=640,
        output_names=["predictions"],
        notes=["no NMS; output channels 0..3 are xywh boxes in pixels, 4.. are class scores"],
    ),
    ModelSpec(
        "midas_small",
        "depth",
        "MiDaS v2.1 small (MidasNet_small, efficientnet_lite3, 256x256), python/models/midas_small.py",
        "MiDaS-small-style encoder-decoder: EfficientNet-Lite encoder (4 taps), 3x3 'rn' convs, "
        "4 feature-fusion blocks with residual conv units and bilinear x2, head to 1 channel; returns [N, H, W]",
        [
            "TF-style asymmetric zero pad before stride-2 convs (constant_pad_nd)",
            "MBConv without SE, ReLU6",
            "ResidualConvUnit (relu, conv3x3, relu, conv3x3, add)",
            "bilinear x2 align_corners=True and False",
            "final ReLU + squeeze(1)",
        ],
        midas_small.midas_small,
        narrow_hw=96,
        full_hw=256,
        output_names=["inverse_depth"],
    ),
]

SPEC_BY_NAME = {s.name: s for s in SPECS}

# ---------------------------------------------------------------------------
# Export
# ---------------------------------------------------------------------------


class Clock:
    def __init__(self, name: str):
        self.name = name
        self.t0 = time.time()
        self.c0 = time.process_time()
        self.last = self.t0
        self.steps: dict[str, float] = {}

    def step(self, what: str) -> None:
        now = time.time()
        self.steps[what] = round(now - self.last, 2)
        print(f"    [{self.name}] {what}: {now - self.last:.1f} s (total {now - self.t0:.1f} s)", flush=True)
        self.last = now

    def total(self) -> tuple[float, float]:
        return time.time() - self.t0, time.process_time() - self.c0


def as_tuple(x) -> tuple[torch.Tensor, ...]:
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def op_counts(names: Sequence[str]) -> dict[str, int]:
    c = Counter(names)
    return {k: c[k] for k in sorted(c)}


def strip_values(summary: dict) -> dict:
    """inspect_pte summary without the per-value tables (what `inspect_pte.py` prints without --full)."""
    s = dict(summary)
    s["execution_plans"] = [{k: v for k, v in p.items() if k != "values"} for p in summary["execution_plans"]]
    s["vulkan_delegates"] = [{k: v for k, v in d.items() if k != "values"} for d in summary["vulkan_delegates"]]
    return s


def input_shape(spec: ModelSpec, full: bool) -> tuple[int, int, int, int]:
    hw = spec.full_hw if full else spec.narrow_hw
    return (1, 3, hw, hw)


def build_model(spec: ModelSpec, full: bool) -> tuple[nn.Module, dict]:
    """The model in eval mode with its conditioned random weights, exactly as exported
    (also used by python/peers.py to run the same module on other runtimes)."""
    seed = fixtures.model_seed(spec.name)
    torch.manual_seed(seed)
    model, variant = spec.build(full)
    model.eval()
    common.condition(
        model, seed + 2, [input_shape(spec, full)], calib_batches=2 if full else 3, calib_batch_size=2 if full else 4
    )
    return model, variant


def make_inputs(spec: ModelSpec, full: bool) -> list[torch.Tensor]:
    """The seeded random input the exporter saves as input_0.npy."""
    g = torch.Generator().manual_seed(fixtures.model_seed(spec.name) + 1)
    return [torch.randn(input_shape(spec, full), generator=g, dtype=torch.float32).contiguous()]


def float16_failure(model: nn.Module, inputs: Sequence[torch.Tensor]) -> str | None:
    """Why the model has no float16 result to compare with, when PyTorch's own float16 run of it
    (on the CPU) gives non-finite outputs; None when it runs (or cannot run in half at all)."""
    try:
        with torch.no_grad():
            outs = as_tuple(copy.deepcopy(model).half()(*[x.half() for x in inputs]))
    except (RuntimeError, NotImplementedError):
        return None
    bad = [i for i, o in enumerate(outs) if not torch.isfinite(o).all()]
    if not bad:
        return None
    return (
        f"PyTorch's own float16 run of it (CPU, model.half()) gives non-finite values in output(s) {bad}, "
        "so there is no float16 result to match"
    )


def export_one(spec: ModelSpec, out_root: str, full: bool, inspect_mode: str, et_check: bool) -> dict:
    clock = Clock(spec.name)
    seed = fixtures.model_seed(spec.name)
    shape = input_shape(spec, full)

    model, variant = build_model(spec, full)
    nparams = common.num_params(model)
    clock.step(f"build + condition ({nparams} params, input {list(shape)})")

    inputs = make_inputs(spec, full)

    with torch.no_grad():
        expected = [t.detach().clone().contiguous() for t in as_tuple(model(*inputs))]
        model64 = copy.deepcopy(model).double()
        expected64 = [t.detach().clone().contiguous() for t in as_tuple(model64(*[x.double() for x in inputs]))]
        del model64
    clock.step("eager fp32 + fp64 goldens")

    ep = torch.export.export(model, tuple(inputs), strict=False)
    ep_plain = copy.deepcopy(ep)
    clock.step("torch.export")
    vulkan_pte = bytes(to_edge_transform_and_lower(ep, partitioner=[VulkanPartitioner()]).to_executorch().buffer)
    del ep
    clock.step(f"lower VulkanPartitioner + to_executorch ({len(vulkan_pte)} B)")
    plain_pte = bytes(to_edge_transform_and_lower(ep_plain).to_executorch().buffer)
    del ep_plain
    clock.step(f"lower plain + to_executorch ({len(plain_pte)} B)")

    vs = inspect_pte.summarize(vulkan_pte, full=True)
    ps = inspect_pte.summarize(plain_pte, full=True)
    fully = inspect_pte.is_fully_delegated(vs)
    leftover = inspect_pte.kernel_op_names(vs)
    vk_ops = [n for names in inspect_pte.delegate_op_names(vs) for n in names]
    plain_kernels = inspect_pte.kernel_op_names(ps)

    et_stats = None
    if et_check:
        et_outs = fixtures.run_plain_on_executorch(plain_pte, inputs)
        if et_outs is not None:
            et_stats = [fixtures.error_stats(o, e.numpy()) for o, e in zip(et_outs, expected)]
        clock.step("plain.pte on the ExecuTorch CPU runtime")

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
    torch_err = [fixtures.error_stats(e.numpy(), e64.numpy()) for e, e64 in zip(expected, expected64)]

    vds = vs["vulkan_delegates"]
    f16_skip = float16_failure(model, inputs)
    meta = {
        "name": spec.name,
        "task": spec.task,
        "description": spec.description,
        "stands_for": spec.stands_for,
        "size": "full" if full else "narrow",
        "variant": variant if not full else {"full_size": True},
        "covers": spec.covers,
        "notes": spec.notes,
        **({"float16_skipped": f16_skip} if f16_skip else {}),
        "num_params": nparams,
        "seed": seed,
        "weights": "random: the constructor's init, then python/models/common.py condition() "
        f"(generator seed {seed + 2}); BatchNorm statistics calibrated on random-normal inputs; eval mode",
        "generator": {
            "script": "python/export_models.py" + (" --full" if full else ""),
            "torch": torch.__version__,
            "torchvision": torchvision.__version__,
            "executorch": executorch_version,
            "numpy": np.__version__,
            "torch_export_strict": False,
        },
        "inputs": [
            {
                "file": f"input_{i}.npy",
                "shape": list(t.shape),
                "dtype": str(t.numpy().dtype),
                "distribution": f"standard normal (generator seed {seed + 1})",
            }
            for i, t in enumerate(inputs)
        ],
        "outputs": [
            {
                "name": spec.output_names[i] if i < len(spec.output_names) else f"output_{i}",
                "file": f"expected_{i}.npy",
                "file64": f"expected64_{i}.npy",
                "shape": list(t.shape),
                "dtype": str(t.numpy().dtype),
                "max_abs": float(t.abs().max()),
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
            "num_delegates": len(vds),
            "delegate_op_counts": op_counts(vk_ops),
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
        },
        "plain": {
            "file": "plain.pte",
            "size": len(plain_pte),
            "sha256": hashlib.sha256(plain_pte).hexdigest(),
            "operators": [op for p in ps["execution_plans"] for op in p["operators"]],
            "kernel_counts": op_counts(plain_kernels),
            "kernel_calls": plain_kernels,
            "instruction_kinds": [p["instruction_kinds"] for p in ps["execution_plans"]],
            "executorch_cpu_vs_expected": et_stats,
        },
    }
    with open(os.path.join(d, "meta.json"), "w") as f:
        f.write(inspect_pte.to_json(meta) + "\n")
    if inspect_mode != "none":
        with open(os.path.join(d, "vulkan.inspect.json"), "w") as f:
            f.write(inspect_pte.to_json(vs if inspect_mode == "full" else strip_values(vs)) + "\n")
        with open(os.path.join(d, "plain.inspect.json"), "w") as f:
            f.write(inspect_pte.to_json(ps if inspect_mode == "full" else strip_values(ps)) + "\n")
    clock.step("write files")
    wall, cpu = clock.total()
    dir_bytes = sum(os.path.getsize(os.path.join(d, x)) for x in os.listdir(d))
    return {"meta": meta, "wall_s": wall, "cpu_s": cpu, "steps": clock.steps, "dir_bytes": dir_bytes}


def write_index(out_root: str, full: bool) -> dict:
    entries = []
    vk_union: Counter = Counter()
    plain_union: Counter = Counter()
    leftovers: dict[str, list[str]] = {}
    for name in sorted(os.listdir(out_root)):
        meta_path = os.path.join(out_root, name, "meta.json")
        if not os.path.isfile(meta_path):
            continue
        with open(meta_path) as f:
            m = json.load(f)
        vk_union.update(m["vulkan"]["delegate_op_counts"])
        plain_union.update(m["plain"]["kernel_counts"])
        if not m["vulkan"]["fully_delegated"]:
            leftovers[m["name"]] = m["vulkan"]["kernel_calls"]
        entries.append(
            {
                "name": m["name"],
                "task": m["task"],
                "stands_for": m["stands_for"],
                "size": m["size"],
                "num_params": m["num_params"],
                "inputs": [i["shape"] for i in m["inputs"]],
                "outputs": [o["shape"] for o in m["outputs"]],
                "fully_delegated": m["vulkan"]["fully_delegated"],
                "kernel_calls": m["vulkan"]["kernel_calls"],
                "vulkan_size": m["vulkan"]["size"],
                "plain_size": m["plain"]["size"],
                "delegate_op_counts": m["vulkan"]["delegate_op_counts"],
                "plain_kernel_counts": m["plain"]["kernel_counts"],
            }
        )
    index = {
        "generator": "python/export_models.py" + (" --full" if full else ""),
        "models": entries,
        "vulkan_op_union": {k: vk_union[k] for k in sorted(vk_union)},
        "plain_kernel_union": {k: plain_union[k] for k in sorted(plain_union)},
        "not_fully_delegated": leftovers,
    }
    with open(os.path.join(out_root, "index.json"), "w") as f:
        f.write(inspect_pte.to_json(index) + "\n")
    return index


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Export the real-architecture model set (random weights).")
    ap.add_argument(
        "--full",
        action="store_true",
        help="export the full-size architectures at their usual input sizes (default out .cache/models)",
    )
    ap.add_argument("--out", default=None, help="output directory (default tests/models, or .cache/models with --full)")
    ap.add_argument("--only", action="append", default=[], metavar="NAME", help="export only this model (repeatable)")
    ap.add_argument("--list", action="store_true", help="list the models and exit")
    ap.add_argument(
        "--inspect",
        choices=["full", "summary", "none"],
        default=None,
        help="also write vulkan.inspect.json / plain.inspect.json: full (inspect_pte.py --full, "
        "with value tables), summary (without value tables) or none (the default: they are "
        "about 20%% of the narrow set's size; regenerate them with python/inspect_pte.py)",
    )
    ap.add_argument(
        "--no-et-check",
        action="store_true",
        help="skip running plain.pte on the ExecuTorch CPU runtime (slow for full-size models)",
    )
    ap.add_argument("-v", "--verbose", action="store_true", help="keep executorch's INFO logging")
    args = ap.parse_args(argv)

    if args.list:
        for s in SPECS:
            print(f"{s.name:32s} {s.task:14s} narrow {s.narrow_hw:3d}  full {s.full_hw:3d}  {s.stands_for}")
        return 0
    if not args.verbose:
        logging.getLogger().setLevel(logging.WARNING)
        warnings.filterwarnings("ignore")
    out = args.out or (".cache/models" if args.full else "tests/models")
    inspect_mode = args.inspect or "none"

    unknown = [n for n in args.only if n not in SPEC_BY_NAME]
    if unknown:
        print(f"unknown model(s): {unknown}; known: {sorted(SPEC_BY_NAME)}", file=sys.stderr)
        return 2
    todo = [s for s in SPECS if not args.only or s.name in args.only]

    os.makedirs(out, exist_ok=True)
    torch.set_num_threads(1)  # same summation order on every machine
    t_all = time.time()
    results, failures = [], []
    for k, s in enumerate(todo):
        hw = s.full_hw if args.full else s.narrow_hw
        print(
            f"[models] ({k + 1}/{len(todo)}) {s.name} ({'full' if args.full else 'narrow'}, {hw}x{hw}): {s.stands_for}",
            flush=True,
        )
        try:
            r = export_one(s, out, args.full, inspect_mode, not args.no_et_check)
        except Exception as e:  # keep going; report at the end
            import traceback

            traceback.print_exc()
            failures.append(s.name)
            print(f"[models] {s.name}: FAILED: {e}", flush=True)
            continue
        m = r["meta"]
        v = m["vulkan"]
        print(
            f"    vulkan.pte {v['size']} B, fully delegated: {v['fully_delegated']}"
            + ("" if v["fully_delegated"] else f", kernel calls left: {v['kernel_calls']}")
        )
        print(
            f"    plain.pte  {m['plain']['size']} B; ExecuTorch CPU vs eager: "
            f"{[round(e['rel_l2'], 9) for e in (m['plain']['executorch_cpu_vs_expected'] or [])]}"
        )
        print(f"    done in {r['wall_s']:.1f} s wall, {r['cpu_s']:.1f} s CPU; dir {r['dir_bytes']} B", flush=True)
        results.append((s.name, r))
    index = write_index(out, args.full)

    print(f"\n[models] summary ({out}):")
    print(
        f"  {'name':32s} {'params':>9s} {'input':>9s} {'vulkan.pte':>11s} {'plain.pte':>11s} {'dir':>11s} "
        f"{'wall s':>7s} {'cpu s':>7s}  delegated"
    )
    for name, r in results:
        m = r["meta"]
        hw = f"{m['inputs'][0]['shape'][2]}x{m['inputs'][0]['shape'][3]}"
        print(
            f"  {name:32s} {m['num_params']:9d} {hw:>9s} "
            f"{m['vulkan']['size']:11d} {m['plain']['size']:11d} {r['dir_bytes']:11d} {r['wall_s']:7.1f} "
            f"{r['cpu_s']:7.1f}  {m['vulkan']['fully_delegated']}"
        )
    total = 0
    for root, _, files in os.walk(out):
        total += sum(os.path.getsize(os.path.join(root, f)) for f in files)
    print(f"  total under {out}: {total} B; elapsed {time.time() - t_all:.1f} s")
    if index["not_fully_delegated"]:
        print(f"  not fully delegated: {index['not_fully_delegated']}")
    if failures:
        print(f"[models] failed: {failures}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
