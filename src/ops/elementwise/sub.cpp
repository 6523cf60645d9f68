// aten.sub.Tensor: self - alpha * other, with broadcasting. Args: [self, other, alpha?, out].
#include "ops/elementwise/binary.h"
#include "ops/registry.h"

namespace wgx::ops {
namespace {

class Sub final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten.sub.Tensor"; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(3, 4);
        double alpha = args.size() == 4 && !args.is_none(2) ? args.number(2, "alpha") : 1.0;
        BinarySpec spec{name(), "return x - T(params.alpha) * y;", /*float_only=*/false};
        record_binary(rec, spec, args.tensor(0, "self"), args.tensor(1, "other"),
                      args.tensor(args.size() - 1, "out"), static_cast<float>(alpha), args);
    }
};

}  // namespace

const Op& sub_op() {
    static const Sub op;
    return op;
}

}  // namespace wgx::ops
