"""Reading TensorFlow.js graph models: model.json (a TF GraphDef as JSON) and its weight shards.

No TensorFlow needed: nodes keep their op, inputs and decoded attributes; Const values come
from the weights manifest (float32, int32, bool; float16 and uint8/uint16 affine quantisation
are decoded the way TensorFlow.js decodes them).
"""

from __future__ import annotations

import base64
import json
import os
from dataclasses import dataclass, field
from typing import Any

import numpy as np


class TfjsImportError(ValueError):
    """The model uses something the importer does not support (message names node and op)."""


# ---------------------------------------------------------------------------------------------
# Reading model.json and the weight shards
# ---------------------------------------------------------------------------------------------


@dataclass
class Node:
    name: str
    op: str
    inputs: list[str]  # "name" or "name:k"; control inputs ("^name") are dropped
    attr: dict[str, Any]  # decoded attribute values (see _decode_attr)


@dataclass
class GraphModel:
    path: str
    nodes: dict[str, Node]
    weights: dict[str, np.ndarray]
    inputs: dict[str, tuple[list[int] | None, str]]  # tensor name -> (shape or None, dtype)
    outputs: list[str]  # tensor names ("Identity:0")
    meta: dict[str, Any] = field(default_factory=dict)  # format, generatedBy, convertedBy


_NP_DTYPES = {"float32": np.float32, "int32": np.int32, "bool": np.bool_}
_QUANT_DTYPES = {"uint8": np.uint8, "uint16": np.uint16, "float16": np.float16}


def _dequantize(raw: bytes, offset: int, spec: dict[str, Any]) -> tuple[np.ndarray, int]:
    """Decode one manifest entry starting at byte offset; returns (array, bytes used)."""
    shape = [int(d) for d in spec["shape"]]
    count = int(np.prod(shape)) if shape else 1
    dtype = spec["dtype"]
    quant = spec.get("quantization")
    if quant is None:
        if dtype not in _NP_DTYPES:
            raise TfjsImportError(f"weight {spec['name']!r}: dtype {dtype!r} is not supported")
        npdt = _NP_DTYPES[dtype]
        nbytes = count * np.dtype(npdt).itemsize
        arr = np.frombuffer(raw, npdt, count, offset).reshape(shape)
        return arr.copy(), nbytes
    qdt = quant.get("dtype")
    if qdt not in _QUANT_DTYPES:
        raise TfjsImportError(f"weight {spec['name']!r}: quantization dtype {qdt!r} is not supported")
    q = np.frombuffer(raw, _QUANT_DTYPES[qdt], count, offset).reshape(shape)
    nbytes = q.nbytes
    if qdt == "float16":
        if dtype != "float32":
            raise TfjsImportError(f"weight {spec['name']!r}: float16 storage of {dtype!r}")
        return q.astype(np.float32), nbytes
    # Affine uint8/uint16 quantisation: value = q * scale + min (tfjs io_utils.decodeWeights);
    # int32 weights are rounded back to integers the same way tfjs does.
    vals = q.astype(np.float32) * np.float32(quant["scale"]) + np.float32(quant["min"])
    if dtype == "int32":
        return np.round(vals).astype(np.int32), nbytes
    if dtype != "float32":
        raise TfjsImportError(f"weight {spec['name']!r}: {qdt} quantisation of {dtype!r}")
    return vals.astype(np.float32), nbytes


def _read_weights(model_dir: str, manifest: list[dict[str, Any]]) -> dict[str, np.ndarray]:
    weights: dict[str, np.ndarray] = {}
    for group in manifest:
        raw = b"".join(open(os.path.join(model_dir, p), "rb").read() for p in group["paths"])
        offset = 0
        for spec in group["weights"]:
            arr, used = _dequantize(raw, offset, spec)
            weights[spec["name"]] = arr
            offset += used
        if offset != len(raw):
            raise TfjsImportError(
                f"weight group {group['paths']}: manifest describes {offset} bytes, shards hold {len(raw)}"
            )
    return weights


def _decode_attr(value: dict[str, Any]) -> Any:
    """AttrValue (JSON form of the TF proto) -> plain python value."""
    if "list" in value:
        lst = value["list"]
        for key in ("i", "f", "b", "s", "type", "shape"):
            if key in lst:
                return [_decode_attr({key: v}) for v in lst[key]]
        return []
    if "i" in value:
        return int(value["i"])
    if "f" in value:
        return float(value["f"])
    if "b" in value:
        return bool(value["b"])
    if "s" in value:
        return base64.b64decode(value["s"]).decode("utf-8", errors="replace")
    if "type" in value:
        return value["type"]
    if "shape" in value:
        dims = value["shape"].get("dim", [])
        return [int(d.get("size", -1)) for d in dims]
    if "tensor" in value:
        return value["tensor"]  # Const values come from the weight manifest, not from here
    return None


def _tensor_shape(ts: dict[str, Any]) -> list[int] | None:
    if not ts or ts.get("unknownRank"):
        return None
    return [int(d.get("size", -1)) for d in ts.get("dim", [])]


def load_graph_model(model_json: str) -> GraphModel:
    """Parse model.json and its weight shards."""
    with open(model_json) as f:
        model = json.load(f)
    if model.get("format", "graph-model") != "graph-model" or "node" not in model.get("modelTopology", {}):
        raise TfjsImportError(f"{model_json}: not a tfjs graph model (format {model.get('format')!r})")
    topo = model["modelTopology"]
    if topo.get("library", {}).get("function"):
        raise TfjsImportError(f"{model_json}: graph functions (control flow) are not supported")
    nodes: dict[str, Node] = {}
    for n in topo["node"]:
        attr = {k: _decode_attr(v) for k, v in n.get("attr", {}).items()}
        inputs = [i for i in n.get("input", []) if not i.startswith("^")]
        nodes[n["name"]] = Node(n["name"], n["op"], inputs, attr)
    weights = _read_weights(os.path.dirname(os.path.abspath(model_json)), model["weightsManifest"])

    sig = model.get("signature", {})
    inputs: dict[str, tuple[list[int] | None, str]] = {}
    if sig.get("inputs"):
        for name, info in sig["inputs"].items():
            inputs[info.get("name", name)] = (_tensor_shape(info.get("tensorShape", {})), info.get("dtype", ""))
    else:
        for n in nodes.values():
            if n.op == "Placeholder":
                inputs[n.name + ":0"] = (n.attr.get("shape"), n.attr.get("dtype", ""))
    outputs = [info.get("name", name) for name, info in sig.get("outputs", {}).items()]
    meta = {k: model[k] for k in ("format", "generatedBy", "convertedBy") if k in model}
    return GraphModel(os.path.abspath(model_json), nodes, weights, inputs, outputs, meta)


def split_name(tensor: str) -> tuple[str, int]:
    """'node:1' -> ('node', 1); 'node' -> ('node', 0)."""
    base, sep, idx = tensor.rpartition(":")
    if sep and idx.isdigit():
        return base, int(idx)
    return tensor, 0


def op_histogram(graph: GraphModel) -> dict[str, int]:
    hist: dict[str, int] = {}
    for n in graph.nodes.values():
        hist[n.op] = hist.get(n.op, 0) + 1
    return dict(sorted(hist.items(), key=lambda kv: -kv[1]))
