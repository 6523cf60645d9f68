// Reading whole files into shared byte buffers, with LoadErrors that name the path.
#pragma once

#include <filesystem>

#include "program/util/bytes.h"

namespace wgx::program {

SharedBytes read_file_bytes(const std::filesystem::path& path);

}  // namespace wgx::program
