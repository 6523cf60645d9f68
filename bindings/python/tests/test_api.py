"""The API around the runs: inspection, methods, bad inputs raising the engine's errors, and two
threads sharing one program."""

from __future__ import annotations

import threading

import numpy as np
import pytest
import wgx
from conftest import TESTS_DIR

LINEAR = TESTS_DIR / "fixtures" / "linear" / "vulkan.pte"
CONV = TESTS_DIR / "fixtures" / "conv" / "vulkan.pte"
LLM = TESTS_DIR / "llm" / "llama3_2" / "model.pte"


def test_inputs_and_outputs_are_described(context):
    prog = wgx.load(LINEAR, context=context)
    (x,) = prog.inputs()
    (y,) = prog.outputs()
    assert (x.dtype, x.shape, x.dynamic) == (np.dtype("float32"), (2, 5, 16), False)
    assert (y.dtype, y.shape) == (np.dtype("float32"), (2, 5, 12))
    assert prog.methods == ["forward"] and not prog.has_state


def test_llm_methods_and_constants(context):
    prog = wgx.load(LLM, context=context)
    assert "forward" in prog.methods
    constants = prog.constant_methods
    assert constants["get_max_seq_len"] == [64]
    tokens, _position = prog.inputs()
    assert tokens.dtype == np.int64 and tokens.dynamic and tokens.shape == (1, 63)


def test_bad_inputs_raise_the_engines_errors(context):
    prog = wgx.load(LINEAR, context=context)
    x = np.random.default_rng(0).standard_normal((2, 5, 16)).astype(np.float32)
    with pytest.raises(wgx.InvalidArgument, match="rank 2"):
        prog.run([x[0]])
    with pytest.raises(wgx.InvalidArgument, match="int16"):
        prog.run([x.astype(np.int16)])
    with pytest.raises(wgx.InvalidArgument):
        prog.run([x.astype(np.int32)])
    with pytest.raises(wgx.InvalidArgument, match="list of arrays"):
        prog.run(x)
    with pytest.raises(wgx.InvalidArgument):
        prog.run([])
    # A non-contiguous view is copied, not misread.
    wide = np.zeros((2, 5, 32), np.float32)
    wide[..., ::2] = x
    np.testing.assert_array_equal(prog.run([wide[..., ::2]])[0], prog.run([x])[0])


def test_bad_files_raise_load_errors(context, tmp_path):
    not_a_program = tmp_path / "text.pte"
    not_a_program.write_bytes(b"not an ExecuTorch program at all")
    with pytest.raises(wgx.LoadError, match="ET12"):
        wgx.load(not_a_program, context=context)
    corrupt = tmp_path / "truncated.pte"
    corrupt.write_bytes(LINEAR.read_bytes()[:300])
    with pytest.raises(wgx.LoadError, match="truncated.pte"):
        wgx.load(corrupt, context=context)
    with pytest.raises(wgx.LoadError):
        wgx.load(tmp_path / "missing.pte", context=context)
    with pytest.raises(wgx.LoadError, match="no_such_method"):
        wgx.load(LINEAR, method="no_such_method", context=context)


def run_in_two_threads(work) -> list:
    """Runs work(0) and work(1) at once; the wgx.Error or AssertionError each raised, if any."""
    errors = []

    def guarded(k):
        try:
            work(k)
        except (wgx.Error, AssertionError) as e:  # surfaced by the caller
            errors.append(e)

    threads = [threading.Thread(target=guarded, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors


def test_two_threads_on_one_program_get_their_own_outputs(context):
    prog = wgx.load(LINEAR, context=context)
    rng = np.random.default_rng(1)
    inputs = [rng.standard_normal((2, 5, 16)).astype(np.float32) for _ in range(2)]
    alone = [prog.run([x])[0] for x in inputs]
    results: list[list] = [[], []]

    def work(k):
        for _ in range(20):
            results[k].append(prog.run([inputs[k]])[0])

    assert not run_in_two_threads(work)
    for k in range(2):
        assert len(results[k]) == 20
        for got in results[k]:
            np.testing.assert_array_equal(got, alone[k])


def test_programs_sharing_a_context_from_two_threads(context):
    """Two programs on one context, run from two threads at once: calls on a context must not
    overlap, so they take turns, and each still gets its own outputs."""
    progs = [wgx.load(LINEAR, context=context), wgx.load(CONV, context=context)]
    inputs = [p.example_inputs(seed=k) for k, p in enumerate(progs)]
    alone = [p.run(x)[0] for p, x in zip(progs, inputs)]

    def work(k):
        for _ in range(15):
            np.testing.assert_array_equal(progs[k].run(inputs[k])[0], alone[k])

    assert not run_in_two_threads(work)


class Producer:
    """A DLPack producer that is not a numpy array (as a torch tensor on the CPU is)."""

    def __init__(self, array: np.ndarray) -> None:
        self._array = array

    def __dlpack__(self, **kwargs):
        return self._array.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._array.__dlpack_device__()


def test_dlpack_producers_are_taken(context):
    prog = wgx.load(LINEAR, context=context)
    (x,) = prog.example_inputs(seed=3)
    np.testing.assert_array_equal(prog.run([Producer(x)])[0], prog.run([x])[0])


def test_bench_and_profile(context):
    prog = wgx.load(LINEAR, context=context)
    result = prog.bench(iters=3, warmup=1)
    for key in ("run", "end_to_end"):
        r = result[key]
        assert 0 < r["min_ms"] <= r["median_ms"] <= r["p90_ms"]
    with pytest.raises(wgx.InvalidArgument, match="iters"):
        prog.bench(iters=0)
    try:
        dispatches = prog.profile()
    except wgx.InvalidArgument as e:  # adapters without GPU timestamps say so
        assert "timestamp-query" in str(e)
    else:
        assert dispatches and all(d["ms"] >= 0 and d["kernel"] for d in dispatches)
