// aten._weight_int8pack_mm.default: [x [..., K] float32, weight int8 [N, K], scales float32
// [N], out [..., N]]: a linear layer with 8-bit weights and one symmetric scale per output
// channel, as ExecuTorch's Vulkan fusion passes write the VulkanQuantizer's 8-bit weight-only
// linear layers (the bias, if any, is an add after it). The weights stay int8 on the GPU
// (weight_int8pack_mm.wgsl).
#include <fmt/format.h>

#include <algorithm>

#include "ops/common/dims.h"
#include "ops/quant/weight_int8pack_mm.wgsl.h"
#include "ops/registry.h"

namespace wgx::ops {
namespace {

struct Int8mmParams {
    uint32_t M, N, K, pad;
};
static_assert(sizeof(Int8mmParams) == 16);

constexpr uint32_t kMaxRows = 4;  // MAX_ROWS of the kernel

class WeightInt8packMm final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten._weight_int8pack_mm.default"; }
    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(4, 4);
        const Tensor& x = args.tensor(0, "self");
        const Tensor& weight = args.tensor(1, "mat2");
        const Tensor& scales = args.tensor(2, "qScales");
        const Tensor& out = args.tensor(3, "out");
        expect_dtype(args, x, DType::f32, "self");
        expect_dtype(args, weight, DType::i8, "mat2");
        expect_dtype(args, scales, DType::f32, "qScales");
        expect_dtype(args, out, DType::f32, "out");
        if (x.rank() < 1 || weight.rank() != 2) {
            args.fail(
                fmt::format("self must have at least one dim and mat2 must be 2-D [N, K], "
                            "got {} and {}.",
                            shape_string(x.shape()), shape_string(weight.shape())));
        }
        const int64_t K = x.shape().back(), N = weight.shape()[0];
        if (weight.shape()[1] != K) {
            args.fail(fmt::format("mat2 {} must have self's {} features per row.",
                                  shape_string(weight.shape()), K));
        }
        if (K % 4 != 0) {
            args.fail(
                fmt::format("in_features must be a multiple of 4 (the kernel reads four "
                            "weights a word), got {}.",
                            K));
        }
        expect_shape(args, scales, {N}, "qScales");
        Shape want = x.shape();
        want.back() = N;
        expect_shape(args, out, want, "out");
        for (const auto& [t, what] : {std::pair{&x, "self"}, {&weight, "mat2"}, {&out, "out"}}) {
            expect_indexable(args, *t, what);
        }
        const int64_t M = x.numel() / std::max<int64_t>(K, 1);
        if (M == 0 || N == 0) return;
        const uint32_t wg = rec.workgroup_size(256);
        const uint32_t lanes = std::min<uint32_t>(32, wg);
        const uint32_t rows = uint32_t(std::min<int64_t>(M, kMaxRows));
        const uint32_t columns = wg / lanes;
        const Grid grid{uint32_t((N + columns - 1) / columns), uint32_t((M + rows - 1) / rows), 1};
        if (grid.x > rec.device().limits.max_workgroups_per_dimension ||
            grid.y > rec.device().limits.max_workgroups_per_dimension) {
            args.fail(fmt::format("{} x {} workgroups exceed the device's {} per dimension.",
                                  grid.x, grid.y,
                                  rec.device().limits.max_workgroups_per_dimension));
        }
        const Int8mmParams p{uint32_t(M), uint32_t(N), uint32_t(K), 0};
        Kernel k = rec.kernel(
            fmt::format("{}/rows{}", name(), rows), std::string(wgsl::ops_quant_weight_int8pack_mm),
            {{"WG", double(wg)}, {"LANES", double(lanes)}, {"ROWS", double(rows)}});
        rec.dispatch(k, {x, weight, scales, out, Binding::uniform(p)}, grid);
    }
};

}  // namespace

const Op& weight_int8pack_mm_op() {
    static const WeightInt8packMm op;
    return op;
}

}  // namespace wgx::ops
