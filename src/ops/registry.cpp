#include "ops/registry.h"

#include <fmt/format.h>

#include <string>
#include <unordered_map>
#include <vector>

namespace wgx {
namespace {

const std::vector<const Op*>& all() {
    static const std::vector<const Op*> list = [] {
        std::vector<const Op*> found;
#define WGX_OP(name) found.push_back(&ops::name##_op());
#define WGX_OP_TABLE(family) \
    for (const Op* op : ops::family##_ops()) found.push_back(op);
#include "ops/op_list.def"
#undef WGX_OP
#undef WGX_OP_TABLE
        return found;
    }();
    return list;
}

const std::unordered_map<std::string_view, const Op*>& by_name() {
    static const auto map = [] {
        std::unordered_map<std::string_view, const Op*> m;
        for (const Op* op : all()) {
            m.emplace(op->name(), op);
            for (std::string_view alias : op->aliases()) m.emplace(alias, op);
        }
        return m;
    }();
    return map;
}

}  // namespace

const Op* ops::find(std::string_view name) {
    auto it = by_name().find(name);
    return it == by_name().end() ? nullptr : it->second;
}

const Op& op(std::string_view name) {
    if (const Op* found = ops::find(name)) return *found;
    throw InvalidArgument(fmt::format("No built-in op is named \"{}\".", name));
}

std::span<const Op* const> builtin_ops() { return all(); }

}  // namespace wgx
