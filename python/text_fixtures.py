"""Makes the tokenizer test files of tests/text/ and their golden ids (docs/TOKENIZERS.md).

No real model's tokenizer can be downloaded here, so small ones are trained on text that a
registry package ships: the word lists of Faker (PyPI `faker`, MIT licence) in English, German,
Japanese and Chinese, and some of Faker's own Python source for code. Written:

  bpe-llama3/tokenizer.json         byte-level BPE, Llama 3's split pattern, 256 special tokens
  bpe-llama3/tokenizer_config.json  bos/eos token names and a chat template (as HF ships them)
  bpe-llama3/generation_config.json the eos ids a generation stops at
  bpe-llama3.tiktoken               the same vocabulary as tiktoken's file (base64 token, rank)
  bpe-gpt2/tokenizer.json           byte-level BPE with GPT-2's own pre-tokenizer
  sp-bpe.model                      SentencePiece BPE with byte fallback
  golden.json                       the test texts and the ids the Python packages give

Run in the environment of python/requirements-text.txt (the pins the golden ids come from):

  python3 -m venv .cache/venv-text && .cache/venv-text/bin/pip install -r python/requirements-text.txt
  .cache/venv-text/bin/python python/text_fixtures.py
"""

import base64
import inspect
import json
import os
import random
import shutil
import tempfile
from pathlib import Path

import faker
import pytorch_tokenizers
import sentencepiece as spm
import tokenizers
from faker.providers.lorem.de_DE import Provider as LoremDe
from faker.providers.lorem.en_US import Provider as LoremEn
from faker.providers.lorem.ja_JP import Provider as LoremJa
from faker.providers.lorem.zh_CN import Provider as LoremZh
from pytorch_tokenizers.tiktoken import TiktokenTokenizer
from tokenizers import Regex, decoders, models, pre_tokenizers, trainers

OUT = Path(__file__).resolve().parent.parent / "tests" / "text"

# Llama 3's pre-tokenizer split (a fact of its tokenizer files); tiktoken needs it too.
LLAMA3_PATTERN = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+"
)
# Llama 3's 256 special tokens after the base vocabulary, as the C++ library's Tiktoken() names
# them: eleven named, the rest reserved_special_token_2, _3, ...
NAMED_SPECIALS = [
    "<|begin_of_text|>",
    "<|end_of_text|>",
    "<|reserved_special_token_0|>",
    "<|reserved_special_token_1|>",
    "<|finetune_right_pad_id|>",
    "<|step_id|>",
    "<|start_header_id|>",
    "<|end_header_id|>",
    "<|eom_id|>",
    "<|eot_id|>",
    "<|python_tag|>",
]
SPECIALS = NAMED_SPECIALS + [f"<|reserved_special_token_{i}|>" for i in range(2, 2 + 256 - len(NAMED_SPECIALS))]

# A chat template in the form Llama 3 instruct models ship (Jinja, applied by the caller).
CHAT_TEMPLATE = (
    "{{ bos_token }}{% for message in messages %}"
    "{{ '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n' + message['content'] + '<|eot_id|>' }}"
    "{% endfor %}{% if add_generation_prompt %}{{ '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}{% endif %}"
)

# What the tests encode: each script and the cases a tokenizer gets wrong most easily.
TEST_TEXTS = [
    "Hello, world! The quick brown fox jumps over the lazy dog.",
    "Größenänderung: Übermäßig schöne Äpfel fließen über die Straße.",
    "我们在北京学习中文，这个问题很重要。",
    "日本語のテキストです。カタカナとひらがな、漢字を混ぜます。",
    "Emoji: 😀👍🏽🎉 and a family 👨‍👩‍👧 plus ❤️.",
    "def add(a, b):\n    return a + b  # sum\n\n\tprint(add(1, 2))\n",
    "Whitespace   runs\t\tand  \n\n\n  newlines      end   ",
    "Digits 1234567890, 3.14159, 2026-12-02, 1,000,000 and 007.",
    "Mixed: Fuß 足 あ 😀 x=42; 'quoted' \"double\" it's they'll I'M",
    "<|begin_of_text|>Hello<|eot_id|><|start_header_id|>user<|end_header_id|>",
    "",
    " ",
]


def corpus() -> list[str]:
    """Sentences from Faker's word lists (seeded), plus Faker's own source for code."""
    rng = random.Random(0)
    lines = []
    for provider, sep in ((LoremEn, " "), (LoremDe, " "), (LoremJa, ""), (LoremZh, "")):
        words = list(provider.word_list)
        for _ in range(3000):
            n = rng.randint(4, 14)
            end = "." if sep else "。"
            lines.append(sep.join(rng.choice(words) for _ in range(n)) + end)
    source_dir = Path(inspect.getfile(faker)).parent
    for path in sorted(source_dir.glob("providers/*/__init__.py"))[:40]:
        lines += path.read_text(encoding="utf-8").splitlines()
    digits = [f"{rng.randint(0, 10 ** rng.randint(1, 9))}" for _ in range(2000)]
    return lines + digits


def train_bpe(lines: list[str], pre_tokenizer, vocab_size: int) -> tokenizers.Tokenizer:
    tok = tokenizers.Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizer
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False
    )
    tok.train_from_iterator(lines, trainer)
    # Llama 3 looks a whole pre-token up in the vocabulary before merging (ignore_merges).
    spec = json.loads(tok.to_str())
    spec["model"]["ignore_merges"] = True
    tok = tokenizers.Tokenizer.from_str(json.dumps(spec))
    # Special tokens after the base vocabulary, as in Llama 3 (ids 128000 on there).
    tok.add_special_tokens(SPECIALS)
    return tok


def byte_decoder() -> dict[str, int]:
    """The byte-level alphabet back to bytes (GPT-2's printable stand-ins for each byte)."""
    printable = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAC + 1)) + list(range(0xAE, 0xFF + 1))
    chars = list(printable)
    n = 0
    for b in range(256):
        if b not in printable:
            printable.append(b)
            chars.append(256 + n)
            n += 1
    return {chr(c): b for b, c in zip(printable, chars, strict=True)}


def write_tiktoken(tok: tokenizers.Tokenizer, path: Path) -> None:
    to_byte = byte_decoder()
    vocab = tok.get_vocab(with_added_tokens=False)
    rows = sorted((i, bytes(to_byte[c] for c in t)) for t, i in vocab.items())
    assert [i for i, _ in rows] == list(range(len(rows))), "base ids must be 0..n-1"
    path.write_text("".join(f"{base64.b64encode(b).decode()} {i}\n" for i, b in rows))


def write_json(path: Path, value) -> None:
    path.write_text(json.dumps(value, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


def main() -> None:
    lines = corpus()
    OUT.mkdir(parents=True, exist_ok=True)
    golden = {
        "texts": TEST_TEXTS,
        "packages": {
            "tokenizers": tokenizers.__version__,
            "sentencepiece": spm.__version__,
            "pytorch-tokenizers": pytorch_tokenizers.__version__,
            "faker": faker.VERSION,
        },
    }

    llama3 = train_bpe(
        lines,
        pre_tokenizers.Sequence(
            [
                pre_tokenizers.Split(Regex(LLAMA3_PATTERN), behavior="isolated", invert=False),
                pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
            ]
        ),
        2000,
    )
    d = OUT / "bpe-llama3"
    d.mkdir(exist_ok=True)
    llama3.save(str(d / "tokenizer.json"))
    base = llama3.get_vocab_size(with_added_tokens=False)
    write_json(
        d / "tokenizer_config.json",
        {"bos_token": "<|begin_of_text|>", "eos_token": "<|eot_id|>", "chat_template": CHAT_TEMPLATE},
    )
    eot = [base + SPECIALS.index(t) for t in ("<|end_of_text|>", "<|eom_id|>", "<|eot_id|>")]
    write_json(d / "generation_config.json", {"bos_token_id": base, "eos_token_id": eot})
    write_tiktoken(llama3, OUT / "bpe-llama3.tiktoken")

    gpt2 = train_bpe(lines, pre_tokenizers.ByteLevel(add_prefix_space=False), 1500)
    (OUT / "bpe-gpt2").mkdir(exist_ok=True)
    gpt2.save(str(OUT / "bpe-gpt2" / "tokenizer.json"))

    # Trained in a scratch folder under relative names: the model records its input and output
    # paths, which then stay the same from run to run.
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "corpus.txt").write_text("\n".join(lines), encoding="utf-8")
        cwd = os.getcwd()
        os.chdir(tmp)
        try:
            spm.SentencePieceTrainer.train(
                input="corpus.txt",
                model_prefix="sp-bpe",
                model_type="bpe",
                vocab_size=1500,
                byte_fallback=True,
                character_coverage=0.98,  # rarer characters become bytes (byte fallback)
                normalization_rule_name="identity",  # no NFKC table: keeps the file small, as Llama 2
                split_digits=True,
                num_threads=1,
                minloglevel=2,
            )
        finally:
            os.chdir(cwd)
        shutil.copyfile(Path(tmp) / "sp-bpe.model", OUT / "sp-bpe.model")

    # The references: HF tokenizers for tokenizer.json, tiktoken (through pytorch_tokenizers'
    # Python class) for the tiktoken file, sentencepiece for the .model; and what the C++
    # library of pytorch_tokenizers gives through its bindings, to show where the two agree.
    tik = TiktokenTokenizer(str(OUT / "bpe-llama3.tiktoken"), pat_str=LLAMA3_PATTERN, special_tokens=SPECIALS)
    sp = spm.SentencePieceProcessor(model_file=str(OUT / "sp-bpe.model"))
    for name, tok in (("bpe-llama3", llama3), ("bpe-gpt2", gpt2)):
        cpp = pytorch_tokenizers.CppHFTokenizer()
        cpp.load(str(OUT / name / "tokenizer.json"))
        ids = [tok.encode(t, add_special_tokens=False).ids for t in TEST_TEXTS]
        golden[name] = {
            "ids": ids,
            "decoded": [tok.decode(i, skip_special_tokens=False) for i in ids],
            "cpp_bindings_agree": [cpp.encode(t) == i for t, i in zip(TEST_TEXTS, ids, strict=True)],
        }
    ids = [tik.encode(t, bos=False, eos=False, allowed_special="all") for t in TEST_TEXTS]
    golden["bpe-llama3.tiktoken"] = {"ids": ids, "decoded": [tik.decode(i) for i in ids]}
    ids = [sp.encode(t) for t in TEST_TEXTS]
    golden["sp-bpe.model"] = {
        "ids": ids,
        "decoded": [sp.decode(i) for i in ids],
        "bos_id": sp.bos_id(),
        "eos_id": sp.eos_id(),
    }
    golden["bpe-llama3"]["bos_id"] = base
    golden["bpe-llama3"]["eos_ids"] = eot
    write_json(OUT / "golden.json", golden)
    for path in sorted(OUT.rglob("*")):
        if path.suffix in (".json", ".tiktoken", ".model"):
            print(f"{path.relative_to(OUT)}: {path.stat().st_size} bytes")


if __name__ == "__main__":
    main()
