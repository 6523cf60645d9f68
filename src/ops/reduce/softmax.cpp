// aten._softmax.default: out = exp(self - max) / sum(exp(self - max)) along `dim`.
// Args: [self, dim, half_to_float, out]; aten.softmax.int ([self, dim, dtype?, out]) too.
#include "ops/reduce/softmax_kernel.h"
#include "ops/registry.h"

namespace wgx::ops {
namespace {

class Softmax final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten._softmax.default"; }
    bool accepts_float16() const override { return true; }
    std::vector<std::string_view> aliases() const override { return {"aten.softmax.int"}; }
    void record(Recorder& rec, const Args& args) const override {
        record_softmax(rec, args, false);
    }
};

}  // namespace

const Op& softmax_op() {
    static const Softmax op;
    return op;
}

}  // namespace wgx::ops
