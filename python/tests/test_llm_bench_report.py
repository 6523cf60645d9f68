#!/usr/bin/env python3
"""Checks of python/llm_bench_report.py: bytes per decode token, token agreement, the table.

cd python && python3 -m tests.test_llm_bench_report    # exit 0 = all passed (no torch needed)
"""

from __future__ import annotations

import sys

import llm_bench_report as report

MODEL = {
    "kind": "model",
    "size": "full",
    "params": {"dim": 8, "n_layers": 1, "n_heads": 2, "n_kv_heads": 1, "vocab_size": 10},
    "parameters": 2_000_000_000,
    "embedding": 100,
    "weights_read_per_token": 1_000_000_000,
    "kv_per_position": 1000,
}


def row(engine: str, precision: str, mode: str, rate: float, tokens: list[int]) -> dict:
    return {
        "kind": "result",
        "engine": engine,
        "precision": precision,
        "mode": mode,
        "prompt_tokens": 9,
        "decode_tokens": 4,
        "prefill_tokens_per_s": 100.0,
        "decode_tokens_per_s": rate,
        "tokens": tokens,
    }


def test_bytes_per_token() -> None:
    # Steps at positions 9..12 read 10..13 cached positions: 11.5 on average.
    assert report.bytes_per_token(MODEL, row("wgx", "fp32", "m", 1.0, [])) == 4 * (1e9 + 1000 * 11.5)
    assert report.bytes_per_token(MODEL, row("pytorch", "bf16", "m", 1.0, [])) == 2 * (1e9 + 1000 * 11.5)


def test_agreement_counts_the_leading_tokens() -> None:
    assert report.agreement(row("wgx", "fp16", "m", 1.0, [1, 2, 9, 4]), [1, 2, 3, 4]) == "2/4"
    assert report.agreement(row("wgx", "fp32", "m", 1.0, [1, 2]), [1, 2, 3]) == "2/2"
    assert report.agreement(row("wgx", "fp32", "m", 1.0, [1]), None) == "–"


def test_table_shows_the_share_of_copy_bandwidth_and_failures() -> None:
    copy = {"kind": "copy", "device": "gpu", "gb_per_s": 4000.0, "bytes_copied": 2**32, "ms": 2.0}
    records = [
        MODEL,
        copy,
        row("pytorch", "fp32", "eager", 100.0, [1, 2, 3]),
        row("wgx", "fp16", "force16.pte", 1000.0, [1, 5, 3]),
        {"kind": "result", "engine": "pytorch", "precision": "fp16", "mode": "compile", "error": "E: no\nmore"},
        {"kind": "note", "text": "a note"},
    ]
    md = report.table(records)
    wgx = next(line for line in md.splitlines() if line.startswith("| wgx |"))
    # 2 bytes x (1e9 + 11500) elements x 1000 tok/s = 2000 GB/s, half of the copy's 4000.
    assert "| 2000 | 50% | 1/3 |" in wgx, wgx
    assert "- pytorch fp16 compile: E: no" in md, md
    assert "- a note" in md, md


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
