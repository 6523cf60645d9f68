#include "ops/reduce/softmax_kernel.h"

#include <fmt/format.h>

#include "ops/reduce/softmax.wgsl.h"
#include "ops/common/dims.h"

namespace wgx::ops {

void record_softmax(Recorder& rec, const Args& args, bool log) {
    args.expect_count(3, 4);
    const Tensor& self = args.tensor(0, "self");
    const Tensor& out = args.tensor(args.size() - 1, "out");
    int64_t dim = wrap_dim(args, args.integer(1, "dim"), self.rank(), "dim");
    if (args.size() == 4 && !args.is_none(2)) {
        // _softmax passes half_to_float (a bool); softmax.int passes dtype (an int code).
        if (std::holds_alternative<bool>(args[2].value())) {
            if (args.boolean(2, "half_to_float")) {
                args.fail("half_to_float=true needs a float16 self, which is not supported.");
            }
        } else if (auto dtype = optional_scalar_type_arg(args, 2, "dtype");
                   dtype && storage_dtype(*dtype) != DType::f32) {
            args.fail(fmt::format("dtype {} is not supported; only float32.", dtype_name(*dtype)));
        }
    }
    if (storage_dtype(self.dtype()) != DType::f32) {
        args.fail(fmt::format("self has dtype {}; only float32 is supported.",
                              dtype_name(self.dtype())));
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
    // workgroup per row, no wider than the row needs.
    bool per_thread = count <= 16 || (inner > 1 && p.rows >= 256);
    uint32_t preferred = 64;
    while (preferred < 256 && preferred < count) preferred *= 2;
    uint32_t wg = rec.workgroup_size(per_thread ? 256 : preferred);
    Grid grid = per_thread ? rec.grid_1d(p.rows, wg) : rec.grid_1d(p.rows, 1);
    Kernel k = rec.kernel(fmt::format("{}/{}", args.op(), per_thread ? "per_thread" : "workgroup"),
                          std::string(wgsl::ops_reduce_softmax),
                          {{"WG", double(wg)},
                           {"LOG", log ? 1.0 : 0.0},
                           {"PER_THREAD", per_thread ? 1.0 : 0.0}});
    rec.dispatch(k, {self, out, Binding::uniform(p)}, grid);
}

}  // namespace wgx::ops
