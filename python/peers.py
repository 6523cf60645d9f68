#!/usr/bin/env python3
"""Peers benchmark (issue 6): the full-size models on other runtimes, side by side with wgx.

For each model of the full-size set (python/export_models.py --full, in .cache/models), on the
same seeded input (the model's input_0.npy):

  wgx               `wgx bench <vulkan.pte> --json` (GPU-resident and end-to-end latency) and
                    `wgx run` for the outputs
  torch_cpu         PyTorch eager on the CPU: the nn.Module export_models.py builds
  xnnpack           ExecuTorch's runtime with the XNNPACK delegate (CPU), the same module
                    exported with XnnpackPartitioner
  ort_cpu           ONNX Runtime, CPU provider (package `onnxruntime`)
  ort_webgpu        ONNX Runtime, WebGPU provider (package `onnxruntime-webgpu`), same .onnx
  torch_cuda        PyTorch eager on CUDA, inputs and outputs on the GPU   (only with CUDA)
  torch_cuda_graph  the same replayed as a CUDA graph                      (only with CUDA)

Each peer: warm-up runs, N timed runs, median / p90 / min wall ms, and its outputs compared
with PyTorch eager fp32 (relative L2; above max(1e-4, 4 x PyTorch's own fp32-vs-fp64 error)
they are flagged, never hidden). A peer that cannot run a model is recorded with the reason.

The two ONNX Runtime packages install the same module, so each runs in its own interpreter
(python/peers_ort.py, numpy + onnxruntime only). Set them up once:

    python3 -m venv .cache/venv-ort-cpu
    .cache/venv-ort-cpu/bin/pip install -r python/requirements-peers-ort-cpu.txt
    python3 -m venv .cache/venv-ort-webgpu
    .cache/venv-ort-webgpu/bin/pip install -r python/requirements-peers-ort-webgpu.txt
    python/.venv/bin/pip install -r python/requirements-peers-export.txt     # torch.onnx.export needs onnx

Run (lavapipe needs XDG_RUNTIME_DIR):

    XDG_RUNTIME_DIR=/tmp python/.venv/bin/python python/peers.py --only resnet18 --iters 5
    python/.venv/bin/python python/peers.py --peers wgx,ort_cpu --iters 20 \
        --json-out docs/perf-runs/DATE-MACHINE-peers.json --md-out docs/perf-runs/DATE-MACHINE-peers.md

Exports (model.onnx, xnnpack.pte), inputs, references, outputs and one result.<peer>.json per
model and peer go to --work (default .cache/peers/<model>/). The report (JSON + a markdown
table for docs/PERFORMANCE.md) is built from every result file there for the models asked, so
calls that each run some of the peers add up (scripts/device-peers.sh does that on the GPU
machine); start a new --work folder (or pass --fresh) for a new measurement.
"""

from __future__ import annotations

import argparse
import glob
import json
import logging
import os
import sys
import time
import traceback

import numpy as np
import torch

import export as fixtures  # error_stats: the project's error measure
import export_models  # the model builders and seeded inputs of the exported set
import peers_report as report
from peers_runners import RUNNERS, PeerUnavailable, as_numpy, describe

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

CPU_PEERS = ["wgx", "torch_cpu", "xnnpack", "ort_cpu", "ort_webgpu"]
CUDA_PEERS = ["torch_cuda", "torch_cuda_graph"]


def numbered(prefix: str) -> list[str]:
    """prefix_0.npy, prefix_1.npy, ... as long as they exist, in index order."""
    files = []
    while os.path.isfile(f"{prefix}_{len(files)}.npy"):
        files.append(f"{prefix}_{len(files)}.npy")
    return files


class ModelCase:
    """One model: its exported folder, its work folder, its input, and its module on demand."""

    def __init__(self, name: str, models_root: str, work_root: str, fresh: bool):
        self.name = name
        self.spec = export_models.SPEC_BY_NAME[name]
        self.model_dir = os.path.join(models_root, name)
        self.work = os.path.join(work_root, name)
        if fresh:  # earlier results and every derived file: exports, reference, outputs
            for pattern in ("result.*.json", "model.onnx*", "xnnpack.pte", "reference_*.npy"):
                for f in glob.glob(os.path.join(self.work, pattern)):
                    os.remove(f)
        os.makedirs(self.work, exist_ok=True)
        self.meta = self._read_meta()
        self.inputs = self._load_inputs()
        self.input_files = []
        for i, a in enumerate(self.inputs):
            self.input_files.append(os.path.join(self.work, f"input_{i}.npy"))
            np.save(self.input_files[-1], a)
        self._module = None
        self._reference: list[np.ndarray] | None = None
        # Made here, outside any no_grad/inference_mode block, so that every runner can use them.
        self._torch_inputs = [torch.from_numpy(a.copy()) for a in self.inputs]

    def _read_meta(self) -> dict | None:
        path = os.path.join(self.model_dir, "meta.json")
        if not os.path.isfile(path):
            return None
        with open(path) as f:
            return json.load(f)

    def _load_inputs(self) -> list[np.ndarray]:
        """The exported model's own input when there is one (wgx's program was checked on it)."""
        path = os.path.join(self.model_dir, "input_0.npy")
        if os.path.isfile(path):
            return [np.load(path)]
        return [t.numpy() for t in export_models.make_inputs(self.spec, True)]

    def module(self) -> torch.nn.Module:
        if self._module is None:
            t = time.perf_counter()
            self._module, _ = export_models.build_model(self.spec, True)
            print(f"    module built in {time.perf_counter() - t:.1f} s", flush=True)
        return self._module

    def torch_inputs(self) -> list[torch.Tensor]:
        return self._torch_inputs

    def num_outputs(self) -> int:
        return len(self.reference())

    def reference(self) -> list[np.ndarray]:
        """PyTorch eager fp32 outputs on the input, computed once and kept in the work folder
        (a later call that runs only other peers reuses them without building the module)."""
        if self._reference is None:
            files = numbered(os.path.join(self.work, "reference"))
            if files:
                self._reference = [np.load(f) for f in files]
            else:
                with torch.no_grad():
                    self._reference = as_numpy(self.module()(*self.torch_inputs()))
                for i, o in enumerate(self._reference):
                    np.save(os.path.join(self.work, f"reference_{i}.npy"), o)
        return self._reference

    def limits(self) -> list[float]:
        """Per output: max(1e-4, 4 x PyTorch's fp32-vs-fp64 error), the model tests' limit."""
        errs = (self.meta or {}).get("torch_fp32_vs_fp64") or []
        return [max(1e-4, 4 * errs[i]["rel_l2"]) if i < len(errs) else 1e-4 for i in range(self.num_outputs())]


def check(outputs: list[np.ndarray], case: ModelCase) -> dict:
    ref = case.reference()
    if len(outputs) != len(ref):
        return {"rel_l2": float("inf"), "flagged": True, "problem": f"{len(outputs)} outputs, PyTorch gives {len(ref)}"}
    per, flagged, problems = [], False, []
    for i, (o, r, lim) in enumerate(zip(outputs, ref, case.limits())):
        if o.shape != r.shape:
            problems.append(f"output {i} shape {list(o.shape)}, PyTorch {list(r.shape)}")
            per.append({"rel_l2": float("inf"), "limit": lim})
            flagged = True
            continue
        e = fixtures.error_stats(o, r)
        e["limit"] = lim
        flagged |= not (e["rel_l2"] <= lim)  # NaN counts as flagged
        per.append(e)
    out = {"rel_l2": max(p["rel_l2"] for p in per), "flagged": flagged, "per_output": per}
    if problems:
        out["problem"] = "; ".join(problems)
    return out


def golden_check(case: ModelCase) -> dict | None:
    """The rebuilt module against the exporter's saved golden: if they differ, the module is
    not the one in vulkan.pte (another torch, another builder) and wgx's error means little."""
    files = numbered(os.path.join(case.model_dir, "expected"))
    if not files:
        return None
    return check([np.load(f) for f in files], case)


def measure(peer: str, case: ModelCase, opts) -> dict:
    rec = {
        "peer": peer,
        "model": case.name,
        "loadavg_before": report.loadavg(),
        "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "warmup": opts.warmup,
        "iters": opts.iters,
        "threads": opts.threads,
        "command": opts.command,
    }
    t = time.perf_counter()
    others = report.OtherLoad()
    try:
        m = RUNNERS[peer](case, opts)
        rec.update(ok=True, latency=m.latency, info=m.info, versions=m.versions, check=check(m.outputs, case))
    except PeerUnavailable as e:
        rec.update(ok=False, reason=f"{peer} on {case.name}: {e}")
    except Exception as e:  # a failing peer is a result too; the next one still runs
        traceback.print_exc()
        rec.update(ok=False, reason=f"{peer} on {case.name}: {describe(e)}")
    rec["wall_s"] = round(time.perf_counter() - t, 1)
    rec["other_cpu_cores"] = others.cores()
    print_record(rec)
    with open(os.path.join(case.work, f"result.{peer}.json"), "w") as f:
        json.dump(rec, f, indent=1)
    return rec


def print_record(rec: dict) -> None:
    if not rec["ok"]:
        print(f"  {rec['peer']:17s} not measured: {rec['reason']}", flush=True)
        return
    parts = [
        f"{k} median {v['median_ms']:.3f} p90 {v['p90_ms']:.3f} min {v['min_ms']:.3f} ms"
        for k, v in rec["latency"].items()
    ]
    c = rec["check"]
    flag = "  LARGE ERROR" if c["flagged"] else ""
    print(
        f"  {rec['peer']:17s} {'; '.join(parts)}; rel L2 {c['rel_l2']:.2e}{flag} ({rec['wall_s']} s, "
        f"other processes {rec['other_cpu_cores']} cores)",
        flush=True,
    )


def run_model(name: str, opts) -> None:
    case = ModelCase(name, opts.models, opts.work, opts.fresh)
    info = {
        "name": name,
        "loadavg_before": report.loadavg(),
        "input_shapes": [list(a.shape) for a in case.inputs],
        "input_from": "exported input_0.npy" if case.meta else "export_models.make_inputs",
    }
    print(f"[peers] {name} {info['input_shapes']}, load average {info['loadavg_before']}", flush=True)
    try:
        info["reference_vs_exported_golden"] = golden_check(case)
    except Exception as e:
        traceback.print_exc()
        info["reference_error"] = describe(e)
    if (info.get("reference_vs_exported_golden") or {}).get("flagged"):
        print(
            "  WARNING: the rebuilt module does not reproduce the exported golden "
            f"({info['reference_vs_exported_golden']})",
            flush=True,
        )
    with open(os.path.join(case.work, "model.json"), "w") as f:
        json.dump(info, f, indent=1)
    if "reference_error" in info:
        print(f"  skipped: no PyTorch reference ({info['reference_error']})", flush=True)
        return
    for peer in opts.peers:
        measure(peer, case, opts)


def load_model_results(name: str, work: str) -> dict | None:
    d = os.path.join(work, name)
    if not os.path.isfile(os.path.join(d, "model.json")):
        return None
    with open(os.path.join(d, "model.json")) as f:
        m = json.load(f)
    m["peers"] = {}
    for path in sorted(glob.glob(os.path.join(d, "result.*.json"))):
        with open(path) as f:
            rec = json.load(f)
        m["peers"][rec["peer"]] = rec
    return m


def model_names(opts) -> list[str]:
    if opts.only:
        return opts.only
    present = [s.name for s in export_models.SPECS if os.path.isdir(os.path.join(opts.models, s.name))]
    return present or [s.name for s in export_models.SPECS]


def parse_args(argv=None):
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="NAME",
        help="model (repeatable; default: every model in --models)",
    )
    ap.add_argument(
        "--peers",
        default=None,
        help=f"comma-separated, in run order (default {','.join(CPU_PEERS)}, "
        f"plus {','.join(CUDA_PEERS)} when CUDA is available)",
    )
    ap.add_argument("--iters", type=int, default=10, help="timed runs per peer (default 10)")
    ap.add_argument("--warmup", type=int, default=2, help="untimed runs first (default 2)")
    ap.add_argument(
        "--threads",
        type=int,
        default=0,
        help="CPU threads for torch, ONNX Runtime and ExecuTorch (default 0: each one's own default)",
    )
    ap.add_argument("--models", default=os.path.join(ROOT, ".cache", "models"), help="full-size exports")
    ap.add_argument("--work", default=os.path.join(ROOT, ".cache", "peers"), help="exports, outputs, results")
    ap.add_argument("--fresh", action="store_true", help="re-export ONNX / XNNPACK and drop earlier results")
    ap.add_argument("--wgx", default=os.path.join(ROOT, "build", "wgx"), help="the wgx binary (default build/wgx)")
    ap.add_argument("--wgx-adapter", default=None, help="passed to wgx --adapter")
    ap.add_argument("--ort-cpu-python", default=os.path.join(ROOT, ".cache", "venv-ort-cpu", "bin", "python"))
    ap.add_argument("--ort-cpu-site", default=None, help="PYTHONPATH for that interpreter (carried wheels)")
    ap.add_argument("--ort-webgpu-python", default=os.path.join(ROOT, ".cache", "venv-ort-webgpu", "bin", "python"))
    ap.add_argument("--ort-webgpu-site", default=None, help="PYTHONPATH for that interpreter (carried wheels)")
    ap.add_argument("--timeout", type=int, default=1800, help="seconds for each wgx / ONNX Runtime subprocess")
    ap.add_argument("--commit", default=None, help="commit to record (default: git HEAD, for copies without .git)")
    ap.add_argument(
        "--report-only",
        action="store_true",
        help="measure nothing: write the report from the results already in --work",
    )
    ap.add_argument("--json-out", default=None, help="report JSON (default <work>/peers.json)")
    ap.add_argument("--md-out", default=None, help="report markdown table (default <work>/peers.md)")
    opts = ap.parse_args(argv)
    opts.peers = opts.peers.split(",") if opts.peers else CPU_PEERS + (CUDA_PEERS if torch.cuda.is_available() else [])
    unknown = [p for p in opts.peers if p not in RUNNERS] + [
        n for n in opts.only if n not in export_models.SPEC_BY_NAME
    ]
    if unknown:
        ap.error(
            f"unknown peer(s) or model(s): {unknown}; peers: {sorted(RUNNERS)}; "
            f"models: {sorted(export_models.SPEC_BY_NAME)}"
        )
    if opts.iters < 1 or opts.warmup < 0:
        ap.error("--iters must be at least 1 and --warmup at least 0")
    opts.command = " ".join(["python/peers.py"] + list(argv if argv is not None else sys.argv[1:]))
    opts.json_out = opts.json_out or os.path.join(opts.work, "peers.json")
    opts.md_out = opts.md_out or os.path.join(opts.work, "peers.md")
    return opts


def machine_of_run(opts) -> dict:
    """This machine, recorded in --work; a --report-only run reads the one recorded there."""
    path = os.path.join(opts.work, "machine.json")
    if opts.report_only and os.path.isfile(path):
        with open(path) as f:
            return json.load(f)
    machine = report.machine_info(ROOT, opts.commit)
    if not opts.report_only:
        os.makedirs(opts.work, exist_ok=True)
        with open(path, "w") as f:
            json.dump(machine, f, indent=1)
    return machine


def main(argv=None) -> int:
    opts = parse_args(argv)
    logging.getLogger().setLevel(logging.WARNING)  # the ONNX exporter logs every pass at INFO
    machine = machine_of_run(opts)
    if opts.threads > 0:  # ONNX Runtime and ExecuTorch take it per session / threadpool
        torch.set_num_threads(opts.threads)
    names = model_names(opts)
    if not opts.report_only:
        print(
            f"[peers] {machine['cpu']} x{machine['cpu_count']}, commit {machine['commit']}; peers {opts.peers}; "
            f"{opts.warmup} warm-up + {opts.iters} timed runs",
            flush=True,
        )
        for name in names:
            run_model(name, opts)
    models = [m for m in (load_model_results(n, opts.work) for n in names) if m]
    wgx_adapters = {r["info"]["adapter"] for m in models for p, r in m["peers"].items() if p == "wgx" and r["ok"]}
    records = [r for m in models for r in m["peers"].values()]
    rep = {
        "machine": machine,
        "commands": sorted({r.get("command", "python/peers.py") for r in records}),
        "warmup": sorted({r["warmup"] for r in records}),
        "iters": sorted({r["iters"] for r in records}),
        "threads": sorted({r.get("threads") or "each runtime's default" for r in records}, key=str),
        "wgx_adapter": ", ".join(sorted(wgx_adapters)) or "n/a",
        "models": models,
    }
    report.write_report(rep, opts.json_out, opts.md_out)
    print(f"[peers] wrote {opts.json_out} and {opts.md_out}")
    print(report.markdown(rep))
    return 0


if __name__ == "__main__":
    sys.exit(main())
