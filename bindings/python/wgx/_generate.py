"""Text generation over an LLM export (Program.generate), the loop of `wgx generate`: the prompt
fed in chunks of the program's bound, then one token picked from the logits and fed back per
step, with the same argument names, stop rules and checks as the CLI."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING

from . import _core
from ._core import Error, InvalidArgument

if TYPE_CHECKING:
    from . import Program


class Tokenizer:
    """Text to token ids and back: a Hugging Face tokenizer.json (or its directory, with
    tokenizer_config.json and generation_config.json beside it), a tiktoken file or a
    SentencePiece model, told apart by their contents. Raises LoadError for a file it cannot
    read."""

    def __init__(self, path: str | os.PathLike) -> None:
        self._core = _core.Tokenizer.load(os.fspath(path))

    def encode(self, text: str, add_bos: bool = False) -> list[int]:
        """The ids of `text`; special-token text such as "<|eot_id|>" becomes that token for
        the BPE formats. add_bos puts bos_id first."""
        return list(self._core.encode(text, add_bos))

    def decode(self, ids: Sequence[int]) -> str:
        """The text of `ids` (bytes that are not UTF-8 become U+FFFD); InvalidArgument for an
        id outside the vocabulary."""
        return self._core.decode([int(i) for i in ids])

    @property
    def format(self) -> str:
        """ "huggingface", "tiktoken" or "sentencepiece"."""
        return self._core.format

    @property
    def vocab_size(self) -> int:
        return self._core.vocab_size

    @property
    def bos_id(self) -> int | None:
        return self._core.bos_id

    @property
    def eos_ids(self) -> list[int]:
        """Every id that ends a generation, sorted."""
        return list(self._core.eos_ids)

    @property
    def chat_template(self) -> str:
        """tokenizer_config.json's Jinja chat template; empty when none is shipped."""
        return self._core.chat_template

    @property
    def path(self) -> str:
        return self._core.path

    def apply_chat_template(
        self,
        messages: Sequence[Mapping[str, str]],
        add_generation_prompt: bool = True,
    ) -> str:
        """The conversation (dicts with "role" and "content", as Hugging Face takes them)
        rendered with the model's chat template; LoadError when the tokenizer ships none."""
        turns = [(m["role"], m["content"]) for m in messages]
        return _core.ChatTemplate(self._core).render(turns, add_generation_prompt)

    def __repr__(self) -> str:
        return f"wgx.Tokenizer({self.path!r}, {self.format}, {self.vocab_size} tokens)"


class Token:
    """One generated token: its id, and the text it releases (empty while a character spans
    several tokens or while a stop string might begin; without a tokenizer always empty)."""

    __slots__ = ("id", "text")

    def __init__(self, id: int, text: str) -> None:
        self.id = id
        self.text = text

    def __repr__(self) -> str:
        return f"Token({self.id}, {self.text!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Token) and (self.id, self.text) == (
            other.id,
            other.text,
        )


class Generation:
    """The tokens of one generate() call, produced as they are iterated. When the iteration
    ends, `tokens`, `text`, `stop_reason` ("max-new-tokens", "eos", "stop" or "context") and the
    rates are complete; finish() runs it to the end and returns it."""

    def __init__(
        self,
        program: Program,
        generator: _core.Generator,
        serial: int,
        prompt_tokens: list[int],
        tokenizer: Tokenizer | None,
        sampler: _core.Sampler,
        stop_ids: set[int],
        stop: str | None,
        max_new_tokens: int,
    ) -> None:
        self.prompt_tokens = prompt_tokens
        self.tokens: list[int] = []
        self.text: str | None = "" if tokenizer else None
        self.stop_reason: str | None = None
        self.time_to_first_token_ms: float | None = None
        self.prefill_tokens_per_s: float | None = None
        self.decode_tokens_per_s: float | None = None
        self._program = program
        self._gen = generator
        self._serial = serial
        self._sampler = sampler
        self._stop_ids = stop_ids
        self._stop = stop or ""
        self._max = max_new_tokens
        self._stream = _core.StreamDecoder(tokenizer._core) if tokenizer else None
        self._decoded = ""  # the text of the tokens so far (before a stop string cut)
        self._released = 0  # characters of it handed out in Tokens
        self._t0 = 0.0
        self._t_decode = 0.0

    def __iter__(self) -> Iterator[Token]:
        return self

    def __next__(self) -> Token:
        if self.stop_reason is not None:
            raise StopIteration
        if self._program._generation_serial != self._serial:
            raise Error(
                "this generation was superseded: a later generate() on the same program "
                "reset its cache"
            )
        if not self.tokens:
            self._t0 = time.perf_counter()
            self._gen.feed(self.prompt_tokens)
            self._t_decode = time.perf_counter()
            self.prefill_tokens_per_s = len(self.prompt_tokens) / max(
                self._t_decode - self._t0, 1e-9
            )
        else:
            self._gen.feed([self.tokens[-1]])
        next_id = int(self._sampler.pick(self._gen))
        if not self.tokens:
            self.time_to_first_token_ms = (time.perf_counter() - self._t0) * 1e3
        self.tokens.append(next_id)
        eos = next_id in self._stop_ids
        reason = None
        if self._stream is not None and not eos:
            self._decoded += self._stream.push(next_id)
        if self._stop and self._stop in self._decoded:
            self._decoded = self._decoded[: self._decoded.index(self._stop)]
            reason = "stop"
        elif eos:
            reason = "eos"
        elif len(self.tokens) >= self._max:
            reason = "max-new-tokens"
        elif self._gen.position >= self._gen.context_length:
            reason = "context"
        if reason is not None:
            if self._stream is not None and reason != "stop":
                self._decoded += self._stream.flush()
            self._finish(reason)
            end = len(self._decoded)
        else:
            # Until a stop string can no longer begin in the text, its length less one is held.
            end = max(self._released, len(self._decoded) - max(len(self._stop) - 1, 0))
        piece = self._decoded[self._released : end]
        self._released = end
        if self.text is not None:
            self.text = self._decoded[: self._released]
        return Token(next_id, piece)

    def _finish(self, reason: str) -> None:
        self.stop_reason = reason
        steps = len(self.tokens) - 1
        elapsed = time.perf_counter() - self._t_decode
        self.decode_tokens_per_s = steps / elapsed if steps > 0 and elapsed > 0 else 0.0

    def finish(self) -> Generation:
        """Generates to the end and returns this Generation (tokens, text, stop_reason)."""
        for _ in self:
            pass
        return self

    def __repr__(self) -> str:
        state = self.stop_reason or "running"
        return f"Generation({len(self.tokens)} tokens, {state})"


def _constant(constants: dict[str, list], name: str) -> int | None:
    values = constants.get(name)
    if (
        values
        and isinstance(values[0], (int, float))
        and not isinstance(values[0], bool)
    ):
        return int(values[0])
    return None


def context_length(constants: dict[str, list], path: str) -> int:
    """The cache positions an export has (get_max_context_len, else get_max_seq_len)."""
    for name in ("get_max_context_len", "get_max_seq_len"):
        value = _constant(constants, name)
        if value is not None:
            return value
    raise InvalidArgument(
        f"{path} has neither get_max_context_len nor get_max_seq_len: not an LLM export "
        "(ExecuTorch's export_llama writes them)"
    )


def eos_ids(constants: dict[str, list]) -> set[int]:
    """get_eos_ids / get_eos_id of the export, empty when it has neither."""
    values = constants.get("get_eos_ids") or constants.get("get_eos_id") or []
    return {int(v) for v in values}


def start(
    program: Program,
    prompt: str | None,
    prompt_tokens: Sequence[int] | None,
    tokenizer: Tokenizer | str | os.PathLike | None,
    max_new_tokens: int,
    temperature: float | None,
    top_k: int,
    top_p: float,
    seed: int,
    stop: str | None,
) -> Generation:
    """Checks the arguments as `wgx generate` does and returns the Generation, not yet begun."""
    if (prompt is None) == (prompt_tokens is None):
        raise InvalidArgument(
            "give a prompt: prompt=TEXT (with tokenizer=) or prompt_tokens=[1, 2, 3]"
        )
    if tokenizer is not None and not isinstance(tokenizer, Tokenizer):
        tokenizer = Tokenizer(tokenizer)
    if (prompt is not None or stop) and tokenizer is None:
        raise InvalidArgument("prompt and stop are text: they need tokenizer=FILE")
    if max_new_tokens < 1:
        raise InvalidArgument(f"max_new_tokens {max_new_tokens} must be at least 1")
    if prompt is not None:
        # A model's BOS starts the prompt when its tokenizer has one, as in the CLI.
        ids = tokenizer.encode(prompt, add_bos=tokenizer.bos_id is not None)
        if not ids:
            raise InvalidArgument("the prompt encodes to no tokens")
    else:
        ids = [int(t) for t in prompt_tokens]
        if not ids:
            raise InvalidArgument("prompt_tokens is empty")
    constants = program.constant_methods
    context = context_length(constants, program.path)
    stop_ids = eos_ids(constants)
    if not stop_ids and tokenizer is not None:
        stop_ids = set(tokenizer.eos_ids)
    vocab = _constant(constants, "get_vocab_size") or -1
    if tokenizer is not None and vocab > 0 and tokenizer.vocab_size > vocab:
        raise InvalidArgument(
            f"{tokenizer.path} has {tokenizer.vocab_size} tokens; the model's vocabulary {vocab}"
        )
    for i, t in enumerate(ids):
        if t < 0 or (vocab > 0 and t >= vocab):
            bound = f"[0, {vocab})" if vocab > 0 else "non-negative"
            raise InvalidArgument(f"prompt token {i} is {t}: ids are {bound}")
    if len(ids) >= context:
        raise InvalidArgument(
            f"the prompt has {len(ids)} tokens; the context holds {context} "
            "(room is needed for one more)"
        )
    sampler = _core.Sampler(temperature, int(top_k), float(top_p), int(seed))
    generator, serial = program._fresh_generator(context)
    return Generation(
        program,
        generator,
        serial,
        ids,
        tokenizer,
        sampler,
        stop_ids,
        stop,
        max_new_tokens,
    )
