#!/usr/bin/env python3
"""Reference results for the demos (wgx classify/detect/segment/depth): PyTorch eager on a photo,
with the model card's preprocessing and decoding done exactly as docs/MODEL_CARDS.md defines them.

    python/.venv/bin/python python/demo_reference.py --model efficientnet_lite0 --photo dog --photo chelsea
    python/.venv/bin/python python/demo_reference.py --all          # every registered model, its default photos
    python/.venv/bin/python python/demo_reference.py --model nanodet --photo dog --dump-input /tmp/dog.npy

Models come from python/real_models (REGISTRY) and their exported card.json (models/<name>/ for
committed models, .cache/real-models/<name>/ otherwise). Photos are ids of python/photos.py or
paths. Files written (per photo, <stem> = photo id or file stem), into tests/demos/<name>/ or
.cache/real-models/<name>/reference/:

    <stem>.classify.json   wgx-classify/1: top-5 softmax probabilities
    <stem>.detect.json     wgx-detect/1: boxes in photo pixels, best score first
    <stem>.segment.json    wgx-segment/1 (+ <stem>.map.npy: the raw output channel)
    <stem>.depth.json      wgx-depth/1   (+ <stem>.map.npy)

Every JSON also has a "reference" object (decoder, versions, card hash) that the demo's own
output does not have. Photos are decoded with libstb, like the demos (python/stb_decode.py).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import math
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

import photos
import stb_decode

PYTHON_DIR = Path(__file__).resolve().parent
ROOT = PYTHON_DIR.parent

# Photos used by --all, per task (ids of python/photos.py).
DEFAULT_PHOTOS = {
    "classify": ("dog", "chelsea", "coffee", "eagle"),
    "detect": ("dog", "person", "horses", "kite"),
    "segment": ("astronaut", "person"),
    "depth": ("dog", "horses"),
}
# Defaults of optional card fields (same as src/vision/model_card.cpp).
DFL_MAX_DETECTIONS = 100
BOXES_SCORES_MAX_DETECTIONS = 300
BOXES_SCORES_IOU = 0.45


# ---------------------------------------------------------------------------------------------
# Photos and preprocessing
# ---------------------------------------------------------------------------------------------


def load_photo(photo: str, decoder: str = "stb") -> np.ndarray:
    """Photo id (python/photos.py) or path -> HxWx3 uint8 RGB."""
    path = photos.path(photo) if photo in photos.PHOTOS else photo
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{photo}: neither a photo id ({', '.join(photos.PHOTOS)}) nor a file")
    if decoder == "stb":
        return stb_decode.load_rgb(path)
    if decoder == "pil":
        return stb_decode.load_rgb_pil(path)
    raise ValueError(f"unknown decoder {decoder!r} (stb or pil)")


def photo_path(photo: str) -> str:
    return photos.path(photo) if photo in photos.PHOTOS else photo


def geometry(input_cfg: dict[str, Any], photo_h: int, photo_w: int) -> dict[str, Any]:
    """Where the photo lands in the input tensor. Letterbox: s = min(H/h, W/w) in double,
    placed size round(w*s) x round(h*s) (Python round: half to even) clamped to 1..W / 1..H,
    offsets floor((W - placed_w)/2), floor((H - placed_h)/2)."""
    H, W = int(input_cfg["height"]), int(input_cfg["width"])
    if photo_h < 1 or photo_w < 1:
        raise ValueError(f"a photo of {photo_w}x{photo_h} pixels cannot be resized")
    mode = input_cfg.get("resize", "stretch")
    if mode == "stretch":
        return {
            "letterbox": False,
            "photo_w": photo_w,
            "photo_h": photo_h,
            "input_w": W,
            "input_h": H,
            "placed_w": W,
            "placed_h": H,
            "offset_x": 0,
            "offset_y": 0,
        }
    if mode != "letterbox":
        raise ValueError(f"unknown resize {mode!r} (stretch or letterbox)")
    s = min(H / photo_h, W / photo_w)
    pw = min(max(int(round(photo_w * s)), 1), W)
    ph = min(max(int(round(photo_h * s)), 1), H)
    return {
        "letterbox": True,
        "photo_w": photo_w,
        "photo_h": photo_h,
        "input_w": W,
        "input_h": H,
        "placed_w": pw,
        "placed_h": ph,
        "offset_x": (W - pw) // 2,
        "offset_y": (H - ph) // 2,
    }


def preprocess(rgb: np.ndarray, input_cfg: dict[str, Any], geom: dict[str, Any] | None = None) -> torch.Tensor:
    """HxWx3 uint8 -> float32 [1, 3, H, W] per the card: bilinear half-pixel resize without
    antialias on float 0..255 RGB (to the placed size), letterbox fill around it, then
    x = (pixel * scale - mean[c]) / std[c]."""
    if rgb.ndim != 3 or rgb.shape[2] != 3 or rgb.dtype != np.uint8:
        raise ValueError(f"expected an HxWx3 uint8 image, got {rgb.dtype} {rgb.shape}")
    g = geom or geometry(input_cfg, rgb.shape[0], rgb.shape[1])
    x = torch.from_numpy(np.array(rgb, dtype=np.uint8, copy=True)).permute(2, 0, 1)[None].to(torch.float32)
    x = F.interpolate(x, size=(g["placed_h"], g["placed_w"]), mode="bilinear", align_corners=False, antialias=False)
    if g["letterbox"]:
        fill = torch.tensor(
            [float(v) for v in input_cfg.get("letterbox_fill", [114, 114, 114])], dtype=torch.float32
        ).view(1, 3, 1, 1)
        canvas = fill.expand(1, 3, g["input_h"], g["input_w"]).clone()
        canvas[:, :, g["offset_y"] : g["offset_y"] + g["placed_h"], g["offset_x"] : g["offset_x"] + g["placed_w"]] = x
        x = canvas
    scale = float(input_cfg.get("scale", 1.0))
    mean = torch.tensor([float(v) for v in input_cfg.get("mean", [0, 0, 0])], dtype=torch.float32).view(1, 3, 1, 1)
    std = torch.tensor([float(v) for v in input_cfg.get("std", [1, 1, 1])], dtype=torch.float32).view(1, 3, 1, 1)
    return ((x * scale - mean) / std).contiguous()


def to_photo(box: Sequence[float], g: dict[str, Any]) -> list[float]:
    """Input-tensor pixels -> photo pixels (exact inverse of the resize done), clamped to the photo."""
    sx, sy = g["photo_w"] / g["placed_w"], g["photo_h"] / g["placed_h"]
    cx = lambda v: min(max((v - g["offset_x"]) * sx, 0.0), float(g["photo_w"]))  # noqa: E731
    cy = lambda v: min(max((v - g["offset_y"]) * sy, 0.0), float(g["photo_h"]))  # noqa: E731
    return [cx(box[0]), cy(box[1]), cx(box[2]), cy(box[3])]


# ---------------------------------------------------------------------------------------------
# Decoders (float64; the oracle for src/vision's C++ decoders)
# ---------------------------------------------------------------------------------------------


def softmax(v: np.ndarray) -> np.ndarray:
    v = np.asarray(v, dtype=np.float64)
    e = np.exp(v - v.max())
    return e / e.sum()


def classify_top(output: np.ndarray, labels: Sequence[str], k: int = 5, logits: bool = True) -> list[dict[str, Any]]:
    """Top-k of a [1, K] output: softmax first for "logits"; ties go to the lower class index."""
    p = np.asarray(output, dtype=np.float64).reshape(-1)
    if not np.all(np.isfinite(p)):
        bad = int(np.nonzero(~np.isfinite(p))[0][0])
        raise ValueError(f"the classifier's output {bad} is {p[bad]}; no ranking is possible")
    if logits:
        p = softmax(p)
    order = sorted(range(p.size), key=lambda i: (-p[i], i))[:k]
    return [{"class": int(i), "label": labels[i] if i < len(labels) else str(i), "score": float(p[i])} for i in order]


def iou(a: Sequence[float], b: Sequence[float]) -> float:
    """Intersection over union of two x1,y1,x2,y2 boxes; 0 when they do not overlap."""
    iw = min(a[2], b[2]) - max(a[0], b[0])
    ih = min(a[3], b[3]) - max(a[1], b[1])
    if iw <= 0 or ih <= 0:
        return 0.0
    inter = iw * ih
    area = lambda r: (r[2] - r[0]) * (r[3] - r[1]) if r[2] > r[0] and r[3] > r[1] else 0.0  # noqa: E731
    union = area(a) + area(b) - inter
    return inter / union if union > 0 else 0.0


def nms(
    cands: list[dict[str, Any]], iou_threshold: float, per_class: bool, max_detections: int
) -> list[dict[str, Any]]:
    """Greedy NMS. Candidates by descending score (equal scores keep their order); one is dropped
    when its IoU with a kept box (of the same class when per_class) is above iou_threshold."""
    order = sorted(range(len(cands)), key=lambda i: -cands[i]["score"])  # stable
    kept: list[dict[str, Any]] = []
    for i in order:
        if len(kept) >= max_detections:
            break
        c = cands[i]
        if all(iou(c["box"], k["box"]) <= iou_threshold for k in kept if not per_class or k["class"] == c["class"]):
            kept.append(c)
    return kept


def best_first(cands: list[dict[str, Any]], max_detections: int) -> list[dict[str, Any]]:
    return sorted(cands, key=lambda c: -c["score"])[:max_detections]


def dfl_expectation(bins: np.ndarray) -> np.ndarray:
    """Softmax over the last axis, then the expected bin index (float64)."""
    b = np.asarray(bins, dtype=np.float64)
    e = np.exp(b - b.max(axis=-1, keepdims=True))
    return (e * np.arange(b.shape[-1])).sum(-1) / e.sum(-1)


def dfl_cells(height: int, width: int, strides: Sequence[int], center_offset: float) -> tuple[np.ndarray, np.ndarray]:
    """Cell centres [N, 2] (x, y input pixels) and the stride of each row, in the card's row
    order: stride by stride, then y-major, x-minor; ceil(H/s) x ceil(W/s) cells per stride."""
    centres, row_stride = [], []
    for s in strides:
        rows, cols = -(-height // s), -(-width // s)
        ys, xs = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
        centres.append(np.stack([(xs.ravel() + center_offset) * s, (ys.ravel() + center_offset) * s], 1))
        row_stride.append(np.full(rows * cols, float(s)))
    return np.concatenate(centres).astype(np.float64), np.concatenate(row_stride)


def decode_anchor_free_dfl(
    scores: np.ndarray, boxes: np.ndarray, d: dict[str, Any], height: int, width: int
) -> list[dict[str, Any]]:
    """scores [1, N, C], boxes [1, N, 4*(reg_max+1)] -> detections in input-tensor pixels
    (not clipped), after per-class NMS (or none), best first."""
    reg_max = int(d["reg_max"])
    centres, row_stride = dfl_cells(height, width, d["strides"], float(d.get("center_offset", 0.0)))
    n = centres.shape[0]
    s = np.asarray(scores, dtype=np.float64)
    if s.ndim != 3 or s.shape[1] != n:
        raise ValueError(
            f"anchor_free_dfl: a {width}x{height} input with strides {d['strides']} has "
            f"{n} rows; the scores output is {list(s.shape)}"
        )
    s = s[0]
    b = np.asarray(boxes, dtype=np.float64)
    if b.size != n * 4 * (reg_max + 1):
        raise ValueError(f"anchor_free_dfl: boxes output {list(b.shape)}, expected [1, {n}, {4 * (reg_max + 1)}]")
    activation = d.get("scores_activation", "none")
    if activation == "sigmoid":
        s = 1.0 / (1.0 + np.exp(-s))
    elif activation != "none":
        raise ValueError(f"unknown scores_activation {activation!r}")
    dist = dfl_expectation(b.reshape(n, 4, reg_max + 1)) * row_stride[:, None]  # left, top, right, bottom
    xyxy = np.stack(
        [
            centres[:, 0] - dist[:, 0],
            centres[:, 1] - dist[:, 1],
            centres[:, 0] + dist[:, 2],
            centres[:, 1] + dist[:, 3],
        ],
        1,
    )
    thr = float(d["score_threshold"])
    cands = []
    rows, classes = np.nonzero(s > thr)  # row-major: the same candidate order as the C++ decoder
    for r, c in zip(rows.tolist(), classes.tolist()):
        if not np.all(np.isfinite(xyxy[r])):
            continue
        cands.append({"class": int(c), "score": float(s[r, c]), "box": [float(v) for v in xyxy[r]], "row": int(r)})
    max_det = int(d.get("max_detections", DFL_MAX_DETECTIONS))
    if d.get("nms", "per_class") == "none":
        return best_first(cands, max_det)
    return nms(cands, float(d["iou_threshold"]), True, max_det)


def decode_boxes_scores(output: np.ndarray, d: dict[str, Any], height: int, width: int) -> list[dict[str, Any]]:
    """output [1, N, 4 + C] -> detections in input-tensor pixels. Each row gives one candidate:
    its best class (the first one on ties), kept when that score is above score_threshold."""
    o = np.asarray(output, dtype=np.float64)
    if o.ndim != 3 or o.shape[2] < 5:
        raise ValueError(f"boxes_scores: output {list(o.shape)}, expected [1, N, 4 + classes]")
    o = o[0]
    normalized = d.get("box_units", "pixels") == "normalized"
    sx, sy = (float(width), float(height)) if normalized else (1.0, 1.0)
    cxcywh = d.get("box_format", "xyxy") == "cxcywh"
    cls = np.argmax(o[:, 4:], axis=1)
    best = o[np.arange(o.shape[0]), 4 + cls]
    cands = []
    for r in np.nonzero(best > float(d["score_threshold"]))[0].tolist():
        a, b, c, e = o[r, :4]
        box = (
            [(a - c / 2) * sx, (b - e / 2) * sy, (a + c / 2) * sx, (b + e / 2) * sy]
            if cxcywh
            else [a * sx, b * sy, c * sx, e * sy]
        )
        if not all(math.isfinite(v) for v in box):
            continue
        cands.append({"class": int(cls[r]), "score": float(best[r]), "box": [float(v) for v in box], "row": int(r)})
    max_det = int(d.get("max_detections", BOXES_SCORES_MAX_DETECTIONS))
    if d.get("nms", "per_class") == "none":
        return best_first(cands, max_det)
    return nms(cands, float(d.get("iou_threshold", BOXES_SCORES_IOU)), True, max_det)


def segment_map(outputs: Sequence[np.ndarray], d: dict[str, Any]) -> np.ndarray:
    """The card's channel of the [1, C, H', W'] output, raw (before any sigmoid), float32."""
    o = np.asarray(outputs[int(d.get("output", 0))])
    if o.ndim != 4:
        raise ValueError(f"segment output {list(o.shape)}, expected [1, channels, height, width]")
    return o[0, int(d.get("channel", 0))].astype(np.float32)


def foreground_fraction(m: np.ndarray, d: dict[str, Any]) -> float:
    p = 1.0 / (1.0 + np.exp(-m.astype(np.float64))) if d.get("kind") == "logit" else m.astype(np.float64)
    return float(np.mean(p >= float(d.get("threshold", 0.5))))


def depth_range(m: np.ndarray, d: dict[str, Any]) -> tuple[float, float]:
    """numpy's linear percentiles (low, high) of the map: the colour-map range."""
    n = d.get("normalise", {})
    lo, hi = float(n.get("low_percentile", 2)), float(n.get("high_percentile", 98))
    v = m.astype(np.float64).ravel()
    return float(np.percentile(v, lo)), float(np.percentile(v, hi))


# ---------------------------------------------------------------------------------------------
# Models
# ---------------------------------------------------------------------------------------------


def registry() -> dict[str, str]:
    from real_models import REGISTRY

    return dict(REGISTRY)


def model_dirs(name: str) -> tuple[Path, Path]:
    """(directory holding card.json, directory for the reference files)."""
    committed = ROOT / "models" / name
    if (committed / "card.json").is_file():
        return committed, ROOT / "tests" / "demos" / name
    cached = ROOT / ".cache" / "real-models" / name
    if (cached / "card.json").is_file():
        return cached, cached / "reference"
    raise FileNotFoundError(
        f"no card.json for {name} in {committed} or {cached}; export the model first "
        f"(python/.venv/bin/python python/real_models/<module>.py)"
    )


def load_card(card_dir: Path) -> dict[str, Any]:
    card = json.loads((card_dir / "card.json").read_text())
    if "labels" not in card and "labels_file" in card:
        card["labels"] = [line.rstrip("\n") for line in (card_dir / card["labels_file"]).read_text().splitlines()]
    return card


def load_model(name: str) -> torch.nn.Module:
    reg = registry()
    if name not in reg:
        raise KeyError(f"unknown model {name!r}; registered: {', '.join(reg) or 'none'}")
    module = importlib.import_module(reg[name])
    model = module.build()
    model.eval()
    return model


def run_eager(model: torch.nn.Module, x: torch.Tensor) -> list[np.ndarray]:
    with torch.no_grad():
        out = model(x)
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    return [o.detach().to(torch.float32).numpy() for o in outs]


# ---------------------------------------------------------------------------------------------
# Reference files
# ---------------------------------------------------------------------------------------------


def _r(v: float, step: float) -> float:
    """Rounded to the step the demo's JSON uses (1e-6 scores, 1e-3 pixels); far finer than any
    comparison made on them."""
    digits = int(round(-math.log10(step)))
    return round(float(v), digits) if math.isfinite(v) else float(v)


def reference_for(
    card: dict[str, Any], outputs: list[np.ndarray], geom: dict[str, Any], image: str
) -> tuple[str, dict[str, Any], np.ndarray | None]:
    """(kind suffix, JSON document, map or None) for one photo's eager outputs."""
    d = card["decode"]
    task = card["task"]
    H, W = geom["input_h"], geom["input_w"]
    labels = card.get("labels", [])
    if task == "classify":
        top = classify_top(outputs[int(d.get("output", 0))], labels, 5, d["kind"] == "logits")
        return (
            "classify",
            {
                "schema": "wgx-classify/1",
                "model": card["name"],
                "image": image,
                "top": [{**t, "score": _r(t["score"], 1e-6)} for t in top],
            },
            None,
        )
    header = {"model": card["name"], "image": image, "width": geom["photo_w"], "height": geom["photo_h"]}
    if task == "detect":
        if d["kind"] == "anchor_free_dfl":
            dets = decode_anchor_free_dfl(outputs[int(d["scores_output"])], outputs[int(d["boxes_output"])], d, H, W)
        elif d["kind"] == "boxes_scores":
            dets = decode_boxes_scores(outputs[int(d["output"])], d, H, W)
        else:
            raise ValueError(f"unknown detect decode kind {d['kind']!r}")
        out = []
        for det in dets:
            box = to_photo(det["box"], geom)
            out.append(
                {
                    "class": det["class"],
                    "label": labels[det["class"]] if det["class"] < len(labels) else str(det["class"]),
                    "score": _r(det["score"], 1e-6),
                    "box": [_r(v, 1e-3) for v in box],
                }
            )
        return "detect", {"schema": "wgx-detect/1", **header, "detections": out}, None
    if task == "segment":
        m = segment_map(outputs, d)
        return (
            "segment",
            {
                "schema": "wgx-segment/1",
                **header,
                "map": {"width": m.shape[1], "height": m.shape[0]},
                "threshold": float(d.get("threshold", 0.5)),
                "foreground_fraction": _r(foreground_fraction(m, d), 1e-6),
                "output": None,
            },
            m,
        )
    if task == "depth":
        o = np.asarray(outputs[int(d.get("output", 0))])
        if o.ndim != 4 or o.shape[1] != 1:
            raise ValueError(f"depth output {list(o.shape)}, expected [1, 1, height, width]")
        m = o[0, 0].astype(np.float32)
        lo, hi = depth_range(m, d)
        n = d.get("normalise", {})
        return (
            "depth",
            {
                "schema": "wgx-depth/1",
                **header,
                "map": {"width": m.shape[1], "height": m.shape[0]},
                "larger_is": d.get("larger_is", "far"),
                "percentiles": [float(n.get("low_percentile", 2)), float(n.get("high_percentile", 98))],
                "range": [lo, hi],
                "output": None,
            },
            m,
        )
    raise ValueError(f"unknown task {task!r}")


def make_references(
    name: str,
    photo_list: Sequence[str],
    decoder: str = "stb",
    dump_input: str | None = None,
    out_dir: Path | None = None,
    model: torch.nn.Module | None = None,
) -> list[Path]:
    card_dir, ref_dir = model_dirs(name)
    ref_dir = Path(out_dir) if out_dir else ref_dir
    card = load_card(card_dir)
    card_sha = hashlib.sha256((card_dir / "card.json").read_bytes()).hexdigest()
    model = model or load_model(name)
    ref_dir.mkdir(parents=True, exist_ok=True)
    if dump_input and len(photo_list) > 1 and "{photo}" not in dump_input:
        raise ValueError("--dump-input with several photos needs '{photo}' in the path")
    written: list[Path] = []
    for photo in photo_list:
        rgb = load_photo(photo, decoder)
        geom = geometry(card["input"], rgb.shape[0], rgb.shape[1])
        x = preprocess(rgb, card["input"], geom)
        stem = photo if photo in photos.PHOTOS else Path(photo).stem
        if dump_input:
            p = Path(dump_input.replace("{photo}", stem))
            p.parent.mkdir(parents=True, exist_ok=True)
            np.save(p, x.numpy())
            written.append(p)
        outputs = run_eager(model, x)
        kind, doc, m = reference_for(card, outputs, geom, photo_path(photo))
        doc["reference"] = {
            "by": "python/demo_reference.py",
            "decoder": "libstb (stb_image 2.27)" if decoder == "stb" else "Pillow",
            "torch": torch.__version__,
            "card_sha256": card_sha,
            "input_geometry": {k: geom[k] for k in ("placed_w", "placed_h", "offset_x", "offset_y")},
        }
        p = ref_dir / f"{stem}.{kind}.json"
        p.write_text(json.dumps(doc, indent=1) + "\n")
        written.append(p)
        if m is not None:
            mp = ref_dir / f"{stem}.map.npy"
            np.save(mp, m)
            written.append(mp)
    return written


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", action="append", default=[], help="registered model name (repeatable)")
    ap.add_argument("--photo", action="append", default=[], help="photo id of python/photos.py or a path (repeatable)")
    ap.add_argument("--all", action="store_true", help="every registered model with an exported card, default photos")
    ap.add_argument(
        "--decoder",
        choices=("stb", "pil"),
        default="stb",
        help="image decoder (stb = the demos' decoder; pil only to study the difference)",
    )
    ap.add_argument(
        "--dump-input",
        help="save the preprocessed input tensor [1,3,H,W] float32 .npy here "
        "('{photo}' in the path is replaced by the photo id)",
    )
    ap.add_argument(
        "--out-dir",
        help="write the reference files into OUT_DIR/<model>/ instead of the default "
        "place (the layout WGX_DEMO_REFERENCES reads)",
    )
    args = ap.parse_args(argv)
    torch.set_num_threads(max(1, min(4, os.cpu_count() or 1)))
    names = list(args.model)
    if args.all:
        names = [n for n in registry() if n not in names]
        names = list(args.model) + names
    if not names:
        ap.error("give --model NAME (repeatable) or --all")
    status = 0
    for name in names:
        try:
            card_dir, _ = model_dirs(name)
        except FileNotFoundError as e:
            if args.all and name not in args.model:
                print(f"[skip] {name}: {e}")
                continue
            raise
        task = load_card(card_dir)["task"]
        photo_list = args.photo or list(DEFAULT_PHOTOS[task])
        out_dir = Path(args.out_dir) / name if args.out_dir else None
        written = make_references(name, photo_list, args.decoder, args.dump_input, out_dir)
        for p in written:
            try:
                shown = p.relative_to(ROOT)
            except ValueError:
                shown = p
            print(f"[{name}] wrote {shown}")
            if p.suffix == ".json":
                doc = json.loads(p.read_text())
                if doc["schema"] == "wgx-classify/1":
                    print("    " + ", ".join(f"{t['label']} {t['score']:.3f}" for t in doc["top"]))
                elif doc["schema"] == "wgx-detect/1":
                    for det in doc["detections"][:10]:
                        print(f"    {det['label']:<14} {det['score']:.3f} {[round(v, 1) for v in det['box']]}")
    return status


if __name__ == "__main__":
    sys.exit(main())
