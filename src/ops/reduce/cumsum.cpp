// aten.cumsum.default: out[..., k, ...] = sum of self[..., 0..k, ...] along `dim`. Args: [self,
// dim, dtype?, out]. Float32 and float16 (summed in float32, in order) and int32 / int64
// (summed in the int32 the GPU stores; PyTorch's int64 result wraps the same way only past
// 2^31). Bool and 8-bit inputs, which PyTorch sums into int64, are refused with an error.
#include <fmt/format.h>

#include "ops/common/dims.h"
#include "ops/common/float16_support.h"
#include "ops/reduce/cumsum.wgsl.h"
#include "ops/registry.h"

namespace wgx::ops {
namespace {

struct CumsumParams {
    uint32_t outer, n, inner, pad;
};
static_assert(sizeof(CumsumParams) == 16);

class Cumsum final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten.cumsum.default"; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(3, 4);
        const Tensor& self = args.tensor(0, "self");
        const Tensor& out = args.tensor(args.size() - 1, "out");
        const DType storage = storage_dtype(self.dtype());
        if (storage != DType::f32 && storage != DType::f16 && storage != DType::i32) {
            args.fail(
                fmt::format("{} tensors are not supported (float32, float16, int32 and "
                            "int64 are).",
                            dtype_name(self.dtype())));
        }
        if (storage_dtype(out.dtype()) != storage) {
            args.fail(fmt::format("out is {}; a cumsum of {} here is {} (no conversion).",
                                  dtype_name(out.dtype()), dtype_name(self.dtype()),
                                  dtype_name(self.dtype())));
        }
        expect_float16_support(rec, args, self.dtype());
        expect_shape(args, out, self.shape(), "out");
        const int64_t rank = std::max<int64_t>(self.rank(), 1);
        const int64_t dim = wrap_dim(args, args.integer(1, "dim"), rank, "dim");
        if (self.numel() == 0) return;
        const Shape s = self.rank() == 0 ? Shape{1} : self.shape();
        CumsumParams p{1, static_cast<uint32_t>(s[static_cast<size_t>(dim)]), 1, 0};
        for (int64_t d = 0; d < dim; ++d) p.outer *= static_cast<uint32_t>(s[d]);
        for (size_t d = static_cast<size_t>(dim) + 1; d < s.size(); ++d) {
            p.inner *= static_cast<uint32_t>(s[d]);
        }
        const uint32_t wg = rec.workgroup_size(64);
        Kernel k = rec.kernel(
            fmt::format("{}/{}", name(), dtype_name(storage)),
            wgsl_storage_and_compute(self.dtype()) + std::string(wgsl::ops_reduce_cumsum),
            {{"WG", double(wg)}});
        rec.dispatch(k, {self, out, Binding::uniform(p)}, rec.grid_1d(p.outer * p.inner, wg));
    }
};

}  // namespace

const Op& cumsum_op() {
    static const Cumsum op;
    return op;
}

}  // namespace wgx::ops
