// Helpers of the vision tests: the suite's device, seeded random photos, scratch folders.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <random>
#include <string>

#include "vision/image.h"
#include "wgx/wgx.h"

namespace wgx::vision::test {

// One device for the whole GPU suite (lavapipe device creation is slow).
Context& ctx();

// A photo of seeded random pixels (every value 0..255 possible).
inline Image random_photo(int w, int h, uint32_t seed) {
    Image img(w, h, 3);
    std::mt19937 gen(seed);
    std::uniform_int_distribution<int> byte(0, 255);
    for (auto& p : img.pixels) p = uint8_t(byte(gen));
    return img;
}

// A fresh empty folder under the system's temp folder, removed with the object.
class TempDir {
  public:
    explicit TempDir(const std::string& name) {
        path_ = std::filesystem::temp_directory_path() /
                (name + "-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
                 "-" + std::to_string(reinterpret_cast<uintptr_t>(this)));
        std::filesystem::remove_all(path_);
        std::filesystem::create_directories(path_);
    }
    ~TempDir() {
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
    }
    const std::filesystem::path& path() const { return path_; }

  private:
    std::filesystem::path path_;
};

}  // namespace wgx::vision::test
