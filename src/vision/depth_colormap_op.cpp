#include "vision/depth_colormap_op.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstddef>

#include "vision/depth_colormap.wgsl.h"
#include "vision/geometry.h"
#include "vision/image.h"
#include "vision/sample_map.wgsl.h"

namespace wgx::vision {

namespace {

// Our ramp: evenly spaced stops, far (dark violet) to near (pale yellow), chosen to rise in
// lightness throughout so that nearness reads in greyscale too.
constexpr int kStops = 5;
constexpr float kRamp[kStops][3] = {
    {14, 8, 38}, {88, 24, 112}, {182, 54, 96}, {243, 128, 44}, {252, 238, 124}};

// Mirrors `Params` in depth_colormap.wgsl.
struct Params {
    uint32_t photo_w, photo_h, map_w, map_h;
    uint32_t invert, pad0, pad1, pad2;
    float ax, bx, ay, by;
    float stops[kStops][4];
};
static_assert(sizeof(Params) == 48 + 16 * kStops);
static_assert(offsetof(Params, ax) == 32);
static_assert(offsetof(Params, stops) == 48);

}  // namespace

std::array<double, 3> DepthColormapOp::ramp(double t) {
    t = std::clamp(t, 0.0, 1.0) * (kStops - 1);
    int i = std::min(int(t), kStops - 2);
    double f = t - i;
    std::array<double, 3> c{};
    for (int k = 0; k < 3; ++k) c[k] = kRamp[i][k] + (kRamp[i + 1][k] - kRamp[i][k]) * f;
    return c;
}

void DepthColormapOp::record(Recorder& rec, const Args& args) const {
    args.expect_count(3, 3);
    const Tensor& map = args.tensor(0, "map");
    const Tensor& range = args.tensor(1, "range");
    const Tensor& out = args.tensor(2, "out");
    if (map.dtype() != DType::f32 || map.rank() != 4 || map.shape()[0] != 1 ||
        map.shape()[1] != 1) {
        args.fail(fmt::format("map must be float32 [1, 1, height, width], got {} {}.",
                              dtype_name(map.dtype()), shape_string(map.shape())));
    }
    if (range.dtype() != DType::f32 || range.shape() != Shape{2}) {
        args.fail(fmt::format("range must be float32 [2], got {} {}.", dtype_name(range.dtype()),
                              shape_string(range.shape())));
    }
    if (out.dtype() != DType::u8 || out.rank() != 3 || out.shape()[2] != 4) {
        args.fail(fmt::format("out must be uint8 [height, width, 4], got {} {}.",
                              dtype_name(out.dtype()), shape_string(out.shape())));
    }
    const int64_t h = out.shape()[0], w = out.shape()[1];
    if (h > kMaxImageSide || w > kMaxImageSide) {
        args.fail(fmt::format("out is {}x{}; sides up to {} are supported.", w, h, kMaxImageSide));
    }
    const int64_t mh = map.shape()[2], mw = map.shape()[3];
    const MapSampling s = compute_geometry(input_, int(w), int(h)).photo_to_map(int(mw), int(mh));
    Params p{};
    p.photo_w = uint32_t(w);
    p.photo_h = uint32_t(h);
    p.map_w = uint32_t(mw);
    p.map_h = uint32_t(mh);
    p.invert = larger_is_far_ ? 1u : 0u;
    p.ax = float(s.ax);
    p.bx = float(s.bx);
    p.ay = float(s.ay);
    p.by = float(s.by);
    for (int i = 0; i < kStops; ++i)
        for (int c = 0; c < 3; ++c) p.stops[i][c] = kRamp[i][c];
    const uint32_t wg = rec.workgroup_size(128);
    Kernel k = rec.kernel(
        name(), std::string(wgsl::vision_depth_colormap) + std::string(wgsl::vision_sample_map),
        {{"WG", double(wg)}});
    rec.dispatch(k, {map, range, out, Binding::uniform(p)}, rec.grid_1d(uint64_t(w) * h, wg));
}

}  // namespace wgx::vision
