"""Statistics, machine description and the JSON / markdown report of python/peers.py.

Plain Python (no torch, no numpy) so that it can read results written on another machine.
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import subprocess
import time
from collections.abc import Iterable, Sequence

# Columns of the timing table, in order; a peer appears only when some model has a record.
PEER_TITLES = {
    "torch_cpu": "PyTorch eager CPU",
    "torch_cuda": "PyTorch eager CUDA",
    "torch_cuda_graph": "PyTorch CUDA graph",
    "xnnpack": "ExecuTorch XNNPACK",
    "ort_cpu": "ORT CPU",
    "ort_webgpu": "ORT WebGPU",
}


def stats(times_ms: Sequence[float]) -> dict[str, float]:
    """median / p90 / min defined as `wgx bench` defines them (upper median, nearest rank)."""
    v = sorted(times_ms)
    n = len(v)
    return {
        "median_ms": v[n // 2],
        "p90_ms": v[min(n - 1, n * 9 // 10)],
        "min_ms": v[0],
        "runs": n,
        "times_ms": [round(t, 3) for t in times_ms],
    }  # in run order: shows drift and outliers


def loadavg() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


class OtherLoad:
    """CPU used by other processes while a peer ran, in cores (0.0 = the machine was ours).
    The load average cannot tell: it counts the benchmark's own threads and exports too."""

    def __init__(self):
        self.start = self._sample()

    @staticmethod
    def _sample():
        try:
            with open("/proc/stat") as f:
                ticks = [int(x) for x in f.readline().split()[1:9]]  # user..steal
        except (OSError, ValueError):
            return None
        busy = (sum(ticks) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")  # minus idle, iowait
        t = os.times()  # this process and its waited-for children (wgx, the ORT interpreter)
        return busy, t.user + t.system + t.children_user + t.children_system, time.monotonic()

    def cores(self) -> float | None:
        end = self._sample()
        if self.start is None or end is None or end[2] <= self.start[2]:
            return None
        other = (end[0] - self.start[0]) - (end[1] - self.start[1])
        return round(max(0.0, other) / (end[2] - self.start[2]), 2)


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def git_commit(root: str) -> str:
    """HEAD (with '+dirty' when tracked files changed); 'unknown' in a copy without .git."""
    try:
        head = subprocess.run(
            ["git", "-C", root, "rev-parse", "--short", "HEAD"], capture_output=True, text=True, timeout=20, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", root, "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=60,
        ).stdout.strip()
        return head + ("+dirty" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def machine_info(root: str, commit: str | None) -> dict:
    return {
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "host": platform.node(),
        "os": platform.platform(),
        "cpu": cpu_model(),
        "cpu_count": os.cpu_count(),
        "python": platform.python_version(),
        "commit": commit or git_commit(root),
    }


# ---------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------


def wgx_ms(records: dict[str, dict], kind: str) -> float | None:
    w = records.get("wgx")
    if not w or not w.get("ok"):
        return None
    return w["latency"].get(kind, {}).get("median_ms")


def peer_kind(record: dict) -> str:
    """Which wgx latency a peer is compared with: host in/out peers with end-to-end."""
    return "end_to_end" if "end_to_end" in record["latency"] else "gpu_resident"


def ratio(record: dict, records: dict[str, dict]) -> float | None:
    kind = peer_kind(record)
    w = wgx_ms(records, kind)
    return record["latency"][kind]["median_ms"] / w if w else None


def fmt_ms(x: float) -> str:
    return f"{x:.3g}" if x < 100 else f"{x:.0f}"


def note_number(record: dict, notes: dict[str, int]) -> int:
    """One footnote per peer and reason, however many models share it."""
    reason = record["reason"]
    prefix = f"{record['peer']} on {record.get('model', '')}: "
    text = f"{PEER_TITLES.get(record['peer'], record['peer'])}: " + (
        reason[len(prefix) :] if reason.startswith(prefix) else reason
    )
    return notes.setdefault(text, len(notes) + 1)


def cell(record: dict | None, records: dict[str, dict], notes: dict[str, int]) -> str:
    if record is None:
        return "-"
    if not record.get("ok"):
        return f"n/a [{note_number(record, notes)}]"
    lat = record["latency"][peer_kind(record)]
    text = fmt_ms(lat["median_ms"])
    r = ratio(record, records)
    if r is not None:
        text += f" ({r:.2g}x)"
    if record.get("check", {}).get("flagged"):
        text += " !"
    return text


def listed(values: Sequence) -> str:
    return " or ".join(str(v) for v in values) or "-"


def load_range(records: Iterable[dict]) -> str:
    """1-minute load average before the model's peers ran (they may come from several calls)."""
    loads = [r["loadavg_before"][0] for r in records if r.get("loadavg_before")]
    if not loads:
        return "-"
    lo, hi = min(loads), max(loads)
    return f"{lo:.2f}" if hi - lo < 0.05 else f"{lo:.2f}-{hi:.2f}"


def other_load(records: Iterable[dict]) -> str:
    """The most CPU other processes took while any of the model's peers ran."""
    loads = [r["other_cpu_cores"] for r in records if r.get("other_cpu_cores") is not None]
    return f"{max(loads):.2f}" if loads else "-"


def markdown(report: dict) -> str:
    models = report["models"]
    peers = [p for p in PEER_TITLES if any(p in m["peers"] for m in models)]
    m0 = report["machine"]
    lines = [
        f"Machine: {m0['cpu']} ({m0['cpu_count']} logical CPUs), {m0['os']}; "
        f"wgx adapter: {report.get('wgx_adapter', 'n/a')}. Date {m0['date'][:10]}, commit {m0['commit']}.",
        "Command"
        + ("s: " if len(report["commands"]) > 1 else ": ")
        + "; ".join(f"`{c}`" for c in report["commands"])
        + ".",
        "",
        f"Median wall ms of {listed(report['iters'])} timed runs after {listed(report['warmup'])} warm-up runs; "
        "(ratio) = peer / wgx, > 1 means wgx is faster. CPU and ONNX Runtime peers take host "
        "inputs and return host outputs, so they are compared with wgx end-to-end; the CUDA "
        "peers keep inputs and outputs on the GPU and are compared with wgx GPU-resident. "
        "`!` = output differs from PyTorch eager beyond the limit (table below). Load: the 1-minute "
        "load average before each peer (it counts this benchmark's own work too) and the most CPU "
        "other processes used while one of the model's peers ran (from /proc/stat less our own).",
        "",
        "| model | load avg (1 min) | others' CPU (cores) | wgx GPU-resident | wgx end-to-end | "
        + " | ".join(PEER_TITLES[p] for p in peers)
        + " |",
        "| --- | --- | --- | ---: | ---: | " + " | ".join("---:" for _ in peers) + " |",
    ]
    notes: dict[str, int] = {}
    for m in models:
        recs = m["peers"]
        w = recs.get("wgx")
        if w and w.get("ok"):
            wr = fmt_ms(w["latency"]["gpu_resident"]["median_ms"])
            we = fmt_ms(w["latency"]["end_to_end"]["median_ms"])
        else:
            wr = we = cell(w, recs, notes) if w else "-"
        cells = [cell(recs.get(p), recs, notes) for p in peers]
        lines.append(
            f"| {m['name']} | {load_range(recs.values())} | {other_load(recs.values())} | {wr} | {we} | "
            + " | ".join(cells)
            + " |"
        )
    lines += [
        "",
        "Relative L2 error of each output against PyTorch eager fp32 on the same input "
        "(the largest over the outputs; limit = max(1e-4, 4 x PyTorch's own fp32-vs-fp64 "
        "error), as in the project's model tests):",
        "",
    ]
    check_peers = ["wgx"] + [p for p in peers if p != "torch_cpu"]
    lines.append("| model | " + " | ".join("wgx" if p == "wgx" else PEER_TITLES[p] for p in check_peers) + " |")
    lines.append("| --- | " + " | ".join("---:" for _ in check_peers) + " |")
    for m in models:
        row = []
        for p in check_peers:
            c = m["peers"].get(p, {}).get("check")
            row.append("-" if not c else f"{c['rel_l2']:.2e}" + (" LARGE" if c["flagged"] else ""))
        lines.append(f"| {m['name']} | " + " | ".join(row) + " |")
    if notes:
        lines += ["", "Not measured:"] + [f"[{i}] {text}" for text, i in notes.items()]
    lines += ["", "Versions: " + ", ".join(f"{k} {v}" for k, v in sorted(report["versions"].items())) + "."]
    return "\n".join(lines) + "\n"


def collect_versions(models: Iterable[dict]) -> dict[str, str]:
    versions: dict[str, str] = {}
    for m in models:
        for rec in m["peers"].values():
            versions.update(rec.get("versions", {}))
    return versions


def write_report(report: dict, json_path: str, md_path: str | None) -> None:
    report["versions"] = collect_versions(report["models"])
    os.makedirs(os.path.dirname(os.path.abspath(json_path)), exist_ok=True)
    with open(json_path, "w") as f:
        json.dump(report, f, indent=1)
        f.write("\n")
    if md_path:
        with open(md_path, "w") as f:
            f.write(markdown(report))
