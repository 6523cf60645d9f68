// aten.squeeze_copy.dims / .dim / .default: out = self without the listed dims of size 1
// (listed dims of another size stay, as in PyTorch; .default drops every dim of size 1).
// Args: [self, dims, out], [self, dim, out] or [self, out]. A buffer copy.
#include <fmt/format.h>

#include <algorithm>

#include "ops/common/dims.h"
#include "ops/registry.h"
#include "ops/shape/strided_copy.h"

namespace wgx::ops {
namespace {

class SqueezeCopy final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten.squeeze_copy.dims"; }
    bool accepts_float16() const override { return true; }
    std::vector<std::string_view> aliases() const override {
        return {"aten.squeeze_copy.dim", "aten.squeeze_copy.default"};
    }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(2, 3);
        const Tensor& self = args.tensor(0, "self");
        const Tensor& out = args.tensor(args.size() - 1, "out");
        std::vector<int64_t> dims;
        if (args.size() == 3 && !args.is_none(1)) {
            dims = wrap_dims(args, int_list_arg(args, 1, "dims"), self.rank(), "dims");
        } else {
            for (int64_t d = 0; d < self.rank(); ++d) dims.push_back(d);
        }
        Shape shape;
        for (int64_t d = 0; d < self.rank(); ++d) {
            bool drop =
                self.shape()[d] == 1 && std::find(dims.begin(), dims.end(), d) != dims.end();
            if (!drop) shape.push_back(self.shape()[d]);
        }
        expect_shape(args, out, shape, "out");
        record_reshape_copy(rec, args, self, out);
    }
};

}  // namespace

const Op& squeeze_copy_op() {
    static const SqueezeCopy op;
    return op;
}

}  // namespace wgx::ops
