#include "ops/elementwise/binary.h"

#include <fmt/format.h>

#include <algorithm>

#include "ops/common/broadcast.h"
#include "ops/common/wgsl_types.h"
#include "ops/elementwise/binary.wgsl.h"

namespace wgx::ops {

void record_binary(Recorder& rec, const BinarySpec& spec, const Tensor& a, const Tensor& b,
                   const Tensor& out, float alpha, const Args& args) {
    // check: same element type everywhere (no implicit promotion), broadcastable shapes, and an
    // output of exactly the broadcast shape.
    for (const Tensor* t : {&b, &out}) {
        if (t->dtype() != a.dtype()) {
            args.fail(fmt::format("all tensors must have one dtype; got {} and {}.",
                                  dtype_name(a.dtype()), dtype_name(t->dtype())));
        }
    }
    DType storage = storage_dtype(a.dtype());
    bool supported = storage == DType::f32 || (!spec.float_only && storage == DType::i32) ||
                     (storage == DType::f16 && rec.device().features.shader_f16);
    if (!supported) {
        args.fail(fmt::format("dtype {} is not supported here.", dtype_name(a.dtype())));
    }
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
    std::copy(sizes.begin(), sizes.end(), p.out_sizes);
    std::copy(sa.begin(), sa.end(), p.a_strides);
    std::copy(sb.begin(), sb.end(), p.b_strides);

    // Variant: equal shapes skip the index arithmetic.
    bool same = a.shape() == out.shape() && b.shape() == out.shape();
    uint32_t wg = rec.workgroup_size(256);
    std::string source = wgsl_alias(a.dtype()) +
                         fmt::format("fn apply(x: T, y: T) -> T {{ {} }}\n", spec.apply) +
                         std::string(wgsl::ops_elementwise_binary);
    Kernel k = rec.kernel(fmt::format("{}{}", spec.op, same ? "/same_shape" : "/broadcast"),
                          std::move(source),
                          {{"WG", double(wg)}, {"SAME_SHAPE", same ? 1.0 : 0.0}});
    rec.dispatch(k, {a, b, out, Binding::uniform(p)}, rec.grid_1d(out.numel(), wg));
}

}  // namespace wgx::ops
