// aten.logical_not.default: out = (self == 0) as bool. Args: [self, out (bool)].
// Bool input is inverted word by word; float and int inputs compare with 0.
#include <fmt/format.h>

#include "core/dispatch_geometry.h"
#include "ops/elementwise/compare.h"
#include "ops/elementwise/logical_not.wgsl.h"
#include "ops/registry.h"

namespace wgx::ops {
namespace {

struct LogicalParams {
    uint32_t words, pad0, pad1, pad2;
};
static_assert(sizeof(LogicalParams) == 16);

class LogicalNot final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten.logical_not.default"; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(2, 2);
        const Tensor& x = args.tensor(0, "self");
        const Tensor& out = args.tensor(1, "out");
        if (out.dtype() != DType::boolean) {
            args.fail(fmt::format("out must be bool, got {}.", dtype_name(out.dtype())));
        }
        if (x.shape() != out.shape()) {
            args.fail(fmt::format("self {} and out {} must have one shape.",
                                  shape_string(x.shape()), shape_string(out.shape())));
        }
        if (x.dtype() != DType::boolean && x.dtype() != DType::u8 && x.dtype() != DType::i8) {
            const Arg forwarded[] = {x, 0.0, out};
            record_compare(rec, name(), "==", Args(args.op(), forwarded));
            return;
        }
        LogicalParams p{static_cast<uint32_t>(ceil_div(out.numel(), 4)), 0, 0, 0};
        uint32_t wg = rec.workgroup_size(256);
        Kernel k = rec.kernel(name(), std::string(wgsl::ops_elementwise_logical_not),
                              {{"WG", double(wg)}});
        rec.dispatch(k, {x, out, Binding::uniform(p)}, rec.grid_1d(p.words, wg));
    }
};

}  // namespace

const Op& logical_not_op() {
    static const LogicalNot op;
    return op;
}

}  // namespace wgx::ops
