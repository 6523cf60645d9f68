#include "ops/shape/strided_copy.h"

#include <fmt/format.h>

#include <limits>

#include "ops/common/dims.h"
#include "ops/shape/strided_copy.wgsl.h"

namespace wgx::ops {
namespace {

// A dim whose source coordinate is its own coordinate (no wrap, no padding).
bool is_plain(const CopyDim& d) { return d.src_size == d.size && d.src_lo == 0; }

// Drops dims of size 1 that move nothing and merges neighbours that are contiguous in both
// source and destination, so the kernel decomposes as few coordinates as possible.
std::vector<CopyDim> collapse(const std::vector<CopyDim>& dims) {
    std::vector<CopyDim> out;
    for (const CopyDim& d : dims) {
        if (d.size == 1 && d.src_lo == 0 && d.src_size >= 1) continue;  // coordinate 0 always
        if (!out.empty()) {
            CopyDim& o = out.back();
            if (is_plain(o) && is_plain(d) && o.src_stride == d.src_stride * d.size &&
                o.dst_stride == d.dst_stride * d.size) {
                o.size *= d.size;
                o.src_size = o.size;
                o.src_stride = d.src_stride;
                o.dst_stride = d.dst_stride;
                continue;
            }
        }
        out.push_back(d);
    }
    return out;
}

int32_t to_i32(std::string_view label, int64_t v, const char* what) {
    if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()) {
        throw InvalidArgument(fmt::format("{}: {} ({}) does not fit in 32 bits.", label, what, v));
    }
    return static_cast<int32_t>(v);
}

void record(Recorder& rec, std::string_view label, const Tensor& src, const Tensor& dst,
            const std::vector<CopyDim>& raw_dims, int64_t src_base, int64_t dst_base,
            uint64_t numel, uint64_t threads, CopyMode mode, uint32_t fill_bits,
            LiveOffset live = {}) {
    if (device_size(src.dtype()) != device_size(dst.dtype())) {
        throw InvalidArgument(fmt::format("{}: strided copy between {} and {}.", label,
                                          dtype_name(src.dtype()), dtype_name(dst.dtype())));
    }
    uint32_t lanes = lanes_per_word(dst.dtype());
    std::vector<CopyDim> dims = collapse(raw_dims);
    if (dims.size() > 8) {
        throw InvalidArgument(
            fmt::format("{}: {} dims after merging; at most 8.", label, dims.size()));
    }
    StridedCopyParams p{};
    p.numel = static_cast<uint32_t>(numel);
    p.threads = static_cast<uint32_t>(threads);
    p.src_base = to_i32(label, src_base, "source offset");
    p.dst_base = static_cast<uint32_t>(dst_base);
    p.fill = fill_bits;
    p.live_slot = live.slot;
    p.live_stride = static_cast<uint32_t>(to_i32(label, live.stride, "live stride"));
    p.live_max = static_cast<uint32_t>(to_i32(label, live.max_start, "live start"));
    for (size_t d = 0; d < dims.size(); ++d) {
        p.sizes[d] = static_cast<uint32_t>(dims[d].size);
        p.src_strides[d] = to_i32(label, dims[d].src_stride, "source stride");
        p.dst_strides[d] = static_cast<uint32_t>(dims[d].dst_stride);
        p.src_sizes[d] = static_cast<uint32_t>(dims[d].src_size);
        p.src_lo[d] = to_i32(label, dims[d].src_lo, "padding");
    }
    uint32_t wg = rec.workgroup_size(256);
    Kernel k = rec.kernel(fmt::format("{}/copy{}", label, lanes == 1 ? "" : "_packed"),
                          std::string(wgsl::ops_shape_strided_copy),
                          {{"WG", double(wg)},
                           {"RANK", double(dims.size())},
                           {"MODE", double(static_cast<uint32_t>(mode))},
                           {"LANES", double(lanes)}});
    rec.dispatch(k, {src, dst, Binding::uniform(p), rec.live_ints()}, rec.grid_1d(threads, wg));
}

}  // namespace

uint32_t lanes_per_word(DType dtype) { return static_cast<uint32_t>(4 / device_size(dtype)); }

void record_gather(Recorder& rec, std::string_view label, const Tensor& src, const Tensor& dst,
                   std::vector<CopyDim> dims, int64_t src_base, CopyMode mode, uint32_t fill_bits,
                   LiveOffset live) {
    auto strides = contiguous_strides(dst.shape());
    for (size_t d = 0; d < dims.size(); ++d) dims[d].dst_stride = strides[d];
    uint64_t numel = static_cast<uint64_t>(dst.numel());
    uint32_t lanes = lanes_per_word(dst.dtype());
    record(rec, label, src, dst, dims, src_base, 0, numel, (numel + lanes - 1) / lanes, mode,
           fill_bits, live);
}

void record_scatter_region(Recorder& rec, std::string_view label, const Tensor& src,
                           const Tensor& dst, int dim, int64_t offset) {
    const Shape& in = src.shape();
    const Shape& out = dst.shape();
    auto in_strides = contiguous_strides(in);
    auto out_strides = contiguous_strides(out);
    uint32_t lanes = lanes_per_word(dst.dtype());
    std::vector<CopyDim> dims;
    if (lanes == 1) {
        // One invocation per source element, written at its place in dst.
        for (size_t d = 0; d < in.size(); ++d) {
            dims.push_back({in[d], in_strides[d], out_strides[d], in[d], 0});
        }
        uint64_t n = static_cast<uint64_t>(src.numel());
        record(rec, label, src, dst, dims, 0, offset * out_strides[dim], n, n, CopyMode::plain, 0);
        return;
    }
    // Packed: one invocation per dst word over the words the region touches; lanes outside
    // the region keep their value.
    for (size_t d = 0; d < out.size(); ++d) {
        int64_t lo = static_cast<int>(d) == dim ? offset : 0;
        dims.push_back({out[d], in_strides[d], out_strides[d], in[d], lo});
    }
    int64_t inner = out_strides[dim];
    int64_t outer = product(Shape(out.begin(), out.begin() + dim));
    int64_t first = offset * inner;
    int64_t last = (outer - 1) * out[dim] * inner + (offset + in[dim]) * inner - 1;
    uint64_t first_word = static_cast<uint64_t>(first) / lanes;
    uint64_t threads = static_cast<uint64_t>(last) / lanes - first_word + 1;
    record(rec, label, src, dst, dims, 0, static_cast<int64_t>(first_word),
           static_cast<uint64_t>(dst.numel()), threads, CopyMode::pad_keep, 0);
}

void record_reshape_copy(Recorder& rec, const Args& args, const Tensor& self, const Tensor& out) {
    if (self.dtype() != out.dtype()) {
        args.fail(fmt::format("self ({}) and out ({}) must have one dtype.",
                              dtype_name(self.dtype()), dtype_name(out.dtype())));
    }
    if (self.numel() != out.numel()) {
        args.fail(fmt::format("self {} and out {} differ in element count ({} vs {}).",
                              shape_string(self.shape()), shape_string(out.shape()), self.numel(),
                              out.numel()));
    }
    rec.copy(self, out);
}

}  // namespace wgx::ops
