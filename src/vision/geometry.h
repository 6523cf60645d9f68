// Where a photo lands in a model's input tensor (stretch or letterbox, docs/MODEL_CARDS.md) and
// the way back: boxes from input pixels to photo pixels, and photo pixels to an output map.
#pragma once

#include "vision/model_card.h"

namespace wgx::vision {

// An axis-aligned box, corners in continuous pixel coordinates (0 = left edge of pixel 0).
struct Box {
    double x1 = 0, y1 = 0, x2 = 0, y2 = 0;
    double width() const { return x2 - x1; }
    double height() const { return y2 - y1; }
    double area() const { return width() > 0 && height() > 0 ? width() * height() : 0.0; }
};

// Intersection over union; 0 when either box is empty.
double iou(const Box& a, const Box& b);

// Affine map from a photo pixel index to a map's sampling position:
//   map_x = (x + 0.5) * ax + bx - 0.5   (half-pixel centres on both sides), same for y.
struct MapSampling {
    double ax = 1, bx = 0, ay = 1, by = 0;
};

struct InputGeometry {
    int photo_width = 0, photo_height = 0;
    int input_width = 0, input_height = 0;
    bool letterbox = false;
    // The part of the input holding the resized photo: all of it for stretch; for letterbox
    // round(w * s) x round(h * s) with s = min(H / h, W / w), centred (offset rounded down).
    int placed_width = 0, placed_height = 0;
    int offset_x = 0, offset_y = 0;

    // A box in input-tensor pixels -> photo pixels, clamped to the photo.
    Box to_photo(const Box& input_box) const;
    // Photo pixel -> position in a map of map_width x map_height covering the whole input.
    MapSampling photo_to_map(int map_width, int map_height) const;
};

// Throws InvalidArgument for a photo with a side below 1.
InputGeometry compute_geometry(const InputSpec& input, int photo_width, int photo_height);

}  // namespace wgx::vision
