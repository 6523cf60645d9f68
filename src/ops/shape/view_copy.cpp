// aten.view_copy.default (and aten._unsafe_view.default): out = self with a new shape.
// Args: [self, size, out]; size may hold one -1, inferred from the element count. A buffer copy.
#include <fmt/format.h>

#include "ops/common/dims.h"
#include "ops/registry.h"
#include "ops/shape/strided_copy.h"

namespace wgx::ops {
namespace {

class ViewCopy final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten.view_copy.default"; }
    bool accepts_float16() const override { return true; }
    std::vector<std::string_view> aliases() const override { return {"aten._unsafe_view.default"}; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(3, 3);
        const Tensor& self = args.tensor(0, "self");
        std::vector<int64_t> size = int_list_arg(args, 1, "size");
        const Tensor& out = args.tensor(2, "out");
        int infer = -1;
        int64_t known = 1;
        for (size_t i = 0; i < size.size(); ++i) {
            if (size[i] == -1) {
                if (infer >= 0) args.fail("size holds more than one -1.");
                infer = static_cast<int>(i);
            } else if (size[i] < 0) {
                args.fail(fmt::format("size[{}] is {}; sizes are >= 0 or -1.", i, size[i]));
            } else {
                known *= size[i];
            }
        }
        if (infer >= 0 && known > 0 && self.numel() % known == 0)
            size[infer] = self.numel() / known;
        if (product(size) != self.numel() || (infer >= 0 && size[infer] < 0)) {
            args.fail(fmt::format("size {} is invalid for self {} ({} elements).",
                                  shape_string(int_list_arg(args, 1, "size")),
                                  shape_string(self.shape()), self.numel()));
        }
        expect_shape(args, out, size, "out");
        record_reshape_copy(rec, args, self, out);
    }
};

}  // namespace

const Op& view_copy_op() {
    static const ViewCopy op;
    return op;
}

}  // namespace wgx::ops
