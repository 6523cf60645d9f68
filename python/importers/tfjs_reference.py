"""The TensorFlow.js side of the tfjs importer's checks: running an original graph model with
npm @tensorflow/tfjs (tfjs_run.js, beside this file) and comparing an output with it.

Used by test_tfjs_graph.py (synthetic graphs) and python/real_models/validate_tfjs.py (the real
models on photos). Needs `npm ci --prefix python` for the node side.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import numpy as np

PYTHON_DIR = Path(__file__).resolve().parent.parent
TFJS_RUN = Path(__file__).with_name("tfjs_run.js")


def compare(a: np.ndarray, ref: np.ndarray) -> dict[str, Any]:
    if a.shape != ref.shape:
        raise ValueError(f"shape {a.shape} vs reference {ref.shape}")
    a64, r64 = a.astype(np.float64), ref.astype(np.float64)
    norm = np.linalg.norm(r64)
    return {
        "shape": list(ref.shape),
        "max_abs": float(np.abs(a64 - r64).max()),
        "rel_l2": float(np.linalg.norm(a64 - r64) / norm) if norm > 0 else float(np.linalg.norm(a64)),
        "ref_max_abs": float(np.abs(r64).max()),
    }


def run_tfjs(model_json: Path, runs: list[dict[str, Any]], work: Path) -> str:
    """Run tfjs_run.js on a job; returns its log. runs: [{"inputs": {...}, "outputs": {...}}]."""
    if not (PYTHON_DIR / "node_modules" / "@tensorflow" / "tfjs").exists():
        raise FileNotFoundError("npm deps missing: run `npm ci --prefix python` from the repository root")
    job = work / "job.json"
    job.write_text(json.dumps({"model": str(model_json), "runs": runs}))
    proc = subprocess.run(
        ["node", str(TFJS_RUN), str(job)],
        capture_output=True,
        text=True,
        env={**os.environ, "NODE_PATH": str(PYTHON_DIR / "node_modules")},
    )
    if proc.returncode != 0:
        raise RuntimeError(f"tfjs_run.js failed:\n{proc.stdout}\n{proc.stderr}")
    return "\n".join(line for line in proc.stdout.splitlines() if line.startswith("[tfjs_run]"))


def tfjs_version() -> str:
    pkg = PYTHON_DIR / "node_modules" / "@tensorflow" / "tfjs" / "package.json"
    return json.loads(pkg.read_text())["version"]
