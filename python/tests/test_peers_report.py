#!/usr/bin/env python3
"""Checks of python/peers_report.py: the statistics match `wgx bench`'s definitions, each peer
is compared with the matching wgx latency, and the table shows failures and flagged errors.

    cd python && python3 -m tests.test_peers_report            # exit 0 = all passed (no torch needed)
    python/.venv/bin/python python/tests/test_peers_report.py  # the same, in the tooling's venv
"""

from __future__ import annotations

import sys

import peers_report as report


def lat(ms: float) -> dict:
    return {"median_ms": ms, "p90_ms": ms, "min_ms": ms, "runs": 1}


def record(peer: str, ok: bool = True, flagged: bool = False, **latency) -> dict:
    if not ok:
        return {"peer": peer, "model": "m", "ok": False, "reason": f"{peer} on m: no device", "loadavg_before": [1.0]}
    return {
        "peer": peer,
        "ok": True,
        "latency": {k: lat(v) for k, v in latency.items()},
        "check": {"rel_l2": 0.5 if flagged else 1e-6, "flagged": flagged},
        "loadavg_before": [1.5],
        "other_cpu_cores": 0.75 if flagged else 0.25,
        "versions": {peer: "1"},
    }


def test_stats_match_wgx_bench() -> None:
    # wgx bench: sorted v, median v[n/2], p90 v[min(n-1, n*9/10)], min v[0]
    s = report.stats([5.0, 1.0, 4.0, 2.0, 3.0, 6.0])
    assert (s["median_ms"], s["p90_ms"], s["min_ms"], s["runs"]) == (4.0, 6.0, 1.0, 6), s
    s = report.stats([7.0])
    assert (s["median_ms"], s["p90_ms"], s["min_ms"]) == (7.0, 7.0, 7.0), s
    assert report.stats([3.0, 1.0])["times_ms"] == [3.0, 1.0], "raw times keep run order"


def test_ratio_uses_the_matching_wgx_latency() -> None:
    recs = {
        "wgx": record("wgx", gpu_resident=2.0, end_to_end=4.0),
        "ort_cpu": record("ort_cpu", end_to_end=8.0),
        "torch_cuda": record("torch_cuda", gpu_resident=1.0),
    }
    assert report.ratio(recs["ort_cpu"], recs) == 2.0  # host in/out -> wgx end-to-end
    assert report.ratio(recs["torch_cuda"], recs) == 0.5  # GPU-resident -> wgx GPU-resident
    assert report.ratio(recs["ort_cpu"], {"wgx": record("wgx", ok=False)}) is None


def test_markdown_shows_failures_and_flags() -> None:
    recs = {
        "wgx": record("wgx", gpu_resident=2.0, end_to_end=4.0),
        "torch_cpu": record("torch_cpu", end_to_end=8.0),
        "xnnpack": record("xnnpack", flagged=True, end_to_end=2.0),
        "ort_webgpu": record("ort_webgpu", ok=False),
    }
    rep = {
        "machine": {"cpu": "cpu", "cpu_count": 2, "os": "os", "date": "2026-01-01T00:00:00", "commit": "abc"},
        "commands": ["python/peers.py"],
        "iters": [5],
        "warmup": [2],
        "wgx_adapter": "a",
        "models": [
            {"name": "m", "peers": recs},
            {
                "name": "m2",
                "peers": {"ort_webgpu": dict(recs["ort_webgpu"], model="m2", reason="ort_webgpu on m2: no device")},
            },
        ],
    }
    rep["versions"] = report.collect_versions(rep["models"])
    md = report.markdown(rep)
    row = next(line for line in md.splitlines() if line.startswith("| m |"))
    assert "8 (2x)" in row, row
    assert "2 (0.5x) !" in row, row  # flagged error marked in the timing table
    assert "n/a [1]" in row, row
    assert "[1] ORT WebGPU: no device" in md, md
    assert "5.00e-01 LARGE" in md, md
    assert "[2]" not in md, "the same reason on two models is one footnote"
    assert "| 1.00-1.50 | 0.75 |" in row, row  # load range; the most CPU other processes took


def main() -> int:
    tests = [v for k, v in sorted(globals().items()) if k.startswith("test_")]
    failed = 0
    for t in tests:
        try:
            t()
            print(f"ok   {t.__name__}")
        except AssertionError as e:
            failed += 1
            print(f"FAIL {t.__name__}: {e}")
    print(f"{len(tests) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
