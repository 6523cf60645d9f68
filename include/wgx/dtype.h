// Element types of wgx tensors and how each one is stored on the GPU.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace wgx {

// Logical element type, as a program or a caller sees it.
enum class DType : uint8_t { f32, f16, i32, i64, i8, u8, boolean, f64 };

inline constexpr int kDTypeCount = 8;

// WGSL has no 64-bit types: i64 data lives on the GPU as i32 (range-checked when written) and
// f64 data as f32. Every other type is stored as itself.
constexpr DType storage_dtype(DType t) {
    switch (t) {
        case DType::i64: return DType::i32;
        case DType::f64: return DType::f32;
        default: return t;
    }
}

// Bytes of one element in host memory (the caller's view).
constexpr size_t host_size(DType t) {
    switch (t) {
        case DType::f32: return 4;
        case DType::f16: return 2;
        case DType::i32: return 4;
        case DType::i64: return 8;
        case DType::i8: return 1;
        case DType::u8: return 1;
        case DType::boolean: return 1;
        case DType::f64: return 8;
    }
    return 0;
}

// Bytes of one element in a GPU buffer.
constexpr size_t device_size(DType t) { return host_size(storage_dtype(t)); }

constexpr bool is_float(DType t) { return t == DType::f32 || t == DType::f16 || t == DType::f64; }

// Short names used in messages, program.json ("float32" style) and the CLI.
constexpr std::string_view dtype_name(DType t) {
    switch (t) {
        case DType::f32: return "float32";
        case DType::f16: return "float16";
        case DType::i32: return "int32";
        case DType::i64: return "int64";
        case DType::i8: return "int8";
        case DType::u8: return "uint8";
        case DType::boolean: return "bool";
        case DType::f64: return "float64";
    }
    return "?";
}

// Accepts the long names above and the short ones (f32, i64, u8, ...).
std::optional<DType> parse_dtype(std::string_view name);

}  // namespace wgx
