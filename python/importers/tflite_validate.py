"""Check a module rebuilt by tflite_model against the TFLite interpreter (PyPI ai-edge-litert).

Two references are used:
  * the original file, run as TFLite runs it. For dynamic-range files (int8 weights, float
    activations) TFLite's hybrid kernels quantise each activation to int8 on the fly, so this
    reference differs from any fp32 execution by that quantisation noise;
  * float_reference_model(): the same file with the int8 weights rewritten as the float32
    values the importer uses (w = q * scale) so TFLite runs its plain fp32 kernels. Only this
    one measures the importer itself. It also replaces MediaPipe's custom
    Convolution2DTransposeBias (no kernel in the interpreter) by the builtin TRANSPOSE_CONV
    with a bias input, which has the same weight layout [O, KH, KW, I] and semantics.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from pathlib import Path

import flatbuffers
import numpy as np
from ai_edge_litert import schema_py_generated as fb
from ai_edge_litert.interpreter import Interpreter, OpResolverType

from .tflite_reader import Quantization, Tensor, dequantize

_NP_OF = {fb.TensorType.INT8: np.int8, fb.TensorType.UINT8: np.uint8, fb.TensorType.INT16: np.int16}


def _opcode_name(code: fb.OperatorCodeT) -> str:
    b = max(code.builtinCode, code.deprecatedBuiltinCode)
    return "CUSTOM:" + code.customCode.decode() if b == fb.BuiltinOperator.CUSTOM else str(b)


def float_reference_model(path: str) -> tuple[bytes, list[str]]:
    """(tflite bytes, list of what was changed) — see the module docstring."""
    buf = Path(path).read_bytes()
    model = fb.ModelT.InitFromPackedBuf(buf, 0)
    g = model.subgraphs[0]
    changes: list[str] = []

    dequant_inputs = set()
    for op in g.operators:
        if model.operatorCodes[op.opcodeIndex].builtinCode == fb.BuiltinOperator.DEQUANTIZE:
            dequant_inputs.add(op.inputs[0])

    n_int8 = 0
    for ti, t in enumerate(g.tensors):
        if t.type not in _NP_OF or ti in dequant_inputs or t.quantization is None:
            continue
        q = t.quantization
        if q.scale is None or len(q.scale) == 0:
            continue
        data = model.buffers[t.buffer].data
        if data is None or len(data) == 0:
            continue
        raw = np.frombuffer(np.asarray(data, np.uint8).tobytes(), _NP_OF[t.type]).reshape(list(t.shape))
        zp = np.asarray(q.zeroPoint if q.zeroPoint is not None else np.zeros(len(q.scale)), np.int64)
        deq = dequantize(
            Tensor(
                ti,
                "",
                tuple(t.shape),
                "",
                raw,
                Quantization(np.asarray(q.scale, np.float32), zp, int(q.quantizedDimension)),
            )
        )
        model.buffers[t.buffer].data = np.frombuffer(deq.astype("<f4").tobytes(), np.uint8)
        t.type, t.quantization = fb.TensorType.FLOAT32, None
        n_int8 += 1
    if n_int8:
        changes.append(f"{n_int8} int8 weight tensors stored as their float32 values (w = q * scale)")

    custom = [i for i, c in enumerate(model.operatorCodes) if _opcode_name(c) == "CUSTOM:Convolution2DTransposeBias"]
    if custom:
        code = fb.OperatorCodeT()
        code.builtinCode = code.deprecatedBuiltinCode = fb.BuiltinOperator.TRANSPOSE_CONV
        code.version = 3
        model.operatorCodes.append(code)
        new_index = len(model.operatorCodes) - 1
        for op in g.operators:
            if op.opcodeIndex not in custom:
                continue
            padding, sw, sh = struct.unpack("<3i", bytes(np.asarray(op.customOptions, np.uint8))[:12])
            out_shape = np.asarray(g.tensors[op.outputs[0]].shape, "<i4")
            b = fb.BufferT()
            b.data = np.frombuffer(out_shape.tobytes(), np.uint8)
            model.buffers.append(b)
            st = fb.TensorT()
            st.shape, st.type, st.buffer = [4], fb.TensorType.INT32, len(model.buffers) - 1
            st.name = b"output_shape_for_transpose_conv"
            g.tensors.append(st)
            x, w, bias = op.inputs
            op.inputs = [len(g.tensors) - 1, w, x, bias]
            opts = fb.TransposeConvOptionsT()
            opts.padding = fb.Padding.SAME if padding == 1 else fb.Padding.VALID
            opts.strideW, opts.strideH = sw, sh
            op.builtinOptionsType, op.builtinOptions = fb.BuiltinOptions.TransposeConvOptions, opts
            op.customOptions = None
            op.opcodeIndex = new_index
            changes.append(
                "custom Convolution2DTransposeBias -> builtin TRANSPOSE_CONV with bias "
                f"(padding {'SAME' if padding == 1 else 'VALID'}, stride {sh}x{sw})"
            )

    builder = flatbuffers.Builder(len(buf) * 2)
    builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
    return bytes(builder.Output()), changes


def run_tflite(model: str | bytes, inputs: Sequence[np.ndarray], preserve_all: bool = False, threads: int = 2):
    """Run the interpreter with its builtin kernels and without the default XNNPACK delegate
    (the kernels the file's op versions ask for). Returns (outputs, interpreter); with preserve_all the interpreter
    keeps every intermediate tensor (read with interpreter.get_tensor(index))."""
    kw = dict(
        num_threads=threads,
        experimental_preserve_all_tensors=preserve_all,
        experimental_op_resolver_type=OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES,
    )
    it = Interpreter(model_path=model, **kw) if isinstance(model, str) else Interpreter(model_content=model, **kw)
    it.allocate_tensors()
    for d, x in zip(it.get_input_details(), inputs):
        it.set_tensor(d["index"], np.ascontiguousarray(x, np.float32))
    it.invoke()
    return [it.get_tensor(d["index"]) for d in it.get_output_details()], it


def error_stats(got: np.ndarray, ref: np.ndarray) -> dict[str, float]:
    """max |got - ref|, relative L2 ||got - ref|| / ||ref||, and max |ref| for scale."""
    got = np.asarray(got, np.float64)
    ref = np.asarray(ref, np.float64)
    if got.shape != ref.shape:
        raise ValueError(f"shape {got.shape} vs reference {ref.shape}")
    d = got - ref
    nref = float(np.linalg.norm(ref))
    return {
        "max_abs": float(np.abs(d).max()) if d.size else 0.0,
        "rel_l2": float(np.linalg.norm(d) / nref) if nref > 0 else float(np.linalg.norm(d)),
        "ref_max_abs": float(np.abs(ref).max()) if ref.size else 0.0,
    }


def nchw_to_nhwc(x: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(np.transpose(x, (0, 2, 3, 1))) if x.ndim == 4 else x
