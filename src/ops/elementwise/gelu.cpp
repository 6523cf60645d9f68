// aten.gelu.default: x * Phi(x). Args: [self, approximate?, out]; approximate is "none"
// (exact, through erf, which WGSL lacks) or "tanh"; both formulas are in common/math.wgsl.
#include <fmt/format.h>

#include "ops/elementwise/unary.h"
#include "ops/registry.h"

namespace wgx::ops {
namespace {

class Gelu final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten.gelu.default"; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(2, 3);
        std::string approximate = "none";
        if (args.size() == 3 && !args.is_none(1)) {
            const auto* s = std::get_if<std::string>(&args[1].value());
            if (s == nullptr) args.fail("argument 1 (approximate) must be a string.");
            approximate = *s;
        }
        UnarySpec spec{name(), "", true};
        if (approximate == "none") {
            spec.apply = "return gelu_erf(x);";
        } else if (approximate == "tanh") {
            spec.apply = "return gelu_tanh(x);";
        } else {
            args.fail(
                fmt::format("approximate must be \"none\" or \"tanh\", got \"{}\".", approximate));
        }
        record_unary(rec, spec, args.tensor(0, "self"), args.tensor(args.size() - 1, "out"), args);
    }
};

}  // namespace

const Op& gelu_op() {
    static const Gelu op;
    return op;
}

}  // namespace wgx::ops
