// Spelling of element types in WGSL for op shaders, which are written against `T`, and the
// filling of a kernel text's marker lines.
#pragma once

#include <string>
#include <string_view>

#include "wgx/dtype.h"

namespace wgx::ops {

// "f32" / "i32" / "f16": the WGSL scalar type of one element as stored on the GPU. Types stored
// packed (bool, int8, uint8) have none; ops that accept them use their own kernels.
const char* wgsl_scalar(DType dtype);

// "alias T = f32;\n" (with "enable f16;" first where needed), prepended to a generic shader.
std::string wgsl_alias(DType dtype, const char* name = "T");

// Replaces each line "//@<marker>\n" of `text` with `code` (which ends in a newline, or is empty
// to drop the line); throws std::logic_error when `text` has no such line.
void replace_wgsl_marker(std::string& text, std::string_view marker, const std::string& code);

}  // namespace wgx::ops
