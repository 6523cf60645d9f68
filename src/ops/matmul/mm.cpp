// aten.mm.default: out [M, N] = self [M, K] @ mat2 [K, N]. Args: [self, mat2, out]. float32, or
// float16 throughout (float32 arithmetic).
#include <fmt/format.h>

#include "ops/common/float16_support.h"
#include "ops/matmul/gemm.h"
#include "ops/registry.h"

namespace wgx::ops {
namespace {

class Mm final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten.mm.default"; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(3, 3);
        const Tensor& a = args.tensor(0, "self");
        const Tensor& b = args.tensor(1, "mat2");
        const Tensor& out = args.tensor(2, "out");
        one_float_type(rec, args, {{&a, "self"}, {&b, "mat2"}, {&out, "out"}});
        for (const Tensor* t : {&a, &b, &out}) {
            if (t->rank() != 2) {
                args.fail(
                    fmt::format("operands must be 2-D, got shape {}.", shape_string(t->shape())));
            }
        }
        int64_t M = a.shape()[0], K = a.shape()[1], N = b.shape()[1];
        if (b.shape()[0] != K) {
            args.fail(fmt::format("self {} and mat2 {} do not chain (K {} vs {}).",
                                  shape_string(a.shape()), shape_string(b.shape()), K,
                                  b.shape()[0]));
        }
        if (out.shape() != Shape{M, N}) {
            args.fail(fmt::format("out has shape {}, expected [{}, {}].", shape_string(out.shape()),
                                  M, N));
        }
        GemmParams p{};
        p.M = static_cast<uint32_t>(M);
        p.N = static_cast<uint32_t>(N);
        p.K = static_cast<uint32_t>(K);
        p.batch = 1;
        p.alpha = 1.f;
        record_gemm(rec, name(), a, b, std::nullopt, out, p, false);
    }
};

}  // namespace

const Op& mm_op() {
    static const Mm op;
    return op;
}

}  // namespace wgx::ops
