// aten.maximum.default: elementwise max; NaN propagates as in PyTorch, with broadcasting. Args: [self, other, out].
#include "ops/elementwise/binary.h"
#include "ops/registry.h"

namespace wgx::ops {
namespace {

class Maximum final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten.maximum.default"; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(3, 3);
        BinarySpec spec{name(), "return max_nan(x, y);", /*float_only=*/false};
        record_binary(rec, spec, args.tensor(0, "self"), args.tensor(1, "other"),
                      args.tensor(2, "out"), 1.0f, args);
    }
};

}  // namespace

const Op& maximum_op() {
    static const Maximum op;
    return op;
}

}  // namespace wgx::ops
