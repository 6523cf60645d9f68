#include <string>

#include "wgx/dtype.h"

namespace wgx {

std::optional<DType> parse_dtype(std::string_view name) {
    struct Entry {
        std::string_view long_name, short_name;
        DType dtype;
    };
    static constexpr Entry kNames[] = {
        {"float32", "f32", DType::f32}, {"float16", "f16", DType::f16},
        {"int32", "i32", DType::i32},   {"int64", "i64", DType::i64},
        {"int8", "i8", DType::i8},      {"uint8", "u8", DType::u8},
        {"bool", "b8", DType::boolean}, {"float64", "f64", DType::f64},
    };
    for (const Entry& e : kNames) {
        if (name == e.long_name || name == e.short_name) return e.dtype;
    }
    // PyTorch's other spellings.
    if (name == "float") return DType::f32;
    if (name == "half") return DType::f16;
    if (name == "double") return DType::f64;
    if (name == "long") return DType::i64;
    if (name == "int") return DType::i32;
    if (name == "boolean") return DType::boolean;
    return std::nullopt;
}

}  // namespace wgx
