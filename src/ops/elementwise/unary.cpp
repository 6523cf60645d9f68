#include "ops/elementwise/unary.h"

#include <fmt/format.h>

#include "ops/common/float16_support.h"
#include "ops/common/math.wgsl.h"
#include "ops/elementwise/modulo.h"
#include "ops/elementwise/unary.wgsl.h"

namespace wgx::ops {

void record_unary(Recorder& rec, const UnarySpec& spec, const Tensor& x, const Tensor& out,
                  const Args& args, float p0, float p1) {
    if (x.dtype() != out.dtype()) {
        args.fail(fmt::format("self ({}) and out ({}) must have one dtype.", dtype_name(x.dtype()),
                              dtype_name(out.dtype())));
    }
    if (x.shape() != out.shape()) {
        args.fail(fmt::format("self {} and out {} must have one shape.", shape_string(x.shape()),
                              shape_string(out.shape())));
    }
    DType storage = storage_dtype(x.dtype());
    bool supported = storage == DType::f32 || storage == DType::f16 ||
                     (!spec.float_only && storage == DType::i32);
    if (!supported) args.fail(fmt::format("dtype {} is not supported.", dtype_name(x.dtype())));
    expect_float16_support(rec, args, x.dtype());

    UnaryParams p{static_cast<uint32_t>(out.numel()), p0, p1, 0};
    uint32_t wg = rec.workgroup_size(256);
    // Float16 is computed in f32 (wgsl_storage_and_compute), so `apply` and the math helpers
    // are the float32 ones.
    std::string source = wgsl_storage_and_compute(x.dtype()) +
                         (storage != DType::i32 ? std::string(wgsl::ops_common_math) : "") +
                         (spec.modulo ? modulo_helpers(storage) : "") +
                         fmt::format("fn apply(x: T) -> T {{ {} }}\n", spec.apply) +
                         std::string(wgsl::ops_elementwise_unary);
    Kernel k = rec.kernel(spec.op, std::move(source), {{"WG", double(wg)}});
    rec.dispatch(k, {x, out, Binding::uniform(p)}, rec.grid_1d(out.numel(), wg));
}

void SimpleUnaryOp::record(Recorder& rec, const Args& args) const {
    args.expect_count(2, 2);
    record_unary(rec, spec_, args.tensor(0, "self"), args.tensor(1, "out"), args);
}

}  // namespace wgx::ops
