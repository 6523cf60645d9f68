#include "vision/draw.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#include <stb_easy_font.h>
#pragma GCC diagnostic pop

namespace wgx::vision {

namespace {

// stb_easy_font emits one quad (4 vertices of x, y, z floats and 4 colour bytes) per stroke.
struct FontVertex {
    float x, y, z;
    unsigned char rgba[4];
};
static_assert(sizeof(FontVertex) == 16);

std::string printable(const std::string& text) {
    std::string s = text;
    for (char& c : s)
        if (static_cast<unsigned char>(c) < 32 || static_cast<unsigned char>(c) > 126) c = '?';
    return s;
}

}  // namespace

Rgb class_colour(int cls) {
    // Hues spaced by the golden angle, full saturation, bright enough for white-on-colour text
    // to stay readable when drawn dark; the same class always gets the same colour.
    const double hue = std::fmod(double(cls) * 137.508, 360.0) / 60.0;
    const double x = 1.0 - std::abs(std::fmod(hue, 2.0) - 1.0);
    double r = 0, g = 0, b = 0;
    switch (int(hue)) {
        case 0: r = 1, g = x; break;
        case 1: r = x, g = 1; break;
        case 2: g = 1, b = x; break;
        case 3: g = x, b = 1; break;
        case 4: r = x, b = 1; break;
        default: r = 1, b = x; break;
    }
    auto byte = [](double v) { return uint8_t(std::lround(40 + v * 215)); };
    return Rgb{byte(r), byte(g), byte(b)};
}

void fill_rect(Image& image, int x0, int y0, int x1, int y1, Rgb colour) {
    x0 = std::max(x0, 0);
    y0 = std::max(y0, 0);
    x1 = std::min(x1, image.width);
    y1 = std::min(y1, image.height);
    for (int y = y0; y < y1; ++y)
        for (int x = x0; x < x1; ++x) {
            uint8_t* p = image.at(x, y);
            p[0] = colour[0];
            p[1] = colour[1];
            p[2] = colour[2];
            if (image.channels == 4) p[3] = 255;
        }
}

void draw_box(Image& image, const Box& box, Rgb colour, int thickness) {
    const int x0 = int(std::floor(box.x1)), y0 = int(std::floor(box.y1));
    const int x1 = int(std::ceil(box.x2)), y1 = int(std::ceil(box.y2));
    if (x1 <= x0 || y1 <= y0) return;
    const int t = std::max(1, thickness);
    fill_rect(image, x0, y0, x1, std::min(y0 + t, y1), colour);  // top
    fill_rect(image, x0, std::max(y1 - t, y0), x1, y1, colour);  // bottom
    fill_rect(image, x0, y0, std::min(x0 + t, x1), y1, colour);  // left
    fill_rect(image, std::max(x1 - t, x0), y0, x1, y1, colour);  // right
}

std::array<int, 2> text_size(const std::string& text, int scale) {
    std::string s = printable(text);
    // stb_easy_font_height counts the descender space below the baseline; the tag needs it.
    return {stb_easy_font_width(s.data()) * scale, stb_easy_font_height(s.data()) * scale};
}

void draw_text(Image& image, int x, int y, const std::string& text, Rgb colour, int scale) {
    std::string s = printable(text);
    std::vector<FontVertex> quads(s.size() * 64 + 64);  // ~270 bytes per character, per stb
    const int n = stb_easy_font_print(0, 0, s.data(), nullptr, quads.data(),
                                      int(quads.size() * sizeof(FontVertex)));
    for (int q = 0; q < n; ++q) {
        const FontVertex* v = &quads[size_t(q) * 4];
        float qx0 = v[0].x, qy0 = v[0].y, qx1 = v[0].x, qy1 = v[0].y;
        for (int i = 1; i < 4; ++i) {
            qx0 = std::min(qx0, v[i].x);
            qy0 = std::min(qy0, v[i].y);
            qx1 = std::max(qx1, v[i].x);
            qy1 = std::max(qy1, v[i].y);
        }
        fill_rect(image, x + int(std::lround(qx0 * scale)), y + int(std::lround(qy0 * scale)),
                  x + int(std::lround(qx1 * scale)), y + int(std::lround(qy1 * scale)), colour);
    }
}

namespace {

struct Rect {
    int x0, y0, x1, y1;
    bool overlaps(const Rect& o) const { return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1; }
};

}  // namespace

void draw_detections(Image& image, const std::vector<Detection>& detections,
                     const ModelCard& card) {
    const int side = std::min(image.width, image.height);
    const int thickness = std::max(2, side / 200);
    const int scale = std::max(1, int(std::lround(side / 260.0)));
    const int pad = scale * 2;
    // Place the tags best score first, each at the first spot that covers no tag placed before:
    // above the box, inside its top edge, below its bottom edge (else above, overlapping).
    std::vector<Rect> tags(detections.size());
    std::vector<std::string> texts(detections.size());
    std::vector<Rect> placed;
    for (size_t i = 0; i < detections.size(); ++i) {
        const Detection& d = detections[i];
        texts[i] = fmt::format("{} {:.2f}", card.label(d.cls), d.score);
        const auto [tw, th] = text_size(texts[i], scale);
        const int w = tw + 2 * pad, h = th + pad;
        const int x = std::clamp(int(std::floor(d.box.x1)), 0, std::max(0, image.width - w));
        const int top = int(std::floor(d.box.y1)), bottom = int(std::ceil(d.box.y2));
        std::vector<int> spots;
        if (top - h >= 0) spots.push_back(top - h);
        spots.push_back(std::clamp(top + thickness, 0, std::max(0, image.height - h)));
        if (bottom + h <= image.height) spots.push_back(bottom);
        Rect chosen{x, spots.front(), x + w, spots.front() + h};
        for (int y : spots) {
            Rect r{x, y, x + w, y + h};
            if (std::none_of(placed.begin(), placed.end(),
                             [&](const Rect& p) { return p.overlaps(r); })) {
                chosen = r;
                break;
            }
        }
        tags[i] = chosen;
        placed.push_back(chosen);
    }
    // Lowest score first, so the most confident box and tag end up on top.
    for (size_t k = detections.size(); k-- > 0;) {
        draw_box(image, detections[k].box, class_colour(detections[k].cls), thickness);
    }
    for (size_t k = detections.size(); k-- > 0;) {
        const Rgb colour = class_colour(detections[k].cls);
        const Rect& t = tags[k];
        fill_rect(image, t.x0, t.y0, t.x1, t.y1, colour);
        const bool light = 0.299 * colour[0] + 0.587 * colour[1] + 0.114 * colour[2] > 140;
        draw_text(image, t.x0 + pad, t.y0 + pad, texts[k],
                  light ? Rgb{0, 0, 0} : Rgb{255, 255, 255}, scale);
    }
}

}  // namespace wgx::vision
