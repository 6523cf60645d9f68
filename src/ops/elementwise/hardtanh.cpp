// aten.hardtanh.default: clamp(x, min_val, max_val) (relu6 is hardtanh(0, 6)).
// Args: [self, min_val = -1, max_val = 1, out].
#include "ops/elementwise/unary.h"
#include "ops/registry.h"

namespace wgx::ops {
namespace {

class Hardtanh final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten.hardtanh.default"; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(2, 4);
        double lo = args.size() > 2 && !args.is_none(1) ? args.number(1, "min_val") : -1.0;
        double hi = args.size() > 3 && !args.is_none(2) ? args.number(2, "max_val") : 1.0;
        UnarySpec spec{name(), "return clamp(x, T(params.p0), T(params.p1));", false};
        record_unary(rec, spec, args.tensor(0, "self"), args.tensor(args.size() - 1, "out"), args,
                     static_cast<float>(lo), static_cast<float>(hi));
    }
};

}  // namespace

const Op& hardtanh_op() {
    static const Hardtanh op;
    return op;
}

}  // namespace wgx::ops
