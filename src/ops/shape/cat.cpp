// aten.cat.default: out = tensors joined along `dim`. Args: [tensors (list), dim, out]. All
// inputs share out's dtype and rank and match out on every other dim. One dispatch per input,
// so no shader binds more than two storage buffers however many inputs there are. Every dtype.
#include <fmt/format.h>

#include "ops/registry.h"
#include "ops/common/dims.h"
#include "ops/shape/strided_copy.h"

namespace wgx::ops {
namespace {

class Cat final : public Op {
  public:
    std::string_view name() const override { return "aten.cat.default"; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(2, 3);
        auto list = args.tensor_list(0, "tensors");
        const Tensor& out = args.tensor(args.size() - 1, "out");
        int64_t raw_dim = args.size() == 3 && !args.is_none(1) ? args.integer(1, "dim") : 0;
        if (list.empty()) args.fail("tensors is empty.");
        std::vector<Tensor> inputs;
        for (size_t i = 0; i < list.size(); ++i) {
            if (!list[i]) args.fail(fmt::format("tensors[{}] is absent.", i));
            inputs.push_back(*list[i]);
        }
        const Tensor& first = inputs[0];
        if (first.rank() == 0) args.fail("tensors[0] is zero-dimensional; cat needs a dim.");
        int64_t dim = wrap_dim(args, raw_dim, first.rank(), "dim");
        Shape shape = first.shape();
        shape[dim] = 0;
        for (size_t i = 0; i < inputs.size(); ++i) {
            const Tensor& t = inputs[i];
            expect_dtype(args, t, out.dtype(), fmt::format("tensors[{}]", i));
            bool match = t.rank() == first.rank();
            for (int64_t d = 0; match && d < first.rank(); ++d) {
                match = d == dim || t.shape()[d] == first.shape()[d];
            }
            if (!match) {
                args.fail(fmt::format("tensors[{}] has shape {}; expected {} except in dim {}.", i,
                                      shape_string(t.shape()), shape_string(first.shape()), dim));
            }
            shape[dim] += t.shape()[dim];
        }
        expect_shape(args, out, shape, "out");
        expect_indexable(args, out, "out");
        int64_t offset = 0;
        for (const Tensor& t : inputs) {
            record_scatter_region(rec, name(), t, out, static_cast<int>(dim), offset);
            offset += t.shape()[dim];
        }
    }
};

}  // namespace

const Op& cat_op() {
    static const Cat op;
    return op;
}

}  // namespace wgx::ops
