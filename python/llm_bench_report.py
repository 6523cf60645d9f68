"""The LLM benchmark's JSON lines (scripts/device-llm-bench.sh) as a markdown table.

Bytes per decode token = the weights a step reads (all but the embedding table, from the "model"
line) + the K and V cache read up to the step's position (its mean over the decode), at the
row's element size. Decode GB/s is that times decode tok/s; "% of copy" compares it with the
device-to-device copy (bytes read + written per second), the memory ceiling of the machine.
"same tokens" counts the leading greedy tokens equal to PyTorch fp32 eager's: different
engines agree on a model only while no two logits are within rounding of each other.

Usage: python llm_bench_report.py RESULTS.jsonl [--out report.md]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

# Bytes of an activation and cache element; the 4-bit programs compute and cache in float32.
ELEMENT_BYTES = {"fp32": 4, "tf32": 4, "fp16": 2, "bf16": 2, "8da4w": 4, "4w": 4}
# Bytes of a weight where they differ: 4 bits and a float32 scale per group of 32.
WEIGHT_BYTES = {"8da4w": 0.5 + 4 / 32, "4w": 0.5 + 4 / 32}


def bytes_per_token(model: dict, row: dict) -> float:
    size = ELEMENT_BYTES[row["precision"]]
    weight = WEIGHT_BYTES.get(row["precision"], size)
    # The step at position p reads p + 1 cached positions; the decode runs from the prompt's end.
    cached = row["prompt_tokens"] + (row["decode_tokens"] + 1) / 2
    return weight * model["weights_read_per_token"] + size * model["kv_per_position"] * cached


def count(n: float) -> str:
    return f"{n / 1e9:.3f} B" if n >= 1e9 else f"{n / 1e6:.3f} M"


def num(x: float) -> str:
    """Three significant digits without exponents for the sizes seen here (0.01 to 10,000)."""
    return f"{x:.0f}" if x >= 100 else f"{x:.3g}"


def agreement(row: dict, reference: list[int] | None) -> str:
    tokens = row.get("tokens")
    if not tokens or not reference:
        return "–"
    same = next((i for i, (a, b) in enumerate(zip(tokens, reference)) if a != b), min(len(tokens), len(reference)))
    return f"{same}/{min(len(tokens), len(reference))}"


def torch_attention_note(model: dict, row: dict) -> str:
    """What PyTorch's step moves beyond the counted bytes: the model class reads the whole cache
    and writes, then reads, K and V expanded to every query head (repeat_interleave)."""
    p, context = model["params"], row["max_context_len"]
    cache = model["kv_per_position"] * context * ELEMENT_BYTES[row["precision"]]
    expanded = 2 * cache * p["n_heads"] // p["n_kv_heads"]
    return (
        f"PyTorch's attention ({row['precision']}) reads all {context} cached positions and writes and "
        f"reads them expanded to every head: {(cache + expanded) / 1e9:.2f} GB a step beyond the bytes counted."
    )


def profile_tables(records: list[dict]) -> list[str]:
    """One decode step of each profiled wgx run, its GPU time summed by op kind."""

    def readback(r: dict) -> str:
        if "decode_step_with_logits_ms" not in r:
            return ""
        host = ""
        if "decode_step_host_ms" in r:
            host = f" ({r['decode_step_host_ms']:.3f} ms on the host before the wait)"
        if "decode_step_pipelined_ms" in r:
            host += f"; {r['decode_step_pipelined_ms']:.3f} ms a step submitted back to back"
        if "decode_step_host_phases_ms" in r:
            phases = ", ".join(f"{k} {v:.3f}" for k, v in r["decode_step_host_phases_ms"].items())
            host += f"; host phases (ms): {phases}"
        read, sample = r["decode_step_with_logits_ms"], r["sample_ms"]
        return f"{host}; with its logits read back {read:.3f} ms, sampling {sample:.3f} ms"

    def kind_rows(kinds: list[dict]) -> list[str]:
        rows = [
            "",
            "| op | calls | dispatches | GPU ms | share | kernels |",
            "| --- | ---: | ---: | ---: | ---: | --- |",
        ]
        for k in kinds[:14]:
            rows.append(
                f"| {k['op']} | {k['calls']} | {k['dispatches']} | {k['ms']:.3f} | {100 * k['share']:.1f}% "
                f"| {', '.join(k['kernels'])} |"
            )
        rest = kinds[14:]
        if rest:
            rows.append(
                f"| {len(rest)} other kinds | {sum(k['calls'] for k in rest)} | {sum(k['dispatches'] for k in rest)} "
                f"| {sum(k['ms'] for k in rest):.3f} | {100 * sum(k['share'] for k in rest):.1f}% | |"
            )
        return rows

    lines = []
    for r in records:
        kinds = r.get("profile", {}).get("by_kind") if r.get("kind") == "result" else None
        if not kinds:
            continue
        prof = r["profile"]
        lines += [
            "",
            f"Decode step of wgx {r['precision']} {r['mode']}: {r['decode_step_ms']:.3f} ms wall (median of "
            f"{prof.get('runs', '?')}){readback(r)}, {prof['gpu_sum_ms']:.3f} ms GPU time summed over "
            f"{prof['dispatches']} dispatches:",
            *kind_rows(kinds),
        ]
        pre = r.get("prefill_profile")
        if pre:
            lines += [
                "",
                f"Prefill chunk of {r['prefill_chunk_tokens']} tokens, wgx {r['precision']} {r['mode']}: "
                f"{r['prefill_chunk_ms']:.3f} ms wall, {pre['gpu_sum_ms']:.3f} ms GPU time summed over "
                f"{pre['dispatches']} dispatches:",
                *kind_rows(pre["by_kind"]),
            ]
    return lines


def greedy(r: dict) -> str:
    text = f"equal to PyTorch fp32's: {r['greedy_same']}/{r['greedy_of']}"
    if r["greedy_same"] < r["greedy_of"]:
        text += f" (the first difference where the fp64 top-2 margin is {r['margin_at_first_difference']:.3g})"
    return text


def check_lines(records: list[dict]) -> list[str]:
    """python/check_llm_real.py's lines: our logits against PyTorch fp64, teacher-forced."""
    lines = []
    for r in records:
        if r.get("kind") != "check":
            continue
        if "error" in r:
            lines.append(f"- check {r.get('program')}: {r['error'].splitlines()[0][:300]}")
        elif r["phase"] == "reference":
            lines.append(
                f"- check reference ({r['device']}): prompt {r['prompt_tokens']} + {r['new_tokens']} PyTorch fp32 "
                f"greedy tokens; PyTorch's own worst row against fp64: fp32 {r['torch_fp32_vs_fp64_max_rel_l2']:.2e}, "
                f"fp16 {r['torch_fp16_vs_fp64_max_rel_l2']:.2e}; smallest fp64 top-2 margin {r['min_top2_margin']:.3g}."
            )
        elif r["phase"] == "greedy":
            lines.append(f"- check {r['program']} ({r['precision']}): free-running greedy tokens {greedy(r)}.")
        else:
            free = f"; free-running greedy tokens {greedy(r)}" if "greedy_same" in r else ""
            lines.append(
                f"- check {r['program']} ({r['pte']} {' '.join(r['flags'])}): {r['rows_within']}/{r['rows']} "
                f"teacher-forced rows within the {r['precision']} threshold, worst relative L2 {r['max_rel_l2']:.2e} "
                f"(row {r['worst_row']}, limit {r['worst_row_limit']:.2e}); argmax = PyTorch's token at "
                f"{r['argmax_hits']}/{r['rows']}{free}."
            )
    return lines


def table(records: list[dict]) -> str:
    model = next((r for r in records if r.get("kind") == "model"), None)
    copy = next((r for r in reversed(records) if r.get("kind") == "copy"), None)
    results = [r for r in records if r.get("kind") == "result"]
    done = [r for r in results if "decode_tokens_per_s" in r]
    reference = next(
        (r["tokens"] for r in done if (r["engine"], r["precision"], r["mode"]) == ("pytorch", "fp32", "eager")), None
    )
    lines = []
    if model:
        p = model["params"]
        lines.append(
            f"Model: {model['size']} (dim {p['dim']}, {p['n_layers']} layers, {p['n_heads']}/{p['n_kv_heads']} "
            f"heads, vocab {p['vocab_size']}), {count(model['parameters'])} parameters, "
            f"{count(model['weights_read_per_token'])} read per decode step (and "
            f"{model['kv_per_position']} cache elements per position)."
        )
    if copy:
        lines.append(
            f"Copy bandwidth ({copy['device']}): {copy['gb_per_s']:.0f} GB/s read + written "
            f"({copy['bytes_copied'] / 2**30:.2f} GiB copied in {copy['ms']:.3f} ms)."
        )
    devices = {(r["engine"], r.get("device")) for r in done}
    lines += [f"{engine} ran on {device}." for engine, device in sorted(devices, key=str) if device]
    lines += [
        "",
        "| engine | precision | mode | prompt | prefill tok/s | decode tok/s | ms / token | decode GB/s "
        "| % of copy | same tokens |",
        "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in done:
        rate = r["decode_tokens_per_s"]
        mode = r["mode"]
        if r.get("cudagraph_skips"):
            mode += f" ({r['cudagraph_skips']} graphs not captured)"
        gbs = bytes_per_token(model, r) * rate / 1e9 if model else None
        share = f"{num(100 * gbs / copy['gb_per_s'])}%" if gbs and copy else "–"
        lines.append(
            f"| {r['engine']} | {r['precision']} | {mode} | {r['prompt_tokens']} "
            f"| {r['prefill_tokens_per_s']:.0f} | {rate:.1f} | {1e3 / rate:.2f} "
            f"| {num(gbs) if gbs is not None else '–'} | {share} | {agreement(r, reference)} |"
        )
    failed = [r for r in results if "decode_tokens_per_s" not in r]
    notes = [r["text"] for r in records if r.get("kind") == "note"]
    if failed or notes or done:
        lines.append("")
    for r in failed:
        why = r.get("error") or r.get("skipped") or "no result"
        lines.append(f"- {r['engine']} {r['precision']} {r['mode']}: {why.splitlines()[0][:300]}")
    lines += [f"- {text}" for text in notes]
    seen = set()
    for r in done:
        if model and r["engine"] == "pytorch" and "max_context_len" in r and ELEMENT_BYTES[r["precision"]] not in seen:
            seen.add(ELEMENT_BYTES[r["precision"]])
            lines.append(f"- {torch_attention_note(model, r)}")
    lines += check_lines(records)
    lines += profile_tables(records)
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    records = [json.loads(line) for line in args.results.read_text().splitlines() if line.strip()]
    text = table(records)
    sys.stdout.write(text)
    if args.out:
        args.out.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
