// wgpu-executorch: runs ExecuTorch programs on any GPU through WebGPU. Include this one header.
#pragma once

#include <string_view>

#include "wgx/context.h"
#include "wgx/device.h"
#include "wgx/dtype.h"
#include "wgx/error.h"
#include "wgx/log.h"
#include "wgx/op.h"
#include "wgx/tensor.h"

namespace wgx {

// The engine's version, e.g. "0.1.0".
std::string_view version();

}  // namespace wgx
