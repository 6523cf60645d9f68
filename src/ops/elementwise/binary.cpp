#include "ops/elementwise/binary.h"

#include <fmt/format.h>

#include <algorithm>

#include "ops/common/broadcast.h"
#include "ops/common/float16_support.h"
#include "ops/common/math.wgsl.h"
#include "ops/elementwise/binary.wgsl.h"
#include "ops/elementwise/modulo.h"

namespace wgx::ops {
namespace {

// Helpers an op's `apply` may call, in the compute type T: NaN-propagating max/min (PyTorch's
// maximum/minimum) and, for floats, common/math.wgsl.
std::string binary_helpers(DType storage) {
    if (storage == DType::i32) {
        return "fn max_nan(x: T, y: T) -> T { return max(x, y); }\n"
               "fn min_nan(x: T, y: T) -> T { return min(x, y); }\n";
    }
    return std::string(wgsl::ops_common_math) +
           "fn max_nan(x: T, y: T) -> T {\n"
           "    if (is_nan(f32(x)) || is_nan(f32(y))) { return T(bitcast<f32>(0x7fc00000u)); }\n"
           "    return max(x, y);\n}\n"
           "fn min_nan(x: T, y: T) -> T {\n"
           "    if (is_nan(f32(x)) || is_nan(f32(y))) { return T(bitcast<f32>(0x7fc00000u)); }\n"
           "    return min(x, y);\n}\n";
}

}  // namespace

void record_binary(Recorder& rec, const BinarySpec& spec, const Tensor& a, const Tensor& b,
                   const Tensor& out, float alpha, const Args& args) {
    // check: one element type everywhere (no implicit promotion), broadcastable shapes, and an
    // output of exactly the broadcast shape. Types stored alike count as one: the Vulkan export
    // narrows int64 to int32 inside a delegate (an int64 program input meets an int32 value).
    for (const Tensor* t : {&b, &out}) {
        if (storage_dtype(t->dtype()) != storage_dtype(a.dtype())) {
            args.fail(fmt::format("all tensors must have one dtype; got {} and {}.",
                                  dtype_name(a.dtype()), dtype_name(t->dtype())));
        }
    }
    DType storage = storage_dtype(a.dtype());
    bool supported = storage == DType::f32 || storage == DType::f16 ||
                     (!spec.float_only && storage == DType::i32);
    if (!supported) {
        args.fail(fmt::format("dtype {} is not supported here.", dtype_name(a.dtype())));
    }
    expect_float16_support(rec, args, a.dtype());
    auto shape = broadcast_shapes(a.shape(), b.shape());
    if (!shape) {
        args.fail(fmt::format("shapes {} and {} are not broadcastable.", shape_string(a.shape()),
                              shape_string(b.shape())));
    }
    if (*shape != out.shape()) {
        args.fail(fmt::format("output shape {} differs from the broadcast shape {}.",
                              shape_string(out.shape()), shape_string(*shape)));
    }

    BinaryParams p{};
    p.numel = static_cast<uint32_t>(out.numel());
    p.alpha = alpha;
    auto sizes = padded_sizes(out.shape());
    auto sa = broadcast_strides(a.shape(), out.shape());
    auto sb = broadcast_strides(b.shape(), out.shape());
    p.rank = static_cast<uint32_t>(coalesce_dims(sizes, {&sa, &sb}));
    std::copy(sizes.begin(), sizes.end(), p.out_sizes);
    std::copy(sa.begin(), sa.end(), p.a_strides);
    std::copy(sb.begin(), sb.end(), p.b_strides);

    // Variant: equal shapes skip the index arithmetic.
    bool same = a.shape() == out.shape() && b.shape() == out.shape();
    uint32_t wg = rec.workgroup_size(256);
    // Float16 is computed in f32 (wgsl_storage_and_compute): one rounding per output.
    std::string source = wgsl_storage_and_compute(a.dtype()) + binary_helpers(storage) +
                         (spec.modulo ? modulo_helpers(storage) : "") +
                         fmt::format("fn apply(x: T, y: T) -> T {{ {} }}\n", spec.apply) +
                         std::string(wgsl::ops_elementwise_binary);
    Kernel k =
        rec.kernel(fmt::format("{}{}", spec.op, same ? "/same_shape" : "/broadcast"),
                   std::move(source), {{"WG", double(wg)}, {"SAME_SHAPE", same ? 1.0 : 0.0}});
    rec.dispatch(k, {a, b, out, Binding::uniform(p)}, rec.grid_1d(out.numel(), wg));
}

}  // namespace wgx::ops
