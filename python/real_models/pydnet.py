"""PyDNet++ (mobilePydnet, 2019) monocular relative depth, 448x640, from the TFLite file in
../shared/models/mobilepydnet.

Not committed: the weights were trained on Matterport3D (non-commercial terms), so the .tflite,
the .pte and the goldens stay in the ignored cache .cache/real-models/pydnet/. This file only
reads ../shared/models/mobilepydnet/optimized_pydnet++.tflite when it is present.

The file has int8 per-tensor weights (dynamic range) and fp32 activations;
python/importers/tflite_model.py rebuilds it with the weights dequantised (w = q * scale), the
leaky ReLUs written as MAXIMUM(x, 0.2 x) turned into leaky_relu, and only the finest output kept:

  input   float32 NCHW [1, 3, 448, 640], RGB, pixel / 255, stretched to 448x640 (H x W)
  output  [1, 1, 448, 640] relative depth ("PSD/resize_images/ResizeBilinear", the half-resolution
          estimator resized with TF's legacy bilinear rule); larger values are farther.

Regenerate (from the repository root):
    python/.venv/bin/python python/real_models/pydnet.py [--wgx build/wgx]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn as nn

from importers.tflite_model import build_module
from importers.tflite_reader import read_tflite
from real_models import tflite_common as common

NAME = "pydnet"
SHARED = common.SHARED_MODELS / "mobilepydnet"
TFLITE = SHARED / "optimized_pydnet++.tflite"
TFLITE_SHA256 = "ba97991edb4a516096557aedf56e61bf4aa4c30e34d6a38f061ef449ecf16bc7"
OUTPUT = "PSD/resize_images/ResizeBilinear"
HEIGHT, WIDTH = 448, 640
PHOTOS = ["dog.jpg", "person.jpg", "kite.jpg", "horses.jpg"]
GOLDEN_PHOTO = "dog.jpg"
OUT_DIR = common.CACHE / NAME
REGENERATE = "python/.venv/bin/python python/real_models/pydnet.py"
ABSENT = (
    f"The PyDNet++ file is not in this checkout (never committed); put optimized_pydnet++.tflite "
    f"(see {SHARED}/SOURCE.md) into {SHARED}/"
)


def tflite_path() -> Path:
    return common.require_file(TFLITE, TFLITE_SHA256, ABSENT)


def card() -> dict[str, Any]:
    return {
        "schema": "wgx-model-card/1",
        "name": "pydnet-448x640",
        "task": "depth",
        "model": "model.pte",
        "input": {
            "height": HEIGHT,
            "width": WIDTH,
            "resize": "stretch",
            "scale": 1 / 255,
            "mean": [0, 0, 0],
            "std": [1, 1, 1],
        },
        "decode": {
            "kind": "relative_depth",
            "output": 0,
            "larger_is": "far",
            "normalise": {"low_percentile": 2, "high_percentile": 98},
        },
        "license": "Apache-2.0 (code and file); weights trained on Matterport3D (non-commercial research terms)",
        "source": "FilippoAleotti/mobilePydnet@0fc3030 Android/app/src/main/assets/optimized_pydnet++.tflite",
    }


def build() -> nn.Module:
    g = read_tflite(str(tflite_path()))
    model = build_module(g, outputs=[g.tensor_by_name(OUTPUT).index])
    for p in model.parameters():
        p.requires_grad_(False)
    return model.eval()


def _depth_stats(photo: Path, x: torch.Tensor, geo, ours: list[np.ndarray], _file_interp) -> dict[str, Any]:
    """Sanity numbers of the map: percentiles, and mean depth of the top vs bottom quarter
    (background / sky above, ground near the camera below: expect top > bottom)."""
    d = ours[0][0, 0]
    q = d.shape[0] // 4
    return {
        "p2": float(np.percentile(d, 2)),
        "p50": float(np.percentile(d, 50)),
        "p98": float(np.percentile(d, 98)),
        "top_quarter_mean": float(d[:q].mean()),
        "bottom_quarter_mean": float(d[-q:].mean()),
    }


def attribution(info: dict[str, Any]) -> list[str]:
    pte, report = info["pte"], info["report"]
    lines = [
        "# pydnet-448x640: PyDNet++ relative depth (mobilePydnet 2019 Android model)",
        "",
        "NOT FOR COMMITTING: weights derived from Matterport3D (non-commercial terms). This folder lives in the",
        "ignored cache.",
        "",
        "## Source",
        "",
        f"- `{TFLITE}` (2,020,168 bytes, sha256 `{TFLITE_SHA256}`); provenance in `{SHARED}/SOURCE.md`",
        "  (FilippoAleotti/mobilePydnet commit 0fc3030, `Android/app/src/main/assets/optimized_pydnet++.tflite`).",
        "",
        "## Licence",
        "",
        "- Repository and file: Apache-2.0 (the repository LICENSE at that commit, copied next to the file).",
        "- Training data Matterport3D: non-commercial research terms; no separate weight licence is stated.",
        "",
        "## What was done to the network",
        "",
        "- `python/importers/tflite_model.py` rebuilt the graph as an NCHW torch module with the 35 int8",
        "  per-tensor weight tensors of the file dequantised to float32 (w = q * scale); the `MAXIMUM(x, MUL(x, 0.2))`",
        "  pairs became `leaky_relu(x, 0.2)` (exact); TFLite SAME padding of the stride-2 convolutions on even",
        "  sizes (one extra row/column at the bottom/right) is an explicit zero pad; TRANSPOSE_CONV (2x2, stride",
        "  2) is ConvTranspose2d.",
        f"- Only the finest output `{OUTPUT}` is kept (the two coarser maps are dropped with what only",
        "  they need). Its RESIZE_BILINEAR uses TF's legacy sampling (align_corners = half_pixel_centers = false:",
        "  src = dst * in / out), which torch's interpolate has no mode for: it is two constant interpolation",
        "  matrices (224 -> 448 rows, 320 -> 640 columns) applied with F.linear.",
        "- Input: RGB, pixel / 255, stretched to 448x640 (H x W), as the app feeds it. Output: relative depth",
        "  [1, 1, 448, 640], larger = farther, arbitrary scale (normalise with the 2..98 % percentiles).",
        f"- model.pte: {pte['size']} bytes, sha256 `{pte['sha256']}`, lowered with VulkanPartitioner, fully",
        f"  delegated; delegated ops: {', '.join(f'{k} x{v}' for k, v in pte['delegate_op_counts'].items())}.",
        "",
        "## Regenerate",
        "",
        "```sh",
        f"{REGENERATE}            # add --wgx build/wgx to check our engine",
        "```",
        "",
        f"It writes {info['out_dir']}/ (model.pte, card.json, this file) and the engine goldens",
        f"{info['goldens_dir']}/ (input.npy = {GOLDEN_PHOTO} stretched per card.json, expected_0.npy, meta.json).",
        "",
        "## Validation",
        "",
    ]
    if report is None:
        return lines + ["The TFLite comparison was skipped for this export (--no-validate)."]
    lines += [
        f"The torch module (fp32, CPU) and the TFLite interpreter ({report['interpreter']}) on the same input",
        'tensors (Debian `darknet` photos, stretched per card.json). "TFLite fp32 weights" runs the file with',
        "its int8 weights stored as the dequantised float32 values (TFLite's float kernels): this measures the",
        'importer. "File as shipped" runs the original file, where TFLite\'s hybrid kernels quantise every',
        "activation to int8 on the fly, so it differs from any fp32 run by that noise.",
        "",
    ]
    lines += common.validation_table(report, ["relative depth"])
    lines += [
        "",
        "Depth maps (torch module): percentiles 2 / 50 / 98 and mean of the top vs the bottom quarter",
        "of the image (farther scenery above, near ground below):",
        "",
    ]
    for r in report["photos"]:
        lines.append(
            f"- {r['photo']}: {r['p2']:.2f} / {r['p50']:.2f} / {r['p98']:.2f}; top {r['top_quarter_mean']:.2f},"
            f" bottom {r['bottom_quarter_mean']:.2f}"
        )
    lines += ["", "Our engine on the golden input:", ""] + common.engine_lines(info["engine"])
    return lines


def export(
    out_dir: Path = OUT_DIR, goldens_dir: Path = OUT_DIR / "golden", validate: bool = True, wgx: Path | None = None
) -> dict[str, Any]:
    model = build()
    return common.export_flow(
        name=NAME,
        module=model,
        card=card(),
        out_dir=out_dir,
        goldens_dir=goldens_dir,
        golden_photo=common.photo(GOLDEN_PHOTO),
        tflite_path=tflite_path(),
        tensor_ids=model.output_tensors,
        photos=[common.photo(p) for p in PHOTOS],
        attribution=attribution,
        extra=_depth_stats,
        golden_meta={"regenerate": REGENERATE},
        validate=validate,
        wgx=wgx,
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Export PyDNet++ (into the ignored cache)")
    ap.add_argument("--out", type=Path, default=OUT_DIR)
    ap.add_argument("--goldens", type=Path, default=None, help="default: <out>/golden")
    ap.add_argument("--no-validate", action="store_true", help="skip the TFLite comparison")
    ap.add_argument("--wgx", type=Path, default=None, help="our engine's wgx binary: also run the goldens on it")
    args = ap.parse_args(argv)
    if not TFLITE.exists():
        print(ABSENT, file=sys.stderr)
        return 2
    info = export(args.out, args.goldens or args.out / "golden", not args.no_validate, args.wgx)
    common.print_summary(info)
    if info["report"]:
        for r in info["report"]["photos"]:
            print(
                f"  {r['photo']}: p2 {r['p2']:.2f} p50 {r['p50']:.2f} p98 {r['p98']:.2f} "
                f"top {r['top_quarter_mean']:.2f} bottom {r['bottom_quarter_mean']:.2f}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
