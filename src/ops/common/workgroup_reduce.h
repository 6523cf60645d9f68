// Sums and maxima of one f32 per invocation over a whole workgroup, for the row kernels
// (softmax, layer norm, group norm): with subgroup operations where the device has the
// `subgroups` feature, else with a tree in workgroup memory. Both variants define the same WGSL
// names, so a kernel is written once and given either text.
#pragma once

#include <string>

#include "wgx/op.h"

namespace wgx::ops {

// Whether the row kernels use subgroup operations: the device was granted `subgroups` and the
// environment variable WGX_SUBGROUPS is not "0". WGX_SUBGROUPS=0 forces the workgroup-memory
// fallback (tests run both paths with it; benchmarks compare the two with it). It is read at
// record time, so a program prepared after changing it picks the other kernels.
bool use_subgroups(const Recorder& rec);

// The WGSL head of a row kernel storing `dtype`: "enable f16;" for float16, then
// `alias T = <element type>;` and the reduction helpers of workgroup_reduce_tree.wgsl or (with
// `subgroups`) workgroup_reduce_subgroup.wgsl. The kernel text goes
// after it and declares `override WG: u32` (the workgroup size, a power of two).
std::string workgroup_reduce_prelude(DType dtype, bool subgroups);

}  // namespace wgx::ops
