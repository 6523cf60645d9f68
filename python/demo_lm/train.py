"""Train the demo LM: a small Llama built by ExecuTorch's own model code, on token ids.

The model is `construct_transformer(ModelArgs(...))` from the executorch wheel, the class that
`export_llama` rebuilds from params.json, so the state_dict saved here is a valid --checkpoint
for it. Training: random 256-token windows of the train stream, AdamW, a linear warm-up then a
cosine decay over the time budget (`--minutes`, which the loop keeps to whatever the speed of
the machine), bf16 autocast on CUDA, fp32 on the CPU.

At the end it measures, on the held-out streams, the model's perplexity and that of a unigram
model fitted on the train stream (add-one smoothed), over the same predicted tokens, and writes
into --out: checkpoint.pth (fp32 state_dict), params.json (for export_llama) and report.json.

Usage (needs only torch, numpy and executorch's pure-Python model code):
  python python/demo_lm/train.py --data .device/demo_lm --out OUT --minutes 5
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

ROOT = Path(__file__).resolve().parents[2]
CONTEXT = 256
PTE_LIMIT = 4_000_000  # bytes: the exported fp32 .pte must stay under this


def model_params(args: argparse.Namespace, vocab_size: int) -> dict:
    """params.json as export_llama reads it (ModelArgs fields). No scaled rope: the exporter
    would force llama3_2's factor of 32 on a scaled one (python/export_llm.py)."""
    return {
        "dim": args.dim,
        "n_layers": args.layers,
        "n_heads": args.heads,
        "n_kv_heads": args.kv_heads,
        "hidden_dim": args.hidden,
        "vocab_size": vocab_size,
        "norm_eps": 1e-5,
        "rope_theta": 10000.0,
        "use_scaled_rope": False,
    }


def build_model(params: dict, data: Path):
    try:
        import executorch.examples.models.llama.llama_transformer  # noqa: F401
    except ImportError:
        # A machine without executorch: the copy of its model code that carry_model_code.py
        # left beside the token ids.
        sys.path.insert(0, str(data / "model_code"))
        for name in [m for m in sys.modules if m == "executorch" or m.startswith("executorch.")]:
            del sys.modules[name]
    from executorch.examples.models.llama.llama_transformer import construct_transformer
    from executorch.examples.models.llama.model_args import ModelArgs

    args = ModelArgs(max_seq_len=CONTEXT, max_context_len=CONTEXT, **params)
    args.use_kv_cache = False
    args.generate_full_logits = True  # training needs the logits of every position
    return construct_transformer(args)


def init_weights(model: torch.nn.Module, n_layers: int) -> None:
    """GPT-2's initialisation: the constructor's (PyTorch defaults, N(0, 1) embeddings) trains
    poorly from scratch. Projections back into the residual stream are scaled by depth."""
    with torch.no_grad():
        for name, p in model.named_parameters():
            if p.dim() < 2:
                continue  # norm weights stay 1
            std = 0.02 / math.sqrt(2 * n_layers) if name.endswith(("wo.weight", "w2.weight")) else 0.02
            p.normal_(0.0, std)


def estimated_pte_bytes(params: dict, n_params: int) -> int:
    """fp32 weights plus the KV caches, which a Vulkan export stores as zero constants."""
    head_dim = params["dim"] // params["n_heads"]
    kv = params["n_layers"] * 2 * CONTEXT * params["n_kv_heads"] * head_dim * 4
    # Measured: 3,792,000 bytes for 918,144 parameters (dim 128, 2 layers, 2 KV heads), which is
    # 4 bytes a parameter plus 119 KB; this estimate allows the caches in full, so it errs high.
    return 4 * n_params + kv + 64_000


def windows(ids: torch.Tensor, starts: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    rows = ids[starts[:, None] + torch.arange(CONTEXT + 1, device=ids.device)]
    return rows[:, :-1], rows[:, 1:]


def lr_at(progress: float, peak: float, warmup: float, floor: float) -> float:
    if progress < warmup:
        return peak * progress / warmup
    p = min(1.0, (progress - warmup) / (1.0 - warmup))
    return peak * (floor + (1.0 - floor) * 0.5 * (1.0 + math.cos(math.pi * p)))


def tiling(ids: torch.Tensor, limit: int | None = None) -> torch.Tensor:
    """Starts of non-overlapping windows that cover a held-out stream."""
    starts = torch.arange(0, ids.numel() - CONTEXT - 1, CONTEXT, device=ids.device)
    return starts if limit is None else starts[:limit]


@torch.no_grad()
def evaluate(model, ids: torch.Tensor, starts: torch.Tensor, log_unigram: torch.Tensor, batch: int) -> dict:
    """Perplexities over the windows at `starts`: every token but the first of a window is
    predicted from the ones before it in the window; the unigram model is scored on exactly
    those targets."""
    model.eval()
    nll, uni, count = 0.0, 0.0, 0
    for i in range(0, starts.numel(), batch):
        x, y = windows(ids, starts[i : i + batch])
        with autocast(ids.device):
            logits = model(x)
        nll += F.cross_entropy(logits.float().reshape(-1, logits.shape[-1]), y.reshape(-1), reduction="sum").item()
        uni += -log_unigram[y].sum().item()
        count += y.numel()
    model.train()
    return {"tokens": count, "ppl": math.exp(nll / count), "unigram_ppl": math.exp(uni / count)}


def autocast(device: torch.device):
    if device.type == "cuda":
        return torch.autocast("cuda", dtype=torch.bfloat16)
    return torch.autocast("cpu", enabled=False)


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", type=Path, default=ROOT / ".device/demo_lm", help="encode_corpus.py's output")
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--minutes", type=float, default=5.0, help="time budget of the training loop")
    p.add_argument("--dim", type=int, default=128)
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--kv-heads", type=int, default=2)
    p.add_argument("--hidden", type=int, default=384, help="SwiGLU hidden size")
    p.add_argument("--batch", type=int, default=0, help="sequences per step (0: 128 on CUDA, 8 on the CPU)")
    p.add_argument("--lr", type=float, default=4e-3)
    p.add_argument("--warmup", type=float, default=0.03, help="fraction of the budget")
    p.add_argument("--lr-floor", type=float, default=0.1, help="final learning rate, relative to --lr")
    p.add_argument("--weight-decay", type=float, default=0.1)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--device", default="auto", help="auto, cuda or cpu")
    p.add_argument("--threads", type=int, default=1, help="CPU threads (the CPU run shares a small machine)")
    p.add_argument("--compile", choices=("auto", "on", "off"), default="auto", help="torch.compile (auto: on CUDA)")
    return p.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    t_start = time.monotonic()
    budget = args.minutes * 60.0
    if args.device == "auto":
        args.device = "cuda" if torch.cuda.is_available() else "cpu"
    device = torch.device(args.device)
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True
    batch = args.batch or (128 if device.type == "cuda" else 8)

    corpus = json.loads((args.data / "corpus.json").read_text())
    vocab = corpus["vocab_size"]
    train_ids = torch.from_numpy(np.load(args.data / "train.npy").astype(np.int64)).to(device)
    heldout = {
        name: torch.from_numpy(np.load(args.data / f"{name}.npy").astype(np.int64)).to(device)
        for name in ("heldout", "heldout_chat")
    }
    counts = torch.bincount(train_ids, minlength=vocab).double() + 1.0  # add-one smoothing
    log_unigram = (counts / counts.sum()).log()

    params = model_params(args, vocab)
    model = build_model(params, args.data)
    init_weights(model, args.layers)
    model.to(device).train()
    n_params = sum(p.numel() for p in model.parameters())
    size = estimated_pte_bytes(params, n_params)
    print(f"[train] {n_params} parameters, .pte at most {size / 1e6:.2f} MB; device {device}; batch {batch}x{CONTEXT}")
    if size > PTE_LIMIT:
        sys.exit(f"[train] the export would be about {size} bytes, over {PTE_LIMIT}: make the model smaller")

    decay = [p for p in model.parameters() if p.dim() >= 2]
    no_decay = [p for p in model.parameters() if p.dim() < 2]
    optimizer = torch.optim.AdamW(
        [{"params": decay, "weight_decay": args.weight_decay}, {"params": no_decay, "weight_decay": 0.0}],
        lr=args.lr,
        betas=(0.9, 0.95),
        fused=device.type == "cuda",
    )
    step_model = model
    if args.compile == "on" or (args.compile == "auto" and device.type == "cuda"):
        step_model = torch.compile(model)
    generator = torch.Generator(device=device).manual_seed(args.seed)

    def train_step(lr: float) -> torch.Tensor:
        for group in optimizer.param_groups:
            group["lr"] = lr
        starts = torch.randint(0, train_ids.numel() - CONTEXT - 1, (batch,), device=device, generator=generator)
        x, y = windows(train_ids, starts)
        with autocast(device):
            logits = step_model(x)
        loss = F.cross_entropy(logits.float().reshape(-1, vocab), y.reshape(-1))
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        return loss.detach()

    # The first step compiles (on CUDA); the schedule runs over the time that is left after it.
    try:
        loss = train_step(0.0)
    except Exception as e:  # a compiler that fails here must not cost the run
        if step_model is model:
            raise
        print(f"[train] torch.compile failed ({type(e).__name__}: {e}); going on without it")
        step_model = model
        loss = train_step(0.0)
    float(loss)
    t_loop = time.monotonic()
    # A compiler slower than the budget still leaves half a minute of training.
    loop_budget = max(budget - (t_loop - t_start), 30.0)
    print(f"[train] first step after {t_loop - t_start:.1f} s; {loop_budget:.0f} s left for training")

    history, evals = [], []
    step, seen, interval_loss, interval_steps = 0, 0, torch.zeros((), device=device), 0
    next_print, next_eval = t_loop + 5.0, t_loop + loop_budget / 10
    t_print, seen_print = t_loop, 0
    while True:
        now = time.monotonic()
        progress = (now - t_loop) / loop_budget
        if progress >= 1.0:
            break
        lr = lr_at(progress, args.lr, args.warmup, args.lr_floor)
        interval_loss += train_step(lr)
        interval_steps += 1
        step += 1
        seen += batch * CONTEXT
        if now >= next_print:
            mean = float(interval_loss) / interval_steps
            rate = (seen - seen_print) / (time.monotonic() - t_print)
            print(
                f"step {step:6d} | loss {mean:.4f} | lr {lr:.2e} | {rate / 1e3:8.1f}k tok/s | "
                f"{time.monotonic() - t_start:6.1f} s",
                flush=True,
            )
            history.append({"step": step, "seconds": round(now - t_start, 2), "loss": round(mean, 4)})
            interval_loss.zero_()
            interval_steps, t_print, seen_print = 0, time.monotonic(), seen
            next_print = now + (5.0 if device.type == "cpu" else 10.0)
        if now >= next_eval:
            ids = heldout["heldout"]
            r = evaluate(model, ids, tiling(ids, limit=64), log_unigram, batch)
            evals.append({"step": step, "seconds": round(now - t_start, 2), "heldout_ppl_subset": round(r["ppl"], 3)})
            print(f"[eval] step {step}: held-out perplexity {r['ppl']:.2f} (first {r['tokens']} tokens)", flush=True)
            next_eval = now + loop_budget / 10
    train_seconds = time.monotonic() - t_start

    results = {name: evaluate(model, ids, tiling(ids), log_unigram, batch) for name, ids in heldout.items()}
    # The same measure on windows of the train stream, to show how far training overfits.
    sample = torch.randint(0, train_ids.numel() - CONTEXT - 1, (256,), device=device, generator=generator)
    results["train_sample"] = evaluate(model, train_ids, sample, log_unigram, batch)
    for name, r in results.items():
        print(f"[result] {name}: perplexity {r['ppl']:.2f}, unigram {r['unigram_ppl']:.2f} over {r['tokens']} tokens")
    ratio = results["heldout"]["ppl"] / results["heldout"]["unigram_ppl"]
    print(f"[result] held-out perplexity / unigram perplexity = {ratio:.3f} (the target is at most 0.5)")

    args.out.mkdir(parents=True, exist_ok=True)
    state = {k: v.detach().float().cpu() for k, v in model.state_dict().items()}
    torch.save(state, args.out / "checkpoint.pth")
    (args.out / "params.json").write_text(json.dumps(params, indent=1) + "\n")
    report = {
        "params": params,
        "parameters": n_params,
        "estimated_pte_bytes": size,
        "context": CONTEXT,
        "batch": batch,
        "steps": step,
        "tokens_seen": seen,
        "epochs": round(seen / train_ids.numel(), 2),
        "train_seconds": round(train_seconds, 1),
        "tokens_per_second": round(seen / (train_seconds - (t_loop - t_start)), 1),
        "lr": args.lr,
        "warmup": args.warmup,
        "lr_floor": args.lr_floor,
        "weight_decay": args.weight_decay,
        "seed": args.seed,
        "device": torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu",
        "compiled": step_model is not model,
        "torch": torch.__version__,
        "command": " ".join(sys.argv),
        "results": results,
        "heldout_ppl_over_unigram": round(ratio, 4),
        "corpus": corpus,
        "history": history,
        "evals": evals,
    }
    (args.out / "report.json").write_text(json.dumps(report, indent=1) + "\n")
    print(f"[train] wrote checkpoint.pth, params.json, report.json to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
