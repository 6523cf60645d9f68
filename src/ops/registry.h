// The list of built-in operators (src/ops/op_list.def: bespoke ops and op families made from
// tables) and lookup by graph name.
#pragma once

#include <span>
#include <string_view>

#include "ops/builtin_op.h"

namespace wgx::ops {

#define WGX_OP(name) const Op& name##_op();
#define WGX_OP_TABLE(family) std::span<const Op* const> family##_ops();
#include "ops/op_list.def"
#undef WGX_OP
#undef WGX_OP_TABLE

// nullptr when no built-in op has this name or alias.
const Op* find(std::string_view name);

}  // namespace wgx::ops
