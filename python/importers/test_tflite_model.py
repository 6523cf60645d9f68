"""Op-level tests of the TFLite importer against the TFLite interpreter.

Each test writes a small .tflite graph (one or a few ops, random weights, awkward sizes:
odd spatial sizes so SAME padding is asymmetric, non-integer resize ratios, masks), rebuilds it
with tflite_model.build_module and compares with ai-edge-litert on the same random input.

    cd python && .venv/bin/python -m unittest importers.test_tflite_model -v
"""

from __future__ import annotations

import unittest
from collections.abc import Sequence

import flatbuffers
import numpy as np
import torch
from ai_edge_litert import schema_py_generated as fb

from .tflite_model import bilinear_matrix, build_module
from .tflite_reader import TFLiteImportError, read_tflite
from .tflite_validate import error_stats, float_reference_model, run_tflite

RNG = np.random.default_rng(1234)
OPS = fb.BuiltinOperator
_FB_TYPES = {
    np.float32: fb.TensorType.FLOAT32,
    np.int32: fb.TensorType.INT32,
    np.int8: fb.TensorType.INT8,
    np.float16: fb.TensorType.FLOAT16,
}


class GraphWriter:
    """Builds a single-subgraph .tflite with the schema's object API."""

    def __init__(self):
        self.model = fb.ModelT()
        self.model.version = 3
        self.model.buffers = [fb.BufferT()]  # buffer 0: empty, by convention
        self.model.operatorCodes = []
        self.g = fb.SubGraphT()
        self.g.tensors, self.g.operators = [], []
        self.model.subgraphs = [self.g]

    def tensor(
        self, shape: Sequence[int], data: np.ndarray | None = None, dtype=np.float32, scale=None, axis: int = 0
    ) -> int:
        t = fb.TensorT()
        t.shape = list(shape)
        t.type = _FB_TYPES[dtype]
        t.name = f"t{len(self.g.tensors)}".encode()
        t.buffer = 0
        if data is not None:
            b = fb.BufferT()
            b.data = np.frombuffer(np.ascontiguousarray(data, dtype).tobytes(), np.uint8)
            self.model.buffers.append(b)
            t.buffer = len(self.model.buffers) - 1
        if scale is not None:
            q = fb.QuantizationParametersT()
            q.scale = list(np.atleast_1d(scale).astype(float))
            q.zeroPoint = [0] * len(q.scale)
            q.quantizedDimension = axis
            t.quantization = q
        self.g.tensors.append(t)
        return len(self.g.tensors) - 1

    def const(self, data: np.ndarray, dtype=np.float32) -> int:
        return self.tensor(data.shape, data, dtype)

    def op(
        self,
        code: int,
        inputs: list[int],
        outputs: list[int],
        options=None,
        version: int = 1,
        custom: bytes | None = None,
        custom_options: bytes | None = None,
    ) -> None:
        c = fb.OperatorCodeT()
        if custom is not None:
            c.builtinCode = c.deprecatedBuiltinCode = OPS.CUSTOM
            c.customCode = custom
        else:
            c.builtinCode = code
            c.deprecatedBuiltinCode = min(code, 127)
        c.version = version
        self.model.operatorCodes.append(c)
        o = fb.OperatorT()
        o.opcodeIndex = len(self.model.operatorCodes) - 1
        o.inputs, o.outputs = list(inputs), list(outputs)
        if options is not None:
            o.builtinOptionsType = getattr(fb.BuiltinOptions, type(options).__name__[:-1])
            o.builtinOptions = options
        if custom_options is not None:
            o.customOptions = list(custom_options)
        self.g.operators.append(o)

    def finish(self, inputs: list[int], outputs: list[int]) -> bytes:
        self.g.inputs, self.g.outputs = list(inputs), list(outputs)
        b = flatbuffers.Builder(1024)
        b.Finish(self.model.Pack(b), file_identifier=b"TFL3")
        return bytes(b.Output())


def opts(cls, **kw):
    o = cls()
    for k, v in kw.items():
        if not hasattr(o, k):
            raise AttributeError(f"{cls.__name__} has no field {k}")
        setattr(o, k, v)
    return o


class ImporterTest(unittest.TestCase):
    tmpdir = None

    def run_both(
        self, data: bytes, input_shapes: Sequence[Sequence[int]], tol: float = 2e-6, reference: bytes | None = None
    ):
        """Compare module vs TFLite on random inputs; returns (ours, theirs) lists."""
        import os
        import tempfile

        with tempfile.NamedTemporaryFile(suffix=".tflite", delete=False) as f:
            f.write(data)
            path = f.name
        try:
            module = build_module(path)
        finally:
            os.unlink(path)
        xs = [RNG.uniform(-2, 2, s).astype(np.float32) for s in input_shapes]
        theirs, _ = run_tflite(reference if reference is not None else data, xs)
        ours_in = [torch.from_numpy(np.ascontiguousarray(x.transpose(0, 3, 1, 2)) if x.ndim == 4 else x) for x in xs]
        with torch.no_grad():
            ours = module(*ours_in)
        ours = [o.numpy() for o in (ours if isinstance(ours, tuple) else (ours,))]
        for o, t in zip(ours, theirs):
            t = t.transpose(0, 3, 1, 2) if t.ndim == 4 else t
            st = error_stats(o, t)
            self.assertLessEqual(st["rel_l2"], tol, st)
        return ours, theirs

    # -- convolutions ---------------------------------------------------------------------------
    def test_conv_same_stride2_odd_size_relu6(self):
        w = GraphWriter()
        x = w.tensor([1, 9, 10, 3])
        k = w.const(RNG.normal(0, 0.5, (5, 3, 3, 3)).astype(np.float32))
        b = w.const(RNG.normal(0, 0.5, (5,)).astype(np.float32))
        y = w.tensor([1, 5, 5, 5])
        w.op(
            OPS.CONV_2D,
            [x, k, b],
            [y],
            opts(
                fb.Conv2DOptionsT,
                padding=fb.Padding.SAME,
                strideW=2,
                strideH=2,
                fusedActivationFunction=fb.ActivationFunctionType.RELU6,
            ),
        )
        self.run_both(w.finish([x], [y]), [[1, 9, 10, 3]])

    def test_conv_grouped_valid_dilated(self):
        w = GraphWriter()
        x = w.tensor([1, 11, 8, 4])
        k = w.const(RNG.normal(0, 0.5, (6, 3, 2, 2)).astype(np.float32))  # groups = 4 / 2
        b = w.const(RNG.normal(0, 0.5, (6,)).astype(np.float32))
        y = w.tensor([1, 7, 6, 6])
        w.op(
            OPS.CONV_2D,
            [x, k, b],
            [y],
            opts(
                fb.Conv2DOptionsT, padding=fb.Padding.VALID, strideW=1, strideH=1, dilationHFactor=2, dilationWFactor=2
            ),
        )
        self.run_both(w.finish([x], [y]), [[1, 11, 8, 4]])

    def test_conv_int8_per_channel_weights(self):
        w = GraphWriter()
        x = w.tensor([1, 7, 7, 3])
        q = RNG.integers(-127, 128, (4, 3, 3, 3)).astype(np.int8)
        scale = RNG.uniform(0.001, 0.02, 4).astype(np.float32)
        k = w.tensor(q.shape, q, np.int8, scale=scale, axis=0)
        b = w.const(RNG.normal(0, 0.1, (4,)).astype(np.float32))
        y = w.tensor([1, 7, 7, 4])
        w.op(OPS.CONV_2D, [x, k, b], [y], opts(fb.Conv2DOptionsT, padding=fb.Padding.SAME, strideW=1, strideH=1))
        data = w.finish([x], [y])
        import tempfile

        with tempfile.NamedTemporaryFile(suffix=".tflite") as f:
            f.write(data)
            f.flush()
            g = read_tflite(f.name)
            np.testing.assert_array_equal(
                g.constant(k), (q.astype(np.float64) * scale.reshape(4, 1, 1, 1)).astype(np.float32)
            )
            fp32, changes = float_reference_model(f.name)
        self.assertEqual(changes, ["1 int8 weight tensors stored as their float32 values (w = q * scale)"])
        self.run_both(data, [[1, 7, 7, 3]], reference=fp32)
        # the file as shipped runs TFLite's hybrid kernel (int8 activations): close, not exact
        self.run_both(data, [[1, 7, 7, 3]], tol=2e-2)

    def test_depthwise_multiplier_same_stride2(self):
        w = GraphWriter()
        x = w.tensor([1, 8, 9, 3])
        k = w.const(RNG.normal(0, 0.5, (1, 3, 3, 6)).astype(np.float32))
        b = w.const(RNG.normal(0, 0.5, (6,)).astype(np.float32))
        y = w.tensor([1, 4, 5, 6])
        w.op(
            OPS.DEPTHWISE_CONV_2D,
            [x, k, b],
            [y],
            opts(fb.DepthwiseConv2DOptionsT, padding=fb.Padding.SAME, strideW=2, strideH=2, depthMultiplier=2),
        )
        self.run_both(w.finish([x], [y]), [[1, 8, 9, 3]])

    def test_pad_folded_into_conv(self):
        w = GraphWriter()
        x = w.tensor([1, 6, 6, 2])
        pads = w.const(np.array([[0, 0], [1, 1], [2, 1], [0, 0]], np.int32), np.int32)
        p = w.tensor([1, 8, 9, 2])
        w.op(OPS.PAD, [x, pads], [p])
        k = w.const(RNG.normal(0, 0.5, (3, 3, 3, 2)).astype(np.float32))
        b = w.const(RNG.normal(0, 0.5, (3,)).astype(np.float32))
        y = w.tensor([1, 3, 4, 3])
        w.op(OPS.CONV_2D, [p, k, b], [y], opts(fb.Conv2DOptionsT, padding=fb.Padding.VALID, strideW=2, strideH=2))
        self.run_both(w.finish([x], [y]), [[1, 6, 6, 2]])

    def test_transpose_conv_same_odd_crop_with_bias(self):
        w = GraphWriter()
        x = w.tensor([1, 4, 5, 3])
        shape = w.const(np.array([1, 8, 10, 2], np.int32), np.int32)
        k = w.const(RNG.normal(0, 0.5, (2, 3, 3, 3)).astype(np.float32))
        b = w.const(RNG.normal(0, 0.5, (2,)).astype(np.float32))
        y = w.tensor([1, 8, 10, 2])
        w.op(
            OPS.TRANSPOSE_CONV,
            [shape, k, x, b],
            [y],
            opts(fb.TransposeConvOptionsT, padding=fb.Padding.SAME, strideW=2, strideH=2),
            version=3,
        )
        self.run_both(w.finish([x], [y]), [[1, 4, 5, 3]])

    def test_transpose_conv_valid(self):
        w = GraphWriter()
        x = w.tensor([1, 3, 4, 2])
        shape = w.const(np.array([1, 7, 9, 3], np.int32), np.int32)
        k = w.const(RNG.normal(0, 0.5, (3, 3, 3, 2)).astype(np.float32))
        y = w.tensor([1, 7, 9, 3])
        w.op(
            OPS.TRANSPOSE_CONV,
            [shape, k, x],
            [y],
            opts(fb.TransposeConvOptionsT, padding=fb.Padding.VALID, strideW=2, strideH=2),
        )
        self.run_both(w.finish([x], [y]), [[1, 3, 4, 2]])

    def test_custom_transpose_conv_bias_matches_builtin(self):
        import struct
        import tempfile

        w = GraphWriter()
        x = w.tensor([1, 5, 6, 4])
        k = w.const(RNG.normal(0, 0.5, (3, 2, 2, 4)).astype(np.float32))
        b = w.const(RNG.normal(0, 0.5, (3,)).astype(np.float32))
        y = w.tensor([1, 10, 12, 3])
        w.op(0, [x, k, b], [y], custom=b"Convolution2DTransposeBias", custom_options=struct.pack("<3i", 1, 2, 2))
        data = w.finish([x], [y])
        with tempfile.NamedTemporaryFile(suffix=".tflite") as f:
            f.write(data)
            f.flush()
            ref, changes = float_reference_model(f.name)
        self.assertEqual(len(changes), 1)
        self.run_both(data, [[1, 5, 6, 4]], reference=ref)

    # -- pooling -------------------------------------------------------------------------------
    def test_avg_pool_same_excludes_padding(self):
        w = GraphWriter()
        x = w.tensor([1, 7, 7, 3])
        y = w.tensor([1, 4, 4, 3])
        w.op(
            OPS.AVERAGE_POOL_2D,
            [x],
            [y],
            opts(fb.Pool2DOptionsT, padding=fb.Padding.SAME, strideW=2, strideH=2, filterWidth=3, filterHeight=3),
        )
        self.run_both(w.finish([x], [y]), [[1, 7, 7, 3]])

    def test_max_pool_same_asymmetric(self):
        w = GraphWriter()
        x = w.tensor([1, 7, 6, 2])
        y = w.tensor([1, 4, 3, 2])
        w.op(
            OPS.MAX_POOL_2D,
            [x],
            [y],
            opts(fb.Pool2DOptionsT, padding=fb.Padding.SAME, strideW=2, strideH=2, filterWidth=2, filterHeight=2),
        )
        self.run_both(w.finish([x], [y]), [[1, 7, 6, 2]])

    # -- resize --------------------------------------------------------------------------------
    def _resize(self, code, cls, in_hw, out_hw, **kw):
        w = GraphWriter()
        x = w.tensor([1, *in_hw, 2])
        size = w.const(np.array(out_hw, np.int32), np.int32)
        y = w.tensor([1, *out_hw, 2])
        w.op(code, [x, size], [y], opts(cls, **kw))
        return self.run_both(w.finish([x], [y]), [[1, *in_hw, 2]])

    def test_resize_bilinear_legacy_non_integer(self):
        self._resize(OPS.RESIZE_BILINEAR, fb.ResizeBilinearOptionsT, (5, 7), (8, 12))
        self._resize(OPS.RESIZE_BILINEAR, fb.ResizeBilinearOptionsT, (6, 9), (4, 5))  # downscale

    def test_resize_bilinear_half_pixel_and_align_corners(self):
        self._resize(OPS.RESIZE_BILINEAR, fb.ResizeBilinearOptionsT, (5, 7), (11, 3), halfPixelCenters=True)
        self._resize(OPS.RESIZE_BILINEAR, fb.ResizeBilinearOptionsT, (5, 7), (9, 13), alignCorners=True)

    def test_resize_nearest(self):
        self._resize(
            OPS.RESIZE_NEAREST_NEIGHBOR, fb.ResizeNearestNeighborOptionsT, (4, 5), (8, 10), halfPixelCenters=True
        )
        self._resize(OPS.RESIZE_NEAREST_NEIGHBOR, fb.ResizeNearestNeighborOptionsT, (4, 6), (6, 9))

    def test_legacy_bilinear_matrix_rows(self):
        m = bilinear_matrix(3, 4, False, False)  # src = dst * 3 / 4 = 0, .75, 1.5, 2.25 (clamped)
        np.testing.assert_allclose(m, [[1, 0, 0], [0.25, 0.75, 0], [0, 0.5, 0.5], [0, 0, 1]], atol=1e-7)

    # -- layout, slicing, reductions ------------------------------------------------------------
    def test_strided_slice_masks_on_nhwc(self):
        w = GraphWriter()
        x = w.tensor([1, 9, 8, 6])
        begin = w.const(np.array([0, 1, -7, 1], np.int32), np.int32)
        end = w.const(np.array([1, 8, 0, 5], np.int32), np.int32)
        strides = w.const(np.array([1, 2, 1, 1], np.int32), np.int32)
        y = w.tensor([1, 4, 8, 4])
        w.op(
            OPS.STRIDED_SLICE,
            [x, begin, end, strides],
            [y],
            opts(fb.StridedSliceOptionsT, beginMask=0b0100, endMask=0b0100),
        )
        z = w.tensor([4, 8, 4])
        b2 = w.const(np.array([0], np.int32), np.int32)
        e2 = w.const(np.array([1], np.int32), np.int32)
        s2 = w.const(np.array([1], np.int32), np.int32)
        w.op(OPS.STRIDED_SLICE, [y, b2, e2, s2], [z], opts(fb.StridedSliceOptionsT, shrinkAxisMask=1))
        self.run_both(w.finish([x], [y, z]), [[1, 9, 8, 6]])

    def test_pad_channels_and_padv2_value(self):
        w = GraphWriter()
        x = w.tensor([1, 4, 5, 3])
        pads = w.const(np.array([[0, 0], [1, 2], [0, 1], [2, 1]], np.int32), np.int32)
        v = w.const(np.array([1.5], np.float32))
        y = w.tensor([1, 7, 6, 6])
        w.op(OPS.PADV2, [x, pads, v], [y])
        self.run_both(w.finish([x], [y]), [[1, 4, 5, 3]])

    def test_mean_and_concat(self):
        w = GraphWriter()
        x = w.tensor([1, 5, 6, 3])
        axes = w.const(np.array([1, 2], np.int32), np.int32)
        m = w.tensor([1, 3])
        w.op(OPS.MEAN, [x, axes], [m], opts(fb.ReducerOptionsT, keepDims=False))
        mk = w.tensor([1, 1, 1, 3])
        w.op(OPS.MEAN, [x, axes], [mk], opts(fb.ReducerOptionsT, keepDims=True))
        c = w.tensor([1, 5, 6, 6])
        w.op(OPS.CONCATENATION, [x, x], [c], opts(fb.ConcatenationOptionsT, axis=-1))
        c2 = w.tensor([1, 10, 6, 3])
        w.op(OPS.CONCATENATION, [x, x], [c2], opts(fb.ConcatenationOptionsT, axis=1))
        self.run_both(w.finish([x], [m, mk, c, c2]), [[1, 5, 6, 3]])

    def test_attention_chain_transpose_reshape_matmul_softmax(self):
        w = GraphWriter()
        x = w.tensor([1, 4, 5, 8])  # NHWC
        perm = w.const(np.array([0, 3, 1, 2], np.int32), np.int32)
        t = w.tensor([1, 8, 4, 5])
        w.op(OPS.TRANSPOSE, [x, perm], [t])
        shape = w.const(np.array([1, 2, 4, 20], np.int32), np.int32)
        r = w.tensor([1, 2, 4, 20])
        w.op(OPS.RESHAPE, [t, shape], [r])
        a = w.tensor([1, 2, 20, 20])
        w.op(OPS.BATCH_MATMUL, [r, r], [a], opts(fb.BatchMatMulOptionsT, adjX=True))
        s = w.tensor([1, 2, 20, 20])
        w.op(OPS.SOFTMAX, [a], [s], opts(fb.SoftmaxOptionsT, beta=0.5))
        o = w.tensor([1, 2, 4, 20])
        w.op(OPS.BATCH_MATMUL, [r, s], [o], opts(fb.BatchMatMulOptionsT, adjY=True))
        self.run_both(w.finish([x], [o]), [[1, 4, 5, 8]], tol=1e-5)

    def test_binary_broadcast_constants_and_leaky(self):
        w = GraphWriter()
        x = w.tensor([1, 4, 5, 3])
        c = w.const(RNG.normal(0, 1, (3,)).astype(np.float32))
        a = w.tensor([1, 4, 5, 3])
        w.op(OPS.ADD, [x, c], [a], opts(fb.AddOptionsT, fusedActivationFunction=fb.ActivationFunctionType.RELU))
        row = w.const(RNG.normal(0, 1, (1, 1, 5, 1)).astype(np.float32))
        s = w.tensor([1, 4, 5, 3])
        w.op(OPS.SUB, [row, x], [s], opts(fb.SubOptionsT))
        alpha = w.const(np.array(0.2, np.float32))
        m = w.tensor([1, 4, 5, 3])
        w.op(OPS.MUL, [alpha, s], [m], opts(fb.MulOptionsT))
        lk = w.tensor([1, 4, 5, 3])
        w.op(OPS.MAXIMUM, [s, m], [lk])
        half = w.const(np.array([0.5], np.float32))
        e = w.tensor([1, 4, 5, 3])
        w.op(OPS.ADD, [a, half], [e], opts(fb.AddOptionsT))  # >= 0.5: division stays finite
        d = w.tensor([1, 4, 5, 3])
        w.op(OPS.DIV, [lk, e], [d], opts(fb.DivOptionsT))
        mn = w.tensor([1, 4, 5, 3])
        w.op(OPS.MINIMUM, [d, x], [mn])
        hs = w.tensor([1, 4, 5, 3])
        w.op(OPS.HARD_SWISH, [mn], [hs])
        sg = w.tensor([1, 4, 5, 3])
        w.op(OPS.LOGISTIC, [hs], [sg])
        self.run_both(w.finish([x], [sg, lk]), [[1, 4, 5, 3]], tol=1e-5)

    def test_fully_connected(self):
        w = GraphWriter()
        x = w.tensor([2, 6])
        k = w.const(RNG.normal(0, 0.5, (4, 6)).astype(np.float32))
        b = w.const(RNG.normal(0, 0.5, (4,)).astype(np.float32))
        y = w.tensor([2, 4])
        w.op(OPS.FULLY_CONNECTED, [x, k, b], [y], opts(fb.FullyConnectedOptionsT))
        self.run_both(w.finish([x], [y]), [[2, 6]])

    # -- errors --------------------------------------------------------------------------------
    def test_unsupported_op_names_the_operator(self):
        import tempfile

        w = GraphWriter()
        x = w.tensor([1, 4, 4, 2])
        y = w.tensor([1, 4, 4, 2])
        w.op(OPS.RELU, [x], [y])
        z = w.tensor([1, 4, 4, 2])
        w.op(OPS.SIN, [y], [z])
        with tempfile.NamedTemporaryFile(suffix=".tflite") as f:
            f.write(w.finish([x], [z]))
            f.flush()
            with self.assertRaisesRegex(TFLiteImportError, r"operator #1 \(SIN\).*not supported"):
                build_module(f.name)

    def test_not_a_tflite_file(self):
        import tempfile

        with tempfile.NamedTemporaryFile(suffix=".tflite") as f:
            f.write(b"\0" * 64)
            f.flush()
            with self.assertRaisesRegex(TFLiteImportError, "not a TFLite flatbuffer"):
                read_tflite(f.name)


if __name__ == "__main__":
    unittest.main()
