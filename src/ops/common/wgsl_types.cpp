#include "ops/common/wgsl_types.h"

#include <fmt/format.h>

#include <stdexcept>

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

void replace_wgsl_marker(std::string& text, std::string_view marker, const std::string& code) {
    const std::string line = fmt::format("//@{}\n", marker);
    size_t count = 0;
    for (size_t at = text.find(line); at != std::string::npos; at = text.find(line, at)) {
        text.replace(at, line.size(), code);
        at += code.size();
        ++count;
    }
    if (count == 0) throw std::logic_error(fmt::format("the WGSL has no //@{} line", marker));
}

}  // namespace wgx::ops
