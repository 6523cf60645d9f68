#include "ops/common/wgsl_types.h"

#include <fmt/format.h>

#include "wgx/error.h"

namespace wgx::ops {

const char* wgsl_scalar(DType dtype) {
    switch (storage_dtype(dtype)) {
        case DType::f32: return "f32";
        case DType::i32: return "i32";
        case DType::f16: return "f16";
        default: break;
    }
    throw InvalidArgument(
        fmt::format("dtype {} has no plain WGSL element type.", dtype_name(dtype)));
}

std::string wgsl_alias(DType dtype, const char* name) {
    std::string s;
    if (storage_dtype(dtype) == DType::f16) s += "enable f16;\n";
    s += fmt::format("alias {} = {};\n", name, wgsl_scalar(dtype));
    return s;
}

}  // namespace wgx::ops
