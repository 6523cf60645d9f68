#include "vision/mask_composite_op.h"

#include <fmt/format.h>

#include <cstddef>

#include "vision/geometry.h"
#include "vision/image.h"
#include "vision/mask_composite.wgsl.h"
#include "vision/sample_map.wgsl.h"

namespace wgx::vision {

namespace {

// Mirrors `Params` in mask_composite.wgsl.
struct Params {
    uint32_t photo_w, photo_h, map_w, map_h;
    uint32_t channel, logit, pad0, pad1;
    float ax, bx, ay, by;
    float colour[4];  // 0..255, [3] = tint
    float background, pad2, pad3, pad4;
};
static_assert(sizeof(Params) == 80);
static_assert(offsetof(Params, ax) == 32);
static_assert(offsetof(Params, colour) == 48);
static_assert(offsetof(Params, background) == 64);

}  // namespace

void MaskCompositeOp::record(Recorder& rec, const Args& args) const {
    args.expect_count(3, 3);
    const Tensor& photo = args.tensor(0, "photo");
    const Tensor& map = args.tensor(1, "map");
    const Tensor& out = args.tensor(2, "out");
    if (photo.dtype() != DType::u8 || photo.rank() != 3 || photo.shape()[2] != 3) {
        args.fail(fmt::format("photo must be uint8 [height, width, 3], got {} {}.",
                              dtype_name(photo.dtype()), shape_string(photo.shape())));
    }
    const int64_t h = photo.shape()[0], w = photo.shape()[1];
    if (h > kMaxImageSide || w > kMaxImageSide) {
        args.fail(
            fmt::format("photo is {}x{}; sides up to {} are supported.", w, h, kMaxImageSide));
    }
    if (map.dtype() != DType::f32 || map.rank() != 4 || map.shape()[0] != 1) {
        args.fail(fmt::format("map must be float32 [1, channels, height, width], got {} {}.",
                              dtype_name(map.dtype()), shape_string(map.shape())));
    }
    if (decode_.channel >= map.shape()[1]) {
        args.fail(fmt::format("channel {} is outside the map's {} channels.", decode_.channel,
                              map.shape()[1]));
    }
    const Shape want{h, w, 4};
    if (out.dtype() != DType::u8 || out.shape() != want) {
        args.fail(fmt::format("out must be uint8 {}, got {} {}.", shape_string(want),
                              dtype_name(out.dtype()), shape_string(out.shape())));
    }
    const int64_t mh = map.shape()[2], mw = map.shape()[3];
    const MapSampling s = compute_geometry(input_, int(w), int(h)).photo_to_map(int(mw), int(mh));
    Params p{};
    p.photo_w = uint32_t(w);
    p.photo_h = uint32_t(h);
    p.map_w = uint32_t(mw);
    p.map_h = uint32_t(mh);
    p.channel = uint32_t(decode_.channel);
    p.logit = decode_.logit ? 1u : 0u;
    p.ax = float(s.ax);
    p.bx = float(s.bx);
    p.ay = float(s.ay);
    p.by = float(s.by);
    for (int c = 0; c < 3; ++c) p.colour[c] = style_.colour[c];
    p.colour[3] = style_.tint;
    p.background = style_.background;
    const uint32_t wg = rec.workgroup_size(128);
    Kernel k = rec.kernel(
        name(), std::string(wgsl::vision_mask_composite) + std::string(wgsl::vision_sample_map),
        {{"WG", double(wg)}});
    rec.dispatch(k, {photo, map, out, Binding::uniform(p)}, rec.grid_1d(uint64_t(w) * h, wg));
}

}  // namespace wgx::vision
