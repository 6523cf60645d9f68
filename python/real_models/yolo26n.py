"""Ultralytics YOLO26n (COCO-80, 640x640), from the int8-weight TFLite export in ../shared/models.

AGPL-3.0 weights: the .tflite, the .pte and the goldens made from them are NEVER committed. This
file only reads ../shared/models/yolo26n/yolo26n_int8.tflite when it is present and writes
into the ignored cache .cache/real-models/yolo26n/.

The file is Ultralytics' dynamic-range export (int8 per-channel weights, fp32 activations).
python/importers/tflite_model.py rebuilds it with the weights dequantised (w = q * scale) and the
post-processing tail cut off (REDUCE_MAX, TOPK_V2, GATHER(_ND), CAST, TILE, FLOOR_MOD, LESS):
the program ends at the graph's [1, 8400, 84] tensor, i.e.

  input   float32 NCHW [1, 3, 640, 640], RGB, pixel / 255, letterboxed (fill 114)
  output  [1, 8400, 84]: x1, y1, x2, y2 normalised to the 640x640 input (0..1), then 80 class
          scores already through a sigmoid. YOLO26's one-to-one head is NMS-free: take the best
          class per row, threshold, keep the best 300 (card decode "boxes_scores", nms "none").

Regenerate (from the repository root):
    python/.venv/bin/python python/real_models/yolo26n.py [--wgx build/wgx]
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn as nn

from importers.tflite_model import build_module
from importers.tflite_reader import read_tflite
from real_models import tflite_common as common

NAME = "yolo26n"
SHARED = common.SHARED_MODELS / "yolo26n"
TFLITE = SHARED / "yolo26n_int8.tflite"
TFLITE_SHA256 = "4a381ddec117c3f8ce41dd6b7b98d35f4370439b8e8984758131f2c94960efb3"
METADATA = SHARED / "metadata.yaml"
METADATA_SHA256 = "91b502b7df395dd39801c07f47f50ebf84c87df259b781bcb2462e725ee861e1"
# The [1, 8400, 84] tensor before the top-k tail (boxes xyxy normalised + sigmoid scores).
CUT_TENSOR = "model_417/tf.compat.v1.transpose_464/transpose"
SIZE = 640
SCORE_THRESHOLD = 0.25
MAX_DETECTIONS = 300
PHOTOS = ["dog.jpg", "person.jpg", "kite.jpg", "horses.jpg", "giraffe.jpg"]
GOLDEN_PHOTO = "dog.jpg"
OUT_DIR = common.CACHE / NAME
REGENERATE = "python/.venv/bin/python python/real_models/yolo26n.py"
ABSENT = (
    f"The YOLO26n weights are not in this checkout (AGPL-3.0, never committed); put "
    f"yolo26n_int8.tflite and metadata.yaml (see {SHARED}/SOURCE.md) into {SHARED}/"
)


def tflite_path() -> Path:
    return common.require_file(TFLITE, TFLITE_SHA256, ABSENT)


def labels() -> list[str]:
    """The 80 class names from the export's metadata.yaml (`names:` index -> name)."""
    import yaml

    meta = yaml.safe_load(common.require_file(METADATA, METADATA_SHA256, ABSENT).read_text())
    names = meta["names"]
    if sorted(names) != list(range(80)):
        raise RuntimeError(f"{METADATA}: expected class indices 0..79")
    return [names[i] for i in range(80)]


def card() -> dict[str, Any]:
    return {
        "schema": "wgx-model-card/1",
        "name": "yolo26n-640",
        "task": "detect",
        "model": "model.pte",
        "input": {
            "height": SIZE,
            "width": SIZE,
            "resize": "letterbox",
            "letterbox_fill": [114, 114, 114],
            "scale": 1 / 255,
            "mean": [0, 0, 0],
            "std": [1, 1, 1],
        },
        "decode": {
            "kind": "boxes_scores",
            "output": 0,
            "box_format": "xyxy",
            "box_units": "normalized",
            "score_threshold": SCORE_THRESHOLD,
            "iou_threshold": 0.7,
            "nms": "none",
            "max_detections": MAX_DETECTIONS,
        },
        "labels": labels(),
        "license": "AGPL-3.0",
        "source": "Ultralytics YOLO26n TFLite int8 export (yolo26n_int8.tflite, sha256 " + TFLITE_SHA256 + ")",
    }


def build() -> nn.Module:
    g = read_tflite(str(tflite_path()))
    model = build_module(g, outputs=[g.tensor_by_name(CUT_TENSOR).index])
    for p in model.parameters():
        p.requires_grad_(False)
    return model.eval()


def decode(out: np.ndarray, names: Sequence[str], threshold: float = SCORE_THRESHOLD) -> list[dict[str, Any]]:
    """Card decode: best class per row, score > threshold, best MAX_DETECTIONS first; boxes in
    640x640 input pixels."""
    rows = out.reshape(-1, out.shape[-1]).astype(np.float64)
    cls = rows[:, 4:].argmax(1)
    score = rows[np.arange(rows.shape[0]), 4 + cls]
    keep = np.nonzero(score > threshold)[0]
    keep = keep[np.argsort(-score[keep], kind="stable")][:MAX_DETECTIONS]
    return [
        {
            "class": int(cls[r]),
            "label": names[cls[r]],
            "score": float(score[r]),
            "box": [float(v) * SIZE for v in rows[r, :4]],
        }
        for r in keep
    ]


def to_image(box: Sequence[float], geo: dict[str, Any]) -> list[float]:
    """Undo the letterbox: input-tensor pixels -> original image pixels."""
    return [
        (box[0] - geo["offset_x"]) / geo["scale_x"],
        (box[1] - geo["offset_y"]) / geo["scale_y"],
        (box[2] - geo["offset_x"]) / geo["scale_x"],
        (box[3] - geo["offset_y"]) / geo["scale_y"],
    ]


def _detections(photo: Path, x: torch.Tensor, geo, ours: list[np.ndarray], file_interp) -> dict[str, Any]:
    """Our decode of the module output, and TFLite's own post-processed [1, 300, 6] output of the
    file as shipped (x1, y1, x2, y2 normalised, score, class), both in original-image pixels."""
    names = labels()
    dets = [dict(d, box_image=[round(v, 1) for v in to_image(d["box"], geo)]) for d in decode(ours[0], names)]
    tfl = []
    if file_interp is not None:
        out = file_interp.get_tensor(file_interp.get_output_details()[0]["index"])[0]
        for r in out[np.argsort(-out[:, 4], kind="stable")]:
            if r[4] > SCORE_THRESHOLD:
                box = [float(v) * SIZE for v in r[:4]]
                tfl.append(
                    {
                        "label": names[int(r[5])],
                        "score": float(r[4]),
                        "box_image": [round(v, 1) for v in to_image(box, geo)],
                    }
                )
    return {
        "detections": [{k: d[k] for k in ("label", "score", "box_image")} for d in dets],
        "tflite_file_detections": tfl,
    }


def _dets_text(dets) -> str:
    return (
        ", ".join(f"{d['label']} {d['score']:.2f} [{', '.join(str(round(v)) for v in d['box_image'])}]" for d in dets)
        or "none"
    )


def attribution(info: dict[str, Any]) -> list[str]:
    pte, report = info["pte"], info["report"]
    lines = [
        "# yolo26n-640: Ultralytics YOLO26n (COCO-80), rebuilt from its int8-weight TFLite export",
        "",
        "NOT FOR COMMITTING: AGPL-3.0 weights. This folder lives in the ignored cache.",
        "",
        "## Source",
        "",
        f"- `{TFLITE}` (3,251,466 bytes, sha256 `{TFLITE_SHA256}`) and `metadata.yaml` (sha256",
        f"  `{METADATA_SHA256}`); provenance in `{SHARED}/SOURCE.md` (an Ultralytics 8.4.16",
        "  `format=tflite int8=True` export of the official COCO YOLO26n checkpoint).",
        "- Class names: `names` of metadata.yaml.",
        "",
        "## Licence",
        "",
        "- AGPL-3.0 (Ultralytics; metadata.yaml: `license: AGPL-3.0 License`). Do not ship or commit the weights,",
        "  the .pte or anything derived from them unless that licence is dealt with.",
        "",
        "## What was done to the network",
        "",
        "- `python/importers/tflite_model.py` rebuilt the graph as an NCHW torch module with the 92 int8",
        "  per-channel weight tensors dequantised to float32 (w = q * scale[c]); the 13 TRANSPOSE ops became",
        "  layout bookkeeping (4 remain as matmul transposes and 1 at the output), the 7 explicit PAD ops were",
        "  folded into the following stride-2 convolutions' padding.",
        f"- The graph is cut at `{CUT_TENSOR}` [1, 8400, 84]; the top-k tail (REDUCE_MAX, TOPK_V2, GATHER,",
        "  GATHER_ND, CAST, TILE, FLOOR_MOD, LESS) is not in the program. Output rows: x1, y1, x2, y2 normalised",
        "  to the 640x640 letterboxed input (multiply by 640 for input pixels), then 80 sigmoid class scores.",
        "  The head is NMS-free (one-to-one); the card's decode takes the best class per row, threshold",
        f'  {SCORE_THRESHOLD}, at most {MAX_DETECTIONS} (the `iou_threshold` field is unused with nms "none").',
        "- Input: RGB, pixel / 255, letterbox to 640x640 with fill 114.",
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
        f"{info['goldens_dir']}/ (input.npy = {GOLDEN_PHOTO} letterboxed per card.json, expected_0.npy, meta.json).",
        "",
        "## Validation",
        "",
    ]
    if report is None:
        return lines + ["The TFLite comparison was skipped for this export (--no-validate)."]
    lines += [
        f"The torch module (fp32, CPU) and the TFLite interpreter ({report['interpreter']}) on the same input",
        'tensors (Debian `darknet` photos, letterboxed per card.json), compared at the cut tensor. "TFLite fp32',
        "weights\" runs the file with its int8 weights stored as the dequantised float32 values (TFLite's float",
        'kernels): this measures the importer. "File as shipped" runs the original file, where TFLite\'s hybrid',
        "kernels quantise every activation to int8 on the fly, so it differs from any fp32 run by that noise.",
        "",
    ]
    lines += common.validation_table(report, ["boxes+scores"])
    lines += [
        "",
        "Detections, boxes x1, y1, x2, y2 in original-image pixels (torch module with the card's decode;",
        "then TFLite's own [1, 300, 6] output of the file as shipped, score > 0.25):",
        "",
    ]
    for r in report["photos"]:
        lines.append(f"- {r['photo']}: {_dets_text(r['detections'])}")
        lines.append(f"  - TFLite file: {_dets_text(r['tflite_file_detections'])}")
    lines += ["", "Our engine on the golden input:", ""] + common.engine_lines(info["engine"])
    return lines


def export(
    out_dir: Path = OUT_DIR, goldens_dir: Path = OUT_DIR / "golden", validate: bool = True, wgx: Path | None = None
) -> dict[str, Any]:
    model = build()
    c = card()
    golden = common.photo(GOLDEN_PHOTO)
    # the card's decode of the golden, so a demo test can check `wgx detect` on the same photo
    x, geo = common.preprocess(common.load_rgb(golden), c["input"])
    with torch.no_grad():
        dets = decode(model(x).numpy(), c["labels"])
    golden_meta = {
        "regenerate": REGENERATE,
        "detections": [
            {
                "class": d["class"],
                "label": d["label"],
                "score": round(d["score"], 4),
                "box_input_px": [round(v, 1) for v in d["box"]],
                "box_image_px": [round(v, 1) for v in to_image(d["box"], geo)],
            }
            for d in dets
        ],
    }
    return common.export_flow(
        name=NAME,
        module=model,
        card=c,
        out_dir=out_dir,
        goldens_dir=goldens_dir,
        golden_photo=golden,
        tflite_path=tflite_path(),
        tensor_ids=model.output_tensors,
        photos=[common.photo(p) for p in PHOTOS],
        attribution=attribution,
        extra=_detections,
        golden_meta=golden_meta,
        validate=validate,
        wgx=wgx,
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Export YOLO26n (AGPL weights, into the ignored cache)")
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
            print(f"  {r['photo']}: {_dets_text(r['detections'])}")
            print(f"    TFLite file: {_dets_text(r['tflite_file_detections'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
