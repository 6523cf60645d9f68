// aten._log_softmax.default: out = (self - max) - log(sum(exp(self - max))) along `dim`.
// Args: [self, dim, half_to_float, out]; aten.log_softmax.int ([self, dim, dtype?, out]) too.
#include "ops/reduce/softmax_kernel.h"
#include "ops/registry.h"

namespace wgx::ops {
namespace {

class LogSoftmax final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten._log_softmax.default"; }
    bool accepts_float16() const override { return true; }
    std::vector<std::string_view> aliases() const override { return {"aten.log_softmax.int"}; }
    void record(Recorder& rec, const Args& args) const override { record_softmax(rec, args, true); }
};

}  // namespace

const Op& log_softmax_op() {
    static const LogSoftmax op;
    return op;
}

}  // namespace wgx::ops
