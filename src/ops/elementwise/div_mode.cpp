// aten.div.Tensor_mode: self / other rounded as `rounding_mode` says: none (true division,
// floats only), "trunc" (toward zero) or "floor" (toward -inf, Python's //). Integers keep
// their dtype with "trunc" and "floor". Args: [self, other, rounding_mode?, out].
#include <fmt/format.h>

#include "ops/elementwise/binary.h"
#include "ops/registry.h"

namespace wgx::ops {
namespace {

class DivMode final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten.div.Tensor_mode"; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(4, 4);
        std::string mode = "none";
        if (!args.is_none(2)) {
            const auto* s = std::get_if<std::string>(&args[2].value());
            if (s == nullptr) args.fail("argument 2 (rounding_mode) must be a string or none.");
            mode = *s;
        }
        const Tensor& a = args.tensor(0, "self");
        bool integer = storage_dtype(a.dtype()) == DType::i32;
        BinarySpec spec{name(), "", /*float_only=*/mode == "none"};
        if (mode == "none") {
            spec.apply = "return x / y;";
        } else if (mode == "trunc") {
            spec.apply = integer ? "return x / y;" : "return trunc(x / y);";
        } else if (mode == "floor") {
            // WGSL's integer division truncates; step down when the remainder is nonzero and
            // its sign differs from the divisor's. (The remainder is computed explicitly: an
            // NVIDIA driver got `x % y` with negative operands wrong here.)
            spec.apply = integer ? "let q = x / y; let r = x - q * y; "
                                   "return select(q, q - 1, r != 0 && ((r < 0) != (y < 0)));"
                                 : "return floor(x / y);";
        } else {
            args.fail(fmt::format("rounding_mode must be none, \"trunc\" or \"floor\", got \"{}\".",
                                  mode));
        }
        record_binary(rec, spec, a, args.tensor(1, "other"), args.tensor(3, "out"), 1.0f, args);
    }
};

}  // namespace

const Op& div_mode_op() {
    static const DivMode op;
    return op;
}

}  // namespace wgx::ops
