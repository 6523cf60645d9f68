// aten._to_copy.default: out = self converted to out's dtype (same shape).
// Args: [self, dtype?, layout?, device?, pin_memory?, non_blocking, memory_format?, out]; the
// target dtype is out's (a dtype argument, when given, must agree). Every pair of float32,
// float16, int32, int64, bool, uint8, int8 (and float64) converts as PyTorch does: float to int
// truncates toward zero, to bool is "nonzero". Pairs with one GPU storage type (int64 ->
// int32, float64 -> float32, same dtype) are a buffer copy.
#include <fmt/format.h>

#include "ops/common/dims.h"
#include "ops/registry.h"
#include "ops/shape/convert.wgsl.h"
#include "ops/shape/strided_copy.h"

namespace wgx::ops {
namespace {

// The element kinds of convert.wgsl.
uint32_t kind(DType t) {
    switch (storage_dtype(t)) {
        case DType::f32: return 0;
        case DType::f16: return 1;
        case DType::i32: return 2;
        case DType::boolean: return 3;
        case DType::u8: return 4;
        case DType::i8: return 5;
        default: break;
    }
    return 0;
}

struct ConvertParams {
    uint32_t numel;
    uint32_t words;
    uint32_t pad0, pad1;
};
static_assert(sizeof(ConvertParams) == 16);

class ToCopy final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten._to_copy.default"; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(2, 8);
        const Tensor& self = args.tensor(0, "self");
        const Tensor& out = args.tensor(args.size() - 1, "out");
        if (args.size() > 2) {
            if (auto dtype = optional_scalar_type_arg(args, 1, "dtype");
                dtype && *dtype != out.dtype()) {
                args.fail(fmt::format("dtype argument {} differs from out's dtype {}.",
                                      dtype_name(*dtype), dtype_name(out.dtype())));
            }
        }
        expect_shape(args, out, self.shape(), "out");
        expect_indexable(args, out, "out");
        if (storage_dtype(self.dtype()) == storage_dtype(out.dtype())) {
            rec.copy(self, out);
            return;
        }
        uint32_t lanes = lanes_per_word(out.dtype());
        ConvertParams p{static_cast<uint32_t>(out.numel()),
                        static_cast<uint32_t>((out.numel() + lanes - 1) / lanes), 0, 0};
        uint32_t wg = rec.workgroup_size(256);
        Kernel k = rec.kernel(
            fmt::format("{}/{}_to_{}", name(), dtype_name(self.dtype()), dtype_name(out.dtype())),
            std::string(wgsl::ops_shape_convert),
            {{"WG", double(wg)},
             {"SRC", double(kind(self.dtype()))},
             {"DST", double(kind(out.dtype()))}});
        rec.dispatch(k, {self, out, Binding::uniform(p)}, rec.grid_1d(p.words, wg));
    }
};

}  // namespace

const Op& to_copy_op() {
    static const ToCopy op;
    return op;
}

}  // namespace wgx::ops
