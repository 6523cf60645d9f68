#!/usr/bin/env python3
"""Checks that each room of the source tree includes only what docs/ARCHITECTURE.md allows.

Every `#include "..."` of a project header is checked against the table below (a room may
always include its own headers); `#include <webgpu/...>` is allowed in src/gpu alone. Prints
one line per offence (file:line, the include, what the room may include) and exits 1 if there
is any. Needs only Python's standard library; run from anywhere:

    python3 scripts/check_rooms.py               # the tree
    python3 scripts/check_rooms.py --self-test   # shows that it fails on offending includes
"""

import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# The public headers that use no GPU: the graph room may use these and nothing else of wgx/.
GPU_FREE_PUBLIC = ["wgx/dtype.h", "wgx/error.h", "wgx/log.h"]

# room -> include prefixes it may use besides its own. A prefix ending in "/" is a folder;
# otherwise it names one header.
ROOMS = {
    "src/base": ["wgx/"],
    "src/graph": ["base/", *GPU_FREE_PUBLIC],
    "src/gpu": ["base/", "wgx/"],
    "src/core": ["base/", "gpu/", "wgx/"],
    # Ops see the engine through wgx/op.h only (plus core's pure dispatch geometry and the
    # GPU-free schemas of the graph room's ops).
    "src/ops": ["base/", "core/dispatch_geometry.h", "graph/schema/", "wgx/"],
    "src/runtime": ["base/", "graph/", "core/", "ops/", "wgx/"],
    "src/io": ["base/", "wgx/"],
    "src/vision": ["base/", "io/", "wgx/"],
    # Tokenizers: no GPU and no engine, only the error types (and the chosen libraries' headers).
    "src/text": ["wgx/error.h"],
    "include/wgx": [],
}
# Headers only their own room may include: the two that include the WebGPU implementation's.
PRIVATE = {"gpu/webgpu_api.h": "src/gpu", "gpu/native.h": "src/gpu"}
# Tools, tests and benchmarks may include any project header, but no WebGPU header.
OUTSIDE = ("apps", "bench", "tests", "examples")

# Headers FlatBuffers generates into the build tree from schema/ (the graph room's readers).
GENERATED = re.compile(r"^[a-z_]+_generated\.h$")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^">]+)[">]')
SOURCES = ("*.h", "*.hpp", "*.cpp", "*.cc", "*.in", "*.def")


def room_of(path: Path, root: Path) -> str | None:
    rel = path.relative_to(root).as_posix()
    for room in ROOMS:
        if rel.startswith(room + "/"):
            return room
    return None


def own_prefix(room: str) -> str:
    return room.split("/", 1)[1] + "/"  # "src/graph" -> "graph/", "include/wgx" -> "wgx/"


def allowed(room: str, header: str) -> bool:
    if header.startswith(own_prefix(room)) or "/" not in header and GENERATED.match(header):
        return True
    return any(header == p or (p.endswith("/") and header.startswith(p)) for p in ROOMS[room])


def check_file(path: Path, root: Path) -> list[str]:
    rel = path.relative_to(root).as_posix()
    room = room_of(path, root)
    problems = []
    for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
        m = INCLUDE.match(line)
        if not m:
            continue
        bracket, header = m.groups()
        if bracket == "<":
            if header.startswith(("webgpu/", "dawn/")) and room != "src/gpu":
                problems.append(f"{rel}:{number}: includes <{header}>: only src/gpu talks to "
                                "WebGPU")
            continue
        if header in PRIVATE and room != PRIVATE[header]:
            problems.append(f'{rel}:{number}: includes "{header}", private to {PRIVATE[header]}')
            continue
        if room is None or header.count("/") == 0 and not GENERATED.match(header):
            continue  # tools and tests; or a file beside the includer ("normalize_image.h")
        if not allowed(room, header):
            may = ", ".join([own_prefix(room), *ROOMS[room]])
            problems.append(f'{rel}:{number}: includes "{header}"; {room} may include {may}')
    return problems


def check_tree(root: Path) -> list[str]:
    problems = []
    for top in [*ROOMS, *OUTSIDE]:
        for pattern in SOURCES:
            for path in sorted((root / top).rglob(pattern)):
                problems += check_file(path, root)
    return problems


def self_test() -> int:
    """A small tree with allowed and forbidden includes: every forbidden one must be found."""
    files = {
        "src/graph/ok.cpp": '#include "graph/graph.h"\n#include "wgx/dtype.h"\n',
        "src/graph/bad.cpp": '#include "gpu/device.h"\n#include "wgx/context.h"\n',
        "src/core/bad.cpp": '#include "runtime/executor.h"\n',
        "tests/bad.cpp": "#include <webgpu/webgpu.h>\n",
        "src/core/private.cpp": '#include "gpu/webgpu_api.h"\n',
    }
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for name, text in files.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_text(text)
        found = check_tree(root)
    if len(found) != 5 or any("ok.cpp" in p for p in found):
        print("check_rooms self-test FAILED; found:", *found, sep="\n  ")
        return 1
    print("check_rooms self-test: the 5 offending includes were found, the allowed ones kept")
    return 0


def main() -> int:
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    problems = check_tree(ROOT)
    for p in problems:
        print(p)
    if problems:
        print(f"check_rooms: {len(problems)} include(s) cross a room's wall "
              "(docs/ARCHITECTURE.md lists what each room may include)")
        return 1
    print(f"check_rooms: every include of {', '.join(ROOMS)} stays within its room's rules")
    return 0


if __name__ == "__main__":
    sys.exit(main())
