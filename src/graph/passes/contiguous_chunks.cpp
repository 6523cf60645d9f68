#include "graph/passes/contiguous_chunks.h"

#include <algorithm>
#include <string_view>

#include "graph/passes/graph_uses.h"

namespace wgx::graph {
namespace {

std::optional<int64_t> int_at(const Graph& g, int32_t id) {
    if (id < 0 || static_cast<size_t>(id) >= g.values.size()) return std::nullopt;
    if (const auto* i = std::get_if<Int>(&g.values[static_cast<size_t>(id)])) return i->value;
    return std::nullopt;
}

// The split sizes as an int list, or a list of Int values.
std::optional<std::vector<int64_t>> int_list_at(const Graph& g, int32_t id) {
    if (id < 0 || static_cast<size_t>(id) >= g.values.size()) return std::nullopt;
    const Value& v = g.values[static_cast<size_t>(id)];
    if (const auto* l = std::get_if<IntList>(&v)) return l->items;
    const auto* l = std::get_if<ValueList>(&v);
    if (!l) return std::nullopt;
    std::vector<int64_t> items;
    for (int32_t item : l->items) {
        const auto i = int_at(g, item);
        if (!i) return std::nullopt;
        items.push_back(*i);
    }
    return items;
}

// The input's dim `dim` (wrapped) when every dim before it has size 1, so that a range of
// it is a range of the flat elements; nullopt otherwise.
std::optional<size_t> leading_dim(const std::vector<int64_t>& dims, int64_t dim) {
    const auto rank = static_cast<int64_t>(dims.size());
    if (rank == 0 || dim < -rank || dim >= rank) return std::nullopt;
    if (dim < 0) dim += rank;
    for (int64_t d = 0; d < dim; ++d) {
        if (dims[static_cast<size_t>(d)] != 1) return std::nullopt;
    }
    return static_cast<size_t>(dim);
}

// Elements of one step along dim `d`: the product of the dims after it.
uint64_t inner_size(const std::vector<int64_t>& dims, size_t d) {
    uint64_t n = 1;
    for (size_t k = d + 1; k < dims.size(); ++k) n *= static_cast<uint64_t>(dims[k]);
    return n;
}

// Pieces of `sizes` along `dim` of `in`, written to the items of the list `out_list`.
std::optional<std::vector<Chunk>> pieces(const Graph& g, const std::vector<int64_t>& in, size_t dim,
                                         const std::vector<int64_t>& sizes, int32_t out_list) {
    if (out_list < 0 || static_cast<size_t>(out_list) >= g.values.size()) return std::nullopt;
    const auto* outs = std::get_if<ValueList>(&g.values[static_cast<size_t>(out_list)]);
    if (!outs || outs->items.size() != sizes.size()) return std::nullopt;
    const uint64_t inner = inner_size(in, dim);
    std::vector<Chunk> chunks;
    int64_t at = 0;
    for (size_t k = 0; k < sizes.size(); ++k) {
        if (sizes[k] < 1 || sizes[k] > in[dim] - at) return std::nullopt;
        const int32_t id = outs->items[k];
        if (id >= 0) {
            const Tensor* t = tensor_at(g, id);
            std::vector<int64_t> want = in;
            want[dim] = sizes[k];
            if (!t || t->dims != want) return std::nullopt;
            chunks.push_back({id, static_cast<uint64_t>(at) * inner});
        }
        at += sizes[k];
    }
    if (at != in[dim]) return std::nullopt;
    return chunks;
}

// split_with_sizes_copy(self, split_sizes, dim, out) and split_copy(self, split_size, dim, out).
std::optional<std::vector<Chunk>> split_chunks(const Graph& g, const OpCall& call) {
    if (call.args.size() != 4) return std::nullopt;
    const Tensor* in = tensor_at(g, call.args[0]);
    const auto dim_arg = int_at(g, call.args[2]);
    if (!in || !dim_arg) return std::nullopt;
    const auto dim = leading_dim(in->dims, *dim_arg);
    if (!dim) return std::nullopt;
    std::vector<int64_t> sizes;
    if (call.name == "aten.split_copy.Tensor") {
        const auto size = int_at(g, call.args[1]);
        if (!size || *size < 1) return std::nullopt;
        for (int64_t at = 0; at < in->dims[*dim]; at += *size) {
            sizes.push_back(std::min(*size, in->dims[*dim] - at));
        }
    } else {
        auto list = int_list_at(g, call.args[1]);
        if (!list) return std::nullopt;
        sizes = std::move(*list);
    }
    return pieces(g, in->dims, *dim, sizes, call.args[3]);
}

// slice_copy.Tensor(self, dim, start, end, step, out) with step 1; start and end wrap and
// clamp as torch does (absent: the whole dim).
std::optional<std::vector<Chunk>> slice_chunk(const Graph& g, const OpCall& call) {
    if (call.args.size() != 6) return std::nullopt;
    const Tensor* in = tensor_at(g, call.args[0]);
    const Tensor* out = tensor_at(g, call.args[5]);
    const auto dim_arg = int_at(g, call.args[1]);
    const auto step = int_at(g, call.args[4]);
    if (!in || !out || !dim_arg || step != 1) return std::nullopt;
    const auto dim = leading_dim(in->dims, *dim_arg);
    if (!dim) return std::nullopt;
    const int64_t size = in->dims[*dim];
    auto bound = [&](int32_t id, int64_t absent) -> std::optional<int64_t> {
        if (is_null(g, id)) return absent;
        auto v = int_at(g, id);
        if (!v) return std::nullopt;
        if (*v < 0) *v += size;
        return std::clamp<int64_t>(*v, 0, size);
    };
    const auto start = bound(call.args[2], 0);
    const auto end = bound(call.args[3], size);
    if (!start || !end || *end <= *start) return std::nullopt;
    std::vector<int64_t> want = in->dims;
    want[*dim] = *end - *start;
    if (out->dims != want) return std::nullopt;
    return std::vector<Chunk>{
        {call.args[5], static_cast<uint64_t>(*start) * inner_size(in->dims, *dim)}};
}

}  // namespace

std::optional<std::vector<Chunk>> contiguous_chunks(const Graph& g, const OpCall& call) {
    if (call.name == "aten.split_with_sizes_copy.default" ||
        call.name == "aten.split_copy.Tensor") {
        return split_chunks(g, call);
    }
    if (call.name == "aten.slice_copy.Tensor") return slice_chunk(g, call);
    return std::nullopt;
}

}  // namespace wgx::graph
