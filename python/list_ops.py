#!/usr/bin/env python3
"""List the operator names the engine registers, read from the C++ sources.

    python3 python/list_ops.py                 # one name per line, sorted
    python3 python/list_ops.py --json          # [{"name", "primary", "op", "file"}, ...]

Plain Python (no torch needed). The registry is src/ops/op_list.def, with two kinds of line:

  * WGX_OP(<fn>): a bespoke op, defined as `const Op& <fn>_op() { static const C op; ... }` in a
    file under src/ops/<family>/. In the body of class C (comments stripped) the names are
      `name() const override { return "aten.x.y"; }`            the primary name, or
      `name() const override { return schema::X::name; }`       the name src/graph/schema/
                                                                fused_ops.h gives struct X;
      `aliases() const override { return {"aten.a.b", ...}; }`  alternative names.
  * WGX_OP_TABLE(<family>): a family of ops made from a table, in the file that defines
    `std::span<const Op* const> <family>_ops()`. Each row is a brace group whose first string
    literal is the op's name; further op-like literals in the same row are its aliases.

As a cross-check every string literal in a file that looks like an op name
(`namespace.op.overload`) must be one of the names found above; anything else
is reported as an error, so a new way of declaring names is not missed silently.

It also mirrors how the engine names a plain program's CPU KernelCall
("aten::add" + "out") as a functional op ("aten.add.Tensor"):
kernel_to_functional() applies the exceptions table parsed from
src/graph/pte/kernel_names.cpp and then the same general rule
("out" -> "default", "X_out" -> "X", "::" -> ".").

export_ops.py imports registered_ops() and kernel_to_functional() from here.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from dataclasses import asdict, dataclass

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

_OP_NAME = r"[a-z_][a-z0-9_]*\.[A-Za-z0-9_]+\.[A-Za-z0-9_]+"
_WGX_OP = re.compile(r"^\s*WGX_OP(_TABLE)?\(\s*([A-Za-z0-9_]+)\s*\)", re.M)
_NAME = re.compile(r"\bname\s*\(\s*\)\s*const\s*override\s*\{\s*return\s*\"(" + _OP_NAME + r")\"\s*;", re.S)
_SCHEMA_NAME = re.compile(r"\bname\s*\(\s*\)\s*const\s*override\s*\{\s*return\s*schema::(\w+)::name\s*;", re.S)
# In src/graph/schema/fused_ops.h: `struct X { static constexpr std::string_view name = "...";`.
_SCHEMA_STRUCT = re.compile(
    r"\bstruct\s+(\w+)\s*\{\s*static\s+constexpr\s+std::string_view\s+name\s*=\s*\"(" + _OP_NAME + r")\"", re.S
)
_ALIASES = re.compile(r"\baliases\s*\(\s*\)\s*const\s*override\s*\{\s*return\s*\{([^}]*)\}\s*;", re.S)
_DEFINE_OP = re.compile(r"\bconst\s+Op\s*&\s*(\w+)_op\s*\(\s*\)\s*\{\s*static\s+const\s+(\w+)\s+op\s*;")
_DEFINE_TABLE = re.compile(r"\bstd::span\s*<\s*const\s+Op\s*\*\s*const\s*>\s*(\w+)_ops\s*\(\s*\)\s*\{")
# A table row: the innermost brace group that starts with an op name.
_ROW = re.compile(r"\{\s*\"(" + _OP_NAME + r")\"([^{}]*)\}")
_LITERAL = re.compile(r"\"((?:[^\"\\\n]|\\.)*)\"")
_OP_LITERAL = re.compile(r"^" + _OP_NAME + r"$")


@dataclass
class RegisteredOp:
    name: str  # graph name, e.g. "aten.add.Tensor"
    primary: str  # the op's name() (== name unless this is an alias)
    op: str  # op_list.def entry, e.g. "add"
    file: str  # source file, relative to the repository root


def _strip_comments(src: str) -> str:
    """Remove // and /* */ comments, keeping string literals intact."""
    out = []
    i, n = 0, len(src)
    while i < n:
        c = src[i]
        if c == '"':
            j = i + 1
            while j < n and src[j] != '"':
                j += 2 if src[j] == "\\" else 1
            out.append(src[i : j + 1])
            i = j + 1
        elif src.startswith("//", i):
            j = src.find("\n", i)
            i = n if j < 0 else j
        elif src.startswith("/*", i):
            j = src.find("*/", i + 2)
            i = n if j < 0 else j + 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def schema_names(repo: str = REPO) -> dict[str, str]:
    """{struct name: op name} of src/graph/schema/fused_ops.h."""
    with open(os.path.join(repo, "src", "graph", "schema", "fused_ops.h")) as f:
        return dict(_SCHEMA_STRUCT.findall(_strip_comments(f.read())))


def _class_body(text: str, cls: str) -> str | None:
    """The text between the braces of `class <cls> ... {`, or None."""
    m = re.search(r"\bclass\s+" + cls + r"\b[^;{]*\{", text)
    if not m:
        return None
    depth, i = 1, m.end()
    while i < len(text) and depth:
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        i += 1
    return text[m.end() : i - 1]


def _bespoke_names(text: str, cls: str, schemas: dict[str, str]) -> tuple[list[str], list[str], list[str]]:
    """(primary names, aliases, errors) declared in the body of class `cls`."""
    body = _class_body(text, cls)
    if body is None:
        return [], [], [f"no class {cls}"]
    primary = _NAME.findall(body)
    errors = []
    for struct in _SCHEMA_NAME.findall(body):
        if struct in schemas:
            primary.append(schemas[struct])
        else:
            errors.append(f"schema::{struct} is not in src/graph/schema/fused_ops.h")
    aliases = [s for alias_list in _ALIASES.findall(body) for s in _LITERAL.findall(alias_list)]
    return primary, aliases, errors


def registered_ops(repo: str = REPO) -> list[RegisteredOp]:
    src_ops = os.path.join(repo, "src", "ops")
    schemas = schema_names(repo)
    with open(os.path.join(src_ops, "op_list.def")) as f:
        entries = _WGX_OP.findall(_strip_comments(f.read()))
    # Which file defines each `<fn>_op()` (and its class) and each `<family>_ops()`.
    op_defs: dict[str, tuple[str, str]] = {}
    table_defs: dict[str, str] = {}
    sources: dict[str, str] = {}
    for root, _, files in os.walk(src_ops):
        for fn in sorted(files):
            if not fn.endswith(".cpp"):
                continue
            path = os.path.join(root, fn)
            with open(path) as f:
                text = _strip_comments(f.read())
            rel = os.path.relpath(path, repo)
            sources[rel] = text
            for m in _DEFINE_OP.finditer(text):
                op_defs[m.group(1)] = (rel, m.group(2))
            for m in _DEFINE_TABLE.finditer(text):
                table_defs[m.group(1)] = rel
    out: list[RegisteredOp] = []
    errors: list[str] = []
    named_in: dict[str, set[str]] = {}  # file -> the names found in it
    for table, e in entries:
        if table:
            rel = table_defs.get(e)
            if rel is None:
                errors.append(f"WGX_OP_TABLE({e}): no `std::span<const Op* const> {e}_ops()` under src/ops")
                continue
            rows = [
                (name, [a for a in _LITERAL.findall(rest) if _OP_LITERAL.match(a)])
                for name, rest in _ROW.findall(sources[rel])
            ]
            if not rows:
                errors.append(f"{rel}: WGX_OP_TABLE({e}) has no rows")
        else:
            if e not in op_defs:
                errors.append(f"WGX_OP({e}): no `const Op& {e}_op() {{ static const C op; ...` under src/ops")
                continue
            rel, cls = op_defs[e]
            primary, aliases, problems = _bespoke_names(sources[rel], cls, schemas)
            errors += [f"{rel}: {p}" for p in problems]
            if len(primary) != 1:
                errors.append(f"{rel}: expected one primary op name in class {cls}, found {primary}")
                continue
            rows = [(primary[0], aliases)]
        for name, aliases in rows:
            for nm in [name, *aliases]:
                out.append(RegisteredOp(nm, name, e, rel))
                named_in.setdefault(rel, set()).add(nm)
    for rel, names in named_in.items():
        stray = sorted({s for s in _LITERAL.findall(sources[rel]) if _OP_LITERAL.match(s)} - names)
        if stray:
            errors.append(f"{rel}: op-like string literals not recognised as name/alias: {stray}")
    seen: dict[str, RegisteredOp] = {}
    for r in out:
        if r.name in seen:
            errors.append(f"{r.name} registered twice ({seen[r.name].file}, {r.file})")
        seen[r.name] = r
    if errors:
        raise RuntimeError("list_ops: " + "; ".join(errors))
    return sorted(out, key=lambda r: r.name)


_EXCEPTION = re.compile(r'\{\s*"([A-Za-z0-9_:.]+)"\s*,\s*\{\s*"([A-Za-z0-9_.]+)"')
_exceptions_cache: dict[str, dict[str, str]] = {}


def kernel_exceptions(repo: str = REPO) -> dict[str, str]:
    """'aten::add.out' -> 'aten.add.Tensor' for every entry of the C++ exceptions table."""
    if repo not in _exceptions_cache:
        path = os.path.join(repo, "src", "graph", "pte", "kernel_names.cpp")
        with open(path) as f:
            text = _strip_comments(f.read())
        table = dict(_EXCEPTION.findall(text))
        if not table:
            raise RuntimeError(f"list_ops: no exceptions table found in {path}")
        _exceptions_cache[repo] = table
    return _exceptions_cache[repo]


def kernel_to_functional(kernel: str, repo: str = REPO) -> str:
    """'aten::mean.dtype_out' -> 'aten.mean.default', as src/graph/pte/kernel_names.cpp does.

    `kernel` is the "name.overload" string inspect_pte.kernel_op_names() gives.
    """
    table = kernel_exceptions(repo)
    if kernel in table:
        return table[kernel]
    name, _, overload = kernel.rpartition(".") if "." in kernel.split("::")[-1] else (kernel, "", "")
    prim = "executorch_prim::"
    if name.startswith(prim) and overload in ("Scalar", "default", ""):
        return name[len(prim) :]
    if overload in ("", "out"):
        overload = "default"
    elif overload.endswith("_out"):
        overload = overload[: -len("_out")]
    return name.replace("::", ".") + "." + overload


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--json", action="store_true", help="JSON with primary name, op_list entry and file")
    ap.add_argument("--repo", default=REPO, help="repository root (default: this checkout)")
    ap.add_argument(
        "--kernel",
        action="append",
        default=[],
        metavar="NAME.OVERLOAD",
        help="print the functional op the engine reads a KernelCall as (repeatable)",
    )
    args = ap.parse_args(argv)
    if args.kernel:
        for k in args.kernel:
            print(f"{k} -> {kernel_to_functional(k, args.repo)}")
        return 0
    try:
        ops = registered_ops(args.repo)
    except RuntimeError as e:
        print(e, file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps([asdict(o) for o in ops], indent=1))
    else:
        for o in ops:
            print(o.name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
