#!/usr/bin/env python3
"""ONNX Runtime side of python/peers.py: time one .onnx model on one execution provider.

Runs in its own interpreter because `onnxruntime` and `onnxruntime-webgpu` install the same
module name and cannot share an environment (python/requirements-peers-ort-*.txt). Needs only
numpy and onnxruntime, no torch. peers.py starts it and reads the one JSON line it prints:

    python peers_ort.py --onnx model.onnx --input input_0.npy --provider cpu \
        --warmup 2 --iters 5 --out-dir DIR     # writes DIR/output_<i>.npy

The times are wall times of session.run() with numpy inputs and outputs (host memory in and
out, so upload and readback are inside for the WebGPU provider). Exit status 0 with "ok": false
when the provider cannot run the model; the reason is in "error".
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import traceback

import numpy as np

PROVIDERS = {"cpu": "CPUExecutionProvider", "webgpu": "WebGpuExecutionProvider"}


def distribution_name() -> str:
    """Which package provides the onnxruntime module (the CPU build or the WebGPU build)."""
    from importlib import metadata

    for dist in ("onnxruntime", "onnxruntime-webgpu"):
        try:
            return f"{dist} {metadata.version(dist)}"
        except metadata.PackageNotFoundError:
            continue
    return "unknown"


def make_session(ort, onnx_path: str, provider: str, threads: int, strict: bool):
    """strict: every node must run on the provider (no silent partial CPU fallback)."""
    so = ort.SessionOptions()
    so.log_severity_level = 3  # errors only: the JSON line is the output
    if threads > 0:
        so.intra_op_num_threads = threads
    if strict:
        so.add_session_config_entry("session.disable_cpu_ep_fallback", "1")
    return ort.InferenceSession(onnx_path, so, providers=[provider])


def run(args: argparse.Namespace) -> dict:
    try:
        import onnxruntime as ort
    except ImportError as e:
        return {
            "ok": False,
            "error": f"this interpreter ({sys.executable}, PYTHONPATH "
            f"{os.environ.get('PYTHONPATH', '')!r}) has no onnxruntime: {e}",
        }

    provider = PROVIDERS[args.provider]
    info = {
        "ort_version": ort.__version__,
        "ort_package": distribution_name(),
        "available_providers": ort.get_available_providers(),
        "provider": provider,
    }
    if provider not in info["available_providers"]:
        return {**info, "ok": False, "error": f"{provider} is not in this onnxruntime build"}

    t0 = time.perf_counter()
    sess = make_session(ort, args.onnx, provider, args.threads, strict=False)
    info["session_ms"] = (time.perf_counter() - t0) * 1e3
    info["session_providers"] = sess.get_providers()
    # ORT falls back to the CPU provider alone when the requested one fails to start (no
    # adapter, for instance); its reason goes to stderr, which peers.py keeps.
    if sess.get_providers()[0] != provider:
        return {
            **info,
            "ok": False,
            "see_stderr": True,
            "error": f"{provider} did not start; the session fell back to {sess.get_providers()}",
        }
    if provider != PROVIDERS["cpu"]:
        # A provider may leave some nodes to the CPU; a second session that forbids it tells.
        try:
            make_session(ort, args.onnx, provider, args.threads, strict=True)
            info["all_nodes_on_provider"] = True
        except Exception as e:
            info["all_nodes_on_provider"] = False
            info["strict_error"] = first_line(e)
    info["intra_op_threads"] = sess.get_session_options().intra_op_num_threads

    feeds = {i.name: np.load(p) for i, p in zip(sess.get_inputs(), args.input)}
    for _ in range(args.warmup):
        outs = sess.run(None, feeds)
    times = []
    for _ in range(args.iters):
        t = time.perf_counter()
        outs = sess.run(None, feeds)
        times.append((time.perf_counter() - t) * 1e3)
    os.makedirs(args.out_dir, exist_ok=True)
    files = []
    for k, o in enumerate(outs):
        files.append(os.path.join(args.out_dir, f"output_{k}.npy"))
        np.save(files[-1], np.asarray(o))
    return {**info, "ok": True, "times_ms": times, "outputs": files}


def first_line(e: BaseException) -> str:
    text = str(e).strip()
    return (text.splitlines()[0] if text else type(e).__name__)[:400]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--onnx", required=True)
    ap.add_argument("--input", action="append", required=True, help=".npy input (repeatable, in order)")
    ap.add_argument("--provider", choices=sorted(PROVIDERS), required=True)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--iters", type=int, default=10)
    ap.add_argument("--threads", type=int, default=0, help="intra-op threads (0: ORT's default)")
    ap.add_argument("--out-dir", required=True)
    args = ap.parse_args()
    try:
        result = run(args)
    except Exception as e:
        traceback.print_exc(file=sys.stderr)
        result = {"ok": False, "error": f"{type(e).__name__}: {first_line(e)}"}
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
