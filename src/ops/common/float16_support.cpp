#include "ops/common/float16_support.h"

namespace wgx::ops {

DType one_float_type(const Recorder& rec, const Args& args,
                     std::initializer_list<std::pair<const Tensor*, const char*>> tensors) {
    const std::pair<const Tensor*, const char*>* first = nullptr;
    for (const auto& entry : tensors) {
        const auto& [t, name] = entry;
        if (!t) continue;
        const DType st = storage_dtype(t->dtype());
        if (st != DType::f32 && st != DType::f16) {
            args.fail(fmt::format("{} has dtype {}; only float32 and float16 are supported.", name,
                                  dtype_name(t->dtype())));
        }
        if (!first) {
            first = &entry;
        } else if (st != storage_dtype(first->first->dtype())) {
            args.fail(fmt::format(
                "{} is {} but {} is {}: the tensors must be all float32 or all "
                "float16.",
                first->second, dtype_name(first->first->dtype()), name, dtype_name(t->dtype())));
        }
    }
    if (!first) args.fail("no tensor arguments.");
    const DType dt = storage_dtype(first->first->dtype());
    expect_float16_support(rec, args, dt);
    return dt;
}

}  // namespace wgx::ops
