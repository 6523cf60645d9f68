// aten.addmm.default: out [M, N] = beta * self + alpha * (mat1 [M, K] @ mat2 [K, N]), self
// broadcastable to [M, N] (read in place with zero strides). Args: [self, mat1, mat2, beta,
// alpha, out] (beta and alpha default to 1; beta = 0 ignores self, NaN included). float32, or
// float16 throughout (float32 arithmetic).
#include <fmt/format.h>

#include "ops/common/broadcast.h"
#include "ops/common/dims.h"
#include "ops/common/float16_support.h"
#include "ops/matmul/gemm.h"
#include "ops/registry.h"

namespace wgx::ops {
namespace {

class Addmm final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten.addmm.default"; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(4, 6);
        const Tensor& self = args.tensor(0, "self");
        const Tensor& a = args.tensor(1, "mat1");
        const Tensor& b = args.tensor(2, "mat2");
        const Tensor& out = args.tensor(args.size() - 1, "out");
        double beta = args.size() >= 5 && !args.is_none(3) ? args.number(3, "beta") : 1.0;
        double alpha = args.size() >= 6 && !args.is_none(4) ? args.number(4, "alpha") : 1.0;
        one_float_type(rec, args, {{&self, "self"}, {&a, "mat1"}, {&b, "mat2"}, {&out, "out"}});
        if (a.rank() != 2 || b.rank() != 2) {
            args.fail(fmt::format("mat1 {} and mat2 {} must be 2-D.", shape_string(a.shape()),
                                  shape_string(b.shape())));
        }
        int64_t M = a.shape()[0], K = a.shape()[1], N = b.shape()[1];
        if (b.shape()[0] != K) {
            args.fail(fmt::format("mat1 {} and mat2 {} do not chain (K {} vs {}).",
                                  shape_string(a.shape()), shape_string(b.shape()), K,
                                  b.shape()[0]));
        }
        Shape mn = {M, N};
        auto joint = broadcast_shapes(self.shape(), mn);
        if (self.rank() > 2 || !joint || *joint != mn) {
            args.fail(fmt::format("self {} does not broadcast to [{}, {}].",
                                  shape_string(self.shape()), M, N));
        }
        expect_shape(args, out, mn, "out");

        auto strides = broadcast_strides(self.shape(), mn);
        GemmParams p{};
        p.M = static_cast<uint32_t>(M);
        p.N = static_cast<uint32_t>(N);
        p.K = static_cast<uint32_t>(K);
        p.batch = 1;
        p.bias_row_stride = strides[kMaxRank - 2];
        p.bias_col_stride = strides[kMaxRank - 1];
        p.alpha = static_cast<float>(alpha);
        p.beta = static_cast<float>(beta);
        record_gemm(rec, name(), a, b, self, out, p, false);
    }
};

}  // namespace

const Op& addmm_op() {
    static const Addmm op;
    return op;
}

}  // namespace wgx::ops
