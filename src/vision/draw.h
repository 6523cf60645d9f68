// Drawing detections onto a photo on the CPU: box outlines and "label 0.91" tags, with the
// small vector font of stb_easy_font.h (Debian libstb-dev).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "vision/detection.h"
#include "vision/image.h"
#include "vision/model_card.h"

namespace wgx::vision {

using Rgb = std::array<uint8_t, 3>;

// A distinct, stable colour per class.
Rgb class_colour(int cls);

// Fills the pixels of [x0, x1) x [y0, y1), clipped to the image.
void fill_rect(Image& image, int x0, int y0, int x1, int y1, Rgb colour);
// A box outline `thickness` pixels wide, drawn inside the box's edges and clipped.
void draw_box(Image& image, const Box& box, Rgb colour, int thickness);
// Text with its top-left corner at (x, y), each font unit `scale` pixels. Returns the width and
// height it covers, in pixels. ASCII only; other bytes are drawn as '?'.
std::array<int, 2> text_size(const std::string& text, int scale);
void draw_text(Image& image, int x, int y, const std::string& text, Rgb colour, int scale);

// Every detection's box and a tag "<label> <score>" on a filled strip above it (inside its top
// edge or below it when that spot is taken by a better detection's tag or outside the photo).
// Line width and text size grow with the photo.
void draw_detections(Image& image, const std::vector<Detection>& detections, const ModelCard& card);

}  // namespace wgx::vision
