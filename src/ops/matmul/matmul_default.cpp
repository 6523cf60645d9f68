// aten.matmul.default: torch.matmul's rules for float32 (or float16 throughout, float32
// arithmetic) operands of any rank: 1-D x 1-D is a dot product, a 1-D operand gains (and loses)
// a unit dim, and leading (batch) dims broadcast. Args: [self, other, out]. Batches run through
// record_gemm's batch strides, so the batch dims must be equal or one side's must all be 1 (a
// shared operand); other mixes of broadcast batch dims are rejected.
#include <fmt/format.h>

#include "ops/common/broadcast.h"
#include "ops/common/dims.h"
#include "ops/common/float16_support.h"
#include "ops/matmul/gemm.h"
#include "ops/registry.h"

namespace wgx::ops {
namespace {

class Matmul final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten.matmul.default"; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(3, 3);
        const Tensor& a = args.tensor(0, "self");
        const Tensor& b = args.tensor(1, "other");
        const Tensor& out = args.tensor(2, "out");
        one_float_type(rec, args, {{&a, "self"}, {&b, "other"}, {&out, "out"}});
        for (const auto& [t, what] : {std::pair{&a, "self"}, std::pair{&b, "other"}}) {
            if (t->rank() < 1) args.fail(fmt::format("{} must have at least one dim.", what));
        }
        // Matrix views: a [..., M, K], b [..., K, N]; 1-D operands as [1, K] and [K, 1].
        const Shape& sa = a.shape();
        const Shape& sb = b.shape();
        int64_t M = a.rank() == 1 ? 1 : sa[sa.size() - 2];
        int64_t K = sa.back();
        int64_t Kb = b.rank() == 1 ? sb[0] : sb[sb.size() - 2];
        int64_t N = b.rank() == 1 ? 1 : sb.back();
        if (K != Kb) {
            args.fail(fmt::format("self {} and other {} do not chain (K {} vs {}).",
                                  shape_string(sa), shape_string(sb), K, Kb));
        }
        Shape batch_a = a.rank() > 2 ? Shape(sa.begin(), sa.end() - 2) : Shape{};
        Shape batch_b = b.rank() > 2 ? Shape(sb.begin(), sb.end() - 2) : Shape{};
        auto batch = broadcast_shapes(batch_a, batch_b);
        if (!batch) {
            args.fail(fmt::format("batch dims of self {} and other {} do not broadcast.",
                                  shape_string(sa), shape_string(sb)));
        }
        Shape shape = *batch;
        if (a.rank() > 1) shape.push_back(M);
        if (b.rank() > 1) shape.push_back(N);
        expect_shape(args, out, shape, "out");

        int64_t count = product(*batch);
        int64_t na = product(batch_a), nb = product(batch_b);
        GemmParams p{};
        p.alpha = 1.f;
        p.K = static_cast<uint32_t>(K);
        p.N = static_cast<uint32_t>(N);
        if (nb == 1) {
            // b is one matrix: a's batches are just more rows.
            p.M = static_cast<uint32_t>(M * na);
            p.batch = 1;
        } else {
            if (na != 1 && na != count) {
                args.fail(
                    fmt::format("batch dims of self {} and other {} broadcast in both "
                                "directions, which is not supported.",
                                shape_string(sa), shape_string(sb)));
            }
            if (nb != count) {
                args.fail(
                    fmt::format("batch dims of other {} broadcast against self {}, which "
                                "is not supported.",
                                shape_string(sb), shape_string(sa)));
            }
            if (count > rec.device().limits.max_workgroups_per_dimension) {
                args.fail(fmt::format("{} batches exceed the device's {} workgroups per dimension.",
                                      count, rec.device().limits.max_workgroups_per_dimension));
            }
            p.M = static_cast<uint32_t>(M);
            p.batch = static_cast<uint32_t>(count);
            p.a_batch_stride = na == 1 ? 0 : static_cast<uint32_t>(M * K);
            p.b_batch_stride = static_cast<uint32_t>(K * N);
            p.c_batch_stride = static_cast<uint32_t>(M * N);
        }
        record_gemm(rec, name(), a, b, std::nullopt, out, p, false);
    }
};

}  // namespace

const Op& matmul_op() {
    static const Matmul op;
    return op;
}

}  // namespace wgx::ops
