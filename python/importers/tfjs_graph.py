"""Rebuild a TensorFlow.js graph model (model.json + weight shards) as a torch.nn.Module.

A tfjs graph model is a TensorFlow GraphDef written as JSON (modelTopology.node[]: name, op,
input, attr) plus binary weight shards described by weightsManifest. This module reads both
(no TensorFlow needed) and returns a module whose forward() walks the graph with one small
handler per TF op (the OPS table in tfjs_ops.py) built from torch ops that torch.export and ExecuTorch's
VulkanPartitioner accept.

Layout. TF graphs converted from NCHW frameworks are full of Transpose nodes (NCHW <-> NHWC
around every conv), and Keras graphs are NHWC throughout. Our engine is fastest on plain NCHW
conv graphs, so every tensor value carries a lazy permutation instead of being transposed:
a value is (torch tensor t, perm) with  tf_value == t.permute(perm).  Transpose only changes
perm; a conv/pool/resize asks for the layout it needs (NCHW in torch) and a real permute is
emitted only where two layouts meet (e.g. Reshape, graph outputs). A Pad with a constant value
is kept pending the same way and folded into the following conv/pool padding when it is
symmetric. A Conv whose only consumer is an Add/AddV2/BiasAdd of a per-channel constant gets
that constant as its bias.

Constants that feed shapes, axes, paddings, permutations etc. stay host-side numpy arrays and
are folded at trace time (SparseToDense, Add of shape constants, ...). Float constants that
feed tensor ops are turned into registered buffers in the layout the op needs; those derived
buffers are created by one warm-up forward() in __init__ (with the model's declared input
shapes), so the module has a fixed set of buffers before torch.export sees it.

Anything the importer does not know raises TfjsImportError naming the node and its op.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import torch
import torch.nn as nn

from .tfjs_format import GraphModel, Node, TfjsImportError, load_graph_model, op_histogram, split_name
from .tfjs_ops import OPS, TVal, Value, _inverse, _is_host

NHWC_TO_NCHW = (0, 3, 1, 2)  # torch input x = tf_input.permute(NHWC_TO_NCHW)

# ---------------------------------------------------------------------------------------------
# The module
# ---------------------------------------------------------------------------------------------


class TfjsGraphModule(nn.Module):
    """forward(*inputs) runs the graph; returns a tuple of outputs (in `outputs` order).

    inputs:        TF input tensor names in the order forward() takes them (default: signature)
    outputs:       TF tensor names to return (default: signature outputs)
    input_perms:   {name: q}: forward() gets tf_input.permute(q) (e.g. NHWC_TO_NCHW); default as is
    output_perms:  {name: q}: the output is returned as tf_output.permute(q); default as is
    input_shapes:  {name: shape} for the warm-up run where the model's own shape has unknown dims
    """

    def __init__(
        self,
        graph: GraphModel,
        inputs: Sequence[str] | None = None,
        outputs: Sequence[str] | None = None,
        input_perms: dict[str, Sequence[int]] | None = None,
        output_perms: dict[str, Sequence[int]] | None = None,
        input_shapes: dict[str, Sequence[int]] | None = None,
    ):
        super().__init__()
        self.graph = graph
        self.input_names = list(inputs if inputs is not None else graph.inputs.keys())
        self.output_names = list(outputs if outputs is not None else graph.outputs)
        if not self.output_names:
            raise TfjsImportError(f"{graph.path}: no outputs given and the model has no signature outputs")
        self.input_perms = {k: tuple(v) for k, v in (input_perms or {}).items()}
        self.output_perms = {k: tuple(v) for k, v in (output_perms or {}).items()}
        for n in self.input_names:
            base, _ = split_name(n)
            if base not in graph.nodes or graph.nodes[base].op != "Placeholder":
                raise TfjsImportError(f"input {n!r} is not a Placeholder of the graph")

        self._order = self._topological_order()
        self._consumers = self._count_consumers()
        self._fused_bias: dict[str, str] = {}  # conv node -> bias Const tensor name
        self._alias: dict[str, str] = {}  # node whose value is another node's (folded Add)
        self._fuse_conv_bias()
        self._buffers_by_key: dict[Any, str] = {}
        self._frozen = False

        # Warm-up: creates the derived constant buffers (conv weights in OIHW, per-channel
        # constants in the layout their consumer uses) with the declared input shapes.
        example = []
        for n in self.input_names:
            shape = (input_shapes or {}).get(n) or graph.inputs.get(n, (None, ""))[0]
            if shape is None or any(int(d) < 0 for d in shape):
                raise TfjsImportError(f"input {n!r} has shape {shape}; pass input_shapes={{{n!r}: [...]}}")
            shape = [int(d) for d in shape]
            q = self.input_perms.get(n)
            if q:
                shape = [shape[i] for i in q]
            example.append(torch.zeros(shape))
        self.example_inputs = tuple(example)
        with torch.no_grad():
            self.forward(*example)
        self._frozen = True

    # -- graph analysis -----------------------------------------------------------------------

    def _topological_order(self) -> list[Node]:
        nodes = self.graph.nodes
        order: list[Node] = []
        state: dict[str, int] = {}  # 1 = visiting, 2 = done
        for out in self.output_names:
            base, _ = split_name(out)
            if base not in nodes:
                raise TfjsImportError(f"output {out!r}: no node named {base!r}")
            stack: list[tuple[str, int]] = [(base, 0)]
            while stack:
                name, i = stack.pop()
                if i == 0:
                    if state.get(name) == 2:
                        continue
                    if name not in nodes:
                        raise TfjsImportError(f"a node refers to input {name!r}, which is not in the graph")
                    state[name] = 1
                ins = nodes[name].inputs
                if i < len(ins):
                    stack.append((name, i + 1))
                    dep, _ = split_name(ins[i])
                    if state.get(dep) == 1:
                        raise TfjsImportError(f"node {name!r}: cycle through {dep!r} (control flow?)")
                    if state.get(dep) != 2:
                        stack.append((dep, 0))
                else:
                    state[name] = 2
                    order.append(nodes[name])
        return order

    def _count_consumers(self) -> dict[str, int]:
        count: dict[str, int] = {}
        for n in self._order:
            for i in n.inputs:
                b, k = split_name(i)
                key = f"{b}:{k}"
                count[key] = count.get(key, 0) + 1
        for out in self.output_names:
            b, k = split_name(out)
            key = f"{b}:{k}"
            count[key] = count.get(key, 0) + 1
        return count

    def _const_array(self, tensor: str) -> np.ndarray | None:
        base, _ = split_name(tensor)
        node = self.graph.nodes.get(base)
        while node is not None and node.op == "Identity":
            node = self.graph.nodes.get(split_name(node.inputs[0])[0])
        if node is None or node.op != "Const":
            return None
        return self.graph.weights.get(node.name)

    def _fuse_conv_bias(self) -> None:
        """conv -> Add(per-channel const) with the conv as its only consumer: bias of the conv."""
        consumers: dict[str, list[Node]] = {}
        for n in self._order:
            for i in n.inputs:
                consumers.setdefault(f"{split_name(i)[0]}:{split_name(i)[1]}", []).append(n)
        for conv in self._order:
            if conv.op not in ("Conv2D", "DepthwiseConv2dNative", "Conv2DBackpropInput"):
                continue
            key = f"{conv.name}:0"
            if self._consumers.get(key) != 1 or len(consumers.get(key, [])) != 1:
                continue
            add = consumers[key][0]
            if add.op not in ("Add", "AddV2", "BiasAdd") or len(add.inputs) != 2:
                continue
            other = [i for i in add.inputs if split_name(i) != (conv.name, 0)]
            if len(other) != 1:
                continue
            bias = self._const_array(other[0])
            if bias is None or bias.dtype != np.float32:
                continue
            out_c = self._conv_out_channels(conv)
            if conv.attr.get("data_format", "NHWC") != "NHWC" or add.attr.get("data_format", "NHWC") != "NHWC":
                continue
            # NHWC: a per-channel constant is [C] or [1, ..., 1, C]
            ok = bias.size == out_c and 1 <= bias.ndim <= 4 and bias.shape[-1] == out_c
            if out_c is None or not ok:
                continue
            self._fused_bias[conv.name] = other[0]
            self._alias[add.name] = conv.name

    def _conv_out_channels(self, conv: Node) -> int | None:
        idx = 1
        w = self._const_array(conv.inputs[idx])
        if w is None or w.ndim != 4:
            return None
        if conv.op == "Conv2D":
            return int(w.shape[3])
        if conv.op == "DepthwiseConv2dNative":
            return int(w.shape[2] * w.shape[3])
        return int(w.shape[2])  # Conv2DBackpropInput: filter [H, W, out, in]

    # -- constants ------------------------------------------------------------------------------

    def derived(self, key: Any, make: Callable[[], np.ndarray]) -> torch.Tensor:
        """A registered float buffer made once from host constants (see module docstring)."""
        name = self._buffers_by_key.get(key)
        if name is None:
            if self._frozen:
                raise TfjsImportError(
                    f"constant {key!r} is needed in a layout that the warm-up run did not create; "
                    "the inputs differ in shape from the ones the module was built for"
                )
            arr = np.ascontiguousarray(make(), dtype=np.float32)
            name = f"const_{len(self._buffers_by_key)}"
            self.register_buffer(name, torch.from_numpy(arr))
            self._buffers_by_key[key] = name
        return getattr(self, name)

    def host_to_tensor(self, tensor_name: str, c: np.ndarray, like: TVal) -> float | torch.Tensor:
        """A host constant as an operand of an elementwise op with `like` (TF broadcasting)."""
        if c.size == 1 and c.ndim <= like.rank:
            return float(c.reshape(()))
        if c.ndim > like.rank:
            raise TfjsImportError(
                f"constant {tensor_name!r} of shape {list(c.shape)} has a higher rank "
                f"than the tensor it is combined with ({like.tf_shape()})"
            )
        full = c.reshape((1,) * (like.rank - c.ndim) + c.shape)
        inv = _inverse(like.perm)
        return self.derived(("elem", tensor_name, like.perm), lambda: np.transpose(full, inv))

    # -- running ------------------------------------------------------------------------------------

    def forward(self, *inputs: torch.Tensor) -> tuple[torch.Tensor, ...]:
        if len(inputs) != len(self.input_names):
            raise TfjsImportError(
                f"forward() takes {len(self.input_names)} inputs ({self.input_names}), got {len(inputs)}"
            )
        env: dict[str, Value] = {}
        for name, x in zip(self.input_names, inputs):
            base, k = split_name(name)
            q = self.input_perms.get(name)
            env[f"{base}:{k}"] = TVal(x, _inverse(q) if q else None)
        for node in self._order:
            if f"{node.name}:0" in env:
                continue  # a graph input
            if node.name in self._alias:
                env[f"{node.name}:0"] = env[f"{self._alias[node.name]}:0"]
                continue
            ins = [env[f"{b}:{k}"] for b, k in map(split_name, node.inputs)]
            if node.op == "Const":
                if node.name not in self.graph.weights:
                    raise TfjsImportError(f"node {node.name!r} (op Const): no value in the weight manifest")
                out: Value | list[Value] = self.graph.weights[node.name]
            elif node.op == "Placeholder":
                raise TfjsImportError(f"node {node.name!r} (op Placeholder) is needed but not a forward() input")
            else:
                fn = OPS.get(node.op)
                if fn is None:
                    raise TfjsImportError(f"node {node.name!r}: op {node.op!r} is not supported by the importer")
                try:
                    out = fn(self, node, ins)
                except TfjsImportError as e:
                    if node.name in str(e):
                        raise
                    raise TfjsImportError(f"node {node.name!r} (op {node.op}): {e}") from e
            if isinstance(out, list):
                for k, v in enumerate(out):
                    env[f"{node.name}:{k}"] = v
            else:
                env[f"{node.name}:0"] = out
        results = []
        for name in self.output_names:
            b, k = split_name(name)
            v = env[f"{b}:{k}"]
            if _is_host(v):
                raise TfjsImportError(f"output {name!r} is a constant; the importer returns tensors only")
            q = self.output_perms.get(name)
            results.append(v.layout(_inverse(q)) if q else v.plain())
        return tuple(results)

    # helpers used by the op handlers
    def input_name(self, node: Node, i: int) -> str:
        b, k = split_name(node.inputs[i])
        return f"{b}:{k}"


def build_module(model_json: str, **kwargs) -> TfjsGraphModule:
    """load_graph_model + TfjsGraphModule(graph, **kwargs); eval mode, no grads."""
    module = TfjsGraphModule(load_graph_model(model_json), **kwargs)
    module.eval()
    for p in module.parameters():
        p.requires_grad_(False)
    return module


def unsupported_ops(graph: GraphModel) -> list[str]:
    return sorted({n.op for n in graph.nodes.values()} - set(OPS) - {"Const", "Placeholder"})


__all__ = [
    "GraphModel",
    "Node",
    "TfjsGraphModule",
    "TfjsImportError",
    "NHWC_TO_NCHW",
    "OPS",
    "split_name",
    "build_module",
    "load_graph_model",
    "op_histogram",
    "unsupported_ops",
]
