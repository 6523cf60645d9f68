"""wgx: run ExecuTorch programs (.pte, or program.json + weights.bin) on any GPU through WebGPU.

    import numpy as np, wgx
    prog = wgx.load("model.pte")                 # method "forward" by default
    outputs = prog.run([np.ones((1, 3, 224, 224), np.float32)])

Inputs are numpy arrays (or any CPU array with DLPack, made C-contiguous as needed); outputs are
new numpy arrays. Errors of the engine are raised as wgx.LoadError (a file it cannot load),
wgx.InvalidArgument (inputs outside a program's bounds, wrong dtypes or ranks), wgx.GpuError
and wgx.DeviceLost, all subclasses of wgx.Error, with the engine's message. docs/PYTHON.md has
the whole API and how it differs from executorch.runtime.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from . import _core, _generate
from ._core import DeviceLost, Error, GpuError, InvalidArgument, LoadError
from ._generate import Generation, Token, Tokenizer

__all__ = [
    "Context",
    "DeviceLost",
    "Error",
    "Generation",
    "GpuError",
    "InvalidArgument",
    "LoadError",
    "Program",
    "TensorInfo",
    "Token",
    "Tokenizer",
    "load",
    "methods",
    "version",
]


def version() -> str:
    """The engine's version, e.g. "0.3.0"."""
    return _core.version()


def methods(path: str | os.PathLike) -> list[str]:
    """The names of the methods a .pte holds ("forward", ...); ["forward"] for program.json."""
    return list(_core.methods(os.fspath(path)))


class TensorInfo:
    """An input or output of a program: name (may be empty), dtype (a numpy dtype), shape (the
    upper bound of each dim when `dynamic`) and whether its shape may be smaller at run time."""

    __slots__ = ("dtype", "dynamic", "name", "shape")

    def __init__(self, info: dict) -> None:
        self.name: str = info["name"]
        self.dtype: np.dtype = np.dtype(info["dtype"])
        self.shape: tuple[int, ...] = tuple(info["shape"])
        self.dynamic: bool = info["dynamic"]

    def __repr__(self) -> str:
        bound = " (upper bound)" if self.dynamic else ""
        return f"TensorInfo({self.name or '?'}: {self.dtype} {list(self.shape)}{bound})"


class Context:
    """A GPU device the programs run on. `adapter`: "auto" (the best: discrete > integrated >
    other > CPU), "discrete", "integrated", "cpu", an index or part of the adapter's name;
    `backend`: "auto", "vulkan", "metal", "dx12", "gl"; `allow_cpu`: whether "auto" may fall back
    to a software adapter; `shader_checks`: bounds checks in every shader (None: the engine's
    default). Empty adapter and backend read $WGX_ADAPTER and $WGX_BACKEND, as the CLI does."""

    def __init__(
        self,
        adapter: str = "",
        backend: str = "",
        allow_cpu: bool = True,
        shader_checks: bool | None = None,
    ) -> None:
        self._core = _core.create_context(adapter, backend, allow_cpu, shader_checks)

    @property
    def adapter(self) -> str:
        """The adapter's name, e.g. "NVIDIA H200" or "llvmpipe (LLVM 15.0.6, 256 bits)"."""
        return self._core.adapter

    @property
    def allocated_bytes(self) -> int:
        """Bytes of GPU buffers this context holds (constants, pools, state)."""
        return self._core.allocated_bytes


_default_context: Context | None = None
_default_lock = threading.Lock()


def _context(context: Context | None) -> Context:
    global _default_context
    if context is not None:
        return context
    with _default_lock:
        if _default_context is None:
            _default_context = Context()
        return _default_context


_DTYPES = {"float32", "float16", "float64", "int64", "int32", "int8", "uint8", "bool"}


def _as_input(x: Any, i: int) -> np.ndarray:
    if isinstance(x, np.ndarray):
        a = np.ascontiguousarray(x)
    elif hasattr(x, "__dlpack__"):
        a = np.ascontiguousarray(np.from_dlpack(x))
    elif isinstance(x, (bool, int, float)):
        raise InvalidArgument(
            f"input {i}: a Python scalar; pass a numpy array (np.asarray(x, dtype))"
        )
    else:
        raise InvalidArgument(
            f"input {i}: {type(x).__name__} is not an array (numpy or DLPack)"
        )
    if a.dtype.name not in _DTYPES:
        raise InvalidArgument(
            f"input {i}: {a.dtype.name} arrays are not taken; the engine's dtypes are {sorted(_DTYPES)}"
        )
    return a


class Program:
    """A loaded program: its methods, each prepared once on first use and then replayed.
    Made by wgx.load()."""

    def __init__(
        self,
        path: str | os.PathLike,
        method: str = "forward",
        context: Context | None = None,
        float16: bool = False,
        fuse: bool = True,
    ) -> None:
        self.path = os.fspath(path)
        self.method = method
        self.context = _context(context)
        self._options = (fuse, float16)
        self._loaded: dict[str, Any] = {}
        self._lock = threading.Lock()
        self._generator: Any = None
        self._generation_serial = 0
        self._method(method)  # load errors surface here, not at the first run

    def _method(self, method: str | None) -> Any:
        with self._lock:
            return self._method_locked(method)

    def _method_locked(self, method: str | None) -> Any:
        name = method or self.method
        loaded = self._loaded.get(name)
        if loaded is None:
            fuse, float16 = self._options
            loaded = _core.load_program(
                self.context._core, self.path, name, fuse, float16
            )
            self._loaded[name] = loaded
        return loaded

    @property
    def methods(self) -> list[str]:
        """Every method of the file, constant ones included."""
        return methods(self.path)

    @property
    def constant_methods(self) -> dict[str, list]:
        """The methods that only return constants, with their values (get_max_seq_len, ...)."""
        return {name: values for name, values in _core.constant_methods(self.path)}

    def inputs(self, method: str | None = None) -> list[TensorInfo]:
        return [TensorInfo(i) for i in self._method(method).inputs]

    def outputs(self, method: str | None = None) -> list[TensorInfo]:
        return [TensorInfo(o) for o in self._method(method).outputs]

    @property
    def has_state(self) -> bool:
        """Whether the method keeps state between runs (a KV cache, a recurrent state)."""
        return self._method(None).has_state

    def run(self, inputs: Sequence[Any], method: str | None = None) -> list[np.ndarray]:
        """Runs the method (default: the one given to load) on `inputs`, a list of arrays in
        the order of inputs(); returns its outputs as numpy arrays."""
        if inputs is None:
            raise InvalidArgument("run() takes a list of arrays: prog.run([x])")
        return list(self._method(method).run(self._arrays(inputs, method)))

    def example_inputs(
        self, method: str | None = None, seed: int = 0
    ) -> list[np.ndarray]:
        """Random inputs of the method's full shapes, as `wgx bench` makes them: standard
        normal floats, and 0 or 1 for integers and booleans."""
        rng = np.random.default_rng(seed)
        out = []
        for info in self.inputs(method):
            if info.dtype.kind == "f":
                out.append(rng.standard_normal(info.shape).astype(info.dtype))
            else:
                out.append(rng.integers(0, 2, info.shape).astype(info.dtype))
        return out

    def bench(
        self,
        inputs: Sequence[Any] | None = None,
        iters: int = 50,
        warmup: int = 5,
        method: str | None = None,
    ) -> dict[str, Any]:
        """Times the method on `inputs` (default: example_inputs()): "run" is a run waited for
        (inputs written, the GPU's work), "end_to_end" the same with the outputs read back;
        each {"median_ms", "p90_ms", "min_ms", "mean_ms"}. `python -m wgx bench` adds the
        GPU-resident time and the CPU's encode time."""
        arrays = self._arrays(inputs, method)
        times = self._method(method).bench(arrays, int(iters), int(warmup))
        result: dict[str, Any] = {"iters": iters, "warmup": warmup}
        for key in ("run", "end_to_end"):
            v = np.sort(np.asarray(times[key]))
            result[key] = {
                "median_ms": float(v[len(v) // 2]),
                "p90_ms": float(v[min(len(v) - 1, len(v) * 9 // 10)]),
                "min_ms": float(v[0]),
                "mean_ms": float(v.mean()),
            }
        return result

    def profile(
        self, inputs: Sequence[Any] | None = None, method: str | None = None
    ) -> list[dict[str, Any]]:
        """One run with GPU timestamps around every dispatch (needs the adapter's
        timestamp-query feature): [{"scope": "#12 aten.convolution.default", "kernel": ...,
        "ms": ...}, ...] in recorded order."""
        arrays = self._arrays(inputs, method)
        return [
            {"scope": scope, "kernel": kernel, "ms": ms}
            for scope, kernel, ms in self._method(method).profile(arrays)
        ]

    def _arrays(
        self, inputs: Sequence[Any] | None, method: str | None
    ) -> list[np.ndarray]:
        if inputs is None:
            return self.example_inputs(method)
        if isinstance(inputs, np.ndarray) or hasattr(inputs, "__dlpack__"):
            raise InvalidArgument("run() takes a list of arrays: prog.run([x])")
        return [_as_input(x, i) for i, x in enumerate(inputs)]

    def reset_state(self, method: str | None = None) -> None:
        """Puts the method's state back to its initial contents (an LLM's cache empties)."""
        self._method(method).reset_state()

    def generate(
        self,
        prompt: str | None = None,
        *,
        prompt_tokens: Sequence[int] | None = None,
        tokenizer: Tokenizer | str | os.PathLike | None = None,
        max_new_tokens: int = 64,
        temperature: float | None = None,
        top_k: int = 0,
        top_p: float = 1.0,
        seed: int = 0,
        stop: str | None = None,
    ) -> Generation:
        """Generates tokens with an LLM export (ExecuTorch's export_llama with a KV cache), as
        `wgx generate` does, with its argument names: the prompt as text (with a tokenizer) or
        as ids, then until an end-of-sequence id, the stop string, max_new_tokens or the end
        of the context. Greedy unless a temperature is given (then top_k, top_p and seed).
        Returns a Generation that yields a Token (id, text) per step as it is iterated; each
        call starts from an empty cache. Arguments are checked here, before any GPU work."""
        return _generate.start(
            self,
            prompt,
            prompt_tokens,
            tokenizer,
            max_new_tokens,
            temperature,
            top_k,
            top_p,
            seed,
            stop,
        )

    def _fresh_generator(self, context_length: int) -> tuple[Any, int]:
        """The method's generator with an empty cache, and the serial of the generation that
        owns it now (an earlier Generation on this program stops with an error)."""
        with self._lock:
            if self._generator is None:
                self._generator = _core.Generator(
                    self._method_locked(None), context_length
                )
            self._generation_serial += 1
            serial = self._generation_serial
        self._generator.reset()
        return self._generator, serial

    def __repr__(self) -> str:
        return f"wgx.Program({self.path!r}, method={self.method!r})"


def load(
    path: str | os.PathLike,
    method: str = "forward",
    context: Context | None = None,
    float16: bool = False,
    fuse: bool = True,
) -> Program:
    """Loads a .pte (or program.json beside its weights.bin) for `method`; raises LoadError
    naming the file and what is wrong (unsupported ops with their counts, a corrupt file)."""
    return Program(path, method=method, context=context, float16=float16, fuse=fuse)
