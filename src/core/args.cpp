#include <fmt/format.h>

#include <cmath>

#include "core/context_state.h"

namespace wgx {
namespace {

template <typename T>
std::string list_string(const std::vector<T>& v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) {
        if (i) s += ", ";
        s += fmt::format("{}", static_cast<T>(v[i]));
    }
    return s + "]";
}

}  // namespace

std::string Arg::describe() const {
    struct Visitor {
        std::string operator()(std::monostate) const { return "none"; }
        std::string operator()(const Tensor& t) const {
            if (!t.defined()) return "empty tensor";
            return fmt::format("tensor {} {}", dtype_name(t.dtype()), shape_string(t.shape()));
        }
        std::string operator()(int64_t v) const { return fmt::format("int {}", v); }
        std::string operator()(double v) const { return fmt::format("double {}", v); }
        std::string operator()(bool v) const { return fmt::format("bool {}", v); }
        std::string operator()(const std::vector<int64_t>& v) const {
            return "int list " + list_string(v);
        }
        std::string operator()(const std::vector<double>& v) const {
            return "double list " + list_string(v);
        }
        std::string operator()(const std::vector<bool>& v) const {
            return fmt::format("bool list of {}", v.size());
        }
        std::string operator()(const TensorList& v) const {
            return fmt::format("tensor list of {}", v.size());
        }
        std::string operator()(const std::string& v) const { return "string \"" + v + "\""; }
    };
    return std::visit(Visitor{}, v_);
}

const Arg& Args::operator[](size_t i) const {
    if (i >= args_.size()) {
        fail(fmt::format("argument {} is missing ({} given).", i, args_.size()));
    }
    // Every read but live_integer's bakes a live value into the recording.
    if (baked_ != nullptr && i < live_slots_.size() && live_slots_[i] != LiveInt::kNone) {
        baked_->push_back(live_slots_[i]);
    }
    return args_[i];
}

LiveInt Args::live_integer(size_t i, std::string_view name) const {
    if (i < args_.size() && i < live_slots_.size() && live_slots_[i] != LiveInt::kNone) {
        if (const auto* n = std::get_if<int64_t>(&args_[i].value())) {
            return LiveInt{*n, live_slots_[i]};
        }
    }
    return LiveInt{integer(i, name), LiveInt::kNone};
}

void Args::fail(const std::string& message) const {
    throw InvalidArgument(fmt::format("{}: {}", op_, message));
}

void Args::expect_count(size_t min, size_t max) const {
    if (args_.size() < min || args_.size() > max) {
        if (min == max) fail(fmt::format("expects {} arguments, got {}.", min, args_.size()));
        fail(fmt::format("expects {} to {} arguments, got {}.", min, max, args_.size()));
    }
}

const Tensor& Args::tensor(size_t i, std::string_view name) const {
    const auto* t = std::get_if<Tensor>(&(*this)[i].value());
    if (t == nullptr || !t->defined()) {
        fail(fmt::format("argument {} ({}) must be a tensor, got {}.", i, name,
                         (*this)[i].describe()));
    }
    return *t;
}

std::optional<Tensor> Args::optional_tensor(size_t i, std::string_view name) const {
    if (is_none(i)) return std::nullopt;
    return tensor(i, name);
}

std::vector<std::optional<Tensor>> Args::tensor_list(size_t i, std::string_view name) const {
    const auto* l = std::get_if<Arg::TensorList>(&(*this)[i].value());
    if (const auto* ints = std::get_if<std::vector<int64_t>>(&(*this)[i].value());
        ints && ints->empty()) {
        return {};  // an empty list from a program carries no element kind
    }
    if (l == nullptr) {
        fail(fmt::format("argument {} ({}) must be a list of tensors, got {}.", i, name,
                         (*this)[i].describe()));
    }
    return *l;
}

double Args::number(size_t i, std::string_view name) const {
    const auto& v = (*this)[i].value();
    if (const auto* d = std::get_if<double>(&v)) return *d;
    if (const auto* n = std::get_if<int64_t>(&v)) return static_cast<double>(*n);
    if (const auto* b = std::get_if<bool>(&v)) return *b ? 1.0 : 0.0;
    fail(fmt::format("argument {} ({}) must be a number, got {}.", i, name, (*this)[i].describe()));
}

std::optional<double> Args::optional_number(size_t i, std::string_view name) const {
    if (is_none(i)) return std::nullopt;
    return number(i, name);
}

int64_t Args::integer(size_t i, std::string_view name) const {
    const auto& v = (*this)[i].value();
    if (const auto* n = std::get_if<int64_t>(&v)) return *n;
    if (const auto* b = std::get_if<bool>(&v)) return *b ? 1 : 0;
    if (const auto* d = std::get_if<double>(&v); d && std::floor(*d) == *d) {
        return static_cast<int64_t>(*d);
    }
    fail(fmt::format("argument {} ({}) must be an integer, got {}.", i, name,
                     (*this)[i].describe()));
}

bool Args::boolean(size_t i, std::string_view name) const {
    const auto& v = (*this)[i].value();
    if (const auto* b = std::get_if<bool>(&v)) return *b;
    if (const auto* n = std::get_if<int64_t>(&v); n && (*n == 0 || *n == 1)) return *n == 1;
    fail(fmt::format("argument {} ({}) must be a bool, got {}.", i, name, (*this)[i].describe()));
}

std::vector<int64_t> Args::int_list(size_t i, std::string_view name) const {
    const auto& v = (*this)[i].value();
    if (const auto* l = std::get_if<std::vector<int64_t>>(&v)) return *l;
    if (const auto* n = std::get_if<int64_t>(&v)) return {*n};
    if (const auto* t = std::get_if<Arg::TensorList>(&v); t && t->empty()) return {};
    fail(fmt::format("argument {} ({}) must be a list of ints, got {}.", i, name,
                     (*this)[i].describe()));
}

std::vector<double> Args::number_list(size_t i, std::string_view name) const {
    const auto& v = (*this)[i].value();
    if (const auto* l = std::get_if<std::vector<double>>(&v)) return *l;
    if (const auto* l = std::get_if<std::vector<int64_t>>(&v)) {
        return std::vector<double>(l->begin(), l->end());
    }
    if (const auto* d = std::get_if<double>(&v)) return {*d};
    fail(fmt::format("argument {} ({}) must be a list of numbers, got {}.", i, name,
                     (*this)[i].describe()));
}

}  // namespace wgx
