"""Export small decoder LLMs with ExecuTorch's own LLM exporter, with PyTorch goldens.

Each family is exported the way its users export it (`python -m
executorch.examples.models.llama.export_llama --model <family> -kv --use_sdpa_with_kv_cache
--vulkan ...`), at small dims with seeded random weights that we write as the exporter's
--checkpoint, so PyTorch eager can run the very same weights. Per family, in OUT/<name>/:

  model.pte        the exporter's output (Vulkan delegate, dynamic prompt length)
  plain.pte        the same without --vulkan (ExecuTorch's portable and llama:: kernels; its
                   KV cache a mutable buffer without initial contents)
  static.pte       --vulkan --disable_dynamic_shape: one token per run, the rope tables read
                   with aten.index.Tensor
  fp16.pte         (some families) plain.pte with -d fp16: weights, activations and logits
                   in float16 (the exporter refuses -d fp16 with --vulkan)
  force16.pte      (some families) --vulkan-force-fp16: float32 in and out, float16 inside
  logits16.npy     (with those) PyTorch eager's float16 logits on tokens.npy, whose error
                   against logits64 sets the fp16 programs' threshold
  params.json      the model's configuration as the exporter read it
  tokens.npy       int64 [T]: a seeded prompt, then eager fp32 greedy continuation
  logits.npy       float32 [T, vocab]: eager fp32 logits at every position of tokens
                   (teacher-forced: position t sees tokens[0..t])
  logits64.npy     the same computed in float64 (PyTorch's own rounding error)
  meta.json        prompt length, bounds, the export command, the smallest top-two margin;
                   for a family whose Vulkan export is wrong ("no_vulkan": the reason), only
                   plain.pte is exported and "skipped_programs" names model.pte and static.pte
                   with that reason, which the tests report when they skip them

Usage: python/.venv/bin/python python/export_llm.py --out tests/llm [--only llama3_2]
"""

from __future__ import annotations

import argparse
import copy
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import torch

# Small configurations of each family's architecture. Dims are kept tiny so each committed .pte
# stays well under 2 MB; head_dim, grouped-query ratio and a vocabulary that is not a multiple of
# 4 are chosen to exercise the kernels' edge cases.
FAMILIES = {
    "llama3_2": {
        "model": "llama3_2",
        "params": {
            "dim": 64,
            "ffn_dim_multiplier": 1.0,
            "multiple_of": 32,
            "n_heads": 4,
            "n_kv_heads": 2,
            "n_layers": 2,
            "norm_eps": 1e-05,
            "rope_theta": 500000.0,
            "use_scaled_rope": True,
            # The exporter sets 32 for llama3_2 whatever params.json says (model.py); written
            # here so that the eager reference builds the same rope.
            "rope_scale_factor": 32,
            "vocab_size": 509,
        },
        "max_seq_len": 64,
        "prompt_len": 7,
        "new_tokens": None,
        "seed": 1,
        "fp16": True,
    },
    # Qwen 2.5: biases on the q/k/v projections, Hugging Face rope (rotate-half), tied
    # embeddings, one kv head for four query heads.
    "qwen2_5": {
        "model": "qwen2_5_0_5b",
        "params": {
            "dim": 64,
            "hidden_dim": 160,
            "n_heads": 4,
            "n_kv_heads": 1,
            "n_layers": 2,
            "norm_eps": 1e-06,
            "rope_theta": 1000000.0,
            "use_scaled_rope": False,
            "use_hf_rope": True,
            "attention_qkv_bias": True,
            "vocab_size": 515,
        },
        "tied": True,
        "max_seq_len": 64,
        "prompt_len": 9,
        "new_tokens": None,
        "seed": 2,
    },
    # Qwen 3: RMS norms on q and k before the rope, a head_dim that is not dim / n_heads (as
    # Qwen3-0.6B's 128 with dim 1024 and 16 heads), plain multi-head attention here.
    "qwen3": {
        "model": "qwen3_0_6b",
        "params": {
            "dim": 64,
            "hidden_dim": 128,
            "n_heads": 4,
            "n_kv_heads": 4,
            "head_dim": 32,
            "n_layers": 2,
            "norm_eps": 1e-06,
            "rope_theta": 1000000.0,
            "use_scaled_rope": False,
            "use_hf_rope": True,
            "attention_qkv_bias": False,
            "use_qk_norm": True,
            "qk_norm_before_rope": True,
            "vocab_size": 601,
        },
        "tied": True,
        "max_seq_len": 64,
        "prompt_len": 5,
        "new_tokens": None,
        "seed": 3,
        "fp16": True,
    },
    # SmolLM2: the Llama architecture with the original rope, head_dim 32 and three query heads
    # per kv head (SmolLM2-135M: 9 and 3).
    "smollm2": {
        "model": "smollm2",
        "params": {
            "dim": 96,
            "hidden_dim": 128,
            "n_heads": 3,
            "n_kv_heads": 1,
            "n_layers": 2,
            "norm_eps": 1e-05,
            "rope_theta": 10000.0,
            "use_scaled_rope": False,
            "use_hf_rope": False,
            "attention_qkv_bias": False,
            "vocab_size": 499,
        },
        "tied": True,
        "max_seq_len": 96,
        "prompt_len": 11,
        "new_tokens": None,
        "seed": 4,
    },
    # Phi-4-mini: rope on three quarters of each head (partial_rotary_factor 0.75) with LongRoPE
    # factors and attention scaling, eight query heads per kv head.
    "phi_4_mini": {
        "model": "phi_4_mini",
        "params": {
            "dim": 64,
            "hidden_dim": 128,
            "n_heads": 8,
            "n_kv_heads": 1,
            "head_dim": 32,
            "n_layers": 2,
            "norm_eps": 1e-05,
            "rope_theta": 10000.0,
            "use_scaled_rope": False,
            "use_hf_rope": True,
            "partial_rotary_factor": 0.75,
            "rope_scaling_short_factor": [1.0 + 0.05 * i for i in range(12)],
            "rope_scaling_long_factor": [1.0 + 0.5 * i for i in range(12)],
            "original_max_position_embeddings": 32,
            "max_position_embeddings": 128,
            "attention_qkv_bias": False,
            "vocab_size": 523,
        },
        "tied": True,
        "max_seq_len": 64,
        "prompt_len": 6,
        "new_tokens": None,
        "seed": 5,
    },
    # Qwen 3.5: a hybrid of gated DeltaNet linear-attention layers (a causal depthwise conv
    # and a recurrent state per layer, `llama.gated_delta_rule`) and ordinary attention layers
    # with a q gate, q/k norms and rope on a quarter of each head; RMS norms scale by
    # (1 + weight). Two key heads shared by four value heads, as Qwen3.5-0.8B's 3:1 layer mix.
    "qwen3_5": {
        "model": "qwen3_5_0_8b",
        "params": {
            "dim": 64,
            "hidden_dim": 128,
            "n_heads": 4,
            "n_kv_heads": 2,
            "head_dim": 16,
            "n_layers": 4,
            "layer_types": ["linear_attention"] * 3 + ["full_attention"],
            "linear_conv_kernel_dim": 4,
            "linear_key_head_dim": 16,
            "linear_value_head_dim": 24,
            "linear_num_key_heads": 2,
            "linear_num_value_heads": 4,
            "norm_eps": 1e-06,
            "rope_theta": 10000000.0,
            "use_scaled_rope": False,
            "use_hf_rope": True,
            "partial_rotary_factor": 0.25,
            "attention_qkv_bias": False,
            "use_qk_norm": True,
            "qk_norm_before_rope": True,
            "use_q_gate": True,
            "rms_norm_add_unit_offset": True,
            "vocab_size": 531,
        },
        "tied": True,
        "max_seq_len": 64,
        "prompt_len": 8,
        "new_tokens": None,
        "seed": 6,
        "fp16": True,
        # Only plain.pte: model.pte and static.pte are left out for this reason (meta.json
        # keeps it; the tests name the programs skipped and why).
        "no_vulkan": (
            "ExecuTorch 1.5.1's --vulkan export multiplies each DeltaNet state inside a delegate "
            "that holds its own constant copy of the buffer (zeros) while slice_scatter and copy_ "
            "write the program's buffer outside, so every step starts from zeros (wrong in "
            "ExecuTorch's own runtime too; docs/LLM.md)"
        ),
    },
    # LFM2: a hybrid of short-convolution layers (x projected three ways, B * x joined after a
    # conv state of the last 2 positions, a depthwise kernel-3 conv, gated by C; the state
    # written back with copy_) and attention layers with q/k norms, as LFM2-350M's mix.
    "lfm2": {
        "model": "lfm2_350m",
        "params": {
            "dim": 64,
            "hidden_dim": 128,
            "n_heads": 4,
            "n_kv_heads": 2,
            "head_dim": 16,
            "n_layers": 4,
            "layer_types": ["conv", "conv", "full_attention", "conv"],
            "norm_eps": 1e-05,
            "rope_theta": 1000000.0,
            "use_scaled_rope": False,
            "use_hf_rope": True,
            "attention_qkv_bias": False,
            "use_qk_norm": True,
            "qk_norm_before_rope": True,
            "vocab_size": 541,
        },
        "tied": True,
        "max_seq_len": 64,
        "prompt_len": 6,
        "new_tokens": None,
        "seed": 7,
        "fp16": True,
        "no_vulkan": (
            "ExecuTorch 1.5.1's --vulkan export gives the delegate each short-conv state as a "
            "constant (zeros) and returns the next state as extra delegate outputs that the "
            "program's call does not take (3 args for 2 inputs and 4 outputs; no copy_ is left), "
            "so every step starts from zeros (wrong in ExecuTorch's own runtime too; docs/LLM.md)"
        ),
        "no_float16_option": (
            "our float16 mode stores the decomposed RMS norms' x * x in float16, which overflows "
            "(above 65504) on this fixture's activations: the mean of squares becomes inf; the "
            "fp16.pte export squares in float32 and passes"
        ),
    },
}


def delta_rule_reference(self, query, key, value, g, beta):
    """The gated delta rule of a DeltaNet layer, in float32 or the model's wider dtype.

    Stands in for AttentionGatedDeltaNet._recurrent_gated_delta_rule, which casts to float32 and
    calls ExecuTorch's fused kernel (the op under test): same inputs (q, k, v, g, beta as
    [B, T, H, D] / [B, T, H]), same state buffer, same result, in plain PyTorch arithmetic, so
    the float64 model is float64 throughout (a float16 model computes it in float32, as the
    module does).
    """
    from executorch.examples.models.llama.attention import _l2norm

    work = torch.promote_types(query.dtype, torch.float32)
    query, key, value, g, beta = (x.to(work) for x in (query, key, value, g, beta))
    q = _l2norm(query, dim=-1, eps=1e-6).transpose(1, 2) / query.shape[-1] ** 0.5
    k = _l2norm(key, dim=-1, eps=1e-6).transpose(1, 2)
    v, g, beta = value.transpose(1, 2), g.transpose(1, 2), beta.transpose(1, 2)
    state = self.recurrent_state[: q.shape[0]].to(work)
    outs = []
    for t in range(q.shape[2]):
        state = state * g[:, :, t].exp()[..., None, None]
        recalled = torch.einsum("bhk,bhkv->bhv", k[:, :, t], state)
        update = beta[:, :, t, None] * (v[:, :, t] - recalled)
        state = state + torch.einsum("bhk,bhv->bhkv", k[:, :, t], update)
        outs.append(torch.einsum("bhk,bhkv->bhv", q[:, :, t], state))
    with torch.no_grad():
        self.recurrent_state[: q.shape[0]].copy_(state)
    return torch.stack(outs, dim=2).transpose(1, 2).contiguous().to(self.out_proj.weight.dtype)


def gated_norm_reference(self, hidden, gate):
    """RMSNormGated.forward computing in float32 or the model's wider dtype (the module casts
    to float32 whatever the dtype): the same sum, scale and gate."""
    out_dtype = hidden.dtype
    work = torch.promote_types(hidden.dtype, torch.float32)
    hidden, gate = hidden.to(work), gate.to(work)
    normed = hidden * torch.rsqrt(hidden.pow(2).mean(-1, keepdim=True) + self.variance_epsilon)
    return (self.weight.to(work) * normed * torch.nn.functional.silu(gate)).to(out_dtype)


def reset_conv_states(model, _inputs) -> None:
    """Zeroes every LFM2 short-conv state (a forward pre-hook of the eager reference)."""
    from executorch.examples.models.lfm2.short_conv import ShortConv

    for module in model.modules():
        if isinstance(module, ShortConv):
            module.reset_cache()


def build_model(params: dict, dtype: torch.dtype, full_logits: bool, context: int):
    import types

    from executorch.examples.models.llama.attention import AttentionGatedDeltaNet
    from executorch.examples.models.llama.llama_transformer import construct_transformer
    from executorch.examples.models.llama.model_args import ModelArgs
    from executorch.examples.models.llama.norm import RMSNormGated

    # The context as the exporter sets it: LongRoPE picks its factors by the table's length.
    args = ModelArgs(**params, max_seq_len=context, max_context_len=context)
    args.use_kv_cache = False
    args.generate_full_logits = full_logits
    model = construct_transformer(args)
    # DeltaNet layers compute in float32 whatever the model's dtype; the reference keeps it.
    # (Left as it is: the decay's `a.float()`, one float32 rounding of one input.)
    # A short-conv layer keeps its conv state from call to call (only the exported program's
    # runs should share it): each eager call here is a whole sequence from position 0.
    model.register_forward_pre_hook(reset_conv_states)
    for module in model.modules():
        if isinstance(module, AttentionGatedDeltaNet):
            module._recurrent_gated_delta_rule = types.MethodType(delta_rule_reference, module)
        elif isinstance(module, RMSNormGated):
            module.forward = types.MethodType(gated_norm_reference, module)
    return model.to(dtype).eval()


def random_weights(params: dict, seed: int, context: int) -> dict:
    torch.manual_seed(seed)
    model = build_model(params, torch.float32, True, context)
    # Larger weights than PyTorch's default init give logits whose top two differ clearly at
    # every step, so greedy tokens are not decided by rounding.
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "norm" in name:
                p.copy_(1.0 + 0.1 * torch.randn_like(p))
            else:
                p.copy_(torch.randn_like(p) * (1.0 / max(1, p.shape[-1]) ** 0.5) * 2.0)
    return {k: v.clone() for k, v in model.state_dict().items()}


def greedy_tokens(model, prompt: list[int], new_tokens: int) -> list[int]:
    tokens = list(prompt)
    with torch.no_grad():
        for _ in range(new_tokens):
            logits = model(torch.tensor([tokens]))
            tokens.append(int(logits[0, -1].argmax()))
    return tokens


def export_family(name: str, spec: dict, out: Path, python: str, goldens_only: bool) -> None:
    params = spec["params"]
    target = out / name
    target.mkdir(parents=True, exist_ok=True)
    weights = random_weights(params, spec["seed"], spec["max_seq_len"])
    if spec.get("tied"):
        # These families share the embedding with the output projection.
        weights["output.weight"] = weights["tok_embeddings.weight"].clone()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        (tmp / "params.json").write_text(json.dumps(params, indent=1))
        if goldens_only:
            print(f"[export-llm] {name}: goldens only, the programs kept", flush=True)
        torch.save(weights, tmp / "checkpoint.pth")
        command = [
            "-m", "executorch.examples.models.llama.export_llama",
            "--model", spec["model"],
            "--checkpoint", "checkpoint.pth",
            "--params", "params.json",
            "-kv", "--use_sdpa_with_kv_cache", "--vulkan",
            "--max_seq_length", str(spec["max_seq_len"]),
            "--max_context_length", str(spec["max_seq_len"]),
            "-d", "fp32",
            "--output_name", "model.pte",
        ]  # fmt: skip
        plain = [a for a in command if a != "--vulkan"]
        plain[plain.index("model.pte")] = "plain.pte"
        static = [*command, "--disable_dynamic_shape"]
        static[static.index("model.pte")] = "static.pte"
        programs = [(command, "model.pte"), (plain, "plain.pte"), (static, "static.pte")]
        if spec.get("no_vulkan"):
            programs = [(plain, "plain.pte")]
        if spec.get("fp16"):
            # A plain program in float16 (-d fp16; the exporter's Vulkan path takes fp32 only),
            # and a float32 program whose Vulkan delegate computes in float16
            # (--vulkan-force-fp16).
            half = [*plain]
            half[half.index("fp32")] = "fp16"
            half[half.index("plain.pte")] = "fp16.pte"
            forced = [*command, "--vulkan-force-fp16"]
            forced[forced.index("model.pte")] = "force16.pte"
            programs += [(half, "fp16.pte")]
            if not spec.get("no_vulkan"):
                programs += [(forced, "force16.pte")]
        for args, file in [] if goldens_only else programs:
            print(f"[export-llm] {name}: export_llama -> {file} (about a minute)", flush=True)
            done = subprocess.run([python, *args], cwd=tmp, capture_output=True, text=True)
            if done.returncode != 0:
                sys.stderr.write(done.stderr[-4000:])
                raise SystemExit(f"[export-llm] {name}: export_llama failed for {file}")
            (target / file).write_bytes((tmp / file).read_bytes())
    (target / "params.json").write_text(json.dumps(params, indent=1) + "\n")

    model32 = build_model(params, torch.float32, True, spec["max_seq_len"])
    model32.load_state_dict(weights)
    rng = np.random.default_rng(spec["seed"])
    prompt = [int(t) for t in rng.integers(0, params["vocab_size"], spec["prompt_len"])]
    # Up to the last position of the cache unless the family says fewer.
    new_tokens = spec["new_tokens"] or spec["max_seq_len"] - spec["prompt_len"]
    tokens = greedy_tokens(model32, prompt, new_tokens)
    model64 = copy.deepcopy(model32).to(torch.float64)
    with torch.no_grad():
        logits32 = model32(torch.tensor([tokens]))[0].numpy().astype(np.float32)
        logits64 = model64(torch.tensor([tokens]))[0].numpy().astype(np.float64)
    if spec.get("fp16"):
        # PyTorch's own float16 error on the same tokens: the fp16 programs' threshold.
        model16 = copy.deepcopy(model32).to(torch.float16)
        with torch.no_grad():
            logits16 = model16(torch.tensor([tokens]))[0].float().numpy()
        np.save(target / "logits16.npy", logits16.astype(np.float32))
    top2 = np.sort(logits64, axis=-1)[:, -2:]
    margin = float((top2[:, 1] - top2[:, 0]).min())
    np.save(target / "tokens.npy", np.array(tokens, dtype=np.int64))
    np.save(target / "logits.npy", logits32)
    np.save(target / "logits64.npy", logits64)
    meta = {
        "family": name,
        "exporter_model": spec["model"],
        "prompt_len": spec["prompt_len"],
        "max_seq_len": spec["max_seq_len"],
        "max_context_len": spec["max_seq_len"],
        "tokens": len(tokens),
        "seed": spec["seed"],
        "min_top2_margin": margin,
        "fp32_vs_fp64_rel_l2": float(np.linalg.norm(logits32 - logits64) / np.linalg.norm(logits64)),
        "command": "python " + " ".join(plain if spec.get("no_vulkan") else command),
    }
    if spec.get("no_vulkan"):
        # The usual programs not exported, and why: the tests skip exactly these, by name.
        skipped = ("model.pte", "static.pte", "force16.pte") if spec.get("fp16") else ("model.pte", "static.pte")
        meta["skipped_programs"] = {f: spec["no_vulkan"] for f in skipped}
    if spec.get("fp16") and spec.get("no_vulkan"):
        # Our float16 mode (ProgramOptions::float16) is tested on model.pte; without one, on
        # plain.pte, unless the family says why not.
        meta["float16_option"] = {"program": "plain.pte"}
        if spec.get("no_float16_option"):
            meta["float16_option"]["skipped"] = spec["no_float16_option"]
    if spec.get("fp16"):
        meta["fp16_vs_fp64_rel_l2"] = float(np.linalg.norm(logits16 - logits64) / np.linalg.norm(logits64))
    (target / "meta.json").write_text(json.dumps(meta, indent=1) + "\n")
    size = (target / programs[0][1]).stat().st_size
    print(f"[export-llm] {name}: {size} bytes, {len(tokens)} tokens, top-2 margin {margin:.3g}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--only", action="append", help="export only these families")
    parser.add_argument(
        "--goldens-only",
        action="store_true",
        help="recompute the goldens, keep the programs (the exports are deterministic)",
    )
    args = parser.parse_args()
    torch.set_num_threads(1)
    for name, spec in FAMILIES.items():
        if args.only and name not in args.only:
            continue
        export_family(name, spec, args.out, sys.executable, args.goldens_only)
    return 0


if __name__ == "__main__":
    sys.exit(main())
