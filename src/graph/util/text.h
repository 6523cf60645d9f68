// Message building: GCC 12 has no std::format, and load errors are assembled from many pieces
// (file, offsets, ids, expected vs actual), so one variadic helper keeps call sites short.
#pragma once

#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "wgx/error.h"

namespace wgx::graph {

template <typename... Parts>
std::string cat(Parts&&... parts) {
    std::ostringstream out;
    (out << ... << std::forward<Parts>(parts));
    return out.str();
}

// "[a, b, c]" for messages.
template <typename T>
std::string list_text(const std::vector<T>& items, size_t max_items = 16) {
    std::ostringstream out;
    out << '[';
    for (size_t i = 0; i < items.size() && i < max_items; ++i) out << (i ? ", " : "") << items[i];
    if (items.size() > max_items) out << ", ... (" << items.size() << " in all)";
    out << ']';
    return out.str();
}

// Every file problem is one LoadError whose message starts with the file's name.
[[noreturn]] inline void fail(std::string_view file, const std::string& what) {
    throw LoadError(cat(file, ": ", what));
}

}  // namespace wgx::graph
