"""Random-weight conditioning shared by the exported models.

Freshly constructed networks are poor test subjects: BatchNorm layers have
running_mean 0 / running_var 1 and gamma 1 / beta 0 (so they are identities),
some layers are zero-initialised on purpose (ViT's head, biases, ConvNeXt's
layer scale is 1e-6), and the activations of a deep random network drift to
huge or tiny values. ``condition`` makes every parameter non-trivial and
well scaled, deterministically from a seed:

- BatchNorm / LayerNorm / GroupNorm affine weights ~ U(0.5, 1.5), biases ~ N(0, 0.2^2)
  (0.1 for Layer/GroupNorm);
- Conv / Linear weights that are all zero are re-drawn ~ N(0, 1/fan_in);
  all-zero biases are re-drawn ~ N(0, 0.05^2);
- parameters named ``layer_scale`` ~ U(0.1, 0.6);
- any other all-zero parameter (e.g. ViT's class token) ~ N(0, 0.05^2);
- BatchNorm running statistics are then *calibrated*: the BatchNorm layers
  (only them) are put in training mode with a cumulative average and the
  model is run on a few random-normal batches of the real input shape, so
  every BatchNorm normalises to roughly unit scale, as in a trained network.
  Constant buffers that are not BatchNorm statistics are never touched.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
import torch.nn as nn
from torch.nn.modules.batchnorm import _BatchNorm


def _fan_in(w: torch.Tensor) -> int:
    return int(w[0].numel()) if w.dim() > 1 else int(w.numel())


@torch.no_grad()
def condition(
    model: nn.Module,
    seed: int,
    input_shapes: Sequence[tuple[int, ...]],
    calib_batches: int = 3,
    calib_batch_size: int = 4,
) -> nn.Module:
    g = torch.Generator().manual_seed(seed)

    def randn(shape, std):
        return torch.randn(shape, generator=g) * std

    def rand(shape, lo, hi):
        return torch.rand(shape, generator=g) * (hi - lo) + lo

    touched = set()
    for _, m in model.named_modules():
        if isinstance(m, _BatchNorm) and m.affine:
            m.weight.copy_(rand(m.weight.shape, 0.5, 1.5))
            m.bias.copy_(randn(m.bias.shape, 0.2))
            touched.update({id(m.weight), id(m.bias)})
        elif isinstance(m, (nn.LayerNorm, nn.GroupNorm)) and getattr(m, "weight", None) is not None:
            m.weight.copy_(rand(m.weight.shape, 0.5, 1.5))
            if m.bias is not None:
                m.bias.copy_(randn(m.bias.shape, 0.1))
                touched.add(id(m.bias))
            touched.add(id(m.weight))
        elif isinstance(m, (nn.Conv1d, nn.Conv2d, nn.ConvTranspose2d, nn.Linear)):
            if m.weight.requires_grad and bool((m.weight == 0).all()):
                m.weight.copy_(randn(m.weight.shape, _fan_in(m.weight) ** -0.5))
            touched.add(id(m.weight))
            if m.bias is not None:
                if bool((m.bias == 0).all()):
                    m.bias.copy_(randn(m.bias.shape, 0.05))
                touched.add(id(m.bias))
    for name, p in model.named_parameters():
        if id(p) in touched:
            continue
        if name.split(".")[-1] == "layer_scale":
            p.copy_(rand(p.shape, 0.1, 0.6))
        elif p.requires_grad and bool((p == 0).all()):
            p.copy_(randn(p.shape, 0.05))

    bns = [m for m in model.modules() if isinstance(m, _BatchNorm)]
    model.eval()
    if bns and calib_batches > 0:
        saved = [bn.momentum for bn in bns]
        for bn in bns:
            bn.reset_running_stats()
            bn.momentum = None  # cumulative moving average over the calibration batches
            bn.train()
        for _ in range(calib_batches):
            xs = [randn((calib_batch_size,) + tuple(s[1:]), 1.0) for s in input_shapes]
            model(*xs)
        for bn, mom in zip(bns, saved):
            bn.momentum = mom
        model.eval()
    return model


def num_params(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())
