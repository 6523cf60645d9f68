// aten.upsample_bilinear2d.vec: bilinear resize of [N, C, H, W] float32 or float16 (interpolated
// in f32), both align_corners modes, with PyTorch's source-index rules (1 / scale_factor as the
// ratio when scale factors are given).
// Args: [input, output_size?, align_corners, scale_factors?, out]; exactly one of output_size
// and scale_factors is given; the output size is the out tensor's, checked against it.
#include <fmt/format.h>

#include "ops/common/float16_support.h"
#include "ops/registry.h"
#include "ops/resize/resize.h"
#include "ops/resize/resize_common.wgsl.h"
#include "ops/resize/upsample_bilinear2d.wgsl.h"

namespace wgx::ops {
namespace {

// PyTorch's area_pixel_compute_scale<float>.
float linear_scale(bool align_corners, double scale_factor, int64_t in, int64_t out) {
    if (align_corners) {
        return out > 1 ? static_cast<float>(in - 1) / static_cast<float>(out - 1) : 0.f;
    }
    return resize_scale(scale_factor, in, out);
}

class UpsampleBilinear2d final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten.upsample_bilinear2d.vec"; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(5, 5);
        const Tensor& x = args.tensor(0, "input");
        const Tensor& out = args.tensor(4, "out");
        if (storage_dtype(x.dtype()) != DType::f32 && storage_dtype(x.dtype()) != DType::f16) {
            args.fail(
                fmt::format("input must be float32 or float16, got {}.", dtype_name(x.dtype())));
        }
        expect_float16_support(rec, args, x.dtype());
        bool align_corners = args.boolean(2, "align_corners");
        ResizeParams p{};
        auto [sh, sw] = check_resize(args, x, out, 1, 3, p);
        p.scale_h = linear_scale(align_corners, sh, p.H_in, p.H_out);
        p.scale_w = linear_scale(align_corners, sw, p.W_in, p.W_out);
        p.align_corners = align_corners ? 1 : 0;
        uint32_t wg = rec.workgroup_size(128);
        std::string source = wgsl_alias(x.dtype()) + std::string(wgsl::ops_resize_resize_common) +
                             std::string(wgsl::ops_resize_upsample_bilinear2d);
        Kernel k = rec.kernel(name(), std::move(source), {{"WG", double(wg)}});
        dispatch_resize(rec, k, x, out, p, wg);
    }
};

}  // namespace

const Op& upsample_bilinear2d_op() {
    static const UpsampleBilinear2d op;
    return op;
}

}  // namespace wgx::ops
