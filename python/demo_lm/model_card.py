"""The texts that go with the demo LM: README.md (model card), NOTICE, LICENSE, and the engine's
own sample and chat reply for the card.

Every number in the card is read from train.py's report.json or measured here; the sample and
the chat reply are what `wgx generate` printed, with the command that printed them.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

# The prompts of the card: a plain continuation and one chat turn in the template's format.
SAMPLE_PROMPT = "The Python standard library"
CHAT_QUESTION = "What is a list comprehension?"
SAMPLE_ARGS = ["--max-new-tokens", "60", "--temperature", "0.7", "--top-k", "40", "--seed", "1"]
# Greedy decoding of a model this small soon repeats itself; both prompts are sampled, seeded.
CHAT_ARGS = ["--max-new-tokens", "80", "--temperature", "0.6", "--top-k", "40", "--seed", "1"]


def chat_prompt(question: str) -> str:
    """What the chat template gives for one user turn and add_generation_prompt, less the
    <|bos|> that `wgx generate` puts first itself."""
    return f"<|user|>{question}<|end|><|assistant|>"


def generate(wgx: Path, model_dir: Path, prompt: str, extra: list[str]) -> dict:
    command = [str(wgx), "generate", str(model_dir / "model.pte"), "--tokenizer", str(model_dir), "--prompt", prompt]
    done = subprocess.run([*command, *extra, "--json"], capture_output=True, text=True, check=True)
    shown = ["wgx", "generate", "models/demo-lm/model.pte", "--tokenizer", "models/demo-lm", "--prompt", prompt]
    return {"command": " ".join(_quote(a) for a in [*shown, *extra]), **json.loads(done.stdout.splitlines()[-1])}


def _quote(arg: str) -> str:
    return f"'{arg}'" if any(c in arg for c in " <|>?") else arg


def examples(wgx: Path, model_dir: Path) -> list[dict]:
    return [
        {"what": "sample", **generate(wgx, model_dir, SAMPLE_PROMPT, SAMPLE_ARGS)},
        {"what": "chat", **generate(wgx, model_dir, chat_prompt(CHAT_QUESTION), CHAT_ARGS)},
    ]


def notice(sources: list[dict]) -> str:
    lines = [
        "The demo LM (models/demo-lm) was trained by the wgpu-executorch authors on text from these",
        "Debian packages (their documentation's reStructuredText sources or HTML pages, cleaned to",
        "prose). The licence terms of each, its Debian copyright file, are in LICENSE beside this file.",
        "",
    ]
    for s in sources:
        lines.append(f"- {s['package']} {s['version']}: {s['licence']}, copyright {s['holder']}")
    return "\n".join(lines) + "\n"


def licence_file(sources: list[dict], texts: dict[str, str]) -> str:
    parts = [
        "Licences of the text the demo LM was trained on: each package's Debian copyright file, as",
        "shipped in the package (/usr/share/doc/<package>/copyright). The model and its tokenizer",
        "are the wgpu-executorch authors' work, under the repository's MIT licence (../../LICENSE).",
    ]
    for s in sources:
        rule = "=" * 78
        parts += ["", rule, f"{s['package']} {s['version']} ({s['licence']})", rule, "", texts[s["package"]].rstrip()]
    return "\n".join(parts) + "\n"


def ppl_rows(results: dict) -> str:
    names = {"heldout": "held-out prose", "heldout_chat": "held-out chat", "train_sample": "train windows (sample)"}
    rows = []
    for key, name in names.items():
        r = results[key]
        ratio = r["ppl"] / r["unigram_ppl"]
        rows.append(f"| {name} | {r['tokens']:,} | {r['ppl']:.2f} | {r['unigram_ppl']:.2f} | {ratio:.3f} |")
    return "\n".join(rows)


def readme(report: dict, sources: list[dict], pte_bytes: int, export_command: str, shown: list[dict]) -> str:
    p, r, c = report["params"], report["results"], report["corpus"]
    rows = "\n".join(
        f"| {s['package']} {s['version']} | {s['licence']} | {s['train_docs']} + {s['heldout_docs']} | "
        f"{s['train_chars'] + s['heldout_chars']:,} | {s['train_pairs'] + s['heldout_pairs']:,} |"
        for s in sources
    )
    text = f"""# demo-lm: a small Llama trained on software documentation

A {report["parameters"]:,}-parameter Llama-architecture decoder (ExecuTorch's own
`construct_transformer`: {p["n_layers"]} layers, dim {p["dim"]}, {p["n_heads"]} heads with
{p["n_kv_heads"]} KV heads, SwiGLU hidden {p["hidden_dim"]}, RMSNorm, RoPE θ {p["rope_theta"]:g}
without scaling), a {c["vocab_size"]}-token byte-level BPE and a {report["context"]}-token context,
trained from scratch so that the engine's LLM path can be shown with a model that writes text.
It writes documentation-flavoured English; it knows little and makes things up.

| file | what |
| --- | --- |
| `model.pte` | `export_llama` output, Vulkan delegate, fp32, KV cache, {pte_bytes:,} bytes |
| `tokenizer.json` | the byte-level BPE (Hugging Face `tokenizers`) |
| `tokenizer_config.json`, `generation_config.json` | bos/eos names, the chat template; the ids that end a generation |
| `report.json` | train.py's report: configuration, loss curve, perplexities, corpus counts |
| `NOTICE`, `LICENSE` | where the training text comes from, and its licences (the packages' Debian copyright files) |

## Data

{len(sources)} Debian 12 documentation packages, fetched with `apt-get download` by
`python/demo_lm/fetch_text.py`: the reStructuredText sources (`html/_sources`) where a package
ships them, its HTML pages otherwise (Django, PostgreSQL). Both are reduced to prose (code
blocks, doctests, tables, navigation and indexes dropped; inline markup as the reader sees it),
plus question/answer pairs made from the documents' structure (a section, function, class,
setting or glossary term as the question, its first paragraphs as the answer):

| package | licence | documents (train + held-out) | prose characters | Q/A pairs |
| --- | --- | --- | --- | --- |
{rows}

Whole documents are held out (5% by a hash of their path). Tokens: {c["tokens"]["train"]:,}
train, {c["tokens"]["heldout"]:,} held-out prose, {c["tokens"]["heldout_chat"]:,} held-out chat
({c["chars_per_token"]["heldout"]} characters a token).

## Format

Every document is `<|bos|>` text `<|eos|>`. A chat turn is
`<|bos|><|user|>question<|end|><|assistant|>answer<|end|>` (`tokenizer_config.json`'s
`chat_template`; user and assistant roles only). `<|end|>` and `<|eos|>` end a generation
(`generation_config.json`, and the program's `get_eos_ids`).

## Training

`python/demo_lm/train.py` on {report["device"]} (torch {report["torch"]}): {report["steps"]:,}
steps of {report["batch"]} × {report["context"]} tokens in {report["train_seconds"]} s
({report["tokens_seen"]:,} tokens, {report["epochs"]} passes over the train stream,
{report["tokens_per_second"]:,.0f} tokens/s), AdamW (peak lr {report["lr"]}, weight decay
{report["weight_decay"]}, β 0.9/0.95), warm-up then cosine decay over the time budget (bf16
autocast where on CUDA). Command: `{report["command"]}`.

## Perplexity

Over non-overlapping 256-token windows of the held-out documents (every token but a window's
first predicted); the unigram model is fitted on the train stream with add-one smoothing and
scored on the same tokens.

| text | tokens | model | unigram | model / unigram |
| --- | --- | --- | --- | --- |
{ppl_rows(r)}

## Export

```
{export_command}
```
"""
    for ex in shown:
        title = "A sample" if ex["what"] == "sample" else "A chat reply"
        text += f"""
## {title}

```
{ex["command"]}
```

{len(ex["prompt_tokens"])} prompt tokens, {len(ex["tokens"])} generated (stopped: {ex["stop_reason"]}):

> {ex["text"].strip().replace(chr(10), chr(10) + "> ")}
"""
    text += """
## Regenerate

```sh
apt-get update && python3 python/demo_lm/fetch_text.py          # apt-get download, clean, split
python/.venv/bin/pip install -r python/requirements-demo-lm.txt
python/.venv/bin/python python/demo_lm/make_tokenizer.py
python/.venv/bin/python python/demo_lm/encode_corpus.py            # -> .device/demo_lm/
python/.venv/bin/python python/demo_lm/carry_model_code.py         # for a GPU machine without executorch
python3 python/demo_lm/train.py --out RUN --minutes 5              # on the GPU machine
python/.venv/bin/python python/demo_lm/export.py --run RUN --wgx build/wgx
python/.venv/bin/python python/demo_lm/check_engine.py --run RUN --wgx build/wgx
```
"""
    return text
