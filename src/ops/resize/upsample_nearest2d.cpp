// aten.upsample_nearest2d.vec: nearest-neighbour resize of [N, C, H, W] (float32, float16 or
// int32/int64).
// Args: [input, output_size?, scale_factors?, out]; exactly one of the two is given, and the
// output size is the out tensor's, checked against it.
#include <fmt/format.h>

#include "ops/common/float16_support.h"
#include "ops/registry.h"
#include "ops/resize/resize.h"
#include "ops/resize/resize_common.wgsl.h"
#include "ops/resize/upsample_nearest2d.wgsl.h"

namespace wgx::ops {
namespace {

class UpsampleNearest2d final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten.upsample_nearest2d.vec"; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(4, 4);
        const Tensor& x = args.tensor(0, "input");
        const Tensor& out = args.tensor(3, "out");
        DType storage = storage_dtype(x.dtype());
        if (storage != DType::f32 && storage != DType::f16 && storage != DType::i32) {
            args.fail(fmt::format("input must be float32, float16 or int32/int64, got {}.",
                                  dtype_name(x.dtype())));
        }
        expect_float16_support(rec, args, x.dtype());
        ResizeParams p{};
        auto [sh, sw] = check_resize(args, x, out, 1, 2, p);
        p.scale_h = resize_scale(sh, p.H_in, p.H_out);
        p.scale_w = resize_scale(sw, p.W_in, p.W_out);
        uint32_t wg = rec.workgroup_size(128);
        std::string source = wgsl_alias(x.dtype()) + std::string(wgsl::ops_resize_resize_common) +
                             std::string(wgsl::ops_resize_upsample_nearest2d);
        Kernel k = rec.kernel(fmt::format("{}/{}", name(), wgsl_scalar(x.dtype())),
                              std::move(source), {{"WG", double(wg)}});
        dispatch_resize(rec, k, x, out, p, wg);
    }
};

}  // namespace

const Op& upsample_nearest2d_op() {
    static const UpsampleNearest2d op;
    return op;
}

}  // namespace wgx::ops
