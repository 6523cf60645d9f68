#!/usr/bin/env python3
"""Tiny demo models for the vision pipeline tests (tests/vision/models/<task>/).

Each folder gets a random-weight network of one task exported with VulkanPartitioner
(model.pte), its model card (card.json), a photo of random pixels with odd sizes (photo.png),
the card's preprocessing of that photo done in PyTorch (input.npy: F.interpolate bilinear,
align_corners=False, antialias=False on 0..255 floats, letterbox padding, normalisation) and
the network's eager float32 outputs on it (expected_<i>.npy). The C++ tests check the WGSL
preprocessing against input.npy and the whole pipeline (upload, preprocessing, program,
post-processing, decoding) against the outputs.

    python/.venv/bin/python tests/vision/make_test_models.py

Weights and photos come from fixed seeds, so a rerun with the pinned versions gives the
same files.
"""

from __future__ import annotations

import json
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from executorch.backends.vulkan.partitioner.vulkan_partitioner import VulkanPartitioner
from executorch.exir import to_edge_transform_and_lower
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "models")


class TinyClassifier(nn.Module):
    def __init__(self, classes: int = 6):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, stride=2, padding=1)
        self.fc = nn.Linear(8, classes)

    def forward(self, x):
        x = F.relu(self.conv(x))
        x = F.adaptive_avg_pool2d(x, 1).flatten(1)
        return self.fc(x) * 4.0  # spread the logits so the ranking is clear


class TinySegmenter(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 4, 3, stride=2, padding=1)
        self.conv2 = nn.Conv2d(4, 2, 1)

    def forward(self, x):
        return self.conv2(F.relu(self.conv1(x))) * 3.0  # logits, two channels


class TinyDepth(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 4, 3, padding=1)
        self.conv2 = nn.Conv2d(4, 1, 3, stride=2, padding=1)

    def forward(self, x):
        return self.conv2(F.relu(self.conv1(x))) + 5.0


class TinyDflDetector(nn.Module):
    """NanoDet-style head on pooled input: per stride s, a 1x1 conv on the s x s average of the
    input gives class logits and 4 x (reg_max + 1) distance bins per cell; rows are ordered
    stride by stride, y-major, x-minor (docs/MODEL_CARDS.md)."""

    def __init__(self, strides=(8, 16), classes: int = 3, reg_max: int = 4):
        super().__init__()
        self.strides = strides
        self.classes = classes
        self.heads = nn.ModuleList(
            [nn.Conv2d(3, classes + 4 * (reg_max + 1), 1) for _ in strides])

    def forward(self, x):
        rows = []
        for s, head in zip(self.strides, self.heads):
            y = head(F.avg_pool2d(x, s, ceil_mode=True)) * 3.0
            rows.append(y.flatten(2).transpose(1, 2))
        out = torch.cat(rows, dim=1)
        return out[:, :, : self.classes], out[:, :, self.classes:]


def preprocess(photo: np.ndarray, inp: dict) -> torch.Tensor:
    """The card's preprocessing in PyTorch, float32, as docs/MODEL_CARDS.md defines it."""
    h, w = photo.shape[:2]
    H, W = inp["height"], inp["width"]
    img = torch.from_numpy(photo).permute(2, 0, 1)[None].float()
    if inp["resize"] == "stretch":
        x = F.interpolate(img, size=(H, W), mode="bilinear", align_corners=False, antialias=False)
    else:
        s = min(H / h, W / w)
        nh, nw = round(h * s), round(w * s)
        r = F.interpolate(img, size=(nh, nw), mode="bilinear", align_corners=False,
                          antialias=False)
        x = torch.tensor(inp["letterbox_fill"], dtype=torch.float32).view(1, 3, 1, 1).repeat(
            1, 1, H, W)
        oy, ox = (H - nh) // 2, (W - nw) // 2
        x[:, :, oy:oy + nh, ox:ox + nw] = r
    mean = torch.tensor(inp["mean"], dtype=torch.float32).view(1, 3, 1, 1)
    std = torch.tensor(inp["std"], dtype=torch.float32).view(1, 3, 1, 1)
    return (x * inp["scale"] - mean) / std


def export(name: str, module: nn.Module, card: dict, photo_size, seed: int) -> None:
    torch.manual_seed(seed)
    for p in module.parameters():  # re-draw so each model's weights depend on its seed only
        nn.init.normal_(p, 0.0, 0.5)
    module.eval()
    rng = np.random.default_rng(seed)
    pw, ph = photo_size
    photo = rng.integers(0, 256, size=(ph, pw, 3), dtype=np.uint8)
    x = preprocess(photo, card["input"])
    with torch.no_grad():
        outs = module(x)
    outs = outs if isinstance(outs, tuple) else (outs,)
    ep = torch.export.export(module, (x,), strict=True)
    pte = to_edge_transform_and_lower(ep, partitioner=[VulkanPartitioner()]).to_executorch()

    d = os.path.join(OUT, name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "model.pte"), "wb") as f:
        f.write(bytes(pte.buffer))
    with open(os.path.join(d, "card.json"), "w") as f:
        json.dump(card, f, indent=2)
        f.write("\n")
    Image.fromarray(photo).save(os.path.join(d, "photo.png"))
    np.save(os.path.join(d, "input.npy"), x.numpy())
    for i, o in enumerate(outs):
        np.save(os.path.join(d, f"expected_{i}.npy"), o.numpy().astype(np.float32))
    print(f"{name}: photo {pw}x{ph}, input {list(x.shape)}, outputs "
          f"{[list(o.shape) for o in outs]}")


def card(name, task, inp, decode, labels=None) -> dict:
    c = {"schema": "wgx-model-card/1", "name": name, "task": task, "model": "model.pte",
         "input": inp, "decode": decode, "license": "CC0-1.0",
         "source": "tests/vision/make_test_models.py (random weights)"}
    if labels is not None:
        c["labels"] = labels
    return c


IMAGENET = {"scale": 1 / 255, "mean": [0.485, 0.456, 0.406], "std": [0.229, 0.224, 0.225]}


def main() -> None:
    torch.set_num_threads(1)
    export("classify", TinyClassifier(),
           card("tiny-classify", "classify",
                {"height": 24, "width": 24, "resize": "stretch", **IMAGENET},
                {"kind": "logits", "output": 0},
                ["ant", "bee", "cat", "dog", "eel", "fox"]),
           (45, 33), seed=101)
    export("segment", TinySegmenter(),
           card("tiny-segment", "segment",
                {"height": 24, "width": 32, "resize": "letterbox", "letterbox_fill": [0, 0, 0],
                 **IMAGENET},
                {"kind": "logit", "output": 0, "channel": 1, "threshold": 0.5}),
           (27, 41), seed=102)
    export("depth", TinyDepth(),
           card("tiny-depth", "depth",
                {"height": 20, "width": 28, "resize": "stretch", "scale": 1 / 255,
                 "mean": [0, 0, 0], "std": [1, 1, 1]},
                {"kind": "relative_depth", "output": 0, "larger_is": "far",
                 "normalise": {"low_percentile": 2, "high_percentile": 98}}),
           (37, 29), seed=103)
    export("detect", TinyDflDetector(),
           card("tiny-detect", "detect",
                {"height": 32, "width": 40, "resize": "letterbox",
                 "letterbox_fill": [114, 114, 114], "scale": 1 / 255, "mean": [0, 0, 0],
                 "std": [1, 1, 1]},
                {"kind": "anchor_free_dfl", "scores_output": 0, "boxes_output": 1,
                 "strides": [8, 16], "reg_max": 4, "center_offset": 0.5,
                 "scores_activation": "sigmoid", "score_threshold": 0.6, "iou_threshold": 0.5,
                 "nms": "per_class"},
                ["red", "green", "blue"]),
           (53, 31), seed=104)


if __name__ == "__main__":
    main()
