// aten.max_pool2d_with_indices.default: max pooling that also returns, per output, the flat
// index h * W + w of the maximum within its input plane (int64, stored as int32).
// Args: [self, kernel_size, stride (empty: kernel_size), padding, dilation, ceil_mode,
//        (out, indices)] with the outputs as one tensor list, or as two trailing tensors.
#include <fmt/format.h>

#include "ops/pool/pool2d.h"
#include "ops/registry.h"

namespace wgx::ops {
namespace {

class MaxPool2dWithIndices final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten.max_pool2d_with_indices.default"; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(7, 8);
        Tensor out, indices;
        if (args.size() == 7) {
            auto outs = args.tensor_list(6, "outputs");
            if (outs.size() != 2 || !outs[0] || !outs[1]) {
                args.fail(
                    fmt::format("argument 6 (outputs) must list 2 tensors (out, indices), "
                                "got {}.",
                                args[6].describe()));
            }
            out = *outs[0];
            indices = *outs[1];
        } else {
            out = args.tensor(6, "out");
            indices = args.tensor(7, "indices");
        }
        record_max_pool2d(rec, args, out, &indices);
    }
};

}  // namespace

const Op& max_pool2d_with_indices_op() {
    static const MaxPool2dWithIndices op;
    return op;
}

}  // namespace wgx::ops
