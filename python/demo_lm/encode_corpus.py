"""Turn the demo LM's corpus into token ids for training (small enough to carry to a GPU).

Every document becomes <|bos|> text <|eos|>; a question/answer pair is written with the
tokenizer's own chat template (jinja2) and encoded with its special tokens, then <|eos|>. The
train documents are shuffled (seed 0) so each stretch of the stream mixes sources; held-out
prose and held-out chat are kept apart, so their perplexities can be told apart.

Writes, into --out (default .device/demo_lm, git-ignored, what train.py reads):
  train.npy, heldout.npy, heldout_chat.npy   uint16 token ids, one stream each
  corpus.json                                vocabulary, special ids, token and character counts,
                                             the sources (packages, versions, licences) and the
                                             SHA-256 of tokenizer.json
  tokenizer/                                 the tokenizer files that made these ids, which
                                             export.py ships with the model trained on them

Usage: python/.venv/bin/python python/demo_lm/encode_corpus.py
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import shutil
import sys
from pathlib import Path

import jinja2
import numpy as np
from make_tokenizer import BOS, EOS, SPECIALS, TOKENIZER_FILES, read_jsonl
from tokenizers import Tokenizer

ROOT = Path(__file__).resolve().parents[2]


class Encoder:
    def __init__(self, tokenizer_dir: Path):
        self.tok = Tokenizer.from_file(str(tokenizer_dir / "tokenizer.json"))
        config = json.loads((tokenizer_dir / "tokenizer_config.json").read_text())
        self.template = jinja2.Environment().from_string(config["chat_template"])
        self.bos, self.eos = self.tok.token_to_id(BOS), self.tok.token_to_id(EOS)

    def render(self, row: dict) -> str:
        if row["kind"] == "chat":
            return self.template.render(messages=row["messages"], bos_token=BOS, add_generation_prompt=False)
        return BOS + row["text"]

    def encode(self, rows: list[dict]) -> list[list[int]]:
        for row in rows:
            pieces = [row["text"]] if row["kind"] == "text" else [m["content"] for m in row["messages"]]
            if any(s in p for p in pieces for s in SPECIALS):
                raise ValueError(f"{row['source']}:{row['path']} has special-token text in it")
        encoded = self.tok.encode_batch([self.render(r) for r in rows], add_special_tokens=False)
        return [e.ids + [self.eos] for e in encoded]


def stream(docs: list[list[int]]) -> np.ndarray:
    return np.array([t for d in docs for t in d], dtype=np.uint16)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=ROOT / ".cache/demo_lm/corpus")
    parser.add_argument("--tokenizer", type=Path, default=ROOT / ".cache/demo_lm/tokenizer")
    parser.add_argument("--out", type=Path, default=ROOT / ".device/demo_lm")
    args = parser.parse_args()
    enc = Encoder(args.tokenizer)
    assert enc.tok.get_vocab_size() <= 65536, "ids are stored as uint16"
    train = list(read_jsonl(args.corpus / "train.jsonl"))
    heldout = list(read_jsonl(args.corpus / "heldout.jsonl"))
    train_docs = enc.encode(train)
    random.Random(0).shuffle(train_docs)
    splits = {
        "train": stream(train_docs),
        "heldout": stream(enc.encode([r for r in heldout if r["kind"] == "text"])),
        "heldout_chat": stream(enc.encode([r for r in heldout if r["kind"] == "chat"])),
    }
    (args.out / "tokenizer").mkdir(parents=True, exist_ok=True)
    for name in TOKENIZER_FILES:
        shutil.copy(args.tokenizer / name, args.out / "tokenizer" / name)
    for name, ids in splits.items():
        np.save(args.out / f"{name}.npy", ids)
    chars = {
        "train": sum(len(enc.render(r)) for r in train),
        "heldout": sum(len(enc.render(r)) for r in heldout if r["kind"] == "text"),
    }
    meta = {
        "vocab_size": enc.tok.get_vocab_size(),
        "special_ids": {s: enc.tok.token_to_id(s) for s in SPECIALS},
        "tokens": {name: int(ids.size) for name, ids in splits.items()},
        "chars_per_token": {k: round(chars[k] / splits[k].size, 3) for k in chars},
        "documents": {"train": len(train), "heldout": len(heldout)},
        "sources": json.loads((args.corpus / "sources.json").read_text()),
        "tokenizer_sha256": hashlib.sha256((args.tokenizer / "tokenizer.json").read_bytes()).hexdigest(),
    }
    (args.out / "corpus.json").write_text(json.dumps(meta, indent=1) + "\n")
    print(f"[encode-corpus] {meta['tokens']} tokens, {meta['chars_per_token']} chars/token -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
