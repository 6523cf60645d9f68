// aten.gather.default: out = self gathered along `dim` by `index` (int64/int32, self's rank,
// each dim but `dim` no larger than self's), out of index's shape. Args: [self, dim, index,
// sparse_grad?, out]. 32- and 16-bit dtypes; bool, uint8 and int8 are refused with an error.
// An index outside [0, size) gives 0: PyTorch raises there, which a kernel cannot (as for
// aten.index.Tensor).
#include <fmt/format.h>

#include "ops/common/dims.h"
#include "ops/common/float16_support.h"
#include "ops/common/wgsl_types.h"
#include "ops/registry.h"
#include "ops/shape/gather.wgsl.h"

namespace wgx::ops {
namespace {

struct GatherParams {
    uint32_t numel, rank, dim, dim_size;
    uint32_t out_sizes[8];
    uint32_t self_strides[8];
};
static_assert(sizeof(GatherParams) == 80);

class Gather final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten.gather.default"; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(4, 5);
        const Tensor& self = args.tensor(0, "self");
        const Tensor& index = args.tensor(2, "index");
        const Tensor& out = args.tensor(args.size() - 1, "out");
        if (index.dtype() != DType::i64 && index.dtype() != DType::i32) {
            args.fail(
                fmt::format("index must be int64 or int32, got {}.", dtype_name(index.dtype())));
        }
        if (device_size(self.dtype()) == 1) {
            args.fail(fmt::format("{} tensors are not supported yet (32- and 16-bit types are).",
                                  dtype_name(self.dtype())));
        }
        const Shape s = self.rank() == 0 ? Shape{1} : self.shape();
        const Shape is = index.rank() == 0 ? Shape{1} : index.shape();
        if (is.size() != s.size() || s.size() > 8) {
            args.fail(fmt::format("index has shape {}; it needs self's rank {} (at most 8).",
                                  shape_string(index.shape()), self.rank()));
        }
        const int64_t dim =
            wrap_dim(args, args.integer(1, "dim"), static_cast<int64_t>(s.size()), "dim");
        for (size_t d = 0; d < s.size(); ++d) {
            if (static_cast<int64_t>(d) != dim && is[d] > s[d]) {
                args.fail(fmt::format("index has size {} in dim {}, more than self's {}.", is[d], d,
                                      s[d]));
            }
        }
        expect_float16_support(rec, args, self.dtype());
        expect_dtype(args, out, self.dtype(), "out");
        expect_shape(args, out, index.shape(), "out");
        expect_indexable(args, self, "self");
        expect_indexable(args, out, "out");
        if (out.numel() == 0) return;
        GatherParams p{};
        p.numel = static_cast<uint32_t>(out.numel());
        p.rank = static_cast<uint32_t>(s.size());
        p.dim = static_cast<uint32_t>(dim);
        p.dim_size = static_cast<uint32_t>(s[static_cast<size_t>(dim)]);
        const auto strides = contiguous_strides(s);
        for (size_t d = 0; d < s.size(); ++d) {
            p.out_sizes[d] = static_cast<uint32_t>(is[d]);
            p.self_strides[d] = static_cast<uint32_t>(strides[d]);
        }
        const uint32_t wg = rec.workgroup_size(128);
        Kernel k = rec.kernel(
            fmt::format("{}/{}", name(), dtype_name(storage_dtype(self.dtype()))),
            wgsl_alias(storage_dtype(self.dtype())) + std::string(wgsl::ops_shape_gather),
            {{"WG", double(wg)}});
        rec.dispatch(k, {self, index, out, Binding::uniform(p)}, rec.grid_1d(p.numel, wg));
    }
};

}  // namespace

const Op& gather_op() {
    static const Gather op;
    return op;
}

}  // namespace wgx::ops
