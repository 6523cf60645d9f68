#!/usr/bin/env python3
"""Checks of python/demo_reference.py's preprocessing and decoders on small synthetic cases with
answers worked out by hand. They are the oracle for the C++ demo tests, so they are tested
against first principles here, not against themselves.

    python/.venv/bin/python python/tests/test_demo_reference.py       # exit 0 = all passed
    cd python && .venv/bin/python -m tests.test_demo_reference          # the same
"""

from __future__ import annotations

import math
import sys
import traceback

import numpy as np
import torch

import demo_reference as dr


def close(a, b, tol=1e-9):
    return abs(a - b) <= tol


# --- IoU and NMS ------------------------------------------------------------------------------


def test_iou():
    assert close(dr.iou([0, 0, 10, 10], [0, 0, 10, 10]), 1.0)
    assert dr.iou([0, 0, 10, 10], [10, 0, 20, 10]) == 0.0  # touching edges
    assert dr.iou([0, 0, 10, 10], [20, 20, 30, 30]) == 0.0
    # [0,0,10,10] vs [5,0,15,10]: inter 50, union 150
    assert close(dr.iou([0, 0, 10, 10], [5, 0, 15, 10]), 1 / 3)
    # a box inside another: inter = small area
    assert close(dr.iou([0, 0, 10, 10], [2, 2, 4, 4]), 4 / 100)
    assert dr.iou([5, 5, 5, 9], [0, 0, 10, 10]) == 0.0  # empty box


def _det(cls, score, box):
    return {"class": cls, "score": score, "box": box}


def test_nms_per_class_and_agnostic():
    cands = [
        _det(0, 0.9, [0, 0, 10, 10]),
        _det(0, 0.8, [1, 0, 11, 10]),  # IoU 9/11 with the first
        _det(1, 0.7, [0, 0, 10, 10]),
        _det(0, 0.6, [50, 50, 60, 60]),
    ]
    kept = dr.nms(cands, 0.5, True, 100)
    assert [(k["class"], k["score"]) for k in kept] == [(0, 0.9), (1, 0.7), (0, 0.6)]
    kept = dr.nms(cands, 0.5, False, 100)
    assert [(k["class"], k["score"]) for k in kept] == [(0, 0.9), (0, 0.6)]


def test_nms_threshold_is_strict():
    # IoU exactly 1/3: kept at threshold 1/3 (only "above" suppresses), dropped just below it.
    a, b = _det(0, 0.9, [0, 0, 10, 10]), _det(0, 0.8, [5, 0, 15, 10])
    assert len(dr.nms([a, b], 1 / 3, True, 10)) == 2
    assert len(dr.nms([a, b], 1 / 3 - 1e-9, True, 10)) == 1


def test_nms_order_and_limit():
    # Unsorted input comes out best first; equal scores keep the input order.
    cands = [
        _det(0, 0.5, [0, 0, 1, 1]),
        _det(0, 0.7, [10, 10, 11, 11]),
        _det(1, 0.7, [20, 20, 21, 21]),
        _det(0, 0.9, [30, 30, 31, 31]),
    ]
    kept = dr.nms(cands, 0.5, True, 100)
    assert [k["score"] for k in kept] == [0.9, 0.7, 0.7, 0.5]
    assert [k["class"] for k in kept[1:3]] == [0, 1]
    assert [k["score"] for k in dr.nms(cands, 0.5, True, 2)] == [0.9, 0.7]
    # A suppressed box does not suppress others (greedy against kept boxes only).
    chain = [_det(0, 0.9, [0, 0, 10, 10]), _det(0, 0.8, [4, 0, 14, 10]), _det(0, 0.7, [8, 0, 18, 10])]
    # IoU(1st,2nd) = 60/140 > 0.4 -> 2nd dropped; IoU(1st,3rd) = 20/180 < 0.4 -> 3rd kept.
    assert [k["score"] for k in dr.nms(chain, 0.4, True, 10)] == [0.9, 0.7]


# --- DFL --------------------------------------------------------------------------------------


def test_dfl_expectation():
    big = 60.0
    onehot = np.full((3, 11), -big)
    for i, k in enumerate((0, 4, 10)):
        onehot[i, k] = big
    assert np.allclose(dr.dfl_expectation(onehot), [0, 4, 10], atol=1e-9)
    assert close(float(dr.dfl_expectation(np.zeros(11))), 5.0)  # uniform -> middle
    # Two equal bins 2 and 3 -> 2.5; a constant shift changes nothing.
    two = np.full(8, -big)
    two[2] = two[3] = 7.0
    assert close(float(dr.dfl_expectation(two)), 2.5)
    rng = np.random.default_rng(1)
    x = rng.normal(size=(5, 17)) * 3
    p = np.exp(x) / np.exp(x).sum(-1, keepdims=True)
    assert np.allclose(dr.dfl_expectation(x), (p * np.arange(17)).sum(-1), rtol=0, atol=1e-12)
    assert np.allclose(dr.dfl_expectation(x + 1000.0), dr.dfl_expectation(x), atol=1e-9)  # no overflow


def _onehot_bins(dists, reg_max):
    out = np.full((4, reg_max + 1), -60.0)
    for side, d in enumerate(dists):
        out[side, d] = 60.0
    return out.ravel()


def test_dfl_cells_order():
    # 40x24 input (W x H), strides 8 and 16: 5x3 + 3x2 cells (ceil for the partial cells).
    c, s = dr.dfl_cells(24, 40, [8, 16], 0.5)
    assert c.shape == (15 + 6, 2) and list(s[:15]) == [8.0] * 15 and list(s[15:]) == [16.0] * 6
    assert list(c[0]) == [4, 4] and list(c[1]) == [12, 4] and list(c[5]) == [4, 12]  # x-minor
    assert list(c[15]) == [8, 8] and list(c[17]) == [40, 8] and list(c[18]) == [8, 24]
    c0, _ = dr.dfl_cells(24, 40, [8, 16], 0.0)
    assert list(c0[6]) == [8, 8]


def test_decode_anchor_free_dfl():
    H, W, reg_max = 32, 64, 7
    strides = [8, 16]
    n = (4 * 8) + (2 * 4)
    scores = np.full((1, n, 3), -10.0, dtype=np.float32)  # logits (sigmoid below)
    boxes = np.zeros((1, n, 4 * (reg_max + 1)), dtype=np.float32)
    # stride-16 cell x=2, y=1: row 32 + 1*4 + 2 = 38; centre offset 0.5 -> (40, 24).
    r = 32 + 4 + 2
    scores[0, r, 2] = 3.0
    boxes[0, r] = _onehot_bins([1, 0, 2, 1], reg_max)
    # stride-8 cell x=5, y=2 (row 21), class 0, a second class (1) on the same row just under.
    scores[0, 21, 0] = 2.0
    scores[0, 21, 1] = -1.0
    boxes[0, 21] = _onehot_bins([3, 2, 1, 4], reg_max)
    d = {
        "kind": "anchor_free_dfl",
        "strides": strides,
        "reg_max": reg_max,
        "center_offset": 0.5,
        "scores_activation": "sigmoid",
        "score_threshold": 0.2,
        "iou_threshold": 0.6,
        "nms": "per_class",
    }
    dets = dr.decode_anchor_free_dfl(scores, boxes, d, H, W)
    sig = lambda v: 1 / (1 + math.exp(-v))  # noqa: E731
    assert [x["class"] for x in dets] == [2, 0, 1]
    assert close(dets[0]["score"], sig(3.0), 1e-7)
    assert np.allclose(dets[0]["box"], [40 - 16, 24 - 0, 40 + 32, 24 + 16], atol=1e-6)
    # stride 8, (5+0.5)*8 = 44, (2+0.5)*8 = 20; distances 3,2,1,4 bins of 8 px
    assert np.allclose(dets[1]["box"], [44 - 24, 20 - 16, 44 + 8, 20 + 32], atol=1e-6)
    assert dets[2]["box"] == dets[1]["box"] and close(dets[2]["score"], sig(-1.0), 1e-7)
    # Threshold is strict, activation "none" uses the values as they are.
    d2 = dict(d, scores_activation="none", score_threshold=2.0)
    dets = dr.decode_anchor_free_dfl(scores, boxes, d2, H, W)
    assert [(x["class"], x["score"]) for x in dets] == [(2, 3.0)]
    # center_offset 0: the stride-16 cell's centre moves to (32, 16).
    d3 = dict(d, center_offset=0.0)
    b = dr.decode_anchor_free_dfl(scores, boxes, d3, H, W)[0]["box"]
    assert np.allclose(b, [32 - 16, 16, 32 + 32, 16 + 16], atol=1e-6)
    # A wrong row count is one clear error.
    try:
        dr.decode_anchor_free_dfl(scores[:, :-1], boxes[:, :-1], d, H, W)
    except ValueError as e:
        assert "rows" in str(e)
    else:
        raise AssertionError("row count mismatch not reported")


def test_decode_dfl_nms_and_limit():
    H = W = 16
    reg_max = 3
    d = {
        "strides": [4],
        "reg_max": reg_max,
        "center_offset": 0.5,
        "scores_activation": "none",
        "score_threshold": 0.1,
        "iou_threshold": 0.5,
        "nms": "per_class",
        "max_detections": 2,
    }
    scores = np.zeros((1, 16, 1), dtype=np.float32)
    boxes = np.zeros((1, 16, 4 * (reg_max + 1)), dtype=np.float32)
    # Three neighbouring cells in row 0 predicting the same big box -> one survives NMS.
    for x, s in ((0, 0.5), (1, 0.9), (2, 0.7)):
        scores[0, x, 0] = s
        boxes[0, x] = _onehot_bins([2, 0, 2, 3], reg_max)
    scores[0, 15, 0] = 0.3  # far corner, tiny box
    boxes[0, 15] = _onehot_bins([0, 0, 0, 0], reg_max)
    dets = dr.decode_anchor_free_dfl(scores, boxes, d, H, W)
    assert [round(x["score"], 6) for x in dets] == [0.9, 0.3]
    dets = dr.decode_anchor_free_dfl(scores, boxes, dict(d, nms="none"), H, W)
    assert [round(x["score"], 6) for x in dets] == [0.9, 0.7]  # best first, cut at max_detections


# --- boxes_scores -----------------------------------------------------------------------------


def test_decode_boxes_scores():
    out = np.array(
        [
            [
                [10, 20, 30, 40, 0.1, 0.8, 0.8],  # tie: first best class (1) wins
                [0.5, 0.5, 0.2, 0.4, 0.3, 0.0, 0.0],
                [11, 21, 31, 41, 0.0, 0.7, 0.0],  # overlaps row 0, same class
                [0, 0, 1, 1, 0.25, 0.0, 0.0],
            ]
        ],
        dtype=np.float64,
    )  # score == threshold: dropped
    d = {
        "kind": "boxes_scores",
        "box_format": "xyxy",
        "box_units": "pixels",
        "score_threshold": 0.25,
        "iou_threshold": 0.45,
        "nms": "per_class",
    }
    dets = dr.decode_boxes_scores(out, d, 100, 200)
    assert [(x["class"], round(x["score"], 6)) for x in dets] == [(1, 0.8), (0, 0.3)]
    assert dets[0]["box"] == [10, 20, 30, 40]
    dets = dr.decode_boxes_scores(out, dict(d, nms="none"), 100, 200)
    assert [round(x["score"], 6) for x in dets] == [0.8, 0.7, 0.3]
    # cxcywh, normalised: row 1 = centre (0.5, 0.5), size (0.2, 0.4) of a 200x100 input
    dc = dict(d, box_format="cxcywh", box_units="normalized")
    b = [x for x in dr.decode_boxes_scores(out, dc, 100, 200) if x["class"] == 0][0]["box"]
    assert np.allclose(b, [(0.5 - 0.1) * 200, (0.5 - 0.2) * 100, (0.5 + 0.1) * 200, (0.5 + 0.2) * 100])


# --- classify ---------------------------------------------------------------------------------


def test_classify_top():
    logits = np.array([[1.0, 3.0, 3.0, -2.0, 0.5, 2.0]])
    top = dr.classify_top(logits, list("abcdef"), k=5)
    assert [t["class"] for t in top] == [1, 2, 5, 0, 4]  # tie -> lower index first
    e = np.exp(logits[0] - 3.0)
    assert close(top[0]["score"], e[1] / e.sum(), 1e-12) and top[0]["label"] == "b"
    probs = np.array([[0.1, 0.6, 0.3]])
    top = dr.classify_top(probs, ["x", "y", "z"], k=5, logits=False)
    assert [(t["class"], t["score"]) for t in top] == [(1, 0.6), (2, 0.3), (0, 0.1)]
    try:
        dr.classify_top(np.array([[1.0, float("nan")]]), ["a", "b"])
    except ValueError:
        pass
    else:
        raise AssertionError("NaN output not reported")


# --- geometry and preprocessing ---------------------------------------------------------------


def test_letterbox_geometry():
    cfg = {"height": 416, "width": 416, "resize": "letterbox"}
    g = dr.geometry(cfg, 480, 640)  # photo 640x480: s = 0.65
    assert (g["placed_w"], g["placed_h"], g["offset_x"], g["offset_y"]) == (416, 312, 0, 52)
    g = dr.geometry({"height": 320, "width": 640, "resize": "letterbox"}, 500, 500)  # s = 0.64
    assert (g["placed_w"], g["placed_h"], g["offset_x"], g["offset_y"]) == (320, 320, 160, 0)
    # Odd leftover: offset rounded down. 100x61 into 64x64: s = 0.64, placed 64 x round(39.04) = 39,
    # offset_y = floor(25 / 2) = 12.
    g = dr.geometry({"height": 64, "width": 64, "resize": "letterbox"}, 61, 100)
    assert (g["placed_w"], g["placed_h"], g["offset_x"], g["offset_y"]) == (64, 39, 0, 12)
    # Half-way rounding is Python's round (half to even, like C++ nearbyint): a 5x2 photo into
    # 3x1: s = min(1/2, 3/5) = 0.5, placed width round(2.5) = 2 (not 3), offset_x = floor(1/2) = 0.
    g = dr.geometry({"height": 1, "width": 3, "resize": "letterbox"}, 2, 5)
    assert (g["placed_w"], g["placed_h"], g["offset_x"]) == (2, 1, 0)
    # Boxes map back exactly: photo 640x480 in 416 letterbox.
    g = dr.geometry(cfg, 480, 640)
    assert np.allclose(dr.to_photo([0, 52, 416, 364], g), [0, 0, 640, 480])
    assert np.allclose(dr.to_photo([104, 130, 208, 208], g), [160, 120, 320, 240])
    assert dr.to_photo([-10, 0, 500, 400], g) == [0.0, 0.0, 640.0, 480.0]  # clamped to the photo
    gs = dr.geometry({"height": 100, "width": 200, "resize": "stretch"}, 50, 80)
    assert np.allclose(dr.to_photo([20, 10, 100, 50], gs), [8, 5, 40, 25])


def _bilinear_reference(img: np.ndarray, out_h: int, out_w: int) -> np.ndarray:
    """Written from the card's definition: src = (dst + 0.5) * in / out - 0.5, clamped to
    [0, in - 1], linear between floor(src) and the next pixel (float64)."""
    h, w, _ = img.shape

    def taps(n_out, n_in):
        src = np.clip((np.arange(n_out) + 0.5) * n_in / n_out - 0.5, 0, n_in - 1)
        i0 = np.floor(src).astype(int)
        return i0, np.minimum(i0 + 1, n_in - 1), src - i0

    y0, y1, wy = taps(out_h, h)
    x0, x1, wx = taps(out_w, w)
    f = img.astype(np.float64)
    top = f[y0][:, x0] * (1 - wx)[None, :, None] + f[y0][:, x1] * wx[None, :, None]
    bot = f[y1][:, x0] * (1 - wx)[None, :, None] + f[y1][:, x1] * wx[None, :, None]
    return top * (1 - wy)[:, None, None] + bot * wy[:, None, None]


def test_preprocess_stretch_matches_definition():
    rng = np.random.default_rng(7)
    for h, w, H, W in ((37, 53, 16, 24), (13, 11, 29, 31), (50, 50, 50, 50), (7, 97, 5, 13)):
        img = rng.integers(0, 256, size=(h, w, 3), dtype=np.uint8)
        cfg = {
            "height": H,
            "width": W,
            "resize": "stretch",
            "scale": 1 / 255,
            "mean": [0.485, 0.456, 0.406],
            "std": [0.229, 0.224, 0.225],
        }
        got = dr.preprocess(img, cfg)[0].permute(1, 2, 0).numpy().astype(np.float64)
        want = (_bilinear_reference(img, H, W) / 255 - np.array(cfg["mean"])) / np.array(cfg["std"])
        assert got.shape == (H, W, 3)
        err = np.abs(got - want).max()
        assert err < 2e-5, (h, w, H, W, err)


def test_preprocess_letterbox_fill_and_content():
    rng = np.random.default_rng(3)
    img = rng.integers(0, 256, size=(30, 64, 3), dtype=np.uint8)
    cfg = {
        "height": 32,
        "width": 32,
        "resize": "letterbox",
        "letterbox_fill": [114, 7, 250],
        "scale": 1.0,
        "mean": [10, 20, 30],
        "std": [2, 4, 8],
    }
    x = dr.preprocess(img, cfg)[0].permute(1, 2, 0).numpy().astype(np.float64)
    g = dr.geometry(cfg, 30, 64)  # s = 0.5 -> 32 x 15, offset_y 8
    assert (g["placed_w"], g["placed_h"], g["offset_y"]) == (32, 15, 8)
    fill = (np.array([114, 7, 250]) - np.array([10, 20, 30])) / np.array([2, 4, 8])
    assert np.allclose(x[:8], fill) and np.allclose(x[23:], fill)
    inner = (_bilinear_reference(img, 15, 32) - np.array([10, 20, 30])) / np.array([2, 4, 8])
    assert np.abs(x[8:23] - inner).max() < 1e-4


# --- maps -------------------------------------------------------------------------------------


def test_segment_and_depth_maps():
    out = np.zeros((1, 2, 2, 3), dtype=np.float32)
    out[0, 1] = [[-2.0, 0.0, 1.0], [3.0, -0.5, 0.1]]
    m = dr.segment_map([out], {"output": 0, "channel": 1})
    assert m.shape == (2, 3) and m[1, 0] == 3.0
    # logit: sigmoid >= 0.5 <=> logit >= 0 -> 4 of 6
    assert close(dr.foreground_fraction(m, {"kind": "logit", "threshold": 0.5}), 4 / 6)
    assert close(dr.foreground_fraction(m, {"kind": "probability", "threshold": 0.5}), 2 / 6)
    v = np.arange(101, dtype=np.float32).reshape(1, 101)
    lo, hi = dr.depth_range(v, {"normalise": {"low_percentile": 2, "high_percentile": 98}})
    assert close(lo, 2.0) and close(hi, 98.0)
    lo, hi = dr.depth_range(
        np.array([0.0, 10.0], dtype=np.float32), {"normalise": {"low_percentile": 25, "high_percentile": 90}}
    )
    assert close(lo, 2.5) and close(hi, 9.0)  # linear between order statistics


def main() -> int:
    tests = [(k, v) for k, v in globals().items() if k.startswith("test_") and callable(v)]
    failed = 0
    for name, fn in tests:
        try:
            fn()
            print(f"ok   {name}")
        except Exception:  # report every failure, then exit non-zero
            failed += 1
            print(f"FAIL {name}")
            traceback.print_exc()
    print(f"{len(tests) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    torch.set_num_threads(1)
    sys.exit(main())
