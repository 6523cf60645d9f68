"""Our engine's logits on a real-size LLM export against PyTorch, teacher-forced and free-running.

Two phases, so that the reference can run on the GPU while the exports still take the CPU
(scripts/device-llm-bench.sh):

  reference  ExecuTorch's model class (as export_llama builds it, full logits, no KV cache) with
             the checkpoint's weights: PyTorch fp32's greedy continuation of prompt.txt by
             --new-tokens (TF32 off), then the whole sequence's logits in fp32, fp64 and fp16;
             the rows after the prompt go to WORK/reference.npz.
  compare    for each --program LABEL,PRECISION,PTE[,--f16]: `wgx score` over the same sequence
             (the prompt as one prefill, then one token at a time, as generation feeds them),
             each row's relative L2 against fp64 and its threshold: fp32 max(1e-4, 4 x PyTorch
             fp32's error on that row) (DESIGN section 6), float16 4 x max(2e-3, PyTorch fp16's
             error) (docs/LLM.md); and free-running greedy tokens against PyTorch fp32's, with
             the fp64 top-two margin where they first differ: those the benchmark's wgx runs
             made (--bench-results), or a `wgx generate` of each program (--free-running).

Each check gives one JSON line (kind "check"), printed and appended to --out as it is known.

Usage: python check_llm_real.py reference WORK [--new-tokens 48] [--out F]
       python check_llm_real.py compare WORK --wgx BIN --program fp32,fp32,WORK/fp32.pte
           [--program f16,fp16,WORK/fp32.pte,--f16] [--bench-results F] [--free-running]
           [--out F]
"""

from __future__ import annotations

import argparse
import copy
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def rel_l2(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """Per row."""
    return np.linalg.norm(got - want, axis=-1) / np.linalg.norm(want, axis=-1)


def reference(work: Path, new_tokens: int) -> dict:
    import torch

    from llm_bench_model import build

    params = json.loads((work / "params.json").read_text())
    prompt = [int(t) for t in (work / "prompt.txt").read_text().strip().split(",")]
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    device = "cuda" if torch.cuda.is_available() else "cpu"
    context = len(prompt) + new_tokens
    t0 = time.monotonic()
    model = build(params, context, context, kv_cache=False, device=device)
    model.generate_full_logits = True
    weights = torch.load(work / "ckpt.pth", map_location=device, weights_only=True)
    missing, unexpected = model.load_state_dict(weights, strict=False)
    if missing or unexpected:
        raise SystemExit(f"checkpoint does not fit the model: missing {missing[:5]}, unexpected {unexpected[:5]}")
    del weights

    def logits(m, tokens: list[int]) -> torch.Tensor:
        with torch.no_grad():
            out = m(torch.tensor([tokens], device=device))
        return out.reshape(len(tokens), -1) if out.dim() == 3 else out.reshape(1, -1)

    tokens = list(prompt)
    for _ in range(new_tokens):
        tokens.append(int(logits(model, tokens)[-1].argmax()))
    rows = slice(len(prompt) - 1, len(tokens) - 1)
    out = {"tokens": np.array(tokens, dtype=np.int64), "prompt_length": np.array(len(prompt))}
    out["fp32"] = logits(model, tokens)[rows].float().cpu().numpy()
    for name, dtype in (("fp16", torch.float16), ("fp64", torch.float64)):
        other = copy.deepcopy(model).to(dtype)
        out[name] = logits(other, tokens)[rows].double().cpu().numpy()
        del other
        torch.cuda.empty_cache() if device == "cuda" else None
    np.savez(work / "reference.npz", **out)
    top2 = np.sort(out["fp64"], axis=-1)[:, -2:]
    return {
        "kind": "check",
        "phase": "reference",
        "device": torch.cuda.get_device_name() if device == "cuda" else "cpu",
        "prompt_tokens": len(prompt),
        "new_tokens": new_tokens,
        "torch_fp32_vs_fp64_max_rel_l2": float(rel_l2(out["fp32"], out["fp64"]).max()),
        "torch_fp16_vs_fp64_max_rel_l2": float(rel_l2(out["fp16"], out["fp64"]).max()),
        "min_top2_margin": float((top2[:, 1] - top2[:, 0]).min()),
        "seconds": time.monotonic() - t0,
    }


def run_wgx(command: list[str]) -> dict:
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command[:3])} exited {done.returncode}: {done.stderr.strip()[-1500:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def compare(work: Path, wgx: str, spec: str, free_running: bool) -> dict:
    label, precision, pte, *flags = spec.split(",")
    ref = np.load(work / "reference.npz")
    tokens, p = ref["tokens"], int(ref["prompt_length"])
    want, torch32, torch16 = ref["fp64"], ref["fp32"], ref["fp16"]
    record = {"kind": "check", "phase": "compare", "program": label, "precision": precision, "pte": Path(pte).name}
    record["flags"] = flags
    with tempfile.TemporaryDirectory() as tmp:
        logits_file = Path(tmp) / "logits.npy"
        ids = ",".join(str(int(t)) for t in tokens)
        t0 = time.monotonic()
        score = run_wgx(
            [
                wgx,
                "score",
                pte,
                "--tokens",
                ids,
                "--prompt-length",
                str(p),
                "--logits-out",
                str(logits_file),
                "--json",
                *flags,
            ]
        )
        got = np.load(logits_file).astype(np.float64)
        record["score_seconds"] = time.monotonic() - t0
    if got.shape != want.shape:
        raise RuntimeError(f"wgx score gave logits {got.shape}, the reference {want.shape}")
    err = rel_l2(got, want)
    if precision == "fp32":
        limit = np.maximum(1e-4, 4 * rel_l2(torch32, want))
    else:
        limit = 4 * np.maximum(2e-3, rel_l2(torch16, want))
    worst = int(np.argmax(err / limit))
    record.update(
        rows=len(err),
        max_rel_l2=float(err.max()),
        worst_row=worst,
        worst_row_limit=float(limit[worst]),
        rows_within=int((err <= limit).sum()),
        passed=bool((err <= limit).all()),
        perplexity=score["perplexity"],
        argmax_hits=score["argmax_hits"],
    )
    if free_running:
        prompt = ",".join(map(str, tokens[:p]))
        command = [wgx, "generate", pte, "--prompt-tokens", prompt, "--max-new-tokens", str(len(err)), "--json"]
        record.update(greedy(run_wgx([*command, *flags])["tokens"], tokens, p, want))
    return record


def greedy(generated: list[int], tokens: np.ndarray, p: int, want: np.ndarray) -> dict:
    """How many free-running tokens equal PyTorch fp32's, and the fp64 top-two margin where they
    first differ (the sequences are equal before it, so the teacher-forced row applies)."""
    expected = [int(t) for t in tokens[p:]]
    n = min(len(generated), len(expected))
    same = next((i for i, (a, b) in enumerate(zip(generated, expected)) if a != b), n)
    out = {"greedy_same": same, "greedy_of": n}
    if same < n:
        top2 = np.sort(want[same])[-2:]
        out["margin_at_first_difference"] = float(top2[1] - top2[0])
    return out


def bench_tokens(work: Path, results: Path) -> list[dict]:
    """The greedy tokens that the benchmark's wgx runs generated (python/bench_llm_wgx.py
    --check-tokens) against the reference's: no process of their own."""
    ref = np.load(work / "reference.npz")
    out = []
    for line in results.read_text().splitlines():
        r = json.loads(line) if line.strip() else {}
        if r.get("kind") == "result" and r.get("engine") == "wgx" and r.get("tokens"):
            record = {"kind": "check", "phase": "greedy", "program": r["mode"], "precision": r["precision"]}
            out.append({**record, **greedy(r["tokens"], ref["tokens"], int(ref["prompt_length"]), ref["fp64"])})
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("phase", choices=["reference", "compare"])
    parser.add_argument("work", type=Path, help="params.json, ckpt.pth, prompt.txt (python/llm_bench_model.py)")
    parser.add_argument("--new-tokens", type=int, default=48)
    parser.add_argument("--wgx", default="build/wgx")
    parser.add_argument("--program", action="append", default=[], help="LABEL,PRECISION,PTE[,--f16]")
    parser.add_argument("--free-running", action="store_true", help="also `wgx generate` each program")
    parser.add_argument("--bench-results", type=Path, help="results.jsonl whose wgx runs' tokens to check")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    status = 0

    def emit(record: dict) -> None:
        # Each line as soon as it is known: a time limit may stop the programs after it.
        nonlocal status
        line = json.dumps(record)
        print(line, flush=True)
        if args.out:
            with args.out.open("a") as f:
                f.write(line + "\n")
        status |= "error" in record or record.get("passed") is False

    if args.phase == "reference":
        emit(reference(args.work, args.new_tokens))
        return status
    if not args.program and not args.bench_results:
        parser.error("compare needs a --program or --bench-results")
    if args.bench_results:
        for record in bench_tokens(args.work, args.bench_results):
            emit(record)
    for spec in args.program:
        try:
            emit(compare(args.work, args.wgx, spec, args.free_running))
        except (RuntimeError, subprocess.TimeoutExpired, OSError, ValueError) as error:
            emit({"kind": "check", "phase": "compare", "program": spec, "error": str(error)[:2000]})
    return status


if __name__ == "__main__":
    sys.exit(main())
