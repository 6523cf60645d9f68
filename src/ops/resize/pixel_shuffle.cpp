// aten.pixel_shuffle.default: [..., C * r * r, H, W] -> [..., C, H * r, W * r] (float32,
// float16, int32, int64 stored as int32).
// Args: [self, upscale_factor, out].
#include <fmt/format.h>

#include <limits>

#include "ops/common/float16_support.h"
#include "ops/registry.h"
#include "ops/resize/pixel_shuffle.wgsl.h"

namespace wgx::ops {
namespace {

struct PixelShuffleParams {
    uint32_t total, C_out, H_out, W_out;
    uint32_t r, H_in, W_in, pad;
};
static_assert(sizeof(PixelShuffleParams) == 32);
static_assert(offsetof(PixelShuffleParams, r) == 16);

class PixelShuffle final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten.pixel_shuffle.default"; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(3, 3);
        const Tensor& x = args.tensor(0, "self");
        const Tensor& out = args.tensor(2, "out");
        DType storage = storage_dtype(x.dtype());
        if (storage != DType::f32 && storage != DType::f16 && storage != DType::i32) {
            args.fail(fmt::format("self must be float32, float16 or int32/int64, got {}.",
                                  dtype_name(x.dtype())));
        }
        expect_float16_support(rec, args, x.dtype());
        if (out.dtype() != x.dtype()) {
            args.fail(fmt::format("out must have the dtype of self ({}), got {}.",
                                  dtype_name(x.dtype()), dtype_name(out.dtype())));
        }
        if (x.rank() < 3) {
            args.fail(fmt::format("self must be at least 3-D [..., C, H, W], got shape {}.",
                                  shape_string(x.shape())));
        }
        int64_t r = args.integer(1, "upscale_factor");
        if (r < 1) args.fail(fmt::format("upscale_factor must be >= 1, got {}.", r));
        const int rank = x.rank();
        int64_t C = x.shape()[rank - 3], H = x.shape()[rank - 2], W = x.shape()[rank - 1];
        if (C % (r * r) != 0) {
            args.fail(fmt::format("channels of self {} must be divisible by upscale_factor^2 = {}.",
                                  shape_string(x.shape()), r * r));
        }
        Shape expected = x.shape();
        expected[rank - 3] = C / (r * r);
        expected[rank - 2] = H * r;
        expected[rank - 1] = W * r;
        if (out.shape() != expected) {
            args.fail(fmt::format("out has shape {}, expected {}.", shape_string(out.shape()),
                                  shape_string(expected)));
        }
        if (out.numel() > std::numeric_limits<int32_t>::max()) {
            args.fail("tensors beyond 2^31 elements are not supported.");
        }
        PixelShuffleParams p{
            uint32_t(out.numel()), uint32_t(C / (r * r)), uint32_t(H * r), uint32_t(W * r),
            uint32_t(r),           uint32_t(H),           uint32_t(W),     0};
        uint32_t wg = rec.workgroup_size(128);
        Kernel k = rec.kernel(fmt::format("{}/{}", name(), wgsl_scalar(x.dtype())),
                              wgsl_alias(x.dtype()) + std::string(wgsl::ops_resize_pixel_shuffle),
                              {{"WG", double(wg)}});
        rec.dispatch(k, {x, out, Binding::uniform(p)}, rec.grid_1d(p.total, wg));
    }
};

}  // namespace

const Op& pixel_shuffle_op() {
    static const PixelShuffle op;
    return op;
}

}  // namespace wgx::ops
