// aten.any.dim: out = any(self != 0) along dim, as bool. Args: [self, dim, keepdim, out].
#include <fmt/format.h>

#include "core/dispatch_geometry.h"
#include "ops/common/dims.h"
#include "ops/reduce/any.wgsl.h"
#include "ops/registry.h"

namespace wgx::ops {
namespace {

struct AnyParams {
    uint32_t outer, reduced, inner, numel_out;
};
static_assert(sizeof(AnyParams) == 16);

class AnyDim final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten.any.dim"; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(4, 4);
        const Tensor& x = args.tensor(0, "self");
        const Tensor& out = args.tensor(3, "out");
        const int rank = x.rank();
        int64_t dim = wrap_dim(args, args.integer(1, "dim"), rank, "dim");
        bool keepdim = args.boolean(2, "keepdim");
        bool bytes =
            x.dtype() == DType::boolean || x.dtype() == DType::u8 || x.dtype() == DType::i8;
        if (!bytes && device_size(x.dtype()) != 4) {
            args.fail(fmt::format("dtype {} is not supported.", dtype_name(x.dtype())));
        }
        expect_dtype(args, out, DType::boolean, "out");
        Shape want;
        int64_t outer = 1, inner = 1, reduced = rank ? x.shape()[dim] : 1;
        for (int d = 0; d < rank; ++d) {
            if (d < dim) outer *= x.shape()[d];
            if (d > dim) inner *= x.shape()[d];
            if (d != dim)
                want.push_back(x.shape()[d]);
            else if (keepdim)
                want.push_back(1);
        }
        expect_shape(args, out, want, "out");
        double kind = bytes ? 0 : storage_dtype(x.dtype()) == DType::f32 ? 1 : 2;
        AnyParams p{uint32_t(outer), uint32_t(reduced), uint32_t(inner), uint32_t(out.numel())};
        uint32_t wg = rec.workgroup_size(256);
        Kernel k = rec.kernel(name(), std::string(wgsl::ops_reduce_any),
                              {{"WG", double(wg)}, {"KIND", kind}});
        rec.dispatch(k, {x, out, Binding::uniform(p)}, rec.grid_1d(ceil_div(out.numel(), 4), wg));
    }
};

}  // namespace

const Op& any_dim_op() {
    static const AnyDim op;
    return op;
}

}  // namespace wgx::ops
