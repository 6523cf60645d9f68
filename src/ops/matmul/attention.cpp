// wgx.attention.default: scaled dot-product attention in one dispatch,
//   out[b, i, :] = softmax_j(scale * q[b, i, :] . k[b, j, :]) @ v[b, :, :]
// Args: [q, k, v, q_view, k_view, v_view, sizes, scale, zero_masked_rows, out].
//   q, k, v: float tensors read through views [offset, batch, row, col] (element strides; q is
//     [B, Lq, D], k is [B, Lk, D], v is [B, Lk, DV] through them), so they can be slices and
//     permutations of a larger tensor (a fused q/k/v projection) without copies;
//   sizes: [B, Lq, Lk, D, DV]; scale: applied to the scores;
//   zero_masked_rows: a row whose scores are all -inf gives 0 instead of NaN;
//   out: contiguous, B * Lq * DV elements.
// The graph pass passes/fuse_attention writes these calls; it takes Lk <= 256, D <= 128 and
// DV <= 128, the sizes attention.wgsl keeps in the 16 KiB of workgroup memory every WebGPU
// device has. float32, or float16 storage with float32 arithmetic.
#include <array>
#include <cstdint>

#include <fmt/format.h>

#include "ops/common/float16_support.h"
#include "ops/matmul/attention.wgsl.h"
#include "ops/registry.h"

namespace wgx::ops {
namespace {

constexpr int64_t kMaxKeys = 256;      // attention.wgsl LK_MAX
constexpr int64_t kMaxHeadSize = 128;  // attention.wgsl D_MAX, and 2 columns per invocation
constexpr int64_t kRowsPerGroup = 8;   // attention.wgsl ROWS

struct View {
    uint32_t offset, batch, row, col;
};

struct AttentionParams {
    View q, k, v;
    uint32_t lq, lk, d, dv;
    float scale;
    uint32_t zero_masked_rows, pad0 = 0, pad1 = 0;
};
static_assert(sizeof(AttentionParams) % 16 == 0);

// A view's 4 integers, checked: non-negative, and every element it reaches for a [B, rows,
// cols] index space inside `t`.
View checked_view(const Args& args, size_t i, const char* name, const Tensor& t, int64_t B,
                  int64_t rows, int64_t cols) {
    const std::vector<int64_t> v = args.int_list(i, name);
    if (v.size() != 4) {
        args.fail(fmt::format("{} must be [offset, batch, row, col] strides, got {} values.",
                              name, v.size()));
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
    return View{uint32_t(v[0]), uint32_t(v[1]), uint32_t(v[2]), uint32_t(v[3])};
}

class Attention final : public Op {
  public:
    std::string_view name() const override { return "wgx.attention.default"; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(10, 10);
        const Tensor& q = args.tensor(0, "q");
        const Tensor& k = args.tensor(1, "k");
        const Tensor& v = args.tensor(2, "v");
        const Tensor& out = args.tensor(9, "out");
        const DType dt = one_float_type(rec, args, {{&q, "q"}, {&k, "k"}, {&v, "v"}, {&out, "out"}});
        const std::vector<int64_t> sizes = args.int_list(6, "sizes");
        if (sizes.size() != 5) {
            args.fail(fmt::format("sizes must be [B, Lq, Lk, D, DV], got {} values.", sizes.size()));
        }
        const int64_t B = sizes[0], Lq = sizes[1], Lk = sizes[2], D = sizes[3], DV = sizes[4];
        const int64_t max_groups = rec.device().limits.max_workgroups_per_dimension;
        if (B < 1 || Lq < 1 || Lk < 1 || D < 1 || DV < 1 || B > max_groups ||
            (Lq + kRowsPerGroup - 1) / kRowsPerGroup > max_groups) {
            args.fail(fmt::format("sizes [{}, {}, {}, {}, {}] must be positive with B and Lq / {} "
                                  "within the device's {} workgroups per dimension.",
                                  B, Lq, Lk, D, DV, kRowsPerGroup, max_groups));
        }
        if (Lk > kMaxKeys || D > kMaxHeadSize || DV > kMaxHeadSize) {
            args.fail(fmt::format("takes at most {} keys and head sizes up to {}, got Lk {}, D {}, "
                                  "DV {}.", kMaxKeys, kMaxHeadSize, Lk, D, DV));
        }
        if (out.numel() != B * Lq * DV) {
            args.fail(fmt::format("out {} must hold B * Lq * DV = {} elements.",
                                  shape_string(out.shape()), B * Lq * DV));
        }
        AttentionParams p{};
        p.q = checked_view(args, 3, "q_view", q, B, Lq, D);
        p.k = checked_view(args, 4, "k_view", k, B, Lk, D);
        p.v = checked_view(args, 5, "v_view", v, B, Lk, DV);
        p.lq = uint32_t(Lq);
        p.lk = uint32_t(Lk);
        p.d = uint32_t(D);
        p.dv = uint32_t(DV);
        p.scale = float(args.number(7, "scale"));
        p.zero_masked_rows = args.boolean(8, "zero_masked_rows") ? 1u : 0u;
        // The sizes are pipeline constants so the tile loops have fixed trip counts (one
        // pipeline per attention shape of a model).
        Kernel kernel = rec.kernel(fmt::format("{}{}", name(), dt == DType::f16 ? " f16" : ""),
                                   wgsl_alias(dt, "S") + std::string(wgsl::ops_matmul_attention),
                                   {{"D", double(D)}, {"DV", double(DV)}, {"LK", double(Lk)}});
        rec.dispatch(kernel, {q, k, v, out, Binding::uniform(p)},
                     Grid{uint32_t((Lq + kRowsPerGroup - 1) / kRowsPerGroup), uint32_t(B), 1});
    }
};

}  // namespace

const Op& attention_op() {
    static const Attention op;
    return op;
}

}  // namespace wgx::ops
