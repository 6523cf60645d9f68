"""Train the demo LM's byte-level BPE tokenizer on the train split of the corpus.

A GPT-2-style byte-level BPE (Hugging Face `tokenizers`), 2048 tokens, of which the first five
are special: <|bos|> and <|eos|> around every document, and a chat turn written as
<|user|>question<|end|><|assistant|>answer<|end|> (the Jinja chat_template below says so).

Writes, into --out (default .cache/demo_lm/tokenizer):
  tokenizer.json           what the engine's and Hugging Face's tokenizers read
  tokenizer_config.json    bos/eos token names and the chat template
  generation_config.json   the ids that end a generation: <|end|> (a turn) and <|eos|>

Usage: python/.venv/bin/python python/demo_lm/make_tokenizer.py [--corpus DIR] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

ROOT = Path(__file__).resolve().parents[2]
VOCAB_SIZE = 2048
BOS, EOS, USER, ASSISTANT, END = "<|bos|>", "<|eos|>", "<|user|>", "<|assistant|>", "<|end|>"
SPECIALS = [BOS, EOS, USER, ASSISTANT, END]  # ids 0..4, in this order
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "generation_config.json")
# Only the roles "user" and "assistant" are trained; the template writes each as its token.
CHAT_TEMPLATE = (
    "{{ bos_token }}{% for message in messages %}"
    "{{ '<|' + message['role'] + '|>' + message['content'] + '<|end|>' }}"
    "{% endfor %}{% if add_generation_prompt %}{{ '<|assistant|>' }}{% endif %}"
)


def read_jsonl(path: Path):
    with path.open(encoding="utf-8") as f:
        for line in f:
            yield json.loads(line)


def texts(rows):
    """Every piece of plain text in the documents (the special tokens are not trained on)."""
    for row in rows:
        if row["kind"] == "text":
            yield row["text"]
        else:
            yield from (m["content"] for m in row["messages"])


def train(corpus: Path) -> Tokenizer:
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=VOCAB_SIZE,
        min_frequency=2,
        special_tokens=SPECIALS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(texts(read_jsonl(corpus / "train.jsonl")), trainer)
    return tok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=ROOT / ".cache/demo_lm/corpus")
    parser.add_argument("--out", type=Path, default=ROOT / ".cache/demo_lm/tokenizer")
    args = parser.parse_args()
    tok = train(args.corpus)
    assert [tok.token_to_id(s) for s in SPECIALS] == list(range(len(SPECIALS))), "special ids moved"
    args.out.mkdir(parents=True, exist_ok=True)
    tok.save(str(args.out / "tokenizer.json"))
    config = {
        "bos_token": BOS,
        "eos_token": EOS,
        "chat_template": CHAT_TEMPLATE,
        "model_max_length": 256,
        "tokenizer_class": "PreTrainedTokenizerFast",
        "clean_up_tokenization_spaces": False,
    }
    (args.out / "tokenizer_config.json").write_text(json.dumps(config, indent=1) + "\n")
    generation = {"bos_token_id": tok.token_to_id(BOS), "eos_token_id": [tok.token_to_id(END), tok.token_to_id(EOS)]}
    (args.out / "generation_config.json").write_text(json.dumps(generation, indent=1) + "\n")
    print(f"[make-tokenizer] {tok.get_vocab_size()} tokens -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
