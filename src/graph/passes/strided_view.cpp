#include "graph/passes/strided_view.h"

#include <string_view>

#include "graph/passes/alias_reshapes.h"
#include "graph/passes/graph_uses.h"

namespace wgx::graph {

StridedView contiguous_view(int32_t id, const std::vector<int64_t>& dims) {
    StridedView v;
    v.base = id;
    v.dims = dims;
    v.strides.assign(dims.size(), 1);
    for (size_t k = dims.size(); k-- > 1;) v.strides[k - 1] = v.strides[k] * dims[k];
    return v;
}

std::optional<StridedView> permuted(const StridedView& v, const std::vector<int64_t>& perm) {
    if (perm.size() != v.dims.size()) return std::nullopt;
    std::vector<bool> seen(perm.size(), false);
    StridedView out = v;
    for (size_t k = 0; k < perm.size(); ++k) {
        if (perm[k] < 0 || size_t(perm[k]) >= perm.size() || seen[size_t(perm[k])]) {
            return std::nullopt;
        }
        seen[size_t(perm[k])] = true;
        out.dims[k] = v.dims[size_t(perm[k])];
        out.strides[k] = v.strides[size_t(perm[k])];
    }
    return out;
}

StridedView selected(const StridedView& v, size_t dim, int64_t index) {
    StridedView out = v;
    out.offset += index * v.strides[dim];
    out.dims.erase(out.dims.begin() + static_cast<std::ptrdiff_t>(dim));
    out.strides.erase(out.strides.begin() + static_cast<std::ptrdiff_t>(dim));
    return out;
}

std::optional<StridedView> reshaped(const StridedView& v, const std::vector<int64_t>& dims) {
    // Size-1 dims take no part: their stride is never multiplied by a non-zero index.
    std::vector<int64_t> src_dims, src_strides;
    const int64_t count = element_count(v.dims);
    for (size_t k = 0; k < v.dims.size(); ++k) {
        if (v.dims[k] != 1) {
            src_dims.push_back(v.dims[k]);
            src_strides.push_back(v.strides[k]);
        }
    }
    if (count != element_count(dims) || count == 0) return std::nullopt;

    StridedView out = v;
    out.dims = dims;
    out.strides.assign(dims.size(), 0);
    size_t i = 0, j = 0;
    while (j < dims.size()) {
        if (dims[j] == 1) {
            ++j;
            continue;
        }
        // The shortest run of source dims [i, i2) and target dims [j, j2) of equal product.
        if (i >= src_dims.size()) return std::nullopt;
        size_t i2 = i + 1, j2 = j + 1;
        int64_t sp = src_dims[i], tp = dims[j];
        while (sp != tp) {
            if (sp < tp) {
                if (i2 >= src_dims.size()) return std::nullopt;
                sp *= src_dims[i2++];
            } else {
                if (j2 >= dims.size()) return std::nullopt;
                tp *= dims[j2++];
            }
        }
        // The source run must be one block: each dim's stride spans the next dim's extent.
        for (size_t k = i; k + 1 < i2; ++k) {
            if (src_strides[k] != src_strides[k + 1] * src_dims[k + 1]) return std::nullopt;
        }
        int64_t stride = src_strides[i2 - 1];
        for (size_t k = j2; k-- > j;) {
            if (dims[k] == 1) continue;
            out.strides[k] = stride;
            stride *= dims[k];
        }
        i = i2;
        j = j2;
    }
    if (i != src_dims.size()) return std::nullopt;
    return out;
}

namespace {

const IntList* int_list_at(const Graph& g, int32_t id) {
    if (id < 0 || size_t(id) >= g.values.size()) return nullptr;
    return std::get_if<IntList>(&g.values[size_t(id)]);
}

// dim normalised against rank (negatives count from the end); nullopt when out of range.
std::optional<size_t> normalized_dim(double dim, size_t rank) {
    const int64_t d = int64_t(dim) < 0 ? int64_t(dim) + int64_t(rank) : int64_t(dim);
    if (d < 0 || size_t(d) >= rank) return std::nullopt;
    return size_t(d);
}

// One step back: the view of `id` in terms of its writer's input, or nullopt.
std::optional<StridedView> step_back(const Graph& g, const Uses& uses, int32_t id, bool scales,
                                     std::vector<size_t>* through) {
    const Tensor* t = tensor_at(g, id);
    auto w = uses.writer.find(id);
    if (!t || t->dtype != DType::f32 || w == uses.writer.end() || uses.write_count(id) != 1) {
        return std::nullopt;
    }
    const OpCall& call = g.chain[w->second];
    if (call.args.size() < 2 || call.args.back() != id) return std::nullopt;
    const int32_t in = call.args[0];
    const Tensor* it = tensor_at(g, in);
    if (!it || it->dtype != DType::f32 || uses.write_count(in) > 1) return std::nullopt;
    const std::string_view name = call.name;

    std::optional<StridedView> out;
    std::vector<size_t> inner;
    if (is_contiguous_reshape(g, call)) {
        out = reshaped(trace_view(g, uses, in, scales, &inner), t->dims);
        if (!out) {  // not expressible from further back: read `in` as it is stored
            inner.clear();
            out = reshaped(contiguous_view(in, it->dims), t->dims);
        }
    } else if (name == "aten.permute_copy.default" && call.args.size() == 3) {
        const IntList* perm = int_list_at(g, call.args[1]);
        if (!perm || perm->items.size() != it->dims.size()) return std::nullopt;
        std::vector<int64_t> p;
        for (int64_t x : perm->items) {
            auto d = normalized_dim(double(x), it->dims.size());
            if (!d) return std::nullopt;
            p.push_back(int64_t(*d));
        }
        out = permuted(trace_view(g, uses, in, scales, &inner), p);
    } else if (name == "aten.select_copy.int" && call.args.size() == 4) {
        auto dim = number_at(g, call.args[1]);
        auto index = number_at(g, call.args[2]);
        if (!dim || !index) return std::nullopt;
        auto d = normalized_dim(*dim, it->dims.size());
        if (!d) return std::nullopt;
        int64_t i = int64_t(*index) < 0 ? int64_t(*index) + it->dims[*d] : int64_t(*index);
        if (i < 0 || i >= it->dims[*d]) return std::nullopt;
        out = selected(trace_view(g, uses, in, scales, &inner), *d, i);
    } else if (scales && name == "aten.mul.Scalar" && call.args.size() == 3) {
        auto s = number_at(g, call.args[1]);
        if (!s) return std::nullopt;
        out = trace_view(g, uses, in, scales, &inner);
        out->scale *= *s;
    }
    if (!out || out->dims != t->dims) return std::nullopt;
    if (through) {
        through->insert(through->end(), inner.begin(), inner.end());
        through->push_back(w->second);
    }
    return out;
}

}  // namespace

StridedView trace_view(const Graph& g, const Uses& uses, int32_t id, bool scales,
                       std::vector<size_t>* through) {
    if (auto v = step_back(g, uses, id, scales, through)) return *v;
    const Tensor* t = tensor_at(g, id);
    return contiguous_view(id, t ? t->dims : std::vector<int64_t>{});
}

}  // namespace wgx::graph
