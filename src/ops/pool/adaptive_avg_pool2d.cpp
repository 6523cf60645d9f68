// aten._adaptive_avg_pool2d.default (alias aten.adaptive_avg_pool2d.default): average pooling
// onto a given output size with PyTorch's windows [floor(i * in / out), ceil((i + 1) * in / out)).
// Args: [self, output_size, out]. Float32 or float16 (summed in f32).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ops/common/float16_support.h"
#include "ops/pool/adaptive_avg_pool2d.wgsl.h"
#include "ops/pool/pool2d.h"
#include "ops/pool/pool_common.wgsl.h"
#include "ops/registry.h"

namespace wgx::ops {
namespace {

class AdaptiveAvgPool2d final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten._adaptive_avg_pool2d.default"; }
    bool accepts_float16() const override { return true; }
    std::vector<std::string_view> aliases() const override {
        return {"aten.adaptive_avg_pool2d.default"};
    }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(3, 3);
        const Tensor& x = args.tensor(0, "self");
        const Tensor& out = args.tensor(2, "out");
        if (storage_dtype(x.dtype()) != DType::f32 && storage_dtype(x.dtype()) != DType::f16) {
            args.fail(fmt::format("self must be float32 or float16, got {}.",
                                  dtype_name(x.dtype())));
        }
        expect_float16_support(rec, args, x.dtype());
        if (out.dtype() != x.dtype()) {
            args.fail(fmt::format("out must have the dtype of self ({}), got {}.",
                                  dtype_name(x.dtype()), dtype_name(out.dtype())));
        }
        std::vector<int64_t> size = args.int_list(1, "output_size");
        if (size.size() == 1) size.push_back(size[0]);
        if (size.size() != 2 || size[0] < 1 || size[1] < 1) {
            args.fail(fmt::format("output_size must be 1 or 2 positive values, got [{}].",
                                  fmt::join(args.int_list(1, "output_size"), ", ")));
        }
        PoolParams p{};
        check_pool_shapes(args, x, out, size[0], size[1], "out", p);
        // (i + 1) * in must not overflow u32 in the kernel.
        if (uint64_t(p.H_out) * p.H_in >= (1ull << 32) ||
            uint64_t(p.W_out) * p.W_in >= (1ull << 32)) {
            args.fail("input and output sizes are too large for 32-bit window arithmetic.");
        }
        uint32_t wg = rec.workgroup_size(128);
        std::string source = wgsl_alias(x.dtype()) + std::string(wgsl::ops_pool_pool_common) +
                             std::string(wgsl::ops_pool_adaptive_avg_pool2d);
        Kernel k = rec.kernel(name(), std::move(source), {{"WG", double(wg)}});
        dispatch_pool(rec, k, {x, out, Binding::uniform(p)}, p, wg);
    }
};

}  // namespace

const Op& adaptive_avg_pool2d_op() {
    static const AdaptiveAvgPool2d op;
    return op;
}

}  // namespace wgx::ops
