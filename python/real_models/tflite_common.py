"""What the TFLite-sourced real models (selfie, yolo26n, pydnet) share: photos, the card's
preprocessing, lowering to .pte, the comparison with the TFLite interpreter, engine goldens.

The preprocessing here is the model-card rule (docs/MODEL_CARDS.md) written in torch:
bilinear, half-pixel centres, no antialias, on float RGB 0..255; letterbox places the resized
image at floor((H - newh) / 2), floor((W - neww) / 2) on the fill colour.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

PYTHON_DIR = Path(__file__).resolve().parent.parent
ROOT = PYTHON_DIR.parent

CACHE = ROOT / ".cache" / "real-models"
# Model files that may not be committed come from the shared folder beside the checkout
# (../shared/models), or from $WGX_SHARED_MODELS.
SHARED_MODELS = Path(os.environ.get("WGX_SHARED_MODELS", ROOT.parent / "shared" / "models"))
DARKNET_DATA = Path("/usr/share/darknet/data")  # Debian package darknet
SKIMAGE_DATA = Path("/usr/lib/python3/dist-packages/skimage/data")  # Debian python3-skimage


def photo(name: str) -> Path:
    """A test photo by file name: darknet's demo photos or skimage's astronaut.png."""
    for d in (DARKNET_DATA, SKIMAGE_DATA):
        p = d / name
        if p.exists():
            return p
    raise FileNotFoundError(
        f"photo {name!r} not found in {DARKNET_DATA} or {SKIMAGE_DATA}; "
        "install the Debian packages: apt-get install darknet python3-skimage"
    )


def photo_label(p: Path) -> str:
    pkg = "darknet" if p.parent == DARKNET_DATA else "python3-skimage"
    return f"{p.name} (Debian {pkg})"


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def require_file(path: Path, sha256: str, how_to_get: str) -> Path:
    """`path` after checking its sha256; a clear error when it is absent or different."""
    if not path.exists():
        raise FileNotFoundError(f"{path} is not present. {how_to_get}")
    got = sha256_file(path)
    if got != sha256:
        raise RuntimeError(f"{path}: sha256 {got}, expected {sha256}")
    return path


def load_rgb(path: Path) -> np.ndarray:
    from PIL import Image

    with Image.open(path) as im:
        return np.asarray(im.convert("RGB"))


def preprocess(rgb: np.ndarray, inp: dict[str, Any]) -> tuple[torch.Tensor, dict[str, Any]]:
    """HxWx3 uint8 RGB -> float32 NCHW [1, 3, H, W] per the card's input section, and the
    geometry needed to map boxes back (scale_y, scale_x, offset_y, offset_x)."""
    H, W = inp["height"], inp["width"]
    h, w = rgb.shape[:2]
    x = torch.from_numpy(rgb.astype(np.float32)).permute(2, 0, 1)[None]
    if inp["resize"] == "stretch":
        x = F.interpolate(x, size=(H, W), mode="bilinear", align_corners=False, antialias=False)
        geo = {"scale_y": H / h, "scale_x": W / w, "offset_y": 0, "offset_x": 0}
    elif inp["resize"] == "letterbox":
        s = min(H / h, W / w)
        nh, nw = round(h * s), round(w * s)
        oy, ox = (H - nh) // 2, (W - nw) // 2
        r = F.interpolate(x, size=(nh, nw), mode="bilinear", align_corners=False, antialias=False)
        x = torch.tensor(inp["letterbox_fill"], dtype=torch.float32).view(1, 3, 1, 1).expand(1, 3, H, W).clone()
        x[:, :, oy : oy + nh, ox : ox + nw] = r
        geo = {"scale_y": nh / h, "scale_x": nw / w, "offset_y": oy, "offset_x": ox}
    else:
        raise ValueError(f"unknown resize {inp['resize']!r}")
    mean = torch.tensor(inp["mean"], dtype=torch.float32).view(1, 3, 1, 1)
    std = torch.tensor(inp["std"], dtype=torch.float32).view(1, 3, 1, 1)
    x = (x * inp["scale"] - mean) / std
    return x.contiguous(), geo


def lower_to_pte(model: nn.Module, example: tuple[torch.Tensor, ...]) -> tuple[bytes, dict[str, Any]]:
    """VulkanPartitioner .pte bytes and a summary; fails unless the program is fully delegated."""
    from executorch.backends.vulkan.partitioner.vulkan_partitioner import VulkanPartitioner
    from executorch.exir import to_edge_transform_and_lower

    import inspect_pte

    ep = torch.export.export(model, example, strict=False)
    pte = bytes(to_edge_transform_and_lower(ep, partitioner=[VulkanPartitioner()]).to_executorch().buffer)
    summary = inspect_pte.summarize(pte)
    if not inspect_pte.is_fully_delegated(summary):
        raise RuntimeError(f"program is not fully delegated; kernel calls: {inspect_pte.kernel_op_names(summary)}")
    counts: dict[str, int] = {}
    for names in inspect_pte.delegate_op_names(summary):
        for n in names:
            counts[n] = counts.get(n, 0) + 1
    return pte, {
        "size": len(pte),
        "sha256": hashlib.sha256(pte).hexdigest(),
        "fully_delegated": True,
        "delegate_op_counts": dict(sorted(counts.items())),
    }


def _nhwc_to_nchw(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(np.transpose(a, (0, 3, 1, 2))) if a.ndim == 4 else a


def compare_with_tflite(
    tflite_path: Path,
    module: nn.Module,
    tensor_ids: Sequence[int],
    photos: Sequence[Path],
    inp: dict[str, Any],
    extra=None,
) -> dict[str, Any]:
    """Run the module and the TFLite interpreter on the same preprocessed photos.

    References: "tflite_fp32" = the file with int8 weights stored as their float32 values
    (and MediaPipe's custom op as the builtin TRANSPOSE_CONV), run by TFLite's float kernels:
    measures the importer. "tflite_file" = the file as shipped, run as TFLite runs it (hybrid
    int8 kernels for int8 weights); only when the file itself runs in the interpreter.
    `extra(photo, x, module_outputs, interpreter_of_file)` may add per-photo entries."""
    from importers.tflite_validate import error_stats, float_reference_model, run_tflite

    fp32_model, changes = float_reference_model(str(tflite_path))
    file_runs = not any("custom" in c for c in changes)
    rows = []
    for p in photos:
        x, geo = preprocess(load_rgb(p), inp)
        with torch.no_grad():
            ours = module(x)
        ours = [o.numpy() for o in (ours if isinstance(ours, tuple) else (ours,))]
        x_nhwc = np.ascontiguousarray(x.permute(0, 2, 3, 1).numpy())
        entry: dict[str, Any] = {"photo": photo_label(p), "outputs": []}
        refs = {"tflite_fp32": run_tflite(fp32_model, [x_nhwc], preserve_all=True)[1]}
        if file_runs:
            refs["tflite_file"] = run_tflite(str(tflite_path), [x_nhwc], preserve_all=True)[1]
        for i, ti in enumerate(tensor_ids):
            o = {"output": i, "shape": list(ours[i].shape)}
            for name, it in refs.items():
                o[name] = error_stats(ours[i], _nhwc_to_nchw(it.get_tensor(ti)))
            entry["outputs"].append(o)
        if extra is not None:
            entry.update(extra(p, x, geo, ours, refs.get("tflite_file")))
        rows.append(entry)
    return {"interpreter": f"ai-edge-litert {_litert_version()}", "fp32_reference_changes": changes, "photos": rows}


def _litert_version() -> str:
    from importlib.metadata import version

    return version("ai-edge-litert")


def write_goldens(
    module: nn.Module, out: Path, photo_path: Path, inp: dict[str, Any], meta_extra: dict[str, Any]
) -> dict[str, Any]:
    """input.npy (the photo preprocessed per the card), expected_<i>.npy (eager PyTorch), meta.json."""
    out.mkdir(parents=True, exist_ok=True)
    rgb = load_rgb(photo_path)
    x, geo = preprocess(rgb, inp)
    with torch.no_grad():
        ys = module(x)
    ys = ys if isinstance(ys, tuple) else (ys,)
    np.save(out / "input.npy", x.numpy())
    for i, y in enumerate(ys):
        np.save(out / f"expected_{i}.npy", y.numpy())
    meta = {
        "photo": photo_label(photo_path),
        "photo_hw": list(rgb.shape[:2]),
        "input": {
            "file": "input.npy",
            "shape": list(x.shape),
            "dtype": "float32",
            "preprocessing": {k: v for k, v in inp.items()},
        },
        "outputs": [
            {"file": f"expected_{i}.npy", "shape": list(y.shape), "dtype": "float32"} for i, y in enumerate(ys)
        ],
        "reference": "eager PyTorch fp32 on CPU of the module that was exported",
        "torch": torch.__version__,
    }
    meta.update(meta_extra)
    (out / "meta.json").write_text(json.dumps(meta, indent=1) + "\n")
    return {"x": x, "outputs": [y.numpy() for y in ys], "geo": geo, "meta": meta}


def fmt(v: float) -> str:
    return f"{v:.3g}"


def validation_table(report: dict[str, Any], output_names: Sequence[str]) -> list[str]:
    """Markdown table of the comparison: one row per photo and output."""
    has_file = any("tflite_file" in o for r in report["photos"] for o in r["outputs"])
    head = "| photo | output | shape | vs TFLite fp32 weights: max abs | rel L2 |"
    sep = "| --- | --- | --- | --- | --- |"
    if has_file:
        head += " vs TFLite on the file as shipped: max abs | rel L2 |"
        sep += " --- | --- |"
    lines = [head, sep]
    for r in report["photos"]:
        for o in r["outputs"]:
            a = o["tflite_fp32"]
            line = (
                f"| {r['photo']} | {output_names[o['output']]} | {o['shape']} | {fmt(a['max_abs'])} | "
                f"{fmt(a['rel_l2'])} |"
            )
            if has_file:
                b = o.get("tflite_file")
                line += f" {fmt(b['max_abs'])} | {fmt(b['rel_l2'])} |" if b else " - | - |"
            lines.append(line)
    return lines


def engine_check(wgx: Path, pte: Path, goldens: Path) -> dict[str, Any]:
    """Run our engine's `wgx run` on the golden input and compare with expected_0.npy."""
    import os
    import subprocess
    import tempfile

    from importers.tflite_validate import error_stats

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "output_0.npy"
        cmd = [str(wgx), "run", str(pte), "--input", str(goldens / "input.npy"), "--output", str(out)]
        env = dict(os.environ, XDG_RUNTIME_DIR=os.environ.get("XDG_RUNTIME_DIR", "/tmp"))
        r = subprocess.run(cmd, capture_output=True, text=True, env=env)
        if r.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed ({r.returncode}):\n{r.stdout}\n{r.stderr}")
        got = np.load(out)
    stats = error_stats(got, np.load(goldens / "expected_0.npy"))
    stats["command"] = "wgx run model.pte --input input.npy --output out.npy"
    stats["device"] = _adapter(r.stdout + r.stderr)
    return stats


def _adapter(log: str) -> str:
    """The adapter line wgx prints, if any (e.g. "llvmpipe (LLVM ...)")."""
    for line in log.splitlines():
        if line.lower().startswith("device:"):
            return line.strip()
    return "default adapter"


def engine_lines(engine: dict[str, Any] | None) -> list[str]:
    if not engine:
        return ["Not run by this export (pass --wgx PATH to record it)."]
    return [
        f"`{engine['command']}` (our engine, {engine.get('device', 'default adapter')}) against the eager "
        f"PyTorch golden expected_0.npy: max abs {fmt(engine['max_abs'])}, rel L2 {fmt(engine['rel_l2'])}."
    ]


def export_flow(
    *,
    name: str,
    module: nn.Module,
    card: dict[str, Any],
    out_dir: Path,
    goldens_dir: Path,
    golden_photo: Path,
    tflite_path: Path,
    tensor_ids: Sequence[int],
    photos: Sequence[Path],
    attribution,
    extra=None,
    golden_meta: dict[str, Any] | None = None,
    validate: bool = True,
    wgx: Path | None = None,
) -> dict[str, Any]:
    """The export every TFLite-sourced model does: model.pte (VulkanPartitioner, fully
    delegated) + card.json into out_dir, engine goldens into goldens_dir, the TFLite comparison
    on the photos, optionally our engine on the goldens, then ATTRIBUTION.md from
    attribution(info) with everything measured. The report is also kept as JSON in
    .cache/real-models/<name>/validation.json."""
    out_dir, goldens_dir = Path(out_dir), Path(goldens_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    inp = card["input"]
    torch.set_num_threads(max(1, min(4, torch.get_num_threads())))
    pte, pte_info = lower_to_pte(module, (torch.zeros(1, 3, inp["height"], inp["width"]),))
    (out_dir / "model.pte").write_bytes(pte)
    (out_dir / "card.json").write_text(json.dumps(card, indent=1) + "\n")
    meta = {
        "model": _rel(out_dir / "model.pte"),
        "model_sha256": pte_info["sha256"],
        "card": _rel(out_dir / "card.json"),
    }
    meta.update(golden_meta or {})
    goldens = write_goldens(module, goldens_dir, golden_photo, inp, meta)
    report = compare_with_tflite(tflite_path, module, tensor_ids, photos, inp, extra) if validate else None
    engine = engine_check(wgx, out_dir / "model.pte", goldens_dir) if wgx else None
    info = {
        "name": name,
        "pte": pte_info,
        "report": report,
        "goldens": goldens,
        "engine": engine,
        "out_dir": _rel(out_dir),
        "goldens_dir": _rel(goldens_dir),
    }
    (out_dir / "ATTRIBUTION.md").write_text("\n".join(attribution(info)) + "\n")
    cache = CACHE / name
    cache.mkdir(parents=True, exist_ok=True)
    (cache / "validation.json").write_text(
        json.dumps({k: v for k, v in info.items() if k != "goldens"} | {"golden_meta": goldens["meta"]}, indent=1)
        + "\n"
    )
    return info


def _rel(p: Path) -> str:
    p = Path(p).resolve()
    try:
        return str(p.relative_to(ROOT))
    except ValueError:
        return str(p)


def print_summary(info: dict[str, Any]) -> None:
    pte = info["pte"]
    print(
        f"{info['name']}: {info['out_dir']}/model.pte {pte['size']} B sha256 {pte['sha256'][:16]}..., "
        f"goldens in {info['goldens_dir']}/"
    )
    if info["report"]:
        for r in info["report"]["photos"]:
            for o in r["outputs"]:
                s = (
                    f"  {r['photo']:<40} out{o['output']} vs tflite_fp32 max_abs {fmt(o['tflite_fp32']['max_abs'])} "
                    f"rel_l2 {fmt(o['tflite_fp32']['rel_l2'])}"
                )
                if "tflite_file" in o:
                    s += (
                        f" | vs file max_abs {fmt(o['tflite_file']['max_abs'])} "
                        f"rel_l2 {fmt(o['tflite_file']['rel_l2'])}"
                    )
                print(s)
    if info["engine"]:
        print("  engine:", engine_lines(info["engine"])[0])
