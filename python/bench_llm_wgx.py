"""Our engine's side of the LLM benchmark: `wgx generate --json` on an export_llama .pte, repeated.

Each run is a fresh process (load, upload, then --warmup rounds of a prefill and a decode step,
forgotten, then the timed prefill and decode), so with the default of one warm-up its prefill
rate leaves out the program's first recording; decode_tokens_per_s covers the decode steps after
the first token.
Reports the medians over --repeats runs (fewer where another would pass --time-limit) as one
JSON line (the kind "result" of bench_llm_torch.py, engine "wgx"). With --profile-runs K the
first run also times one more decode step K times (`--profile`): its median wall time and the
GPU time of the slowest ops and of every op kind (by_kind), outside the rates.

Usage: python bench_llm_wgx.py --wgx BIN --pte MODEL.pte --prompt prompt.txt --precision fp32
           --mode vulkan [--f16] [--new-tokens 128] [--repeats 3] [--profile-runs 20]
           [--time-limit S] [--device NAME] [--out F]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

RATES = ("prefill_tokens_per_s", "decode_tokens_per_s", "time_to_first_token_ms")


def generate(args, prompt: str, profile: bool, timeout: float) -> dict:
    command = [str(args.wgx), "generate", str(args.pte), "--prompt-tokens", prompt]
    command += ["--max-new-tokens", str(args.new_tokens), "--warmup", str(args.warmup), "--json"]
    if args.f16:
        command.append("--f16")
    if profile:
        command += ["--profile", "--profile-runs", str(args.profile_runs)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        raise RuntimeError(f"wgx exited {done.returncode}: {done.stderr.strip()[-1500:]}")
    # The JSON object is the last line of stdout (wgpu may log before it).
    return json.loads(done.stdout.strip().splitlines()[-1])


def by_kind(ops: list[dict]) -> list[dict]:
    """The profile's rows summed over the calls of each op ("#735 aten.linear.default" and its
    siblings), slowest first, with each kind's share of the step's GPU time."""
    kinds: dict[str, dict] = {}
    for row in ops:
        name = row["op"].split(" ", 1)[-1] if row["op"].startswith("#") else row["op"]
        kind = kinds.setdefault(name, {"op": name, "calls": 0, "dispatches": 0, "ms": 0.0, "kernels": set()})
        kind["calls"] += 1
        kind["dispatches"] += row.get("dispatches", 0)
        kind["ms"] += row["ms"]
        kind["kernels"].update(k.strip() for k in row.get("kernels", "").split(",") if k.strip())
    total = sum(k["ms"] for k in kinds.values()) or 1.0
    out = sorted(kinds.values(), key=lambda k: -k["ms"])
    for k in out:
        k["share"] = k["ms"] / total
        k["kernels"] = sorted(k["kernels"])
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wgx", type=Path, required=True)
    parser.add_argument("--pte", type=Path, required=True)
    parser.add_argument("--prompt", type=Path, required=True, help="comma-separated token ids")
    parser.add_argument("--precision", required=True)
    parser.add_argument("--mode", required=True, help="a label for the report")
    parser.add_argument("--f16", action="store_true", help="wgx generate --f16")
    parser.add_argument("--new-tokens", type=int, default=128)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--warmup", type=int, default=1, help="wgx generate --warmup: rounds before the timed one")
    parser.add_argument("--profile-runs", type=int, default=0)
    parser.add_argument("--check-tokens", type=int, default=16, help="greedy tokens recorded")
    parser.add_argument("--time-limit", type=float, default=600, help="seconds for all runs")
    parser.add_argument("--device", help="the adapter's name, for the record")
    parser.add_argument("--out", type=Path, help="also append the JSON line here")
    args = parser.parse_args()
    prompt = args.prompt.read_text().strip()
    record = {"engine": "wgx", "device": args.device, "kind": "result", "precision": args.precision}
    record["mode"] = args.mode
    status = 0
    start = time.monotonic()
    try:
        runs = []
        for i in range(args.repeats):
            elapsed = time.monotonic() - start
            if runs and elapsed + elapsed / len(runs) > args.time_limit:
                break  # one more run, as long as those before, would not end in time
            # The first run also profiles: after its timed generation, so its rates stay as
            # the others', and it is the one run sure to be made.
            try:
                runs.append(generate(args, prompt, args.profile_runs > 0 and i == 0, args.time_limit - elapsed))
            except subprocess.TimeoutExpired:
                if not runs:
                    raise
                break
        record["repeats"] = len(runs)
        record["prompt_tokens"] = len(runs[0]["prompt_tokens"])
        record["decode_tokens"] = len(runs[0]["tokens"]) - 1
        for key in RATES:
            record[key] = statistics.median(r[key] for r in runs)
            record[key + "_runs"] = [r[key] for r in runs]
        record["tokens"] = runs[0]["tokens"][: args.check_tokens]
        first = runs[0]
        # The engine's own account of its GPU buffers (absent from older builds).
        if "gpu_allocated_bytes" in first:
            record["gpu_allocated_bytes"] = first["gpu_allocated_bytes"]
        if "decode_step_ms" in first:
            profile = first["decode_profile"]
            record["decode_step_ms"] = first["decode_step_ms"]
            # The step with its logits read back, and the sampling (absent from older builds).
            for key in (
                "decode_step_host_ms",
                "decode_step_pipelined_ms",
                "decode_step_host_phases_ms",
                "decode_step_with_logits_ms",
                "sample_ms",
            ):
                if key in first:
                    record[key] = first[key]
            record["profile"] = {k: v for k, v in profile.items() if k != "ops"}
            record["profile"]["top_ops"] = profile["ops"][:12]
            record["profile"]["by_kind"] = by_kind(profile["ops"])
            if "prefill_profile" in first:  # one prefill chunk (absent from older builds)
                pre = first["prefill_profile"]
                record["prefill_chunk_tokens"] = first["prefill_chunk_tokens"]
                record["prefill_chunk_ms"] = first["prefill_chunk_ms"]
                record["prefill_profile"] = {k: v for k, v in pre.items() if k != "ops"}
                record["prefill_profile"]["by_kind"] = by_kind(pre["ops"])
    except (RuntimeError, subprocess.TimeoutExpired, ValueError, KeyError) as error:
        record["error"] = f"{type(error).__name__}: {error}"[:2000]
        status = 1
    line = json.dumps(record)
    print(line, flush=True)
    if args.out:
        with args.out.open("a") as f:
            f.write(line + "\n")
    return status


if __name__ == "__main__":
    sys.exit(main())
