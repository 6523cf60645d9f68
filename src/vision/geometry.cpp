#include "vision/geometry.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "wgx/error.h"

namespace wgx::vision {

double iou(const Box& a, const Box& b) {
    double iw = std::min(a.x2, b.x2) - std::max(a.x1, b.x1);
    double ih = std::min(a.y2, b.y2) - std::max(a.y1, b.y1);
    if (iw <= 0 || ih <= 0) return 0.0;
    double inter = iw * ih;
    double uni = a.area() + b.area() - inter;
    return uni > 0 ? inter / uni : 0.0;
}

InputGeometry compute_geometry(const InputSpec& input, int photo_width, int photo_height) {
    if (photo_width < 1 || photo_height < 1) {
        throw InvalidArgument(
            fmt::format("a photo of {}x{} pixels cannot be resized.", photo_width, photo_height));
    }
    InputGeometry g;
    g.photo_width = photo_width;
    g.photo_height = photo_height;
    g.input_width = input.width;
    g.input_height = input.height;
    g.letterbox = input.resize == ResizeMode::letterbox;
    if (!g.letterbox) {
        g.placed_width = input.width;
        g.placed_height = input.height;
        return g;
    }
    // In double and in this order, as the Python reference computes it; nearbyint rounds half to
    // even like Python's round().
    double s = std::min(double(input.height) / photo_height, double(input.width) / photo_width);
    g.placed_width = std::clamp(int(std::nearbyint(photo_width * s)), 1, input.width);
    g.placed_height = std::clamp(int(std::nearbyint(photo_height * s)), 1, input.height);
    g.offset_x = (input.width - g.placed_width) / 2;
    g.offset_y = (input.height - g.placed_height) / 2;
    return g;
}

Box InputGeometry::to_photo(const Box& b) const {
    // The photo was resized to placed_width x placed_height, so this is the exact inverse of the
    // resize that was done (not of the unrounded scale).
    const double sx = double(photo_width) / placed_width;
    const double sy = double(photo_height) / placed_height;
    auto cx = [&](double x) { return std::clamp((x - offset_x) * sx, 0.0, double(photo_width)); };
    auto cy = [&](double y) { return std::clamp((y - offset_y) * sy, 0.0, double(photo_height)); };
    return Box{cx(b.x1), cy(b.y1), cx(b.x2), cy(b.y2)};
}

MapSampling InputGeometry::photo_to_map(int map_width, int map_height) const {
    const double mx = double(map_width) / input_width;  // map pixels per input pixel
    const double my = double(map_height) / input_height;
    MapSampling m;
    m.ax = double(placed_width) / photo_width * mx;
    m.bx = offset_x * mx;
    m.ay = double(placed_height) / photo_height * my;
    m.by = offset_y * my;
    return m;
}

}  // namespace wgx::vision
