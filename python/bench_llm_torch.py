"""PyTorch's side of the LLM benchmark: prefill and decode rates of ExecuTorch's own Llama class.

The model is the one export_llama exports (construct_transformer with a static KV cache in
buffers, max_context_len positions), with the weights of DIR/ckpt.pth and the prompt of
DIR/prompt.txt (python/llm_bench_model.py writes them). forward(tokens [1, S], {"input_pos":
positions [S]}) writes the S positions of the cache and returns the last token's logits. Its
attention (the class's own SDPA, which export_llama replaces by a custom op) attends over all
max_context_len positions, masked, after repeat_interleave expands K and V to every query head:
each step moves more than the useful bytes, which the report adds up in a note.

Per precision (fp32, tf32: fp32 with TF32 matmuls allowed, fp16, bf16) and mode:
  eager   the module called from Python
  graph   one decode step (and the prefill) captured in a torch.cuda.CUDAGraph whose static
          token and position tensors the step itself advances, replayed N times
  compile torch.compile(mode="reduce-overhead"): Inductor kernels in CUDA graphs
One step is always the same work: the forward, greedy argmax into the token tensor, position + 1,
all on the device, so no mode waits for the host inside the decode loop. Times are CUDA events
(on a CPU, perf_counter), medians of --repeats after --warmup; prefill is the whole prompt in one
forward, decode --new-tokens steps after it. --copy-gib times a device-to-device copy (bytes
read + written per second): the memory ceiling the report compares decode against.

Output: one JSON line per measurement on stdout (also appended to --out).
Usage: python bench_llm_torch.py DIR [--precisions fp32,tf32,fp16,bf16] [--modes eager,graph]
"""

from __future__ import annotations

import argparse
import copy
import json
import statistics
import sys
import time
import traceback
from pathlib import Path

import torch
from torch._dynamo.utils import counters

from llm_bench_model import build

DTYPES = {"fp32": torch.float32, "tf32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}


class Timer:
    """Elapsed milliseconds of a block: CUDA events on a GPU, the wall clock on a CPU."""

    def __init__(self, device: torch.device):
        self.cuda = device.type == "cuda"

    def __enter__(self):
        if self.cuda:
            self.start, self.end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            self.start.record()
        else:
            self.t0 = time.perf_counter()
        return self

    def __exit__(self, *exc):
        if self.cuda:
            self.end.record()
            self.end.synchronize()
            self.ms = self.start.elapsed_time(self.end)
        else:
            self.ms = (time.perf_counter() - self.t0) * 1e3


class Steps:
    """The prefill and one decode step over static tensors, run as called or replayed as graphs."""

    def __init__(self, model, prompt: torch.Tensor, forward=None):
        self.model = model
        self.forward = model if forward is None else forward
        device = prompt.device
        self.prompt = prompt.view(1, -1)
        self.prompt_pos = torch.arange(prompt.numel(), device=device)
        self.token = torch.zeros(1, 1, dtype=torch.long, device=device)
        self.pos = torch.zeros(1, dtype=torch.long, device=device)
        self.graphs = {}

    def prefill(self):
        logits = self.forward(self.prompt, {"input_pos": self.prompt_pos})
        self.token.copy_(logits.argmax(-1).view(1, 1))
        self.pos.fill_(self.prompt.shape[1])

    def decode(self):
        logits = self.forward(self.token, {"input_pos": self.pos})
        self.token.copy_(logits.argmax(-1).view(1, 1))
        self.pos.add_(1)

    def capture(self):
        """Replace both steps by CUDA graph replays (warmed up on a side stream first, as the
        capture needs: cuBLAS workspaces and the caching allocator set up outside the graph)."""
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            for _ in range(3):
                self.prefill()
                self.decode()
        torch.cuda.current_stream().wait_stream(stream)
        for name in ("prefill", "decode"):
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph):
                getattr(self, name)()
            self.graphs[name] = graph
        self.prefill, self.decode = self.graphs["prefill"].replay, self.graphs["decode"].replay


def measure(steps: Steps, device, new_tokens: int, warmup: int, repeats: int) -> dict:
    prefill_ms, decode_ms = [], []
    with torch.no_grad():
        with Timer(device) as first:
            steps.prefill()
        for i in range(warmup + repeats):
            with Timer(device) as t:
                steps.prefill()
            with Timer(device) as d:
                for _ in range(new_tokens):
                    steps.decode()
            if i >= warmup:
                prefill_ms.append(t.ms)
                decode_ms.append(d.ms)
    prefill, decode = statistics.median(prefill_ms), statistics.median(decode_ms)
    prompt = steps.prompt.shape[1]
    return {
        "prompt_tokens": prompt,
        "decode_tokens": new_tokens,
        "prefill_ms": prefill,
        "prefill_tokens_per_s": prompt / prefill * 1e3,
        "decode_ms_per_token": decode / new_tokens,
        "decode_tokens_per_s": new_tokens / decode * 1e3,
        # Warm: the prefill alone (the argmax is in it). The first prefill is reported apart.
        "time_to_first_token_ms": prefill,
        "first_prefill_ms": first.ms,
        "decode_ms_runs": decode_ms,
    }


def greedy_tokens(steps: Steps, count: int) -> list[int]:
    """The greedy continuation (outside the timings), to check the engines compute one model."""
    with torch.no_grad():
        steps.prefill()
        tokens = [int(steps.token)]
        for _ in range(count - 1):
            steps.decode()
            tokens.append(int(steps.token))
    return tokens


def run_one(base, precision: str, mode: str, prompt, args) -> dict:
    device = prompt.device
    torch.backends.cuda.matmul.allow_tf32 = precision == "tf32"
    torch.backends.cudnn.allow_tf32 = precision == "tf32"
    dtype = DTYPES[precision]
    model = base if dtype == torch.float32 else copy.deepcopy(base).to(dtype)
    model.requires_grad_(False)
    forward = None
    if mode == "compile":
        counters.clear()
        # dynamic=False: the prefill and the decode step are two fixed shapes, two graphs.
        forward = torch.compile(model, mode="reduce-overhead", dynamic=False)
    steps = Steps(model, prompt, forward)
    capture_s = 0.0
    if mode == "graph":
        t0 = time.perf_counter()
        with torch.no_grad():
            steps.capture()
        capture_s = time.perf_counter() - t0
    # With compile, first_prefill_ms holds the compilation of the prefill's shape.
    result = measure(steps, device, args.new_tokens, args.warmup, args.repeats)
    if mode == "compile":
        # Inductor falls back to plain kernel launches where it cannot use CUDA graphs (it logs
        # why): then this row is not what reduce-overhead promises.
        result["cudagraph_skips"] = counters["inductor"]["cudagraph_skips"]
    result["max_context_len"] = args.max_context_len
    return {**result, "capture_s": capture_s, "tokens": greedy_tokens(steps, args.check_tokens)}


def copy_bandwidth(device, gib: float, repeats: int) -> dict:
    n = int(gib * 2**30) // 4
    src = torch.ones(n, dtype=torch.float32, device=device)
    dst = torch.empty_like(src)
    times = []
    for i in range(3 + repeats):
        with Timer(device) as t:
            dst.copy_(src)
        if i >= 3:
            times.append(t.ms)
    ms = statistics.median(times)
    moved = 2 * src.numel() * 4  # read once, written once
    return {"kind": "copy", "bytes_copied": src.numel() * 4, "ms": ms, "gb_per_s": moved / ms / 1e6}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir", type=Path)
    parser.add_argument("--precisions", default="fp32,tf32,fp16,bf16")
    parser.add_argument("--modes", default="eager,graph", help="eager, graph, compile")
    parser.add_argument("--new-tokens", type=int, default=128)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--check-tokens", type=int, default=16, help="greedy tokens recorded")
    parser.add_argument("--max-seq-len", type=int, default=128)
    parser.add_argument("--max-context-len", type=int, default=2048)
    parser.add_argument("--copy-gib", type=float, default=4.0, help="0: no copy measurement")
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--out", type=Path, help="also append the JSON lines here")
    args = parser.parse_args()
    device = torch.device(args.device)
    name = torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu"
    common = {"engine": "pytorch", "device": name, "torch": torch.__version__}

    def emit(record: dict) -> None:
        line = json.dumps({**common, **record})
        print(line, flush=True)
        if args.out:
            with args.out.open("a") as f:
                f.write(line + "\n")

    if args.copy_gib > 0:
        emit(copy_bandwidth(device, args.copy_gib, args.repeats))
    params = json.loads((args.dir / "params.json").read_text())
    base = build(params, args.max_seq_len, args.max_context_len, kv_cache=True, device=device)
    weights = torch.load(args.dir / "ckpt.pth", map_location="cpu", mmap=True, weights_only=True)
    missing, unexpected = base.load_state_dict(weights, strict=False)
    # Only the caches may be missing: they start as zeros, as in the export.
    missing = [k for k in missing if not k.endswith(("k_cache", "v_cache"))]
    if missing or unexpected:
        raise SystemExit(f"checkpoint does not fit the model: missing {missing}, unexpected {unexpected}")
    del weights
    ids = [int(t) for t in (args.dir / "prompt.txt").read_text().split(",")]
    prompt = torch.tensor(ids, dtype=torch.long, device=device)
    for precision in args.precisions.split(","):
        for mode in args.modes.split(","):
            record = {"kind": "result", "precision": precision, "mode": mode}
            if mode != "eager" and device.type != "cuda":
                emit({**record, "skipped": "needs CUDA"})
                continue
            try:
                emit({**record, **run_one(base, precision, mode, prompt, args)})
            except Exception as error:  # one failed mode leaves the others' results
                traceback.print_exc()
                emit({**record, "error": f"{type(error).__name__}: {error}"[:2000]})
            if device.type == "cuda":
                torch.cuda.empty_cache()
    return 0


if __name__ == "__main__":
    sys.exit(main())
