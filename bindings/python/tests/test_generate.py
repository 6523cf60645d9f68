"""Program.generate() and wgx.Tokenizer: every LLM fixture's greedy tokens against PyTorch's
(tests/llm, the same references as the C++ tests), the CLI's checks and stop rules, sampling
with a seed, and the tokenizers against the Hugging Face / SentencePiece goldens of tests/text."""

from __future__ import annotations

import json

import numpy as np
import pytest
import wgx
from conftest import TESTS_DIR

LLM_DIR = TESTS_DIR / "llm"
TEXT_DIR = TESTS_DIR / "text"
LLAMA = LLM_DIR / "llama3_2" / "model.pte"


def llm_fixtures() -> list:
    """Each family's delegated program, or its plain one where the delegated export is known
    to be wrong (meta.json's skipped_programs)."""
    cases = []
    for meta in sorted(LLM_DIR.glob("*/meta.json")):
        pte = meta.parent / "model.pte"
        if not pte.exists():
            pte = meta.parent / "plain.pte"
        cases.append(pytest.param(pte, id=f"{meta.parent.name}/{pte.name}"))
    return cases


@pytest.mark.parametrize("pte", llm_fixtures())
def test_greedy_tokens_match_pytorch(context, pte):
    meta = json.loads((pte.parent / "meta.json").read_text())
    want = np.load(pte.parent / "tokens.npy").astype(np.int64).ravel().tolist()
    prompt_len = meta["prompt_len"]
    prog = wgx.load(pte, context=context)
    gen = prog.generate(
        prompt_tokens=want[:prompt_len], max_new_tokens=len(want) - prompt_len
    )
    got = [t.id for t in gen]
    assert got == want[prompt_len:]
    assert gen.tokens == got and gen.text is None
    assert gen.stop_reason in ("max-new-tokens", "context")
    assert gen.prefill_tokens_per_s > 0 and gen.time_to_first_token_ms > 0
    # A second generation starts from an empty cache: the same tokens again.
    again = prog.generate(prompt_tokens=want[:prompt_len], max_new_tokens=5).finish()
    assert again.tokens == want[prompt_len : prompt_len + 5]


def test_generation_and_runs_share_the_state(context):
    """generate() empties the cache first, whatever runs fed before it."""
    want = np.load(LLAMA.parent / "tokens.npy").astype(np.int64).ravel().tolist()
    prog = wgx.load(LLAMA, context=context)
    prog.run([np.array([want[:3]], np.int64), np.array([0], np.int64)])
    gen = prog.generate(prompt_tokens=want[:7], max_new_tokens=4).finish()
    assert gen.tokens == want[7:11]
    assert gen.stop_reason == "max-new-tokens"


def test_sampling_is_seeded(context):
    prog = wgx.load(LLAMA, context=context)

    def sample(seed):
        return prog.generate(
            prompt_tokens=[1, 2, 3],
            max_new_tokens=12,
            temperature=1.5,
            top_k=50,
            top_p=0.95,
            seed=seed,
        ).finish()

    a, b, c = sample(7), sample(7), sample(8)
    assert a.tokens == b.tokens
    assert a.tokens != c.tokens  # 12 tokens at temperature 1.5: equal only by a fluke


def test_the_clis_checks(context, tmp_path):
    prog = wgx.load(LLAMA, context=context)
    with pytest.raises(wgx.InvalidArgument, match="give a prompt"):
        prog.generate()
    with pytest.raises(wgx.InvalidArgument, match="give a prompt"):
        prog.generate("hi", prompt_tokens=[1])
    with pytest.raises(wgx.InvalidArgument, match="need tokenizer"):
        prog.generate("hello")
    with pytest.raises(wgx.InvalidArgument, match="max_new_tokens 0"):
        prog.generate(prompt_tokens=[1], max_new_tokens=0)
    with pytest.raises(wgx.InvalidArgument, match="the context holds 64"):
        prog.generate(prompt_tokens=[1] * 64)
    with pytest.raises(wgx.InvalidArgument, match="prompt token 1 is -3"):
        prog.generate(prompt_tokens=[1, -3])
    with pytest.raises(wgx.InvalidArgument, match="temperature"):
        prog.generate(prompt_tokens=[1], temperature=-1.0)
    with pytest.raises(wgx.InvalidArgument, match="top-p"):
        prog.generate(prompt_tokens=[1], temperature=1.0, top_p=0.0)
    with pytest.raises(wgx.LoadError):
        prog.generate("hello", tokenizer=tmp_path / "missing.json")
    vision = wgx.load(TESTS_DIR / "fixtures" / "linear" / "vulkan.pte", context=context)
    with pytest.raises(wgx.InvalidArgument, match="not an LLM export"):
        vision.generate(prompt_tokens=[1])


def test_a_later_generation_supersedes_an_earlier_one(context):
    prog = wgx.load(LLAMA, context=context)
    first = prog.generate(prompt_tokens=[1, 2, 3], max_new_tokens=10)
    next(first)
    prog.generate(prompt_tokens=[4, 5], max_new_tokens=2).finish()
    with pytest.raises(wgx.Error, match="superseded"):
        next(first)


def test_the_context_ends_a_generation(context):
    prog = wgx.load(LLAMA, context=context)
    gen = prog.generate(prompt_tokens=[1] * 60, max_new_tokens=50).finish()
    # Positions 0-59 hold the prompt; tokens are fed at 60, 61, 62, 63, then the cache is full.
    assert gen.stop_reason == "context" and len(gen.tokens) == 5


TOKENIZERS = ["bpe-llama3", "bpe-gpt2", "bpe-llama3.tiktoken", "sp-bpe.model"]


@pytest.mark.parametrize("name", TOKENIZERS)
def test_tokenizers_match_their_goldens(name):
    golden = json.loads((TEXT_DIR / "golden.json").read_text())
    tok = wgx.Tokenizer(TEXT_DIR / name)
    want = golden[name]
    for text, ids, decoded in zip(golden["texts"], want["ids"], want["decoded"]):
        assert tok.encode(text) == ids, text
        assert tok.decode(ids) == decoded, text
    if "bos_id" in want:
        assert tok.bos_id == want["bos_id"]
    if "eos_ids" in want:
        assert tok.eos_ids == sorted(want["eos_ids"])
    with pytest.raises(wgx.InvalidArgument):
        tok.decode([tok.vocab_size + 10])


def test_chat_template_renders_a_conversation():
    tok = wgx.Tokenizer(TEXT_DIR / "bpe-llama3")
    if not tok.chat_template:
        pytest.skip("this tokenizer ships no chat template")
    text = tok.apply_chat_template([{"role": "user", "content": "Hi there"}])
    assert "Hi there" in text and text.index("Hi there") > 0
    assert tok.encode(text)  # the rendering encodes


def test_bad_tokenizer_files_raise(tmp_path):
    junk = tmp_path / "tokenizer.json"
    junk.write_text("{ not json")
    with pytest.raises(wgx.LoadError, match="tokenizer.json"):
        wgx.Tokenizer(junk)
