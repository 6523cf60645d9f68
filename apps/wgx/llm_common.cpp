#include "llm_common.h"

#include <fmt/format.h>

#include <stdexcept>

#include "wgx/error.h"

namespace wgx::cli {

std::vector<int64_t> parse_tokens(const std::string& text, std::string_view flag) {
    std::vector<int64_t> out;
    size_t at = 0;
    while (at <= text.size()) {
        const size_t comma = std::min(text.find(',', at), text.size());
        const std::string item = text.substr(at, comma - at);
        try {
            size_t used = 0;
            out.push_back(std::stoll(item, &used));
            if (used != item.size()) throw std::invalid_argument(item);
        } catch (const std::exception&) {
            throw InvalidArgument(
                fmt::format("{}: \"{}\" is not a token id (expected 1,2,3).", flag, item));
        }
        at = comma + 1;
    }
    return out;
}

double parse_number(const std::string& text, const char* what) {
    try {
        size_t used = 0;
        const double v = std::stod(text, &used);
        if (used == text.size()) return v;
    } catch (const std::exception&) {}
    throw InvalidArgument(fmt::format("{} \"{}\" is not a number.", what, text));
}

std::optional<int64_t> constant_int(const std::vector<ConstantMethod>& methods,
                                    std::string_view name) {
    for (const auto& m : methods) {
        if (m.name == name && m.values.size() == 1) {
            if (const auto* v = std::get_if<int64_t>(&m.values[0])) return *v;
        }
    }
    return std::nullopt;
}

std::set<int64_t> eos_ids(const std::vector<ConstantMethod>& methods) {
    std::set<int64_t> out;
    for (const auto& m : methods) {
        if (m.name != "get_eos_ids" && m.name != "get_eos_id") continue;
        for (const auto& v : m.values) {
            if (const auto* id = std::get_if<int64_t>(&v)) out.insert(*id);
        }
    }
    return out;
}

int64_t context_length(const std::vector<ConstantMethod>& methods, const std::string& model) {
    if (auto n = constant_int(methods, "get_max_context_len")) return *n;
    if (auto n = constant_int(methods, "get_max_seq_len")) return *n;
    throw InvalidArgument(fmt::format(
        "{} does not say its context length (no get_max_context_len or get_max_seq_len method): "
        "is it an LLM export?",
        model));
}

void check_token_ids(const std::vector<int64_t>& tokens, int64_t vocab, std::string_view what) {
    for (int64_t t : tokens) {
        if (t < 0 || (vocab > 0 && t >= vocab)) {
            throw InvalidArgument(
                fmt::format("{} token {} is outside the vocabulary of {}.", what, t, vocab));
        }
    }
}

}  // namespace wgx::cli
