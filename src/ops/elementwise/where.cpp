// aten.where.self: condition ? self : other, with broadcasting of all three.
// Args: [condition (bool), self, other, out]; self, other and out are float32, float16 or int32.
#include <fmt/format.h>

#include <algorithm>

#include "ops/common/broadcast.h"
#include "ops/common/float16_support.h"
#include "ops/elementwise/where.wgsl.h"
#include "ops/registry.h"

namespace wgx::ops {
namespace {

struct WhereParams {
    uint32_t numel, pad0, pad1, pad2;
    uint32_t out_sizes[8];
    uint32_t c_strides[8];
    uint32_t a_strides[8];
    uint32_t b_strides[8];
};
static_assert(sizeof(WhereParams) == 144);

class Where final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten.where.self"; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(4, 4);
        const Tensor& c = args.tensor(0, "condition");
        const Tensor& a = args.tensor(1, "self");
        const Tensor& b = args.tensor(2, "other");
        const Tensor& out = args.tensor(3, "out");
        if (c.dtype() != DType::boolean) {
            args.fail(fmt::format("condition must be bool, got {}.", dtype_name(c.dtype())));
        }
        if (a.dtype() != b.dtype() || a.dtype() != out.dtype()) {
            args.fail(fmt::format("self ({}), other ({}) and out ({}) must have one dtype.",
                                  dtype_name(a.dtype()), dtype_name(b.dtype()),
                                  dtype_name(out.dtype())));
        }
        DType storage = storage_dtype(a.dtype());
        if (storage != DType::f32 && storage != DType::f16 && storage != DType::i32) {
            args.fail(fmt::format("dtype {} is not supported.", dtype_name(a.dtype())));
        }
        expect_float16_support(rec, args, a.dtype());
        auto ab = broadcast_shapes(a.shape(), b.shape());
        auto shape = ab ? broadcast_shapes(c.shape(), *ab) : std::nullopt;
        if (!shape) {
            args.fail(fmt::format("shapes {}, {} and {} are not broadcastable.",
                                  shape_string(c.shape()), shape_string(a.shape()),
                                  shape_string(b.shape())));
        }
        if (out.shape() != *shape) {
            args.fail(fmt::format("out has shape {}, expected {}.", shape_string(out.shape()),
                                  shape_string(*shape)));
        }
        WhereParams p{};
        p.numel = static_cast<uint32_t>(out.numel());
        auto sizes = padded_sizes(*shape);
        auto sc = broadcast_strides(c.shape(), *shape);
        auto sa = broadcast_strides(a.shape(), *shape);
        auto sb = broadcast_strides(b.shape(), *shape);
        std::copy(sizes.begin(), sizes.end(), p.out_sizes);
        std::copy(sc.begin(), sc.end(), p.c_strides);
        std::copy(sa.begin(), sa.end(), p.a_strides);
        std::copy(sb.begin(), sb.end(), p.b_strides);
        uint32_t wg = rec.workgroup_size(256);
        Kernel k =
            rec.kernel(name(), wgsl_alias(a.dtype()) + std::string(wgsl::ops_elementwise_where),
                       {{"WG", double(wg)}});
        rec.dispatch(k, {c, a, b, out, Binding::uniform(p)}, rec.grid_1d(out.numel(), wg));
    }
};

}  // namespace

const Op& where_op() {
    static const Where op;
    return op;
}

}  // namespace wgx::ops
