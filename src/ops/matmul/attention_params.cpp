#include "ops/matmul/attention_params.h"

#include <fmt/format.h>

#include <vector>

#include "graph/schema/fused_ops.h"

namespace wgx::ops {
namespace {

using Schema = schema::Attention;

// A view's 4 integers, checked: non-negative, and every element it reaches for a [B, rows,
// cols] index space inside `t`.
AttentionView checked_view(const Args& args, size_t i, const char* name, const Tensor& t, int64_t B,
                           int64_t rows, int64_t cols) {
    const std::vector<int64_t> v = args.int_list(i, name);
    if (v.size() != Schema::view_count) {
        args.fail(fmt::format("{} must be [offset, batch, row, col] strides, got {} values.", name,
                              v.size()));
    }
    for (int64_t x : v) {
        if (x < 0 || x > int64_t(UINT32_MAX)) {
            args.fail(fmt::format("{} holds {}, outside [0, 2^32).", name, x));
        }
    }
    const int64_t last = v[0] + (B - 1) * v[1] + (rows - 1) * v[2] + (cols - 1) * v[3];
    if (last >= t.numel()) {
        args.fail(fmt::format("{} [{}, {}, {}, {}] reaches element {} of a tensor of {}.", name,
                              v[0], v[1], v[2], v[3], last, t.numel()));
    }
    return AttentionView{uint32_t(v[0]), uint32_t(v[1]), uint32_t(v[2]), uint32_t(v[3])};
}

}  // namespace

AttentionCall attention_call(const Args& args) {
    const std::vector<int64_t> sizes = args.int_list(Schema::sizes, "sizes");
    if (sizes.size() != Schema::sizes_count) {
        args.fail(fmt::format("sizes must be [B, Lq, Lk, D, DV], got {} values.", sizes.size()));
    }
    AttentionCall c;
    c.B = sizes[0], c.Lq = sizes[1], c.Lk = sizes[2], c.D = sizes[3], c.DV = sizes[4];
    if (c.B < 1 || c.Lq < 1 || c.Lk < 1 || c.D < 1 || c.DV < 1) {
        args.fail(fmt::format("sizes [{}, {}, {}, {}, {}] must be positive.", c.B, c.Lq, c.Lk, c.D,
                              c.DV));
    }
    if (c.Lk > kAttentionMaxKeys || c.D > kAttentionMaxHeadSize || c.DV > kAttentionMaxHeadSize) {
        args.fail(
            fmt::format("takes at most {} keys and head sizes up to {}, got Lk {}, D {}, "
                        "DV {}.",
                        kAttentionMaxKeys, kAttentionMaxHeadSize, c.Lk, c.D, c.DV));
    }
    const Tensor& out = args.tensor(Schema::out, "out");
    if (out.numel() != c.B * c.Lq * c.DV) {
        args.fail(fmt::format("out {} must hold B * Lq * DV = {} elements.",
                              shape_string(out.shape()), c.B * c.Lq * c.DV));
    }
    AttentionParams& p = c.params;
    p.q = checked_view(args, Schema::q_view, "q_view", args.tensor(Schema::q, "q"), c.B, c.Lq, c.D);
    p.k = checked_view(args, Schema::k_view, "k_view", args.tensor(Schema::k, "k"), c.B, c.Lk, c.D);
    p.v =
        checked_view(args, Schema::v_view, "v_view", args.tensor(Schema::v, "v"), c.B, c.Lk, c.DV);
    p.lq = uint32_t(c.Lq);
    p.lk = uint32_t(c.Lk);
    p.d = uint32_t(c.D);
    p.dv = uint32_t(c.DV);
    p.scale = float(args.number(Schema::scale, "scale"));
    p.zero_masked_rows = args.boolean(Schema::zero_masked_rows, "zero_masked_rows") ? 1u : 0u;
    return c;
}

}  // namespace wgx::ops
