// aten.add.Tensor: out = self + alpha * other, with broadcasting.
// Args: [self, other, alpha?, out] (alpha defaults to 1).
#include "ops/elementwise/binary.h"
#include "ops/registry.h"

namespace wgx::ops {
namespace {

class Add final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten.add.Tensor"; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(3, 4);
        bool has_alpha = args.size() == 4;
        double alpha = has_alpha && !args.is_none(2) ? args.number(2, "alpha") : 1.0;
        BinarySpec spec{name(), "return x + T(params.alpha) * y;"};
        record_binary(rec, spec, args.tensor(0, "self"), args.tensor(1, "other"),
                      args.tensor(args.size() - 1, "out"), static_cast<float>(alpha), args);
    }
};

}  // namespace

const Op& add_op() {
    static const Add op;
    return op;
}

}  // namespace wgx::ops
