#!/usr/bin/env python3
"""Export one single-op fixture per registered op variant into tests/ops/.

Regenerate everything (from the repository root):

    python/.venv/bin/python python/export_ops.py --out tests/ops
    python/.venv/bin/python python/export_ops.py --out tests/ops --only convolution   # dirs matching
    python/.venv/bin/python python/export_ops.py --list                               # the cases

The registered op names come from the C++ sources (python/list_ops.py); the cases
(tiny modules, one op each, every argument variant that matters) from
python/op_cases.py. For every case this writes tests/ops/<op>__<case>/:

    vulkan.pte          lowered with VulkanPartitioner
    plain.pte           same model, no partitioner: CPU KernelCalls only
    input_<i>.npy       inputs (random normal unless the op's domain needs otherwise)
    expected_<i>.npy    eager PyTorch output, CPU, float32
    expected64_<i>.npy  same model (weights cast) on float64 inputs
    meta.json           op, case, where the op was found, VkGraph chain with arguments,
                        plain kernels, delegation status, PyTorch's fp32-vs-fp64 error,
                        ExecuTorch's own CPU run of plain.pte against expected_*

and tests/ops/index.json: every registered op name -> its case directories, plus the
registered names without a case and why. The script checks every case really contains
its op (VkGraph chain of vulkan.pte, or a plain.pte KernelCall the engine reads as that
op) and fails (exit 1) otherwise, or when a registered name has neither a case nor a
reason in op_cases.NOT_PRODUCIBLE.

Deterministic: per-case seed (CRC-32 of the directory name), one torch thread,
executorch's deterministic serializer; --jobs only changes the order of the progress
lines, never the files.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import copy
import fnmatch
import hashlib
import json
import logging
import multiprocessing
import os
import shutil
import sys
import time
import warnings
import zlib
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

import inspect_pte
import list_ops
import op_cases
from op_cases import Case, Inp

SCRIPT = "python/export_ops.py"


# ---------------------------------------------------------------------------
# Environment
# ---------------------------------------------------------------------------

_initialised = False


def _init() -> None:
    """Quiet logs, one thread, and a cache for the Vulkan backend's pattern graphs.

    VulkanPartitioner re-traces every fusion pattern (rope, rms_norm, sdpa, quantized
    ops, ...) with torch.export on each call, about 10 s of a 13 s lowering. The graphs
    are only matched against, never modified, so they are built once per process; the
    output is byte-identical with and without the cache.
    """
    global _initialised
    if _initialised:
        return
    _initialised = True
    logging.getLogger().setLevel(logging.WARNING)
    warnings.filterwarnings("ignore")
    torch.set_num_threads(1)  # same summation order on every machine
    from executorch.backends.vulkan.patterns import fusable_patterns

    for entry in fusable_patterns.values():
        fn = getattr(entry, "get_graphs_fn", None)
        if fn is None:
            continue
        memo: dict[str, Any] = {}

        def cached(fn=fn, memo=memo):
            if "graphs" not in memo:
                memo["graphs"] = fn()
            return memo["graphs"]

        entry.get_graphs_fn = cached


# ---------------------------------------------------------------------------
# Lowering
# ---------------------------------------------------------------------------


def _vulkan_partitioner(extra_keep: Sequence):
    from executorch.backends.vulkan.partitioner.vulkan_partitioner import VulkanPartitioner

    if not extra_keep:
        return VulkanPartitioner()

    class KeepOpsVulkanPartitioner(VulkanPartitioner):
        """VulkanPartitioner that also keeps `extra_keep` from decomposition."""

        def ops_to_not_decompose(self, ep):
            ops, filter_fn = super().ops_to_not_decompose(ep)
            return (list(ops) + [o for o in extra_keep if o not in ops], filter_fn)

    return KeepOpsVulkanPartitioner()


def export_modes(case: Case) -> tuple[dict[str, Any], dict[str, Any]]:
    """How vulkan.pte and plain.pte are made: (vulkan kwargs + label, plain kwargs + label)."""
    from executorch.exir import EdgeCompileConfig

    names = [str(o) for o in case.preserve]
    if case.path == "standard":
        return ({"keep": [], "config": None, "label": "standard"}, {"config": None, "label": "standard"})
    if case.path == "skip_dim_order":
        label = "EdgeCompileConfig(_skip_dim_order=True)"
        return (
            {"keep": [], "config": EdgeCompileConfig(_skip_dim_order=True), "label": label},
            {"config": EdgeCompileConfig(_skip_dim_order=True), "label": label},
        )
    if case.path == "preserve":
        if case.where == "vulkan":
            vk = {
                "keep": list(case.preserve),
                "config": None,
                "label": f"VulkanPartitioner with ops_to_not_decompose += {names}",
            }
        else:
            vk = {"keep": [], "config": None, "label": "standard"}
        if case.preserve_plain:
            pl = {
                "config": EdgeCompileConfig(preserve_ops=list(case.preserve)),
                "label": f"EdgeCompileConfig(preserve_ops={names})",
            }
        else:
            pl = {"config": None, "label": "standard"}
        return vk, pl
    raise ValueError(f"unknown export path {case.path!r}")


def lower(module: torch.nn.Module, inputs: Sequence[torch.Tensor], vulkan: bool, mode: dict[str, Any]) -> bytes:
    from executorch.exir import to_edge_transform_and_lower

    ep = torch.export.export(module, tuple(inputs), strict=True)
    kwargs: dict[str, Any] = {}
    if mode["config"] is not None:
        kwargs["compile_config"] = mode["config"]
    if vulkan:
        kwargs["partitioner"] = [_vulkan_partitioner(mode["keep"])]
    edge = to_edge_transform_and_lower(ep, **kwargs)
    return bytes(edge.to_executorch().buffer)


# ---------------------------------------------------------------------------
# Inputs, goldens, errors
# ---------------------------------------------------------------------------


def case_dir(case: Case, all_ops: Sequence[str]) -> str:
    return f"{op_cases.short_name(case.op, all_ops)}__{case.case}"


def seed_of(name: str) -> int:
    return zlib.crc32(name.encode()) & 0x7FFFFFFF


def make_input(spec: Inp, g: torch.Generator) -> torch.Tensor:
    shape = spec.shape
    if spec.kind == "normal":
        t = torch.randn(shape, generator=g) * spec.scale
    elif spec.kind == "positive":
        t = torch.rand(shape, generator=g) * spec.scale + spec.lo
    elif spec.kind == "away0":
        r = torch.randn(shape, generator=g)
        t = torch.where(r < 0, -1.0, 1.0) * (spec.lo + r.abs() * spec.scale)
    elif spec.kind == "halves":
        t = torch.round(torch.randn(shape, generator=g) * spec.scale * 2) / 2
    elif spec.kind == "bool":
        t = torch.randn(shape, generator=g) > 0
    elif spec.kind == "int":
        t = torch.randint(int(spec.lo), int(spec.hi), shape, generator=g, dtype=torch.int64)
    else:
        raise ValueError(f"unknown input kind {spec.kind!r}")
    t = t.to(spec.dtype).contiguous()
    if not bool((t != 0).any()):
        raise ValueError(f"input {spec} is all zeros")
    return t


def as_tuple(x) -> tuple[torch.Tensor, ...]:
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def error_stats(a: np.ndarray, ref: np.ndarray) -> dict[str, float]:
    """Same measures as python/export.py: relative L2, max abs, max abs over max |ref|."""
    a64 = a.astype(np.float64)
    r64 = ref.astype(np.float64)
    den = float(np.linalg.norm(r64.ravel()))
    num = float(np.linalg.norm((a64 - r64).ravel()))
    max_abs = float(np.max(np.abs(a64 - r64))) if a.size else 0.0
    scale = float(np.max(np.abs(r64))) if a.size else 0.0
    return {
        "rel_l2": num / den if den > 0 else num,
        "max_abs": max_abs,
        "max_abs_over_max_ref": max_abs / scale if scale > 0 else max_abs,
    }


def run_plain_on_executorch(pte: bytes, inputs: Sequence[torch.Tensor]):
    """plain.pte on ExecuTorch's own CPU runtime (portable kernels); (outputs, error)."""
    import tempfile

    # The runtime logs to stderr from C++ (missing kernels, cpuinfo probing): keep it out of
    # the progress output, and keep its first error line for meta.json.
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as log:
        os.dup2(log.fileno(), 2)
        try:
            from executorch.runtime import Runtime

            method = Runtime.get().load_program(pte).load_method("forward")
            outs = method.execute([t.clone() for t in inputs])
            return [o.detach().numpy().copy() for o in outs], None
        except Exception as e:  # informative only
            log.seek(0)
            lines = [
                ln
                for ln in log.read().decode(errors="replace").splitlines()
                if "Missing operator" in ln or "Check failed" in ln
            ]
            msg = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
            return None, msg + (f" ({lines[0].split('] ', 1)[-1]})" if lines else "")
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)


# ---------------------------------------------------------------------------
# One case
# ---------------------------------------------------------------------------


def _plain_calls(summary: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for p in summary["execution_plans"]:
        for c in p["chains"]:
            for ins in c["instructions"]:
                if ins["kind"] == "KernelCall":
                    out.append(
                        {"kernel": ins["op"], "op": list_ops.kernel_to_functional(ins["op"]), "args": ins["args_desc"]}
                    )
    return out


def export_case(case: Case, out_root: str, all_ops: Sequence[str]) -> dict[str, Any]:
    _init()
    name = case_dir(case, all_ops)
    seed = seed_of(name)
    torch.manual_seed(seed)
    model = case.make().eval()
    g = torch.Generator().manual_seed(seed + 1)
    inputs = [make_input(s, g) for s in case.inputs]

    with torch.no_grad():
        expected = [t.detach().clone() for t in as_tuple(model(*inputs))]
        model64 = copy.deepcopy(model).double()
        in64 = [x.double() if x.is_floating_point() else x for x in inputs]
        expected64 = [t.detach().clone() for t in as_tuple(model64(*in64))]

    vk_mode, pl_mode = export_modes(case)
    vulkan_pte = lower(model, inputs, True, vk_mode)
    plain_pte = lower(model, inputs, False, pl_mode)
    vs = inspect_pte.summarize(vulkan_pte)
    ps = inspect_pte.summarize(plain_pte)

    vulkan_ops = [n for v in vs["vulkan_delegates"] for n in v["op_names"]]
    chain = [
        {"delegate": d, "name": c["name"], "args": c["args_desc"]}
        for d, v in enumerate(vs["vulkan_delegates"])
        for c in v["chain"]
    ]
    leftover = inspect_pte.kernel_op_names(vs)
    leftover_ops = [list_ops.kernel_to_functional(k) for k in leftover]
    plain_calls = _plain_calls(ps)
    plain_kernels = [c["kernel"] for c in plain_calls]
    plain_ops = [c["op"] for c in plain_calls]
    fully = inspect_pte.is_fully_delegated(vs)

    if case.where == "vulkan":
        found = case.op in vulkan_ops
        where_msg = f"VkGraph chain {vulkan_ops}"
    else:
        found = case.op in plain_ops
        where_msg = f"plain.pte kernels {plain_kernels} (read as {plain_ops})"
    if not found:
        raise RuntimeError(f"{case.op} is not in the {where_msg}")

    registered = set(all_ops)
    unregistered = sorted({n for n in vulkan_ops + leftover_ops + plain_ops if n not in registered})

    d = os.path.join(out_root, name)
    if os.path.isdir(d):
        shutil.rmtree(d)
    os.makedirs(d)
    with open(os.path.join(d, "vulkan.pte"), "wb") as fh:
        fh.write(vulkan_pte)
    with open(os.path.join(d, "plain.pte"), "wb") as fh:
        fh.write(plain_pte)
    for i, t in enumerate(inputs):
        np.save(os.path.join(d, f"input_{i}.npy"), t.numpy())
    for i, t in enumerate(expected):
        np.save(os.path.join(d, f"expected_{i}.npy"), t.numpy())
    for i, t in enumerate(expected64):
        np.save(os.path.join(d, f"expected64_{i}.npy"), t.numpy())

    torch_err = [error_stats(e.numpy(), e64.numpy()) for e, e64 in zip(expected, expected64)]
    et_outs, et_error = run_plain_on_executorch(plain_pte, inputs)
    et_check = None
    if et_outs is not None:
        et_check = [error_stats(o, e.numpy()) for o, e in zip(et_outs, expected)]

    def vk_io(ids_key: str) -> list[list[dict[str, Any]]]:
        return [
            [{"dims": v["values"][i]["dims"], "dtype": v["values"][i]["dtype"]} for i in v[ids_key]]
            for v in vs["vulkan_delegates"]
        ]

    import executorch.version

    meta = {
        "op": case.op,
        "case": case.case,
        "dir": name,
        "description": case.desc,
        "note": case.note,
        "checked_in": case.where,
        "export_path": case.path,
        "export": {"vulkan": vk_mode["label"], "plain": pl_mode["label"]},
        "seed": seed,
        "generator": {
            "script": SCRIPT,
            "torch": torch.__version__,
            "executorch": executorch.version.__version__,
            "numpy": np.__version__,
        },
        "inputs": [
            {"file": f"input_{i}.npy", "shape": list(t.shape), "dtype": str(t.numpy().dtype), "kind": s.kind}
            for i, (t, s) in enumerate(zip(inputs, case.inputs))
        ],
        "outputs": [
            {
                "file": f"expected_{i}.npy",
                "file64": f"expected64_{i}.npy",
                "shape": list(t.shape),
                "dtype": str(t.numpy().dtype),
                "dtype64": str(t64.numpy().dtype),
            }
            for i, (t, t64) in enumerate(zip(expected, expected64))
        ],
        "vulkan_ops": vulkan_ops,
        "fully_delegated": fully,
        "plain_kernels": plain_kernels,
        "plain_ops": plain_ops,
        "unregistered_ops": unregistered,
        "torch_fp32_vs_fp64": torch_err,
        "vulkan": {
            "file": "vulkan.pte",
            "size": len(vulkan_pte),
            "sha256": hashlib.sha256(vulkan_pte).hexdigest(),
            "num_delegates": len(vs["vulkan_delegates"]),
            "kernel_calls": leftover,
            "kernel_call_ops": leftover_ops,
            "instruction_kinds": [p["instruction_kinds"] for p in vs["execution_plans"]],
            "chain": chain,
            "vkgraph_inputs": vk_io("input_ids"),
            "vkgraph_outputs": vk_io("output_ids"),
            "num_constants": [len(v["constants"]) for v in vs["vulkan_delegates"]],
        },
        "plain": {
            "file": "plain.pte",
            "size": len(plain_pte),
            "sha256": hashlib.sha256(plain_pte).hexdigest(),
            "calls": plain_calls,
            "executorch_cpu_vs_expected": et_check,
            "executorch_cpu_error": et_error,
        },
    }
    with open(os.path.join(d, "meta.json"), "w") as fh:
        fh.write(inspect_pte.to_json(meta) + "\n")
    return meta


# Worker side of --jobs: each process builds the case list itself (modules hold lambdas)
# and finds its cases by directory name.
_worker_cases: dict[str, Case] = {}


def _worker_init(all_ops: list[str]) -> None:
    global _worker_cases
    _init()
    _worker_cases = {case_dir(c, all_ops): c for c in op_cases.cases()}


def _worker_run(name: str, out_root: str, all_ops: list[str]) -> tuple[str, dict | None, str | None, float]:
    t0 = time.time()
    try:
        return name, export_case(_worker_cases[name], out_root, all_ops), None, time.time() - t0
    except Exception as e:
        msg = f"{type(e).__name__}: {e}"
        return name, None, msg[:2000], time.time() - t0


# ---------------------------------------------------------------------------
# Index
# ---------------------------------------------------------------------------


def write_index(out_root: str, regs: list[list_ops.RegisteredOp], all_cases: list[Case]) -> dict[str, Any]:
    all_ops = [r.name for r in regs]
    metas: dict[str, dict[str, Any]] = {}
    for c in all_cases:
        name = case_dir(c, all_ops)
        p = os.path.join(out_root, name, "meta.json")
        if os.path.isfile(p):
            with open(p) as fh:
                metas[name] = json.load(fh)
    ops: dict[str, Any] = {}
    without: dict[str, str] = {}
    for r in regs:
        own = sorted(n for n, m in metas.items() if m["op"] == r.name)
        seen = sorted(
            n for n, m in metas.items() if m["op"] != r.name and (r.name in m["vulkan_ops"] or r.name in m["plain_ops"])
        )
        entry: dict[str, Any] = {
            "primary": r.primary,
            "source": r.file,
            "cases": own,
            "checked_in": sorted({metas[n]["checked_in"] for n in own}),
            "export_paths": sorted({metas[n]["export_path"] for n in own}),
            "also_in": seen,
        }
        if not own:
            entry["reason"] = op_cases.NOT_PRODUCIBLE.get(r.name, "no case exported (see the export log)")
            without[r.name] = entry["reason"]
        ops[r.name] = entry
    not_standard = {
        n: {
            "cases": e["cases"],
            "checked_in": e["checked_in"],
            "how": sorted(
                {metas[c]["export"]["plain" if metas[c]["checked_in"] == "plain" else "vulkan"] for c in e["cases"]}
            ),
        }
        for n, e in ops.items()
        if e["cases"] and "standard" not in e["export_paths"]
    }
    # Against the registry as it is now (meta.json's unregistered_ops is as of its export).
    registered = set(all_ops)
    unregistered: dict[str, list[str]] = {}
    for n, m in sorted(metas.items()):
        used = m["vulkan_ops"] + m["vulkan"]["kernel_call_ops"] + m["plain_ops"]
        for u in sorted({u for u in used if u not in registered}):
            unregistered.setdefault(u, []).append(n)
    index = {
        "generator": SCRIPT,
        "command": "python/.venv/bin/python python/export_ops.py --out tests/ops",
        "registered_op_names": len(regs),
        "with_case": len(regs) - len(without),
        "num_cases": len(metas),
        "ops": ops,
        "without_case": without,
        "only_with_non_standard_export": not_standard,
        "plain_only": sorted(n for n, e in ops.items() if e["checked_in"] == ["plain"]),
        "unregistered_ops_in_cases": unregistered,
        "cases": [
            {
                "dir": n,
                "op": m["op"],
                "case": m["case"],
                "checked_in": m["checked_in"],
                "export_path": m["export_path"],
                "fully_delegated": m["fully_delegated"],
                "vulkan_ops": m["vulkan_ops"],
                "plain_kernels": m["plain_kernels"],
            }
            for n, m in sorted(metas.items())
        ],
    }
    with open(os.path.join(out_root, "index.json"), "w") as fh:
        fh.write(inspect_pte.to_json(index) + "\n")
    return index


# ---------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Export the single-op fixtures (tests/ops).")
    ap.add_argument("--out", default="tests/ops", help="output directory (default tests/ops)")
    ap.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="PATTERN",
        help="only case directories matching this glob, or containing it (repeatable); "
        "index.json still lists every case already on disk",
    )
    ap.add_argument("--list", action="store_true", help="list registered ops and cases, then exit")
    ap.add_argument(
        "--strict", action="store_true", help="fail when a registered op name has no case (and no reason for it)"
    )
    ap.add_argument(
        "-j", "--jobs", type=int, default=min(2, os.cpu_count() or 1), help="export processes (default: min(2, CPUs))"
    )
    args = ap.parse_args(argv)

    regs = list_ops.registered_ops()
    all_ops = [r.name for r in regs]
    problems = []
    all_cases = []
    for c in op_cases.cases():
        if c.op in all_ops:
            all_cases.append(c)
        else:
            print(f"[export_ops] warning: skipping case {c.op} / {c.case}: {c.op} is not registered", file=sys.stderr)
            if args.strict:
                problems.append(f"case {c.op} / {c.case}: not a registered op name")
    names = [case_dir(c, all_ops) for c in all_cases]
    if len(set(names)) != len(names):
        problems.append(f"duplicate case directories: {sorted({n for n in names if names.count(n) > 1})}")
    covered = {c.op for c in all_cases}
    missing = [n for n in all_ops if n not in covered and n not in op_cases.NOT_PRODUCIBLE]
    for n in all_ops:
        if n in covered and n in op_cases.NOT_PRODUCIBLE:
            problems.append(f"{n}: has a case and is also in op_cases.NOT_PRODUCIBLE")
    for n in op_cases.NOT_PRODUCIBLE:
        if n not in all_ops:
            problems.append(f"op_cases.NOT_PRODUCIBLE names {n}, which is not registered")
    for n in missing:
        # Ops are added to src/ops all the time: a new one without a case is a warning (it is
        # listed in index.json), an error only with --strict.
        print(f"[export_ops] warning: {n} is registered but has no case in python/op_cases.py", file=sys.stderr)
        if args.strict:
            problems.append(f"{n}: registered, but no case and no reason in op_cases.NOT_PRODUCIBLE")
    if problems:
        for p in problems:
            print(f"[export_ops] {p}", file=sys.stderr)
        return 2

    if args.list:
        print(f"{len(all_ops)} registered op names, {len(all_cases)} cases")
        for c, n in zip(all_cases, names):
            print(f"{n:48s} {c.where:6s} {c.path:14s} {c.desc}")
        for n, why in op_cases.NOT_PRODUCIBLE.items():
            print(f"{n:48s} (no case) {why}")
        return 0

    todo = [i for i, n in enumerate(names) if not args.only or any(fnmatch.fnmatch(n, p) or p in n for p in args.only)]
    if not todo:
        print(f"[export_ops] nothing matches {args.only}", file=sys.stderr)
        return 2
    os.makedirs(args.out, exist_ok=True)
    if not args.only:
        # Remove case directories of cases that no longer exist.
        keep = set(names)
        for d in sorted(os.listdir(args.out)):
            p = os.path.join(args.out, d, "meta.json")
            if "__" in d and d not in keep and os.path.isfile(p):
                print(f"[export_ops] removing stale {d}")
                shutil.rmtree(os.path.join(args.out, d))

    t_start = time.time()
    print(
        f"[export_ops] {len(all_ops)} registered op names; exporting {len(todo)} of {len(all_cases)} "
        f"cases with {args.jobs} process(es)",
        flush=True,
    )
    failures: list[str] = []
    done = 0

    def report(name: str, meta: dict | None, err: str | None, dt: float) -> None:
        nonlocal done
        done += 1
        head = f"[{done:3d}/{len(todo)}] {name:44s} {dt:5.1f}s"
        if err is not None:
            failures.append(name)
            print(f"{head} FAILED: {err}", flush=True)
            return
        flag = "" if meta["fully_delegated"] or meta["checked_in"] == "plain" else "  [not fully delegated]"
        where = "vkgraph" if meta["checked_in"] == "vulkan" else "plain  "
        print(f"{head} {where} {meta['vulkan_ops']}{flag}", flush=True)

    if args.jobs <= 1:
        _init()
        for i in todo:
            t0 = time.time()
            try:
                meta, err = export_case(all_cases[i], args.out, all_ops), None
            except Exception as e:
                meta, err = None, f"{type(e).__name__}: {e}"[:2000]
            report(names[i], meta, err, time.time() - t0)
    else:
        ctx = multiprocessing.get_context("spawn")
        with cf.ProcessPoolExecutor(
            max_workers=args.jobs, mp_context=ctx, initializer=_worker_init, initargs=(all_ops,)
        ) as pool:
            futs = [pool.submit(_worker_run, names[i], args.out, all_ops) for i in todo]
            for fut in cf.as_completed(futs):
                report(*fut.result())

    index = write_index(args.out, regs, all_cases)
    elapsed = time.time() - t_start
    total = 0
    for root, _, files in os.walk(args.out):
        total += sum(os.path.getsize(os.path.join(root, f)) for f in files)
    print(
        f"[export_ops] {index['num_cases']} cases on disk; {index['with_case']}/{index['registered_op_names']} "
        f"registered op names have a case; {total / 1e6:.2f} MB under {args.out}; {elapsed:.0f} s"
    )
    if args.only:
        print(
            f"[export_ops] (--only: index.json lists the cases on disk; "
            f"{len(index['without_case'])} registered names have none there)"
        )
    else:
        for n, why in index["without_case"].items():
            print(f"[export_ops] no case: {n}: {why}")
    if failures:
        print(f"[export_ops] failed: {sorted(failures)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
