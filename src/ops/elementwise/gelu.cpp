// aten.gelu.default: x * Phi(x). Args: [self, approximate?, out]; approximate is "none"
// (exact, through erf, which WGSL lacks: see common/math.wgsl) or "tanh".
#include <fmt/format.h>

#include "ops/elementwise/unary.h"
#include "ops/registry.h"

namespace wgx::ops {
namespace {

class Gelu final : public Op {
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
            spec.apply = "return 0.5 * x * (1.0 + erf_approx(x * 0.70710678118654752));";
        } else if (approximate == "tanh") {
            spec.apply =
                "return 0.5 * x * (1.0 + safe_tanh(0.79788456080286536 * (x + 0.044715 * x * x * "
                "x)));";
        } else {
            args.fail(fmt::format("approximate must be \"none\" or \"tanh\", got \"{}\".",
                                  approximate));
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
