"""ExecuTorch's export_llama, with the Vulkan lowering's lookahead bounded, for executorch 1.2.0.

executorch 1.2.0's TagMemoryMetaPass (backends/vulkan/_passes/tag_memory_meta_pass.py) chooses
a tensor's storage by following its users depth-first through the graph, with no bound
(`max_trace_search_depth = None`) and nothing remembered between paths. In a transformer each
residual connection doubles the paths, so the search grows exponentially with the layers. On the
2-core VM: a 2-layer Llama (dims 64) lowers in about 25 s; a 16-layer one was still in that pass
after 13 minutes, and after 12 with the bound at 64 (1.2.0 counts the steps of one path; 1.5.1
bounds the nodes of the whole search, at 64); with 16 the whole export took 4.5 minutes, the
program made the same greedy tokens as PyTorch eager, and it had 113 conversions (7 a layer; the
unbounded 2-layer export has 15). The bound only limits how far ahead the pass looks when it
picks a storage (where the pick is wrong it inserts a conversion), so the program is otherwise
the exporter's own. This sets the bound where it is None, then runs export_llama as
`python -m executorch.examples.models.llama.export_llama ARGS` would.

With --no-hqq the quantized modes (-qmode, -E) choose their scales from each group's min and
max ("affine") instead of executorch 1.2.0's fixed HQQ search, which took 4.7 minutes for the 1B
model's weights on the GPU machine's CPUs, too long for one call there. The packing, shapes and
ops of the program are the same, so its speed is too; its weights differ slightly.

Usage: python llm_bench_export.py [--trace-depth N] [--no-hqq] EXPORT_LLAMA_ARGS...   (N default 16)
"""

from __future__ import annotations

import runpy
import sys


def bound_trace_depth(depth: int) -> None:
    from executorch.backends.vulkan._passes import tag_memory_meta_pass as tag

    init = tag.TagMemoryMetaPass.__init__

    def bounded_init(self, *args, **kwargs):
        init(self, *args, **kwargs)
        if self.max_trace_search_depth is None:
            self.max_trace_search_depth = depth

    tag.TagMemoryMetaPass.__init__ = bounded_init


def without_hqq() -> None:
    from executorch.examples.models.llama import export_llama_lib as lib

    transforms = lib._get_source_transforms

    def affine_transforms(*args, **kwargs):
        kwargs["quantize_with_hqq"] = False
        return transforms(*args, **kwargs)

    lib._get_source_transforms = affine_transforms


def main() -> None:
    args = sys.argv[1:]
    depth = 16
    if args[:1] == ["--trace-depth"]:
        depth, args = int(args[1]), args[2:]
    if args[:1] == ["--no-hqq"]:
        args = args[1:]
        without_hqq()
    bound_trace_depth(depth)
    sys.argv = ["export_llama", *args]
    runpy.run_module("executorch.examples.models.llama.export_llama", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
