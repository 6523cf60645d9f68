// Float16 tensors in op kernels (ops that declare Op::accepts_float16): the device check and the
// WGSL spelling of "stored as S, computed as T".
#pragma once

#include <fmt/format.h>

#include <initializer_list>
#include <string>
#include <utility>

#include "ops/common/wgsl_types.h"
#include "wgx/op.h"

namespace wgx::ops {

// A kernel that declares f16 arrays (`enable f16;`) compiles only on a device granted
// shader-f16: fails through `args` (InvalidArgument, naming the op) when `dtype` is float16 and
// the device lacks it, instead of a shader compilation error.
inline void expect_float16_support(const Recorder& rec, const Args& args, DType dtype) {
    if (storage_dtype(dtype) == DType::f16 && !rec.device().features.shader_f16) {
        args.fail(
            fmt::format("float16 tensors need the device feature shader-f16, which {} "
                        "was not granted.",
                        rec.device().adapter.name));
    }
}

// The one float type of an op's float tensors (entries with a null tensor are absent optional
// ones): each stored as float32 (float64 data included) or float16, all alike, and float16 only
// on a device with shader-f16. Fails through `args` naming the offending tensors.
DType one_float_type(const Recorder& rec, const Args& args,
                     std::initializer_list<std::pair<const Tensor*, const char*>> tensors);

// "alias S = <element as stored>; alias T = <element as computed>;": float32 and float16 are
// both computed in f32 (float16 is only a storage format: each element is widened on load and
// rounded once on store), int32 in i32. For float32 the conversions S(...) and T(...) are
// identities, so one kernel text serves every type.
inline std::string wgsl_storage_and_compute(DType dtype) {
    const bool is_int = storage_dtype(dtype) == DType::i32;
    return wgsl_alias(dtype, "S") + (is_int ? "alias T = i32;\n" : "alias T = f32;\n");
}

}  // namespace wgx::ops
