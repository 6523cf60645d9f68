// aten.alias_copy.default (and aten.alias.default): out = self. Args: [self, out]. A buffer copy.
#include "ops/common/dims.h"
#include "ops/registry.h"
#include "ops/shape/strided_copy.h"

namespace wgx::ops {
namespace {

class AliasCopy final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten.alias_copy.default"; }
    bool accepts_float16() const override { return true; }
    std::vector<std::string_view> aliases() const override { return {"aten.alias.default"}; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(2, 2);
        const Tensor& self = args.tensor(0, "self");
        const Tensor& out = args.tensor(1, "out");
        expect_shape(args, out, self.shape(), "out");
        record_reshape_copy(rec, args, self, out);
    }
};

}  // namespace

const Op& alias_copy_op() {
    static const AliasCopy op;
    return op;
}

}  // namespace wgx::ops
