// wgpu-executorch: runs ExecuTorch programs on any GPU through WebGPU. Include this one header;
// link wgx::wgx (shared) or wgx::wgx_static from find_package(wgx). docs/EMBEDDING.md has the
// API on one page. The contract, in the headers it concerns:
//   threads, lifetimes, device loss  context.h, tensor.h, program.h, op.h
//   errors                            error.h
//   logging                           log.h
#pragma once

#include <string_view>

#include "wgx/context.h"
#include "wgx/device.h"
#include "wgx/dtype.h"
#include "wgx/error.h"
#include "wgx/generator.h"
#include "wgx/log.h"
#include "wgx/op.h"
#include "wgx/program.h"
#include "wgx/runner.h"
#include "wgx/tensor.h"
#include "wgx/version.h"

namespace wgx {

// The version of the engine library in use, e.g. "0.1.0" (WGX_VERSION_STRING is the version of
// the headers compiled against; the two differ only when a shared library was swapped).
std::string_view version();

}  // namespace wgx
