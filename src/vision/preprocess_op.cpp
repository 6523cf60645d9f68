#include "vision/preprocess_op.h"

#include <fmt/format.h>

#include <cstddef>

#include "vision/geometry.h"
#include "vision/image.h"
#include "vision/preprocess.wgsl.h"

namespace wgx::vision {

namespace {

// Mirrors `Params` in preprocess.wgsl.
struct Params {
    uint32_t in_w, in_h, out_w, out_h;
    uint32_t placed_w, placed_h, off_x, off_y;
    float scale, pad0, pad1, pad2;
    float mean[4];
    float std[4];
    float fill[4];  // the letterbox fill, already normalised
};
static_assert(sizeof(Params) == 96);
static_assert(offsetof(Params, scale) == 32);
static_assert(offsetof(Params, mean) == 48);
static_assert(offsetof(Params, std) == 64);
static_assert(offsetof(Params, fill) == 80);

}  // namespace

void PreprocessOp::record(Recorder& rec, const Args& args) const {
    args.expect_count(2, 2);
    const Tensor& image = args.tensor(0, "image");
    const Tensor& out = args.tensor(1, "out");
    if (image.dtype() != DType::u8 || image.rank() != 3 || image.shape()[2] != 3) {
        args.fail(fmt::format("image must be uint8 [height, width, 3], got {} {}.",
                              dtype_name(image.dtype()), shape_string(image.shape())));
    }
    const int64_t h = image.shape()[0], w = image.shape()[1];
    if (h > kMaxImageSide || w > kMaxImageSide) {
        args.fail(
            fmt::format("image is {}x{}; sides up to {} are supported.", w, h, kMaxImageSide));
    }
    const Shape want{1, 3, spec_.height, spec_.width};
    if (out.dtype() != DType::f32 || out.shape() != want) {
        args.fail(fmt::format("out must be float32 {}, got {} {}.", shape_string(want),
                              dtype_name(out.dtype()), shape_string(out.shape())));
    }
    const InputGeometry g = compute_geometry(spec_, int(w), int(h));
    Params p{};
    p.in_w = uint32_t(w);
    p.in_h = uint32_t(h);
    p.out_w = uint32_t(spec_.width);
    p.out_h = uint32_t(spec_.height);
    p.placed_w = uint32_t(g.placed_width);
    p.placed_h = uint32_t(g.placed_height);
    p.off_x = uint32_t(g.offset_x);
    p.off_y = uint32_t(g.offset_y);
    p.scale = float(spec_.scale);
    for (int c = 0; c < 3; ++c) {
        p.mean[c] = float(spec_.mean[c]);
        p.std[c] = float(spec_.std[c]);
        p.fill[c] = float((spec_.letterbox_fill[c] * spec_.scale - spec_.mean[c]) / spec_.std[c]);
    }
    const uint32_t wg = rec.workgroup_size(128);
    Kernel k = rec.kernel(name(), std::string(wgsl::vision_preprocess), {{"WG", double(wg)}});
    rec.dispatch(k, {image, out, Binding::uniform(p)},
                 rec.grid_1d(uint64_t(spec_.width) * spec_.height, wg));
}

}  // namespace wgx::vision
