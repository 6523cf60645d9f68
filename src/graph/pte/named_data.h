// Named data: key -> bytes, from a .pte's `named_data` or a .ptd file. Keys are usually the
// SHA-256 hex digest of the bytes (Vulkan constants) or a tensor's fully qualified name.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace wgx::graph {

struct NamedDataMap {
    std::string file;  // where the entries come from, for messages
    std::map<std::string, std::span<const uint8_t>, std::less<>> entries;

    std::optional<std::span<const uint8_t>> find(std::string_view key) const {
        auto it = entries.find(key);
        if (it == entries.end()) return std::nullopt;
        return it->second;
    }
};

// The places a key is looked up, in order: the program's own named data, then an external
// .ptd file when one was given. Either may be null.
struct NamedDataSources {
    const NamedDataMap* program = nullptr;
    const NamedDataMap* external = nullptr;

    std::optional<std::span<const uint8_t>> find(std::string_view key) const {
        if (program) {
            if (auto bytes = program->find(key)) return bytes;
        }
        if (external) return external->find(key);
        return std::nullopt;
    }

    // "named data of model.pte (12 keys) and model.ptd (40 keys)" for "key not found" messages.
    std::string describe() const;
};

}  // namespace wgx::graph
