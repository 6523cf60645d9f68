"""The peers of python/peers.py: each times one model on one runtime and returns its outputs.

A runner is `run(case, opts) -> Measured`; it raises PeerUnavailable (or any exception) when
it cannot run the model, and peers.py records the reason and goes on. Exports (ONNX, the
XNNPACK .pte) are made once per model into the case's work folder and reused (peers.py --fresh
deletes them first).
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import re
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import torch

from peers_report import stats

HERE = os.path.dirname(os.path.abspath(__file__))


class PeerUnavailable(Exception):
    """The peer cannot run this model here (missing package, device, export failure...)."""


def describe(e: BaseException) -> str:
    """An exception as one short line: its type and the first line of its message."""
    text = str(e).strip()
    return f"{type(e).__name__}: {text.splitlines()[0][:300]}" if text else type(e).__name__


@dataclass
class Measured:
    latency: dict[str, dict]  # "end_to_end" and/or "gpu_resident" -> stats()
    outputs: list[np.ndarray]
    info: dict = field(default_factory=dict)
    versions: dict[str, str] = field(default_factory=dict)


def time_calls(fn: Callable, warmup: int, iters: int, sync: Callable = lambda: None):
    """Wall ms of each of `iters` calls after `warmup` untimed ones; returns (times, last result)."""
    for _ in range(warmup):
        out = fn()
    sync()
    times = []
    for _ in range(iters):
        t = time.perf_counter()
        out = fn()
        sync()
        times.append((time.perf_counter() - t) * 1e3)
    return times, out


def as_numpy(out) -> list[np.ndarray]:
    outs = out if isinstance(out, (tuple, list)) else [out]
    return [o.detach().cpu().numpy().copy() for o in outs]


def torch_versions() -> dict[str, str]:
    import torchvision

    return {"torch": torch.__version__, "torchvision": torchvision.__version__, "numpy": np.__version__}


def file_sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


# ---------------------------------------------------------------------------
# PyTorch eager (CPU, CUDA) and CUDA graphs
# ---------------------------------------------------------------------------


def run_torch_cpu(case, opts) -> Measured:
    model = case.module()
    xs = case.torch_inputs()
    with torch.inference_mode():
        times, out = time_calls(lambda: model(*xs), opts.warmup, opts.iters)
    return Measured({"end_to_end": stats(times)}, as_numpy(out), {"threads": torch.get_num_threads()}, torch_versions())


def cuda_model(case):
    if not torch.cuda.is_available():
        raise PeerUnavailable("no CUDA device for PyTorch")
    # Plain fp32, like every other peer: by default PyTorch lets cuDNN convolutions run in
    # TF32 (a 10-bit mantissa), which put its outputs 1e-3 to 1e-2 (relative L2) away from the
    # fp32 eager CPU reference on the H200.
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    model = copy.deepcopy(case.module()).cuda()
    return model, [x.cuda() for x in case.torch_inputs()]


def run_torch_cuda(case, opts) -> Measured:
    """Inputs already on the GPU, outputs left there: GPU-resident, as the anchors of issue 6."""
    model, xs = cuda_model(case)
    with torch.inference_mode():
        times, out = time_calls(lambda: model(*xs), opts.warmup, opts.iters, torch.cuda.synchronize)
    return Measured(
        {"gpu_resident": stats(times)},
        as_numpy(out),
        {"device": torch.cuda.get_device_name(), "tf32": False},
        torch_versions(),
    )


def run_torch_cuda_graph(case, opts) -> Measured:
    model, xs = cuda_model(case)
    with torch.no_grad():
        # Warm up on a side stream before capture, as CUDA graph capture requires.
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(3):
                model(*xs)
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            out = model(*xs)
        times, _ = time_calls(graph.replay, opts.warmup, opts.iters, torch.cuda.synchronize)
    return Measured(
        {"gpu_resident": stats(times)},
        as_numpy(out),
        {"device": torch.cuda.get_device_name(), "tf32": False},
        torch_versions(),
    )


# ---------------------------------------------------------------------------
# ExecuTorch runtime with the XNNPACK delegate
# ---------------------------------------------------------------------------


def export_xnnpack(case, path: str) -> None:
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import to_edge_transform_and_lower

    ep = torch.export.export(case.module(), tuple(case.torch_inputs()), strict=False)
    program = to_edge_transform_and_lower(ep, partitioner=[XnnpackPartitioner()]).to_executorch()
    with open(path + ".tmp", "wb") as f:
        f.write(program.buffer)
    os.replace(path + ".tmp", path)  # a killed export leaves no half file to reuse


def run_xnnpack(case, opts) -> Measured:
    try:
        from executorch.extension.pybindings import portable_lib
        from executorch.runtime import Runtime
        from executorch.version import __version__ as et_version
    except ImportError as e:
        raise PeerUnavailable(f"executorch is not importable: {e}") from e
    import inspect_pte

    path = os.path.join(case.work, "xnnpack.pte")
    if not os.path.isfile(path):
        t = time.perf_counter()
        export_xnnpack(case, path)
        print(f"    xnnpack.pte exported in {time.perf_counter() - t:.1f} s", flush=True)
    with open(path, "rb") as f:
        summary = inspect_pte.summarize(f.read())
    if opts.threads > 0:
        portable_lib._unsafe_reset_threadpool(opts.threads)
    method = Runtime.get().load_program(path).load_method("forward")
    xs = case.torch_inputs()
    times, out = time_calls(lambda: method.execute(xs), opts.warmup, opts.iters)
    info = {
        "pte_bytes": os.path.getsize(path),
        "threads": portable_lib._threadpool_get_thread_count(),
        # ops XNNPACK did not take run on ExecuTorch's portable CPU kernels
        "kernel_calls_outside_xnnpack": inspect_pte.kernel_op_names(summary),
    }
    return Measured({"end_to_end": stats(times)}, as_numpy(out), info, {**torch_versions(), "executorch": et_version})


# ---------------------------------------------------------------------------
# ONNX Runtime (CPU and WebGPU providers), each in its own interpreter
# ---------------------------------------------------------------------------


def export_onnx(case, path: str) -> dict:
    """torch.export-based exporter first; the TorchScript one if it fails (recorded)."""
    errors = {}
    for exporter, kw in (
        ("dynamo", dict(dynamo=True, external_data=False, optimize=True)),
        ("torchscript", dict(dynamo=False)),
    ):
        try:
            torch.onnx.export(
                case.module(), tuple(case.torch_inputs()), path + ".tmp", opset_version=18, verbose=False, **kw
            )
            os.replace(path + ".tmp", path)
            return {"exporter": exporter, "opset": 18, "failed_exporters": errors, "torch": torch.__version__}
        except Exception as e:
            errors[exporter] = describe(e)
    raise PeerUnavailable(f"ONNX export failed: {errors}")


def ensure_onnx(case, opts) -> dict:
    path = os.path.join(case.work, "model.onnx")
    meta_path = path + ".json"
    if not (os.path.isfile(path) and os.path.isfile(meta_path)):
        t = time.perf_counter()
        meta = export_onnx(case, path)
        meta["export_s"] = round(time.perf_counter() - t, 1)
        meta["bytes"] = os.path.getsize(path)
        meta["sha256"] = file_sha256(path)
        with open(meta_path, "w") as f:
            json.dump(meta, f, indent=1)
        print(f"    model.onnx exported ({meta['exporter']}) in {meta['export_s']} s", flush=True)
    with open(meta_path) as f:
        return {"path": path, **json.load(f)}


ANSI = re.compile(r"\x1b\[[0-9;]*m")


def stderr_reason(stderr: str, lines: int = 4) -> str:
    """The informative lines of a child's stderr (adapter and driver errors, the exception), as
    one line; long C++ messages keep their end, where the reason is."""
    text = [ANSI.sub("", s).strip() for s in stderr.splitlines()]
    text = [s for s in text if s and not s.startswith("*****")]
    keys = ("error", "adapter", "warning", "required", "failed")
    useful = [s for s in text if any(k in s.lower() for k in keys)] or text
    useful = list(dict.fromkeys(s if len(s) <= 200 else "..." + s[-200:] for s in useful))
    return " | ".join(useful[-lines:])


def child_env(site: str | None) -> dict[str, str]:
    env = dict(os.environ)
    # The ORT interpreter must not see the torch side's packages (its own onnxruntime only).
    env.pop("PYTHONPATH", None)
    if site:
        env["PYTHONPATH"] = site
    env.setdefault("XDG_RUNTIME_DIR", "/tmp")  # wgpu and Dawn want it, headless
    return env


def run_ort(case, opts, provider: str, python: str, site: str | None) -> Measured:
    # The export first: a call that lacks ONNX Runtime still leaves model.onnx for a later one.
    onnx = ensure_onnx(case, opts)
    if not python or not (os.path.isfile(python) or "/" not in python):
        raise PeerUnavailable(
            f"no interpreter for ONNX Runtime {provider} (looked for {python}); see python/requirements-peers-ort-*.txt"
        )
    out_dir = os.path.join(case.work, f"out.ort_{provider}")
    cmd = [
        python,
        os.path.join(HERE, "peers_ort.py"),
        "--onnx",
        onnx["path"],
        "--provider",
        provider,
        "--warmup",
        str(opts.warmup),
        "--iters",
        str(opts.iters),
        "--threads",
        str(opts.threads),
        "--out-dir",
        out_dir,
    ]
    for f in case.input_files:
        cmd += ["--input", f]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=opts.timeout, env=child_env(site))
    lines = [s for s in p.stdout.splitlines() if s.startswith("{")]
    if p.returncode != 0 or not lines:
        raise PeerUnavailable(f"peers_ort.py exited {p.returncode}: {stderr_reason(p.stderr)}")
    r = json.loads(lines[-1])
    if not r.get("ok"):
        detail = stderr_reason(p.stderr) if r.get("see_stderr") else ""
        package = f" [{r['ort_package']}]" if "ort_package" in r else ""
        raise PeerUnavailable(r.get("error", "failed") + package + (f" (stderr: {detail})" if detail else ""))
    outs = [np.load(f) for f in r.pop("outputs")]
    times = r.pop("times_ms")
    package, _, version = r["ort_package"].partition(" ")  # which build ran, e.g. onnxruntime-webgpu
    versions = {package: version or r["ort_version"]}
    info = {**r, "onnx": {k: v for k, v in onnx.items() if k != "path"}}
    return Measured({"end_to_end": stats(times)}, outs, info, versions)


def run_ort_cpu(case, opts) -> Measured:
    return run_ort(case, opts, "cpu", opts.ort_cpu_python, opts.ort_cpu_site)


def run_ort_webgpu(case, opts) -> Measured:
    return run_ort(case, opts, "webgpu", opts.ort_webgpu_python, opts.ort_webgpu_site)


# ---------------------------------------------------------------------------
# Our engine: wgx bench (timing) and wgx run (outputs on the same input)
# ---------------------------------------------------------------------------


def wgx_cmd(opts, *args: str) -> list[str]:
    return [opts.wgx] + (["--adapter", opts.wgx_adapter] if opts.wgx_adapter else []) + list(args)


def run_wgx(case, opts) -> Measured:
    pte = os.path.join(case.model_dir, "vulkan.pte")
    if not os.path.isfile(pte):
        raise PeerUnavailable(f"no {pte} (python/export_models.py --full makes it)")
    if not os.path.isfile(opts.wgx):
        raise PeerUnavailable(f"no wgx binary at {opts.wgx}")
    env = dict(os.environ)
    env.setdefault("XDG_RUNTIME_DIR", "/tmp")
    bench = subprocess.run(
        wgx_cmd(opts, "bench", pte, "--iters", str(opts.iters), "--warmup", str(opts.warmup), "--json"),
        capture_output=True,
        text=True,
        timeout=opts.timeout,
        env=env,
    )
    if bench.returncode != 0:
        raise PeerUnavailable(f"wgx bench exited {bench.returncode}: {stderr_reason(bench.stderr + bench.stdout)}")
    b = json.loads([s for s in bench.stdout.splitlines() if s.startswith("{")][-1])
    out_dir = os.path.join(case.work, "out.wgx")
    os.makedirs(out_dir, exist_ok=True)
    out_files = [os.path.join(out_dir, f"output_{i}.npy") for i in range(case.num_outputs())]
    cmd = wgx_cmd(opts, "run", pte)
    for f in case.input_files:
        cmd += ["-i", f]
    for f in out_files:
        cmd += ["-o", f]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=opts.timeout, env=env)
    if run.returncode != 0:
        raise PeerUnavailable(f"wgx run exited {run.returncode}: {stderr_reason(run.stderr + run.stdout)}")
    latency = {k: {**b[k], "runs": b["iters"]} for k in ("gpu_resident", "end_to_end")}
    info = {
        "adapter": b["adapter"],
        "backend": b["backend"],
        "load_ms": b["load_ms"],
        "prepare_ms": b["prepare_ms"],
        "encode": b["encode"],
        "pte": os.path.relpath(pte),
        # which build ran: build/ may be rebuilt between runs
        "binary": {
            "path": os.path.relpath(opts.wgx),
            "sha256": file_sha256(opts.wgx),
            "mtime": time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(os.path.getmtime(opts.wgx))),
        },
        "note": "wgx bench times its own seeded random input; the outputs come from wgx run on input_0.npy",
    }
    return Measured(latency, [np.load(f) for f in out_files], info, {"wgx": wgx_version(opts)})


def wgx_version(opts) -> str:
    p = subprocess.run([opts.wgx, "--version"], capture_output=True, text=True, timeout=60)
    text = " ".join(p.stdout.split())
    return text[len("wgx ") :] if text.startswith("wgx ") else text or "unknown"


RUNNERS = {
    "wgx": run_wgx,
    "torch_cpu": run_torch_cpu,
    "xnnpack": run_xnnpack,
    "ort_cpu": run_ort_cpu,
    "ort_webgpu": run_ort_webgpu,
    "torch_cuda": run_torch_cuda,
    "torch_cuda_graph": run_torch_cuda_graph,
}
