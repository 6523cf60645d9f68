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

#include "graph/schema/fused_ops.h"
#include "ops/common/float16_support.h"
#include "ops/matmul/attention.wgsl.h"
#include "ops/matmul/attention_params.h"
#include "ops/registry.h"

namespace wgx::ops {
namespace {

constexpr int64_t kRowsPerGroup = 8;  // attention.wgsl ROWS

class Attention final : public BuiltinOp {
  public:
    std::string_view name() const override { return schema::Attention::name; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        using Schema = schema::Attention;
        args.expect_count(Schema::count, Schema::count);
        const Tensor& q = args.tensor(Schema::q, "q");
        const Tensor& k = args.tensor(Schema::k, "k");
        const Tensor& v = args.tensor(Schema::v, "v");
        const Tensor& out = args.tensor(Schema::out, "out");
        const DType dt =
            one_float_type(rec, args, {{&q, "q"}, {&k, "k"}, {&v, "v"}, {&out, "out"}});
        const AttentionCall call = attention_call(args);
        const int64_t B = call.B, Lq = call.Lq, Lk = call.Lk, D = call.D, DV = call.DV;
        const int64_t max_groups = rec.device().limits.max_workgroups_per_dimension;
        if (B > max_groups || (Lq + kRowsPerGroup - 1) / kRowsPerGroup > max_groups) {
            args.fail(
                fmt::format("sizes [{}, {}, {}, {}, {}]: B and Lq / {} must be within the "
                            "device's {} workgroups per dimension.",
                            B, Lq, Lk, D, DV, kRowsPerGroup, max_groups));
        }
        // The sizes are pipeline constants so the tile loops have fixed trip counts (one
        // pipeline per attention shape of a model).
        Kernel kernel = rec.kernel(fmt::format("{}{}", name(), dt == DType::f16 ? " f16" : ""),
                                   wgsl_alias(dt, "S") + std::string(wgsl::ops_matmul_attention),
                                   {{"D", double(D)}, {"DV", double(DV)}, {"LK", double(Lk)}});
        rec.dispatch(kernel, {q, k, v, out, Binding::uniform(call.params)},
                     Grid{uint32_t((Lq + kRowsPerGroup - 1) / kRowsPerGroup), uint32_t(B), 1});
    }
};

}  // namespace

const Op& attention_op() {
    static const Attention op;
    return op;
}

}  // namespace wgx::ops
