// aten.minimum.default: elementwise min; NaN propagates as in PyTorch, with broadcasting. Args: [self, other, out].
#include "ops/elementwise/binary.h"
#include "ops/registry.h"

namespace wgx::ops {
namespace {

class Minimum final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten.minimum.default"; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(3, 3);
        BinarySpec spec{name(), "return min_nan(x, y);", /*float_only=*/false};
        record_binary(rec, spec, args.tensor(0, "self"), args.tensor(1, "other"),
                      args.tensor(2, "out"), 1.0f, args);
    }
};

}  // namespace

const Op& minimum_op() {
    static const Minimum op;
    return op;
}

}  // namespace wgx::ops
