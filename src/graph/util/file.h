// Reading whole files into shared byte buffers, with LoadErrors that name the path.
#pragma once

#include <filesystem>

#include "graph/util/bytes.h"

namespace wgx::graph {

SharedBytes read_file_bytes(const std::filesystem::path& path);

}  // namespace wgx::graph
