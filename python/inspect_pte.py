#!/usr/bin/env python3
"""Print a JSON summary of an ExecuTorch .pte file.

Usage:
    python/.venv/bin/python python/inspect_pte.py MODEL.pte [--full] [-o OUT.json]

The program flatbuffer is read with executorch's own Python deserializer
(executorch.exir._serialize), without "restoring" segments, so the summary
shows where each piece of data really lives (inline vs. segment, named data).
Each Vulkan delegate blob is decoded too: its VH00 header is parsed by hand
(and cross-checked with executorch's VulkanDelegateHeader) and the VkGraph
flatbuffer is turned into JSON by flatc with the vkgraph schema that ships
inside the executorch wheel.

--full adds the complete VkGraph values table and the complete EValue table
of every execution plan (off by default only to keep the output shorter;
export.py always uses the full form internally).

The functions here are also imported by export.py (summarize(),
delegate_op_names(), kernel_op_names(), is_fully_delegated()).
"""

from __future__ import annotations

import argparse
import importlib.resources
import json
import os
import re
import struct
import sys
import tempfile
from typing import Any

from executorch.exir._serialize._flatbuffer import _flatc_decompile

try:
    from executorch.exir._serialize._flatbuffer_program import _flatbuffer_to_program
except ImportError:  # executorch < 1.5 (e.g. 1.2, which matches the H200 machine's torch 2.11)
    from executorch.exir._serialize._flatbuffer import _program_flatbuffer_to_json
    from executorch.exir._serialize._program import _json_to_program

    def _flatbuffer_to_program(data: bytes) -> et_schema.Program:
        return _json_to_program(_program_flatbuffer_to_json(data))


import executorch.backends.vulkan.serialization as vk_serialization_pkg
from executorch.backends.vulkan.serialization.vulkan_graph_serialize import (
    VulkanDelegateHeader,
)
from executorch.exir import schema as et_schema
from executorch.exir._serialize._program import _get_extended_header

UINT64_MAX = (1 << 64) - 1

# ScalarType byte -> name (program.fbs numbering).
_SCALAR_TYPE_NAMES = {int(v): v.name for v in et_schema.ScalarType}


def _scalar_type_name(v: Any) -> str:
    try:
        return _SCALAR_TYPE_NAMES[int(v)]
    except (KeyError, ValueError, TypeError):
        return str(v)


# ---------------------------------------------------------------------------
# Program-level EValues
# ---------------------------------------------------------------------------


def _evalue_dict(ev: et_schema.EValue) -> dict[str, Any]:
    """Structured description of one program EValue."""
    v = ev.val
    kind = type(v).__name__
    out: dict[str, Any] = {"type": kind}
    if isinstance(v, et_schema.Tensor):
        out["dtype"] = _scalar_type_name(v.scalar_type)
        out["sizes"] = list(v.sizes)
        out["dim_order"] = list(v.dim_order)
        if v.data_buffer_idx:
            out["data_buffer_idx"] = v.data_buffer_idx
        if v.allocation_info is not None:
            a = v.allocation_info
            out["memory_id"] = a.memory_id
            out["memory_offset"] = a.memory_offset_low | (a.memory_offset_high << 32)
        if int(v.shape_dynamism) != 0:
            out["shape_dynamism"] = int(v.shape_dynamism)
        if v.extra_tensor_info is not None:
            out["extra_tensor_info"] = {
                "fully_qualified_name": v.extra_tensor_info.fully_qualified_name,
                "location": int(v.extra_tensor_info.location),
            }
    elif isinstance(v, et_schema.Int):
        out["value"] = v.int_val
    elif isinstance(v, et_schema.Bool):
        out["value"] = bool(v.bool_val)
    elif isinstance(v, et_schema.Double):
        out["value"] = v.double_val
    elif isinstance(v, et_schema.String):
        out["value"] = v.string_val
    elif hasattr(v, "items"):
        # Careful: in a program (unlike a VkGraph) IntList.items are EValue
        # indices of Int values ("boxed" list), not the integers themselves;
        # TensorList / OptionalTensorList items are EValue indices too.
        # DoubleList / BoolList items are the values.
        out["items"] = list(v.items)
    return out


def _resolve_lists(values: list[dict[str, Any]]) -> None:
    """Add 'value' (the integers) to every program IntList whose items index Ints."""
    for d in values:
        if d["type"] == "IntList":
            ids = d["items"]
            if all(0 <= i < len(values) and values[i]["type"] == "Int" for i in ids):
                d["value"] = [values[i]["value"] for i in ids]
        elif d["type"] in ("DoubleList", "BoolList"):
            d["value"] = d.pop("items")


def _evalue_short(idx: int, d: dict[str, Any]) -> str:
    """One-line rendering of an EValue, e.g. '3:Tensor FLOAT[2, 2] mem1+48'."""
    t = d["type"]
    if t == "Tensor":
        s = f"{idx}:Tensor {d['dtype']}{d['sizes']}"
        if d.get("dim_order") and d["dim_order"] != sorted(d["dim_order"]):
            s += f" dim_order={d['dim_order']}"
        if "data_buffer_idx" in d:
            s += f" const#{d['data_buffer_idx']}"
        if "memory_id" in d:
            s += f" mem{d['memory_id']}+{d['memory_offset']}"
        if "data_buffer_idx" not in d and "memory_id" not in d:
            s += " unplanned"
        return s
    if t == "Null":
        return f"{idx}:Null"
    if t == "IntList":
        return f"{idx}:IntList({json.dumps(d.get('value'))} via ids {d['items']})"
    if t in ("TensorList", "OptionalTensorList"):
        return f"{idx}:{t}(ids {d['items']})"
    return f"{idx}:{t}({json.dumps(d.get('value'))})"


# ---------------------------------------------------------------------------
# Vulkan delegate
# ---------------------------------------------------------------------------


def parse_vh00_header(blob: bytes) -> dict[str, Any]:
    """Decode the 30-byte VH00 header at the start of a Vulkan delegate blob."""
    if len(blob) < 30:
        raise ValueError(f"Vulkan blob too short for a VH00 header ({len(blob)} bytes)")
    magic = blob[4:8]
    (length,) = struct.unpack_from("<H", blob, 8)
    fb_off, fb_size, bytes_off = struct.unpack_from("<III", blob, 10)
    (bytes_size,) = struct.unpack_from("<Q", blob, 22)
    hdr = {
        "padding_0_3": blob[0:4].hex(),
        "magic": magic.decode("latin-1"),
        "header_length": length,
        "flatbuffer_offset": fb_off,
        "flatbuffer_size": fb_size,
        "bytes_offset": bytes_off,
        "bytes_size": bytes_size,
        "blob_size": len(blob),
    }
    # Cross-check against executorch's own parser.
    ref = VulkanDelegateHeader.from_bytes(blob[: VulkanDelegateHeader.EXPECTED_LENGTH])
    assert (ref.flatbuffer_offset, ref.flatbuffer_size, ref.bytes_offset, ref.bytes_size) == (
        fb_off,
        fb_size,
        bytes_off,
        bytes_size,
    ), "VH00 header parse disagrees with executorch's VulkanDelegateHeader"
    hdr["valid"] = bool(ref.is_valid())
    return hdr


def vkgraph_flatbuffer_to_json(fb: bytes) -> dict[str, Any]:
    """VkGraph flatbuffer -> dict, through flatc and the wheel's schema.fbs."""
    schema = importlib.resources.files(vk_serialization_pkg).joinpath("schema.fbs").read_bytes()
    with tempfile.TemporaryDirectory() as d:
        schema_path = os.path.join(d, "schema.fbs")
        bin_path = os.path.join(d, "graph.bin")
        with open(schema_path, "wb") as f:
            f.write(schema)
        with open(bin_path, "wb") as f:
            f.write(fb)
        # --raw-binary: accept the buffer even if the identifier check fails.
        _flatc_decompile(d, schema_path, bin_path, ["--raw-binary"])
        with open(os.path.join(d, "graph.json")) as f:
            text = f.read()
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        # flatc writes non-finite doubles (e.g. a -inf attention-mask fill value)
        # as bare nan / inf / -inf, which JSON does not have; map them to the
        # NaN / Infinity / -Infinity tokens that Python's json module accepts.
        return json.loads(_FLATC_NONFINITE.sub(_flatc_nonfinite_repl, text))


_FLATC_NONFINITE = re.compile(r"(?<=[:\[,\s])([+-]?)(nan|inf|infinity)(?=[\s,\]}])", re.IGNORECASE)


def _flatc_nonfinite_repl(m: re.Match[str]) -> str:
    if m.group(2).lower() == "nan":
        return "NaN"
    return ("-" if m.group(1) == "-" else "") + "Infinity"


def _vk_value_dict(v: dict[str, Any]) -> dict[str, Any]:
    kind = v.get("value_type", "NONE")
    body = v.get("value") or {}
    out: dict[str, Any] = {"type": kind}
    if kind == "VkTensor":
        out["dtype"] = body.get("datatype")
        out["dims"] = body.get("dims", [])
        out["constant_id"] = body.get("constant_id")
        out["mem_obj_id"] = body.get("mem_obj_id")
        out["storage_type"] = body.get("storage_type")
        out["memory_layout"] = body.get("memory_layout")
        out["staging_datatype"] = body.get("staging_datatype")
    elif kind in ("Int",):
        out["value"] = int(body.get("int_val", 0))
    elif kind == "Double":
        out["value"] = body.get("double_val", 0.0)
    elif kind == "Bool":
        out["value"] = bool(body.get("bool_val", False))
    elif kind == "String":
        out["value"] = body.get("string_val", "")
    elif kind == "SymInt":
        out["value"] = body.get("value", 0)
    elif kind in ("IntList", "DoubleList", "BoolList", "ValueList"):
        items = body.get("items", [])
        if kind == "IntList":
            items = [int(x) for x in items]
        out["value"] = items
    return out


def _vk_value_short(idx: int, d: dict[str, Any]) -> str:
    t = d["type"]
    if t == "VkTensor":
        s = f"{idx}:Tensor {d['dtype']}{d['dims']}"
        if d.get("constant_id", -1) is not None and d.get("constant_id", -1) >= 0:
            s += f" const#{d['constant_id']}"
        if d.get("mem_obj_id", -1) is not None and d.get("mem_obj_id", -1) >= 0:
            s += f" mem_obj{d['mem_obj_id']}"
        return s
    if t == "Null":
        return f"{idx}:Null"
    return f"{idx}:{t}({json.dumps(d.get('value'))})"


def summarize_vulkan_blob(blob: bytes, full: bool = True) -> dict[str, Any]:
    hdr = parse_vh00_header(blob)
    fb = blob[hdr["flatbuffer_offset"] : hdr["flatbuffer_offset"] + hdr["flatbuffer_size"]]
    g = vkgraph_flatbuffer_to_json(fb)
    values = [_vk_value_dict(v) for v in g.get("values", [])]

    def short(i: int) -> str:
        if 0 <= i < len(values):
            return _vk_value_short(i, values[i])
        return f"{i}:<out of range>"

    chain = []
    for op in g.get("chain", []):
        args = [int(a) for a in op.get("args", [])]
        chain.append(
            {
                "node_id": op.get("node_id"),
                "name": op.get("name"),
                "args": args,
                "args_desc": [short(a) for a in args],
            }
        )
    constants = []
    for i, c in enumerate(g.get("constants", [])):
        off = int(c.get("offset", 0))
        constants.append(
            {
                "index": i,
                "offset": "UINT64_MAX" if off == UINT64_MAX else off,
                "length": int(c.get("length", 0)),
                "named_key": c.get("named_key", ""),
            }
        )
    tensors = [d for d in values if d["type"] == "VkTensor"]
    type_counts: dict[str, int] = {}
    for d in values:
        type_counts[d["type"]] = type_counts.get(d["type"], 0) + 1
    out: dict[str, Any] = {
        "header": hdr,
        "flatbuffer_identifier": fb[4:8].decode("latin-1") if len(fb) >= 8 else None,
        "version": g.get("version"),
        "storage_type_override": g.get("storage_type_override"),
        "memory_layout_override": g.get("memory_layout_override"),
        "input_ids": [int(x) for x in g.get("input_ids", [])],
        "output_ids": [int(x) for x in g.get("output_ids", [])],
        "inputs_desc": [short(int(x)) for x in g.get("input_ids", [])],
        "outputs_desc": [short(int(x)) for x in g.get("output_ids", [])],
        "op_names": [c["name"] for c in chain],
        "chain": chain,
        "num_values": len(values),
        "value_type_counts": type_counts,
        "mem_obj_ids": sorted({d["mem_obj_id"] for d in tensors if d["mem_obj_id"] >= 0}),
        "constants": constants,
        "num_shaders": len(g.get("shaders", [])),
    }
    if full:
        out["values"] = [dict(id=i, **d) for i, d in enumerate(values)]
    return out


# ---------------------------------------------------------------------------
# Whole program
# ---------------------------------------------------------------------------


def summarize(path_or_bytes, full: bool = True) -> dict[str, Any]:
    if isinstance(path_or_bytes, (bytes, bytearray)):
        data = bytes(path_or_bytes)
        name = None
    else:
        name = str(path_or_bytes)
        with open(name, "rb") as f:
            data = f.read()

    summary: dict[str, Any] = {}
    if name:
        summary["file"] = name
    summary["file_size"] = len(data)
    summary["root_offset"] = struct.unpack_from("<I", data, 0)[0]
    summary["file_identifier"] = data[4:8].decode("latin-1")

    eh = _get_extended_header(data)
    program_size = len(data)
    seg_base = 0
    if eh is not None and eh.is_valid():
        program_size = eh.program_size
        seg_base = eh.segment_base_offset
        summary["extended_header"] = {
            "magic": data[8:12].decode("latin-1"),
            "length": struct.unpack_from("<I", data, 12)[0],
            "program_size": eh.program_size,
            "segment_base_offset": eh.segment_base_offset,
            "segment_data_size": eh.segment_data_size,
        }
    else:
        summary["extended_header"] = None

    program: et_schema.Program = _flatbuffer_to_program(data[:program_size])
    summary["program_version"] = program.version

    # Segments and what uses them.
    seg_users: dict[int, list[str]] = {}

    def seg_bytes(i: int) -> bytes:
        s = program.segments[i]
        start = seg_base + s.offset
        return data[start : start + s.size]

    plans = []
    vulkan = []
    for p_idx, plan in enumerate(program.execution_plan):
        values = [_evalue_dict(v) for v in plan.values]
        _resolve_lists(values)
        ops = [f"{o.name}.{o.overload}" if o.overload else o.name for o in plan.operators]
        kinds: dict[str, int] = {}
        chains = []
        for c in plan.chains:
            instrs = []
            for ins in c.instructions:
                a = ins.instr_args
                kind = type(a).__name__
                kinds[kind] = kinds.get(kind, 0) + 1
                item: dict[str, Any] = {"kind": kind}
                if isinstance(a, et_schema.KernelCall):
                    item["op_index"] = a.op_index
                    item["op"] = ops[a.op_index] if 0 <= a.op_index < len(ops) else None
                    item["args"] = list(a.args)
                    item["args_desc"] = [_evalue_short(x, values[x]) for x in a.args]
                elif isinstance(a, et_schema.DelegateCall):
                    item["delegate_index"] = a.delegate_index
                    item["args"] = list(a.args)
                    item["args_desc"] = [_evalue_short(x, values[x]) for x in a.args]
                else:
                    item.update({k: getattr(a, k) for k in a.__dataclass_fields__})
                instrs.append(item)
            chains.append({"inputs": list(c.inputs), "outputs": list(c.outputs), "instructions": instrs})

        delegates = []
        for d_idx, d in enumerate(plan.delegates):
            loc = et_schema.DataLocation(int(d.processed.location))
            if loc == et_schema.DataLocation.INLINE:
                blob = bytes(program.backend_delegate_data[d.processed.index].data)
            else:
                blob = seg_bytes(d.processed.index)
                seg_users.setdefault(d.processed.index, []).append(f"plan{p_idx}.delegate{d_idx}:{d.id}")
            delegates.append(
                {
                    "index": d_idx,
                    "id": d.id,
                    "location": loc.name,
                    "data_index": d.processed.index,
                    "size": len(blob),
                    "compile_specs": {cs.key: bytes(cs.value).hex() for cs in (d.compile_specs or [])},
                }
            )
            if d.id == "VulkanBackend":
                vs = summarize_vulkan_blob(blob, full=full)
                vulkan.append(dict(plan=plan.name, delegate_index=d_idx, **vs))

        pd: dict[str, Any] = {
            "name": plan.name,
            "inputs": list(plan.inputs),
            "outputs": list(plan.outputs),
            "inputs_desc": [_evalue_short(i, values[i]) for i in plan.inputs],
            "outputs_desc": [_evalue_short(i, values[i]) for i in plan.outputs],
            "num_values": len(values),
            "non_const_buffer_sizes": list(plan.non_const_buffer_sizes),
            "operators": ops,
            "instruction_kinds": kinds,
            "chains": chains,
            "delegates": delegates,
        }
        if full:
            pd["values"] = [dict(id=i, **v) for i, v in enumerate(values)]
        plans.append(pd)
    summary["execution_plans"] = plans

    cs = program.constant_segment
    if cs is not None:
        if cs.offsets:
            seg_users.setdefault(cs.segment_index, []).append("constant_segment")
        summary["constant_segment"] = {
            "segment_index": cs.segment_index,
            "num_offsets": len(cs.offsets),
            "offsets": list(cs.offsets),
        }
    summary["constant_buffer_count"] = len(program.constant_buffer or [])
    summary["backend_delegate_data_count"] = len(program.backend_delegate_data or [])
    summary["mutable_data_segments"] = (
        [{"segment_index": m.segment_index, "num_offsets": len(m.offsets)} for m in program.mutable_data_segments]
        if program.mutable_data_segments
        else []
    )

    named = []
    for nd in program.named_data or []:
        seg_users.setdefault(nd.segment_index, []).append(f"named_data:{nd.key[:16]}")
        size = program.segments[nd.segment_index].size if nd.segment_index < len(program.segments) else None
        named.append({"key": nd.key, "segment_index": nd.segment_index, "size": size})
    summary["named_data"] = {"count": len(named), "entries": named}

    summary["segments"] = [
        {
            "index": i,
            "offset": s.offset,
            "size": s.size,
            "file_offset": seg_base + s.offset if summary["extended_header"] else None,
            "used_by": seg_users.get(i, []),
        }
        for i, s in enumerate(program.segments or [])
    ]
    summary["vulkan_delegates"] = vulkan
    return summary


# Small helpers used by export.py -------------------------------------------


def delegate_op_names(summary: dict[str, Any]) -> list[list[str]]:
    return [v["op_names"] for v in summary["vulkan_delegates"]]


def kernel_op_names(summary: dict[str, Any]) -> list[str]:
    out = []
    for p in summary["execution_plans"]:
        for c in p["chains"]:
            for ins in c["instructions"]:
                if ins["kind"] == "KernelCall":
                    out.append(ins["op"])
    return out


def is_fully_delegated(summary: dict[str, Any]) -> bool:
    for p in summary["execution_plans"]:
        kinds = p["instruction_kinds"]
        if set(kinds) != {"DelegateCall"}:
            return False
    return True


def to_json(obj: Any, indent: int = 1) -> str:
    """JSON with lists of scalars (and small dicts of scalars) kept on one line."""

    def flat(o: Any) -> bool:
        if isinstance(o, list):
            return all(not isinstance(x, (list, dict)) for x in o)
        if isinstance(o, dict):
            return len(o) <= 12 and all(
                not isinstance(x, (list, dict)) or (isinstance(x, list) and flat(x)) for x in o.values()
            )
        return True

    def rec(o: Any, level: int) -> str:
        if not isinstance(o, (list, dict)) or flat(o) or (isinstance(o, list) and not o):
            return json.dumps(o)
        pad = " " * (indent * (level + 1))
        end = " " * (indent * level)
        if isinstance(o, list):
            items = [pad + rec(x, level + 1) for x in o]
            return "[\n" + ",\n".join(items) + "\n" + end + "]"
        items = [pad + json.dumps(k) + ": " + rec(v, level + 1) for k, v in o.items()]
        return "{\n" + ",\n".join(items) + "\n" + end + "}"

    return rec(obj, 0)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("pte", help="path to a .pte file")
    ap.add_argument("--full", action="store_true", help="include full value tables")
    ap.add_argument("-o", "--output", help="write JSON here instead of stdout")
    args = ap.parse_args(argv)
    s = summarize(args.pte, full=args.full)
    text = to_json(s)
    if args.output:
        with open(args.output, "w") as f:
            f.write(text + "\n")
    else:
        sys.stdout.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
