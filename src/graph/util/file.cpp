#include "graph/util/file.h"

#include <cstdio>
#include <memory>
#include <system_error>

#include "graph/util/text.h"

namespace wgx::graph {

SharedBytes read_file_bytes(const std::filesystem::path& path) {
    const std::string name = path.string();
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) fail(name, "is a directory, expected a file");
    const uintmax_t size = std::filesystem::file_size(path, ec);
    if (ec) fail(name, cat("cannot read the file (", ec.message(), ")"));

    std::unique_ptr<FILE, int (*)(FILE*)> file(std::fopen(name.c_str(), "rb"), &std::fclose);
    if (!file) fail(name, "cannot open the file");
    std::vector<uint8_t> bytes(static_cast<size_t>(size));
    if (size > 0 && std::fread(bytes.data(), 1, bytes.size(), file.get()) != bytes.size()) {
        fail(name, cat("short read: expected ", size, " bytes"));
    }
    return share_bytes(std::move(bytes));
}

}  // namespace wgx::graph
