#include "vision/image.h"

#include <fmt/format.h>
#include <stb_image.h>
#include <stb_image_write.h>

#include <fstream>
#include <iterator>
#include <memory>

#include "wgx/error.h"

namespace wgx::vision {

Image::Image(int w, int h, int c) : width(w), height(h), channels(c) {
    if (w < 1 || h < 1 || w > kMaxImageSide || h > kMaxImageSide ||
        int64_t(w) * h > kMaxImagePixels || (c != 3 && c != 4)) {
        throw InvalidArgument(
            fmt::format("an image of {}x{} pixels with {} channels is not "
                        "supported (sides 1..{}, at most {} pixels, 3 or 4 "
                        "channels).",
                        w, h, c, kMaxImageSide, kMaxImagePixels));
    }
    pixels.assign(size_t(w) * h * c, 0);
}

Image decode_image(const std::vector<uint8_t>& bytes, const std::string& name) {
    if (bytes.empty()) throw InvalidArgument(fmt::format("{}: the file is empty.", name));
    if (bytes.size() > size_t(INT32_MAX)) {
        throw InvalidArgument(fmt::format("{}: the file is larger than 2 GiB.", name));
    }
    const int len = static_cast<int>(bytes.size());
    int w = 0, h = 0, c = 0;
    // Check the header's size before decoding, so a forged header cannot ask for a huge buffer.
    if (!stbi_info_from_memory(bytes.data(), len, &w, &h, &c)) {
        throw InvalidArgument(
            fmt::format("{}: not a readable image ({}).", name, stbi_failure_reason()));
    }
    if (w < 1 || h < 1 || w > kMaxImageSide || h > kMaxImageSide ||
        int64_t(w) * h > kMaxImagePixels) {
        throw InvalidArgument(
            fmt::format("{}: {}x{} pixels is larger than supported (sides up "
                        "to {}, at most {} pixels).",
                        name, w, h, kMaxImageSide, kMaxImagePixels));
    }
    std::unique_ptr<stbi_uc, void (*)(void*)> data(
        stbi_load_from_memory(bytes.data(), len, &w, &h, &c, 3), stbi_image_free);
    if (!data) {
        throw InvalidArgument(
            fmt::format("{}: cannot decode the image ({}).", name, stbi_failure_reason()));
    }
    Image img(w, h, 3);
    std::copy(data.get(), data.get() + img.pixels.size(), img.pixels.begin());
    return img;
}

Image load_image(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InvalidArgument(fmt::format("{}: cannot open the image file.", path.string()));
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                               std::istreambuf_iterator<char>());
    if (in.bad()) throw InvalidArgument(fmt::format("{}: read error.", path.string()));
    return decode_image(bytes, path.string());
}

void save_png(const std::filesystem::path& path, const Image& image) {
    if (image.channels != 3 && image.channels != 4) {
        throw InvalidArgument(fmt::format("{}: PNG output needs 3 or 4 channels, got {}.",
                                          path.string(), image.channels));
    }
    if (image.pixels.size() != size_t(image.width) * image.height * image.channels ||
        image.width < 1 || image.height < 1) {
        throw InvalidArgument(fmt::format("{}: the image's pixel buffer does not match {}x{}x{}.",
                                          path.string(), image.width, image.height,
                                          image.channels));
    }
    if (!stbi_write_png(path.string().c_str(), image.width, image.height, image.channels,
                        image.pixels.data(), image.width * image.channels)) {
        throw InvalidArgument(fmt::format("{}: cannot write the PNG file.", path.string()));
    }
}

Image to_rgb(const Image& image) {
    if (image.channels == 3) return image;
    Image out(image.width, image.height, 3);
    const size_t n = size_t(image.width) * image.height;
    for (size_t i = 0; i < n; ++i)
        for (int c = 0; c < 3; ++c) out.pixels[i * 3 + c] = image.pixels[i * 4 + c];
    return out;
}

}  // namespace wgx::vision
