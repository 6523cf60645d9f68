// aten.clone.default: out = a copy of self. Args: [self, memory_format?, out]; tensors are
// contiguous, so every memory format gives the same bytes. A buffer copy.
#include "ops/common/dims.h"
#include "ops/registry.h"
#include "ops/shape/strided_copy.h"

namespace wgx::ops {
namespace {

class Clone final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten.clone.default"; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(2, 3);
        const Tensor& self = args.tensor(0, "self");
        const Tensor& out = args.tensor(args.size() - 1, "out");
        expect_shape(args, out, self.shape(), "out");
        record_reshape_copy(rec, args, self, out);
    }
};

}  // namespace

const Op& clone_op() {
    static const Clone op;
    return op;
}

}  // namespace wgx::ops
