"""Every committed fixture program through the Python API against its golden, as the C++ program
tests check them: relative L2 and max |error| / max |reference| against PyTorch's float64 output,
each within max(1e-4, 4 x PyTorch float32's own error); the LLM fixtures' teacher-forced logits
the same way against the float64 logits."""

from __future__ import annotations

import json

import numpy as np
import pytest
import wgx
from conftest import TESTS_DIR


def program_fixtures() -> list:
    cases = []
    for group in ("fixtures", "models"):
        root = TESTS_DIR / group
        for meta_path in sorted(root.glob("*/meta.json")):
            meta = json.loads(meta_path.read_text())
            if "inputs" not in meta or "outputs" not in meta:
                continue
            for pte in ("vulkan.pte", "plain.pte"):
                if (meta_path.parent / pte).exists():
                    cases.append(
                        pytest.param(
                            meta_path.parent,
                            pte,
                            id=f"{group}/{meta_path.parent.name}/{pte}",
                        )
                    )
    return cases


def rel_l2(got: np.ndarray, want: np.ndarray) -> float:
    return float(
        np.linalg.norm(got.astype(np.float64) - want) / max(np.linalg.norm(want), 1e-30)
    )


def max_abs_rel(got: np.ndarray, want: np.ndarray) -> float:
    return float(
        np.abs(got.astype(np.float64) - want).max() / max(np.abs(want).max(), 1e-30)
    )


@pytest.mark.parametrize(("folder", "pte"), program_fixtures())
def test_fixture_matches_its_golden(context, folder, pte):
    meta = json.loads((folder / "meta.json").read_text())
    prog = wgx.load(folder / pte, context=context)
    inputs = [np.load(folder / spec["file"]) for spec in meta["inputs"]]
    outputs = prog.run(inputs)
    assert len(outputs) == len(meta["outputs"])
    for k, (got, spec) in enumerate(zip(outputs, meta["outputs"])):
        err = meta["torch_fp32_vs_fp64"][k]
        want = (
            np.load(folder / spec["file64"])
            if "file64" in spec
            else np.load(folder / spec["file"])
        )
        assert got.shape == tuple(spec["shape"]), f"output {k}"
        if not np.issubdtype(got.dtype, np.floating):
            np.testing.assert_array_equal(got, want, err_msg=f"output {k}")
            continue
        assert rel_l2(got, want) <= max(1e-4, 4 * err["rel_l2"]), f"output {k}"
        assert max_abs_rel(got, want) <= max(1e-4, 4 * err["max_abs_over_max_ref"]), (
            f"output {k}"
        )


def llm_fixtures() -> list:
    root = TESTS_DIR / "llm"
    return [
        pytest.param(d, id=d.name)
        for d in sorted(root.glob("*"))
        if (d / "model.pte").exists()
    ]


@pytest.mark.parametrize("folder", llm_fixtures())
def test_llm_teacher_forced_logits(context, folder):
    meta = json.loads((folder / "meta.json").read_text())
    tokens = np.load(folder / "tokens.npy").astype(np.int64)
    want = np.load(folder / "logits64.npy")
    prog = wgx.load(folder / "model.pte", context=context)
    assert prog.has_state
    limit = max(1e-4, 4 * meta["fp32_vs_fp64_rel_l2"])
    p = meta["prompt_len"]
    for _ in range(
        2
    ):  # a second round after reset_state starts from an empty cache again
        prog.reset_state()
        (logits,) = prog.run([tokens[None, :p], np.array([0], np.int64)])
        assert rel_l2(logits[0], want[p - 1]) <= limit
        for t in range(p, min(len(tokens), p + 8)):
            (logits,) = prog.run([tokens[None, t : t + 1], np.array([t], np.int64)])
            assert rel_l2(logits[0], want[t]) <= limit, f"position {t}"
