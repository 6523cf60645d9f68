// The body of the fuzz_readers target, shared with graph_tests, which replays every file of
// tests/fuzz/regressions through it so that a fixed fuzz finding stays fixed in every build.
//
// The input's own magic picks the reader, so fixture files are seeds as they are and mutations
// can move between formats:
//   bytes 4..8 "ET12": .pte -> every method lowered (VkGraph delegates inlined), then the
//                      memory planner, then the program.json writer and reader (a written
//                      graph must read back: anything else aborts);
//   bytes 4..8 "VH00": a bare Vulkan delegate payload, then the same round trip;
//   bytes 4..8 "FT01": a .ptd file;
//   otherwise:         program.json text up to the first NUL byte; the rest is weights.bin.
// Every reader must return or throw wgx::LoadError; any other exception or a crash is a bug.
// A graph that reads and checks also goes through the load-time passes (fusion, aliases,
// float16, memory plans) as Program::from_graph runs them: they must not crash on it and must
// leave a graph that still checks.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "graph/graph_check.h"
#include "graph/json/program_json.h"
#include "graph/load.h"
#include "graph/memory_plan.h"
#include "graph/passes/alias_reshapes.h"
#include "graph/passes/fold_prepack.h"
#include "graph/passes/fuse_all.h"
#include "graph/passes/run_in_float16.h"
#include "graph/pte/ptd_file.h"
#include "wgx/error.h"

namespace wgx::fuzz {

inline bool magic_is(const uint8_t* data, size_t size, const char* magic) {
    return size >= 8 && std::memcmp(data + 4, magic, 4) == 0;
}

// The passes of Program::from_graph, in its order (float16 with every op taking it, so the
// conversions are placed too); what they leave must still check.
inline void run_passes(const graph::Graph& graph) {
    graph::Graph g = graph;
    try {
        graph::check_graph(g, "fuzz");
    } catch (const LoadError&) {
        return;  // the executor refuses such a graph before any pass runs
    }
    graph::fold_prepack(g);
    graph::run_fusion_passes(g);
    graph::run_in_float16(g, [](std::string_view) { return true; });
    graph::alias_reshapes(g);
    graph::plan_memory_pools(g);
    try {
        graph::check_graph(g, "fuzz (after the passes)");
    } catch (const LoadError& error) {
        std::fprintf(stderr, "the passes left a graph that does not check: %s\n", error.what());
        std::abort();
    }
}

// The writer's output of a valid Graph must always be readable again.
inline void round_trip(const graph::Graph& graph) {
    run_passes(graph);
    graph::Graph planned = graph;
    graph::assign_memory_pools(planned);
    const graph::ProgramJson json = graph::write_program_json(planned);
    try {
        (void)graph::read_program_json(json.json, graph::share_bytes(json.weights), "rt.json",
                                       "rt.bin");
    } catch (const LoadError& error) {
        std::fprintf(stderr, "a written program did not read back: %s\n", error.what());
        std::abort();
    }
}

inline void fuzz_pte(const uint8_t* data, size_t size) {
    graph::SharedBytes bytes = graph::share_bytes(std::vector<uint8_t>(data, data + size));
    std::vector<std::string> methods;
    try {
        methods = graph::pte_method_names(bytes, "fuzz.pte");
    } catch (const LoadError&) {
        return;
    }
    for (const std::string& method : methods) {
        try {
            round_trip(graph::load_pte_bytes(bytes, method, nullptr, "fuzz.pte"));
        } catch (const LoadError&) {}
    }
}

inline void fuzz_one_input(const uint8_t* data, size_t size) {
    using graph::share_bytes;
    try {
        if (magic_is(data, size, "ET12")) {
            fuzz_pte(data, size);
        } else if (magic_is(data, size, "VH00")) {
            round_trip(
                graph::load_vkgraph_bytes(share_bytes(std::vector<uint8_t>(data, data + size))));
        } else if (magic_is(data, size, "FT01")) {
            (void)graph::read_ptd(share_bytes(std::vector<uint8_t>(data, data + size)), "fuzz.ptd");
        } else {
            const auto* end = static_cast<const uint8_t*>(std::memchr(data, 0, size));
            const size_t text_size = end ? static_cast<size_t>(end - data) : size;
            const std::string_view text(reinterpret_cast<const char*>(data), text_size);
            std::vector<uint8_t> weights;
            if (end) weights.assign(end + 1, data + size);
            round_trip(graph::read_program_json(text, share_bytes(std::move(weights)), "fuzz.json",
                                                "fuzz.bin"));
        }
    } catch (const LoadError&) {}
}

}  // namespace wgx::fuzz
