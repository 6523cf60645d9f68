#!/usr/bin/env python3
"""Run the slow test set: the full-size model exports against their PyTorch goldens.

The full-size models (python/export_models.py --full, about 2 GB) live in an ignored cache,
.cache/models by default. Each is run three ways by wgx_program_tests: the delegated program,
the plain (kernel-call) program, and the program.json that wgx convert writes (bit-identical).

    python3 scripts/run_slow_set.py                      # run, print a summary
    python3 scripts/run_slow_set.py --log docs/slow-runs # also write a dated run log there
    python3 scripts/run_slow_set.py --only resnet50 --only vit

Exit status: 0 when every case passed, 1 when any failed, 2 when the set is missing or
incomplete (with the command that makes it). Needs only the system python3.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXPORT_CMD = "python/.venv/bin/python python/export_models.py --full   (after bash python/setup_env.sh)"

FIXTURE_LINE = re.compile(
    r"\[fixture\] models/(?P<model>[^/]+)/(?P<file>\S+) output (?P<out>\d+): rel L2 (?P<l2>\S+) "
    r"\(limit (?P<l2lim>\S+)\), max abs rel (?P<abs>\S+) \(limit (?P<abslim>\S+)\)")
RESULT_LINE = re.compile(
    r"\[\s+(?P<status>OK|FAILED)\s+\] All/Fixtures\.(?P<test>\w+)/models_(?P<model>\w+)"
    r"(?:, where GetParam\(\) = \S+)? \((?P<ms>\d+) ms\)")
TEST_KIND = {
    "DelegatedProgramMatchesPyTorch": "delegated",
    "PlainProgramMatchesPyTorch": "plain",
    "ConvertedProgramJsonGivesIdenticalOutputs": "program.json",
    "EveryOpRunsOnTheGpu": "gpu-ops",
}


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--models", type=Path, default=ROOT / ".cache" / "models",
                   help="folder of full-size exports (a folder named 'models'; default .cache/models)")
    p.add_argument("--build", type=Path, default=ROOT / "build", help="build folder (default build)")
    p.add_argument("--only", action="append", default=[], help="run only these models (repeatable)")
    p.add_argument("--log", type=Path, help="write a run log (markdown) into this folder")
    p.add_argument("--machine", help="machine name for the log (default: the host name)")
    p.add_argument("--commit", help="commit to name in the log (default: git HEAD; for copies "
                                    "of the tree run elsewhere)")
    return p.parse_args()


def fail(code: int, message: str) -> None:
    print(f"[slow-set] error: {message}", file=sys.stderr)
    sys.exit(code)


def expected_models(models: Path) -> list[str]:
    index = models / "index.json"
    if not index.is_file():
        fail(2, f"{index} not found: the full-size set has not been exported; make it with\n  {EXPORT_CMD}")
    try:
        names = [m["name"] for m in json.loads(index.read_text())["models"]]
    except (ValueError, KeyError, TypeError) as e:
        fail(2, f"{index} is not a model index ({e})")
    missing = [n for n in names if not (models / n / "meta.json").is_file()]
    if missing:
        fail(2, f"{models} lacks {', '.join(missing)}; re-export with\n  {EXPORT_CMD}")
    return names


def device_line(build: Path, env: dict) -> str:
    try:
        out = subprocess.run([str(build / "wgx"), "info", "--device"], env=env, capture_output=True,
                             text=True, timeout=120).stdout
    except (OSError, subprocess.TimeoutExpired):
        return "unknown (wgx info --device failed)"
    impl = next((l.split(":", 1)[1].strip() for l in out.splitlines() if l.startswith("WebGPU implementation")), "?")
    chosen = next((l.split(":", 1)[1].strip() for l in out.splitlines() if l.startswith("Chosen")), "?")
    return f"{chosen} through {impl}"


def git_commit() -> str:
    try:
        rev = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True).stdout.strip()
        return rev + (" (with uncommitted changes)" if dirty else "")
    except OSError:
        return "unknown"


def main() -> int:
    args = parse_args()
    models = args.models.resolve()
    if models.name != "models":
        fail(2, f"{models}: the folder must be named 'models' (the test runner looks for <dir>/models)")
    names = expected_models(models)
    if args.only:
        unknown = sorted(set(args.only) - set(names))
        if unknown:
            fail(2, f"not in {models / 'index.json'}: {', '.join(unknown)}")
        names = [n for n in names if n in args.only]
    # A build folder, or a flat folder of packed binaries (scripts/pack-for-device.sh).
    runner = next((p for p in (args.build / "tests" / "programs" / "wgx_program_tests",
                               args.build / "wgx_program_tests") if p.is_file()), None)
    if runner is None:
        fail(2, f"no wgx_program_tests under {args.build}: build first (make build)")

    env = dict(os.environ, WGX_TESTS_DIR=str(models.parent))
    env.setdefault("XDG_RUNTIME_DIR", "/tmp")
    gtest_filter = ":".join(f"All/Fixtures.*/models_{n}" for n in names)
    print(f"[slow-set] {len(names)} full-size models x {len(TEST_KIND)} checks from {models}", flush=True)
    started = time.time()
    proc = subprocess.Popen([str(runner), f"--gtest_filter={gtest_filter}"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    errors: dict[tuple[str, str], list[str]] = {}
    results: list[dict] = []
    failure_text: list[str] = []
    assert proc.stdout is not None
    for line in proc.stdout:
        if m := FIXTURE_LINE.search(line):
            kind = "delegated" if m["file"] == "vulkan.pte" else "plain"
            errors.setdefault((m["model"], kind), []).append(
                f"out{m['out']}: rel L2 {m['l2']}, max abs rel {m['abs']}")
        elif m := RESULT_LINE.search(line):
            kind = TEST_KIND.get(m["test"], m["test"])
            results.append({"model": m["model"], "kind": kind, "status": m["status"],
                            "seconds": int(m["ms"]) / 1000})
            print(f"[slow-set] {m['status']:6} {m['model']:32} {kind:13} {int(m['ms']) / 1000:7.1f} s", flush=True)
        elif "Failure" in line or "error:" in line.lower() or "Expected" in line:
            failure_text.append(line.rstrip())
    rc = proc.wait()
    elapsed = time.time() - started

    expected_cases = len(TEST_KIND) * len(names)
    failed = [r for r in results if r["status"] != "OK"]
    complete = len(results) == expected_cases
    ok = rc == 0 and not failed and complete
    summary = (f"{len(results) - len(failed)} of {expected_cases} cases passed"
               + ("" if complete else f" ({expected_cases - len(results)} did not report)")
               + f" in {elapsed / 60:.1f} min")
    print(f"[slow-set] {'PASSED' if ok else 'FAILED'}: {summary}")
    for line in failure_text[:40]:
        print(f"[slow-set]   {line}")

    if args.log:
        write_log(args, names, results, errors, failure_text, ok, summary, env)
    return 0 if ok else 1


def write_log(args, names, results, errors, failure_text, ok, summary, env) -> None:
    args.log.mkdir(parents=True, exist_ok=True)
    today = datetime.date.today().isoformat()
    machine = args.machine or platform.node()
    path = args.log / f"{today}-{re.sub(r'[^A-Za-z0-9_.-]', '_', machine)}.md"
    by_model: dict[str, dict[str, dict]] = {}
    for r in results:
        by_model.setdefault(r["model"], {})[r["kind"]] = r
    lines = [
        f"# Slow set run, {today}, {machine}",
        "",
        f"- Commit: {args.commit or git_commit()}",
        f"- Device: {device_line(args.build, env)}",
        f"- Command: `python3 scripts/run_slow_set.py --log {args.log}"
        + "".join(f" --only {n}" for n in args.only) + "`",
        f"- Result: **{'PASSED' if ok else 'FAILED'}**, {summary}",
        "",
        "Each model's delegated and plain programs against PyTorch's float64 golden (DESIGN §6);",
        "program.json from `wgx convert` must give bit-identical outputs; every op (delegated or",
        "a kernel call left outside the delegate) must map to a GPU op. Times include loading.",
        "",
        "| model | delegated | plain | program.json | all ops on GPU | errors (delegated) |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for n in names:
        row = by_model.get(n, {})
        cell = lambda k: (f"{row[k]['status']} {row[k]['seconds']:.1f} s" if k in row else "no result")
        lines.append(f"| {n} | {cell('delegated')} | {cell('plain')} | {cell('program.json')} | {cell('gpu-ops')} | "
                     + "; ".join(errors.get((n, "delegated"), ["-"])) + " |")
    if failure_text:
        lines += ["", "Failures:", "", "```", *failure_text[:80], "```"]
    path.write_text("\n".join(lines) + "\n")
    print(f"[slow-set] log written to {path}")


if __name__ == "__main__":
    sys.exit(main())
