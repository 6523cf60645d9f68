#include "ops/reduce/softmax_kernel.h"

#include <fmt/format.h>

#include "ops/common/dims.h"
#include "ops/common/workgroup_reduce.h"
#include "ops/reduce/softmax.wgsl.h"

namespace wgx::ops {

void record_softmax(Recorder& rec, const Args& args, bool log) {
    args.expect_count(3, 4);
    const Tensor& self = args.tensor(0, "self");
    const Tensor& out = args.tensor(args.size() - 1, "out");
    int64_t dim = wrap_dim(args, args.integer(1, "dim"), self.rank(), "dim");
    DType storage = storage_dtype(self.dtype());
    if (storage != DType::f32 && storage != DType::f16) {
        args.fail(fmt::format("self has dtype {}; only float32 and float16 are supported.",
                              dtype_name(self.dtype())));
    }
    if (storage == DType::f16 && !rec.device().features.shader_f16) {
        args.fail(
            "self is float16, which needs the adapter's shader-f16 feature; this device "
            "lacks it.");
    }
    if (args.size() == 4 && !args.is_none(2)) {
        // _softmax passes half_to_float (a bool); softmax.int passes dtype (an int code). Both
        // would make out's type differ from self's, which is not supported.
        if (std::holds_alternative<bool>(args[2].value())) {
            if (args.boolean(2, "half_to_float")) {
                args.fail(
                    "half_to_float=true (a float32 out for a float16 self) is not "
                    "supported; out must have self's dtype.");
            }
        } else if (auto dtype = optional_scalar_type_arg(args, 2, "dtype");
                   dtype && storage_dtype(*dtype) != storage) {
            args.fail(fmt::format("dtype {} differs from self's {}; out must have self's dtype.",
                                  dtype_name(*dtype), dtype_name(self.dtype())));
        }
    }
    expect_dtype(args, out, self.dtype(), "out");
    expect_shape(args, out, self.shape(), "out");
    expect_indexable(args, self, "self");

    int64_t count = self.rank() == 0 ? 1 : self.shape()[dim];
    int64_t inner = 1;
    for (int64_t d = dim + 1; d < self.rank(); ++d) inner *= self.shape()[d];
    SoftmaxParams p{static_cast<uint32_t>(self.numel() / count), static_cast<uint32_t>(count),
                    static_cast<uint32_t>(inner), 0};
    // Variant: an invocation per row for short rows or a strided dim with many rows; else a
    // workgroup per row, no wider than the row needs, reducing with subgroup operations where
    // the device has them.
    bool per_thread = count <= 16 || (inner > 1 && p.rows >= 256);
    bool subgroups = !per_thread && use_subgroups(rec);
    uint32_t preferred = 64;
    while (preferred < 256 && preferred < count) preferred *= 2;
    uint32_t wg = rec.workgroup_size(per_thread ? 256 : preferred);
    Grid grid = per_thread ? rec.grid_1d(p.rows, wg) : rec.grid_1d(p.rows, 1);
    Kernel k = rec.kernel(
        fmt::format("{}/{}", args.op(),
                    per_thread  ? "per_thread"
                    : subgroups ? "workgroup_subgroups"
                                : "workgroup"),
        workgroup_reduce_prelude(storage, subgroups) + std::string(wgsl::ops_reduce_softmax),
        {{"WG", double(wg)}, {"LOG", log ? 1.0 : 0.0}, {"PER_THREAD", per_thread ? 1.0 : 0.0}});
    rec.dispatch(k, {self, out, Binding::uniform(p)}, grid);
}

}  // namespace wgx::ops
