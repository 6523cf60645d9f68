// aten.cat.default: out = tensors joined along `dim`. Args: [tensors (list), dim, out]. All
// inputs share out's dtype and rank and match out on every other dim. Every dtype: 32-bit types
// take one dispatch per four inputs (cat.wgsl), and so do narrower ones (float16, bool, ...)
// when every input's slab along `dim` is whole words; otherwise one strided copy per input.
#include <fmt/format.h>

#include <algorithm>

#include "ops/common/dims.h"
#include "ops/registry.h"
#include "ops/shape/cat.wgsl.h"
#include "ops/shape/strided_copy.h"

namespace wgx::ops {
namespace {

class Cat final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten.cat.default"; }
    bool accepts_float16() const override { return true; }

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
        const int64_t lanes = lanes_per_word(out.dtype());
        int64_t inner = 1;
        for (int64_t d = dim + 1; d < out.rank(); ++d) inner *= out.shape()[d];
        const bool whole_words = std::all_of(inputs.begin(), inputs.end(), [&](const Tensor& t) {
            return t.shape()[dim] * inner % lanes == 0;
        });
        if (whole_words) {
            record_grouped(rec, inputs, out, dim, lanes);
            return;
        }
        int64_t offset = 0;
        for (const Tensor& t : inputs) {
            record_scatter_region(rec, name(), t, out, static_cast<int>(dim), offset);
            offset += t.shape()[dim];
        }
    }

  private:
    // Up to four inputs per dispatch (cat.wgsl), moving 32-bit words. Every dispatch costs
    // several microseconds on a GPU however little it moves, and detection necks concatenate
    // two to four tensors at a time. Narrower types (`lanes` elements per word) come here when
    // each input's slab along `dim` (its size there times `inner`) is whole words: then out is
    // [outer, total, inner] words with inner / lanes words per row, or, when `inner` itself
    // does not divide, [outer, total * inner / lanes, 1].
    void record_grouped(Recorder& rec, const std::vector<Tensor>& inputs, const Tensor& out,
                        int64_t dim, int64_t lanes) const {
        struct Params {
            uint32_t numel, inner, total, row_base, rows, count, pad0, pad1;
            uint32_t offsets[4], sizes[4];
        };
        static_assert(sizeof(Params) == 64);
        int64_t outer = 1, inner = 1;
        for (int64_t d = 0; d < dim; ++d) outer *= out.shape()[d];
        for (int64_t d = dim + 1; d < out.rank(); ++d) inner *= out.shape()[d];
        const bool flatten = inner % lanes != 0;  // slabs are whole words, rows are not
        auto rows_of = [&](int64_t size) { return flatten ? size * inner / lanes : size; };
        const int64_t inner_words = flatten ? 1 : inner / lanes;
        const uint32_t wg = rec.workgroup_size(256);
        Kernel k = rec.kernel(fmt::format("{}/cat4", name()), std::string(wgsl::ops_shape_cat),
                              {{"WG", double(wg)}});
        int64_t row_base = 0;
        for (size_t first = 0; first < inputs.size(); first += 4) {
            const size_t count = std::min<size_t>(4, inputs.size() - first);
            Params p{};
            p.inner = uint32_t(inner_words);
            p.total = uint32_t(rows_of(out.shape()[dim]));
            p.row_base = uint32_t(row_base);
            p.count = uint32_t(count);
            int64_t rows = 0;
            for (size_t j = 0; j < count; ++j) {
                p.offsets[j] = uint32_t(rows);
                p.sizes[j] = uint32_t(rows_of(inputs[first + j].shape()[dim]));
                rows += rows_of(inputs[first + j].shape()[dim]);
            }
            p.rows = uint32_t(rows);
            const uint64_t numel = uint64_t(outer) * uint64_t(rows) * uint64_t(inner_words);
            p.numel = uint32_t(numel);
            row_base += rows;
            if (numel == 0) continue;
            auto in = [&](size_t j) { return inputs[first + (j < count ? j : 0)]; };
            rec.dispatch(k, {in(0), in(1), in(2), in(3), out, Binding::uniform(p)},
                         rec.grid_1d(numel, wg));
        }
    }
};

}  // namespace

const Op& cat_op() {
    static const Cat op;
    return op;
}

}  // namespace wgx::ops
