// et_vk.prepack.default: out = constant, in the layout a kernel wants. Args: [constant, out].
// The engine keeps the graph's layout, so this is a copy; programs fold it away at load
// (graph/passes/fold_prepack), so it only runs when recorded directly.
#include "ops/common/dims.h"
#include "ops/registry.h"
#include "ops/shape/strided_copy.h"

namespace wgx::ops {
namespace {

class Prepack final : public BuiltinOp {
  public:
    std::string_view name() const override { return "et_vk.prepack.default"; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(2, 2);
        const Tensor& self = args.tensor(0, "constant");
        const Tensor& out = args.tensor(1, "out");
        expect_shape(args, out, self.shape(), "out");
        record_reshape_copy(rec, args, self, out);
    }
};

}  // namespace

const Op& prepack_op() {
    static const Prepack op;
    return op;
}

}  // namespace wgx::ops
