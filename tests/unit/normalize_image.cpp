#include "normalize_image.h"

#include <fmt/format.h>

#include "unit/normalize_image.wgsl.h"

namespace example {

namespace {
struct Params {
    uint32_t height, width, pad0, pad1;
    float mean[4];
    float inv_std[4];
};
static_assert(sizeof(Params) == 48);
}  // namespace

void NormalizeImage::record(wgx::Recorder& rec, const wgx::Args& args) const {
    args.expect_count(2, 2);
    const wgx::Tensor& image = args.tensor(0, "image");
    const wgx::Tensor& out = args.tensor(1, "out");
    if (image.dtype() != wgx::DType::u8 || image.rank() != 3 || image.shape()[2] != 3) {
        args.fail(fmt::format("image must be uint8 [H, W, 3], got {} {}.",
                              wgx::dtype_name(image.dtype()), wgx::shape_string(image.shape())));
    }
    int64_t h = image.shape()[0], w = image.shape()[1];
    if (out.dtype() != wgx::DType::f32 || out.shape() != wgx::Shape{1, 3, h, w}) {
        args.fail(fmt::format("out must be float32 [1, 3, {}, {}], got {} {}.", h, w,
                              wgx::dtype_name(out.dtype()), wgx::shape_string(out.shape())));
    }
    Params p{static_cast<uint32_t>(h), static_cast<uint32_t>(w), 0, 0, {}, {}};
    for (int c = 0; c < 3; ++c) {
        p.mean[c] = mean_[c];
        p.inv_std[c] = 1.0f / std_[c];
    }
    uint32_t wg = rec.workgroup_size(64);
    wgx::Kernel k =
        rec.kernel(name(), std::string(wgx::wgsl::unit_normalize_image), {{"WG", double(wg)}});
    rec.dispatch(k, {image, out, wgx::Binding::uniform(p)}, rec.grid_1d(h * w, wg));
}

}  // namespace example
