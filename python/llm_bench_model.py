"""The inputs of the LLM benchmark (scripts/device-llm-bench.sh): Llama 3.2 1B's shapes, seeded weights.

Writes, into DIR:
  params.json   the configuration, as ExecuTorch's export_llama reads it (--params)
  ckpt.pth      seeded random weights (--checkpoint); the PyTorch peer loads the same file
  prompt.txt    seeded prompt token ids, "3,1,4,..." (wgx generate --prompt-tokens)
and prints one JSON line (kind "model") with the element counts a decode step must read, from
which python/llm_bench_report.py computes bytes per token for each precision.

Usage: python llm_bench_model.py DIR [--small] [--vocab V] [--prompt-tokens N] [--seed S] [--reuse]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import torch

from export_llm import FAMILIES

# Llama-3.2-1B as its params.json gives it. rope_scale_factor is written because export_llama
# sets 32 for --model llama3_2 whatever the file says, and the PyTorch peer must build that rope.
FULL = {
    "dim": 2048,
    "ffn_dim_multiplier": 1.5,
    "multiple_of": 256,
    "n_heads": 32,
    "n_kv_heads": 8,
    "n_layers": 16,
    "norm_eps": 1e-05,
    "rope_theta": 500000.0,
    "use_scaled_rope": True,
    "rope_scale_factor": 32,
    "vocab_size": 128256,
}

# The same architecture at the test fixture's dims, for a run on a CPU.
SMALL = dict(FAMILIES["llama3_2"]["params"])


def build(params: dict, max_seq_len: int, max_context_len: int, kv_cache: bool, device="cpu"):
    """ExecuTorch's own model class, as export_llama builds it (static KV cache in buffers)."""
    from executorch.examples.models.llama.llama_transformer import construct_transformer
    from executorch.examples.models.llama.model_args import ModelArgs

    args = ModelArgs(**params, max_seq_len=max_seq_len, max_context_len=max_context_len)
    args.use_kv_cache = kv_cache
    # Initialised where it will run: a CPU init of 1.2 B parameters alone takes many seconds.
    with torch.device(device):
        model = construct_transformer(args)
    # Some buffers (caches, mask) are made on the CPU explicitly; move them along.
    return model.to(device).eval()


def random_weights(model: torch.nn.Module, seed: int) -> dict:
    torch.manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "norm" in name:
                p.fill_(1.0)
            else:
                # 1/sqrt(fan-in) keeps activations near unit scale through all layers, so the
                # float16 runs see no overflow and their timings are of finite arithmetic.
                p.normal_(0.0, p.shape[-1] ** -0.5)
    return model.state_dict()


def read_counts(model: torch.nn.Module, params: dict) -> dict:
    """Elements one decode step reads: every weight but the embedding table (one row of it)."""
    total = sum(p.numel() for p in model.parameters())
    embedding = model.tok_embeddings.weight.numel()
    head_dim = params.get("head_dim") or params["dim"] // params["n_heads"]
    return {
        "parameters": total,
        "embedding": embedding,
        "weights_read_per_token": total - embedding + params["dim"],
        # K and V of every layer, per cached position.
        "kv_per_position": 2 * params["n_layers"] * params["n_kv_heads"] * head_dim,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir", type=Path)
    parser.add_argument("--small", action="store_true", help="the fixture's tiny dims")
    parser.add_argument("--vocab", type=int, help="another vocabulary size (the 4-bit export needs a multiple of 8)")
    parser.add_argument("--prompt-tokens", type=int, default=127)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--reuse", action="store_true", help="keep the files if DIR has them for these args")
    args = parser.parse_args()
    params = dict(SMALL if args.small else FULL)
    if args.vocab:
        params["vocab_size"] = args.vocab
    args.dir.mkdir(parents=True, exist_ok=True)
    stamp = json.dumps({"params": params, "seed": args.seed, "prompt_tokens": args.prompt_tokens})
    stamp_file = args.dir / "inputs.json"
    # Without a KV cache, so the checkpoint holds the weights alone (as export_llm.py writes it);
    # made on the meta device, which also gives the counts without any memory.
    model = build(params, 128, 128, kv_cache=False, device="meta")
    kept = args.reuse and stamp_file.is_file() and stamp_file.read_text() == stamp
    if not kept:
        stamp_file.unlink(missing_ok=True)
        (args.dir / "params.json").write_text(json.dumps(params, indent=1) + "\n")
        # Filled once on the CPU, skipping PyTorch's own (slow, unused) initialisation.
        weights = random_weights(model.to_empty(device="cpu"), args.seed)
        torch.save(weights, args.dir / "ckpt.pth")
        generator = torch.Generator().manual_seed(args.seed)
        prompt = torch.randint(0, params["vocab_size"], (args.prompt_tokens,), generator=generator)
        (args.dir / "prompt.txt").write_text(",".join(str(int(t)) for t in prompt) + "\n")
        # Written last: its presence says the three files above are complete.
        stamp_file.write_text(stamp)
    record = {"kind": "model", "size": "small" if args.small else "full", "params": params, "reused": kept}
    print(json.dumps({**record, **read_counts(model, params)}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
