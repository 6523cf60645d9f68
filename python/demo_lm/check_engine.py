"""Check the exported demo LM end to end in the engine against the Python references.

For held-out paragraphs (some with non-ASCII text) and chat prompts with special tokens, runs
`wgx generate --json` on model.pte and compares
  - the prompt ids the engine's tokenizer made with Hugging Face `tokenizers`' (plus <|bos|>),
  - the greedy tokens the engine generated with PyTorch eager's greedy tokens from the same
    checkpoint (ExecuTorch's model class, fp32); where they part, the eager top-two logit
    margin at that step says whether it was a near tie,
  - the engine's text with `tokenizers`' decoding of the same ids.
Exits 1 when a prompt's ids differ.

Usage: python/.venv/bin/python python/demo_lm/check_engine.py --model-dir DIR --run RUN_DIR --wgx build/wgx
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import torch
from make_tokenizer import BOS, END, EOS, read_jsonl
from tokenizers import Tokenizer
from train import build_model

ROOT = Path(__file__).resolve().parents[2]
CHAT_QUESTIONS = ["What does os.path.join() do?", "What is a decorator?", "Tell me about the GROUP BY clause."]


def prompts(corpus: Path, count: int) -> list[str]:
    """Held-out paragraphs of 80 to 600 characters, every third one with non-ASCII text when
    there is such, then chat prompts."""
    paragraphs = [
        p for row in read_jsonl(corpus / "heldout.jsonl") if row["kind"] == "text" for p in row["text"].split("\n\n")
    ]
    paragraphs = [p for p in paragraphs if 80 <= len(p) <= 600]
    wide = [p for p in paragraphs if any(ord(c) > 127 for c in p)]
    plain = [p for p in paragraphs if p not in wide]
    chosen = []
    for i in range(count):
        pool = wide if i % 3 == 2 and wide else plain
        chosen.append(pool[(i * 7919) % len(pool)])
    return chosen + [f"<|user|>{q}<|end|><|assistant|>" for q in CHAT_QUESTIONS]


@torch.no_grad()
def eager_greedy(model, ids: list[int], steps: int, stop: set[int]) -> tuple[list[int], list[float]]:
    out, margins, seq = [], [], list(ids)
    for _ in range(steps):
        logits = model(torch.tensor([seq]))[0, -1]
        top2 = torch.topk(logits, 2).values
        margins.append(float(top2[0] - top2[1]))
        out.append(int(logits.argmax()))
        if out[-1] in stop:
            break
        seq.append(out[-1])
    return out, margins


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model-dir", type=Path, default=ROOT / "models/demo-lm")
    parser.add_argument("--run", type=Path, required=True, help="train.py's --out (checkpoint.pth, params.json)")
    parser.add_argument("--wgx", type=Path, default=ROOT / "build/wgx")
    parser.add_argument("--corpus", type=Path, default=ROOT / ".cache/demo_lm/corpus")
    parser.add_argument("--count", type=int, default=12, help="held-out paragraphs")
    parser.add_argument("--steps", type=int, default=16, help="greedy tokens per prompt")
    parser.add_argument("--golden", type=Path, help="also write the references here (JSON), for tests")
    args = parser.parse_args()
    torch.set_num_threads(1)
    tok = Tokenizer.from_file(str(args.model_dir / "tokenizer.json"))
    bos, stop = tok.token_to_id(BOS), {tok.token_to_id(END), tok.token_to_id(EOS)}
    model = build_model(json.loads((args.run / "params.json").read_text()), args.run)
    model.load_state_dict(torch.load(args.run / "checkpoint.pth"), strict=False)
    model.eval()
    model.generate_full_logits = True

    bad_ids = 0
    golden = []
    for n, text in enumerate(prompts(args.corpus, args.count)):
        want = [bos] + tok.encode(text, add_special_tokens=False).ids
        command = [str(args.wgx), "generate", str(args.model_dir / "model.pte"), "--tokenizer", str(args.model_dir)]
        command += ["--prompt", text, "--max-new-tokens", str(args.steps), "--json"]
        done = subprocess.run(command, capture_output=True, text=True, check=True)
        got = json.loads(done.stdout.splitlines()[-1])
        same_ids = got["prompt_tokens"] == want
        bad_ids += not same_ids
        eager, margins = eager_greedy(model, want, args.steps, stop)
        golden.append({"prompt": text, "prompt_tokens": want, "tokens": eager, "min_top2_margin": min(margins)})
        agree = next((i for i, (a, b) in enumerate(zip(got["tokens"], eager)) if a != b), None)
        shown = [t for t in got["tokens"] if t not in stop]
        same_text = got["text"] == tok.decode(shown, skip_special_tokens=False)
        greedy = (
            f"greedy {len(got['tokens'])} tokens equal"
            if agree is None and len(got["tokens"]) == len(eager)
            else f"greedy parts at step {agree} (eager top-2 margin there {margins[agree or 0]:.3g})"
        )
        print(
            f"[check] {n:2d}: {len(want):3d} prompt ids {'equal' if same_ids else 'DIFFER'}; {greedy}; "
            f"text {'equal' if same_text else 'DIFFERS'}; {text[:50]!r}",
            flush=True,
        )
        if not same_ids:
            print(f"        engine {got['prompt_tokens']}\n        python {want}")
    print(f"[check] prompts whose ids differ: {bad_ids}")
    if args.golden:
        args.golden.write_text(json.dumps(golden, indent=1, ensure_ascii=False) + "\n")
    return 1 if bad_ids else 0


if __name__ == "__main__":
    sys.exit(main())
