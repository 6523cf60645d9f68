// 8-bit images in memory and on disk (stb_image / stb_image_write; see CMakeLists.txt for why).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace wgx::vision {

// Interleaved 8-bit pixels, row-major, top row first: RGB (3 channels) or RGBA (4).
struct Image {
    int width = 0;
    int height = 0;
    int channels = 3;
    std::vector<uint8_t> pixels;

    Image() = default;
    Image(int w, int h, int c);  // zero-filled; throws InvalidArgument on a bad size
    uint8_t* at(int x, int y) { return pixels.data() + (size_t(y) * width + x) * channels; }
    const uint8_t* at(int x, int y) const {
        return pixels.data() + (size_t(y) * width + x) * channels;
    }
};

// The largest side and pixel count the demos accept: far beyond any camera frame, small enough
// that a hostile header cannot make the decoder allocate gigabytes.
inline constexpr int kMaxImageSide = 16384;
inline constexpr int64_t kMaxImagePixels = int64_t(1) << 27;  // 134 MP

// Reads JPEG, PNG, BMP, TGA, GIF (first frame) or PNM as RGB (grey and alpha are converted).
// Throws InvalidArgument naming the file and the problem (missing, not an image, truncated,
// too large).
Image load_image(const std::filesystem::path& path);
Image decode_image(const std::vector<uint8_t>& bytes, const std::string& name);

// Writes a PNG (3 or 4 channels). Throws InvalidArgument naming the file when it cannot.
void save_png(const std::filesystem::path& path, const Image& image);

// Drops the alpha channel of an RGBA image (RGB images are returned as they are).
Image to_rgb(const Image& image);

}  // namespace wgx::vision
