// aten.bmm.default: out [B, M, N] = self [B, M, K] @ mat2 [B, K, N]. Args: [self, mat2, out].
// float32, or float16 throughout (float32 arithmetic), through record_gemm with batch strides
// (batch in the grid's z).
#include <fmt/format.h>

#include "ops/common/dims.h"
#include "ops/common/float16_support.h"
#include "ops/matmul/gemm.h"
#include "ops/registry.h"

namespace wgx::ops {
namespace {

class Bmm final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten.bmm.default"; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(3, 3);
        const Tensor& a = args.tensor(0, "self");
        const Tensor& b = args.tensor(1, "mat2");
        const Tensor& out = args.tensor(2, "out");
        one_float_type(rec, args, {{&a, "self"}, {&b, "mat2"}, {&out, "out"}});
        for (const auto& [t, what] :
             {std::pair{&a, "self"}, std::pair{&b, "mat2"}, std::pair{&out, "out"}}) {
            if (t->rank() != 3) {
                args.fail(fmt::format("{} must be 3-D, got {}.", what, shape_string(t->shape())));
            }
        }
        int64_t B = a.shape()[0], M = a.shape()[1], K = a.shape()[2], N = b.shape()[2];
        if (b.shape()[0] != B || b.shape()[1] != K) {
            args.fail(fmt::format("self {} and mat2 {} do not chain (expected mat2 [{}, {}, N]).",
                                  shape_string(a.shape()), shape_string(b.shape()), B, K));
        }
        expect_shape(args, out, {B, M, N}, "out");
        if (B > rec.device().limits.max_workgroups_per_dimension) {
            args.fail(fmt::format("batch {} exceeds the device's {} workgroups per dimension.", B,
                                  rec.device().limits.max_workgroups_per_dimension));
        }
        GemmParams p{};
        p.M = static_cast<uint32_t>(M);
        p.N = static_cast<uint32_t>(N);
        p.K = static_cast<uint32_t>(K);
        p.batch = static_cast<uint32_t>(B);
        p.a_batch_stride = static_cast<uint32_t>(M * K);
        p.b_batch_stride = static_cast<uint32_t>(K * N);
        p.c_batch_stride = static_cast<uint32_t>(M * N);
        p.alpha = 1.f;
        record_gemm(rec, name(), a, b, std::nullopt, out, p, false);
    }
};

}  // namespace

const Op& bmm_op() {
    static const Bmm op;
    return op;
}

}  // namespace wgx::ops
