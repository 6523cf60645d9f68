"""MediaPipe selfie segmentation (general model, 256x256) from npm @mediapipe/selfie_segmentation.

Source: package/selfie_segmentation.tflite of @mediapipe/selfie_segmentation@0.1.1675465747, the
first-party Google file (weights stored as float16 behind DEQUANTIZE ops, one MediaPipe custom
op Convolution2DTransposeBias). python/importers/tflite_model.py rebuilds it as an NCHW torch
module; the program is exactly the network:

  input   float32 NCHW [1, 3, 256, 256], RGB, pixel / 255 (MediaPipe's selfie graph stretches the
          frame to 256x256 with keep_aspect_ratio: false and float range 0..1)
  output  [1, 1, 256, 256] person probability (the network ends in a sigmoid)

Regenerate (from the repository root):
    bash scripts/fetch-mediapipe-selfie.sh
    python/.venv/bin/python python/real_models/selfie.py [--wgx build/wgx]
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
from real_models import tflite_common as common

NAME = "selfie"
PACKAGE = "@mediapipe/selfie_segmentation@0.1.1675465747"
TARBALL_SHA256 = "7767b33eaa68990ee06c28bbb89f39a13a47ebb07ff0f1fd4947d9e817bb9bf9"
TFLITE = (
    common.ROOT
    / ".cache"
    / "npm"
    / "mediapipe-selfie_segmentation-0.1.1675465747"
    / "package"
    / "selfie_segmentation.tflite"
)
TFLITE_SHA256 = "8d13b7fae74af625c641226813616a2117bd6bca19eb3b75574621fc08557f27"
SIZE = 256
PHOTOS = ["astronaut.png", "person.jpg", "kite.jpg"]
GOLDEN_PHOTO = "astronaut.png"
REGENERATE = "bash scripts/fetch-mediapipe-selfie.sh && python/.venv/bin/python python/real_models/selfie.py"


def tflite_path() -> Path:
    return common.require_file(TFLITE, TFLITE_SHA256, "Fetch it with: bash scripts/fetch-mediapipe-selfie.sh")


def card() -> dict[str, Any]:
    return {
        "schema": "wgx-model-card/1",
        "name": "mediapipe-selfie-256",
        "task": "segment",
        "model": "model.pte",
        "input": {
            "height": SIZE,
            "width": SIZE,
            "resize": "stretch",
            "scale": 1 / 255,
            "mean": [0, 0, 0],
            "std": [1, 1, 1],
        },
        "decode": {"kind": "probability", "output": 0, "channel": 0, "threshold": 0.5},
        "license": "Apache-2.0",
        "source": f"npm {PACKAGE} selfie_segmentation.tflite",
    }


def build() -> nn.Module:
    model = build_module(str(tflite_path()))
    for p in model.parameters():
        p.requires_grad_(False)
    return model.eval()


def _foreground(photo: Path, x: torch.Tensor, geo, ours: list[np.ndarray], _file_interp) -> dict[str, Any]:
    return {"foreground_fraction": float((ours[0] > 0.5).mean())}


def attribution(info: dict[str, Any]) -> list[str]:
    pte, report = info["pte"], info["report"]
    lines = [
        "# mediapipe-selfie-256: MediaPipe selfie segmentation (general model, 256x256)",
        "",
        "## Source",
        "",
        f"- npm package `{PACKAGE}`, fetched with `npm pack` by `scripts/fetch-mediapipe-selfie.sh`",
        f"  (tarball sha256 `{TARBALL_SHA256}`).",
        f"- File `package/selfie_segmentation.tflite`, 249,024 bytes, sha256 `{TFLITE_SHA256}`; its description",
        "  string reads `keras2tflite_selfiesegmentation_mlkit-256x256-2021_01_19-v1215.tflite.generated`.",
        "- Google's own file (package author mhays@google.com, homepage google.github.io/mediapipe).",
        "",
        "## Licence",
        "",
        '- Apache-2.0: the package\'s `package.json` says `"license": "Apache-2.0"` and its JavaScript carries',
        "  `SPDX-License-Identifier: Apache-2.0`. The package ships no separate LICENSE file and no model card;",
        "  Google publishes a model card for this model separately (not part of the package, not reproduced here).",
        "",
        "## What was done to the network",
        "",
        "- `python/importers/tflite_model.py` rebuilt the TFLite graph as an NCHW torch module: the 110 float16",
        "  weight tensors (behind DEQUANTIZE ops) were upcast to float32; CONV_2D, DEPTHWISE_CONV_2D, HARD_SWISH,",
        "  RELU, AVERAGE_POOL_2D, MUL, ADD, LOGISTIC and RESIZE_BILINEAR (half-pixel centres) map one to one; the",
        "  MediaPipe custom op `Convolution2DTransposeBias` (options: SAME, stride 2x2; weights [1, 2, 2, 16])",
        "  became ConvTranspose2d(16 -> 1, kernel 2, stride 2) with bias. Nothing else was changed.",
        "- Input: RGB, pixel / 255, stretched to 256x256 (MediaPipe's selfie graph uses ImageToTensorCalculator",
        "  with keep_aspect_ratio false and float range 0..1). Output: person probability [1, 1, 256, 256].",
        f"- model.pte: {pte['size']} bytes, sha256 `{pte['sha256']}`, lowered with VulkanPartitioner, fully",
        f"  delegated; delegated ops: {', '.join(f'{k} x{v}' for k, v in pte['delegate_op_counts'].items())}.",
        "",
        "## Regenerate",
        "",
        "```sh",
        "bash scripts/fetch-mediapipe-selfie.sh",
        "python/.venv/bin/python python/real_models/selfie.py            # add --wgx build/wgx to check our engine",
        "```",
        "",
        f"It writes {info['out_dir']}/ (model.pte, card.json, this file) and the engine goldens",
        f"{info['goldens_dir']}/ (input.npy = {GOLDEN_PHOTO} preprocessed per card.json, expected_0.npy, meta.json).",
        "",
        "## Validation",
        "",
    ]
    if report is None:
        lines.append("The TFLite comparison was skipped for this export (--no-validate).")
    else:
        lines += [
            f"The torch module (fp32, CPU) and the TFLite interpreter ({report['interpreter']}) on the same input",
            "tensors (photos preprocessed per card.json). The interpreter has no kernel for MediaPipe's custom op,",
            "so the reference file replaces it by the builtin TRANSPOSE_CONV with a bias input (same weight layout",
            "and semantics); the float16 weights are dequantised by TFLite's own DEQUANTIZE ops.",
            "",
        ]
        lines += common.validation_table(report, ["probability"])
        lines += [
            "",
            "Pixels with probability > 0.5 (torch module): "
            + ", ".join(f"{r['photo'].split(' ')[0]} {100 * r['foreground_fraction']:.1f} %" for r in report["photos"])
            + ".",
        ]
    lines += ["", "Our engine on the golden input:", ""] + common.engine_lines(info["engine"])
    return lines


def export(
    out_dir: Path = common.ROOT / "models" / "selfie",
    goldens_dir: Path = common.ROOT / "tests" / "demos" / "selfie",
    validate: bool = True,
    wgx: Path | None = None,
) -> dict[str, Any]:
    model = build()
    path = tflite_path()
    return common.export_flow(
        name=NAME,
        module=model,
        card=card(),
        out_dir=out_dir,
        goldens_dir=goldens_dir,
        golden_photo=common.photo(GOLDEN_PHOTO),
        tflite_path=path,
        tensor_ids=model.output_tensors,
        photos=[common.photo(p) for p in PHOTOS],
        attribution=attribution,
        extra=_foreground,
        golden_meta={"regenerate": REGENERATE},
        validate=validate,
        wgx=wgx,
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Export the MediaPipe selfie segmenter to models/selfie")
    ap.add_argument("--out", type=Path, default=common.ROOT / "models" / "selfie")
    ap.add_argument("--goldens", type=Path, default=common.ROOT / "tests" / "demos" / "selfie")
    ap.add_argument("--no-validate", action="store_true", help="skip the TFLite comparison")
    ap.add_argument("--wgx", type=Path, default=None, help="our engine's wgx binary: also run the goldens on it")
    args = ap.parse_args(argv)
    info = export(args.out, args.goldens, not args.no_validate, args.wgx)
    common.print_summary(info)
    return 0


if __name__ == "__main__":
    sys.exit(main())
