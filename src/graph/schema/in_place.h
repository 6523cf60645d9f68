// Ops that write into an argument besides their output, in place: ExecuTorch's KV-cache
// updates, and copy_ of a model's own buffers (the recurrent and convolution states of hybrid
// models, written back at the end of each run). The tensors they write are the program's state
// (DESIGN §8): kept on the GPU from run to run, and written back to the file's initial contents on
// a reset.
#pragma once

#include <array>
#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

#include "graph/graph.h"

namespace wgx::schema {

struct InPlaceWrites {
    std::string_view op;
    std::array<size_t, 2> args;  // positions of the arguments written
    size_t count;
};

// sdpa_with_kv_cache [q, k, v, k_cache, v_cache, input_pos, ...] writes k and v into the caches;
// update_cache [value, cache, start_pos, out] writes value into the cache; copy_ [self, src,
// non_blocking, self] writes src into self.
inline constexpr std::array<InPlaceWrites, 5> kInPlaceWrites = {{
    {"sdpa_with_kv_cache.default", {3, 4}, 2},
    {"llama.sdpa_with_kv_cache.default", {3, 4}, 2},
    {"update_cache.default", {1, 0}, 1},
    {"llama.update_cache.default", {1, 0}, 1},
    {"aten.copy_.default", {0, 0}, 1},
}};

// The argument positions `op` writes in place (empty for most ops).
inline std::span<const size_t> in_place_args(std::string_view op) {
    for (const auto& w : kInPlaceWrites) {
        if (w.op == op) return std::span<const size_t>(w.args.data(), w.count);
    }
    return {};
}

// The tensors some op of the graph writes in place, in value order, without repeats.
inline std::vector<int32_t> state_values(const graph::Graph& graph) {
    std::vector<bool> seen(graph.values.size(), false);
    for (const auto& call : graph.chain) {
        for (size_t a : in_place_args(call.name)) {
            if (a < call.args.size() && call.args[a] >= 0)
                seen[static_cast<size_t>(call.args[a])] = true;
        }
    }
    std::vector<int32_t> out;
    for (size_t id = 0; id < seen.size(); ++id) {
        if (seen[id]) out.push_back(static_cast<int32_t>(id));
    }
    return out;
}

}  // namespace wgx::schema
