// aten.embedding.default: out = weight[indices] (one row of weight per index).
// Args: [weight [V, D], indices (any shape, int64 or int32), padding_idx, scale_grad_by_freq,
// sparse, out (indices.shape + [D])]. padding_idx, scale_grad_by_freq and sparse change only
// the gradient, so they are read for their kinds and otherwise ignored.
// weight and out: float32, float16 or int32/int64 (stored as int32).
//
// An index outside [0, V) writes a row of zeros. PyTorch raises there, which a kernel cannot;
// zeros keep the read in bounds and make the bad row stand out, where clamping would pass off
// the first or last token's embedding as a plausible answer.
//
// A weight larger than one storage binding (maxStorageBufferBindingSize, 128 MiB by default: a
// 1B-parameter model's fp32 table is about 1 GB) is bound in ranges of rows, one dispatch each
// (ops/common/row_split.h); only maxBufferSize, checked when the table is allocated, bounds it.
#include <fmt/format.h>

#include "ops/common/dims.h"
#include "ops/common/float16_support.h"
#include "ops/common/row_split.h"
#include "ops/llm/embedding.h"
#include "ops/llm/embedding.wgsl.h"
#include "ops/registry.h"

namespace wgx::ops {
namespace {

struct EmbeddingParams {
    uint32_t total, dim, rows, count;
    uint32_t first, part_rows, pad0, pad1;  // the rows of the table this dispatch binds
};
static_assert(sizeof(EmbeddingParams) == 32);

class Embedding final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten.embedding.default"; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(6, 6);
        const Tensor& weight = args.tensor(0, "weight");
        const Tensor& indices = args.tensor(1, "indices");
        if (!args.is_none(2)) args.integer(2, "padding_idx");
        args.boolean(3, "scale_grad_by_freq");
        args.boolean(4, "sparse");
        const Tensor& out = args.tensor(5, "out");

        const DType wst = storage_dtype(weight.dtype());
        if (wst != DType::f32 && wst != DType::f16 && wst != DType::i32) {
            args.fail(fmt::format("weight must be float32, float16 or int32/int64, got {}.",
                                  dtype_name(weight.dtype())));
        }
        expect_float16_support(rec, args, weight.dtype());
        if (weight.rank() != 2) {
            args.fail(fmt::format("weight must be 2-D [num_embeddings, embedding_dim], got {}.",
                                  shape_string(weight.shape())));
        }
        if (indices.dtype() != DType::i64 && indices.dtype() != DType::i32) {
            args.fail(fmt::format("indices must be int64 or int32, got {}.",
                                  dtype_name(indices.dtype())));
        }
        expect_dtype(args, out, weight.dtype(), "out");
        Shape want = indices.shape();
        want.push_back(weight.shape()[1]);
        expect_shape(args, out, want, "out");

        expect_indexable(args, weight, "weight");
        expect_indexable(args, out, "out");

        record_row_gather(rec, name(), weight, indices, out, weight.shape()[0], weight.shape()[1]);
    }
};

}  // namespace

void record_row_gather(Recorder& rec, std::string_view label, const Tensor& table,
                       const Tensor& indices, const Tensor& out, int64_t rows, int64_t row_elems) {
    const uint32_t count = uint32_t(std::max<int64_t>(1, indices.numel()));
    // Only a table of one block (P = 1) has contiguous rows to split; a larger one of several
    // blocks stays whole, and the recording refuses its binding by name.
    const bool one_block = out.numel() == int64_t(count) * row_elems;
    const uint64_t row_bytes = uint64_t(row_elems) * device_size(table.dtype());
    const std::vector<RowRange> parts =
        one_block ? split_rows(rec.device().limits, rows, row_bytes, {},
                               fmt::format("{}: table {} {}", label, dtype_name(table.dtype()),
                                           shape_string(table.shape())))
                  : std::vector<RowRange>{{0, rows}};
    const uint32_t wg = rec.workgroup_size(128);
    Kernel k = rec.kernel(fmt::format("{}/{}", label, wgsl_scalar(table.dtype())),
                          wgsl_alias(table.dtype()) + std::string(wgsl::ops_llm_embedding),
                          {{"WG", double(wg)}});
    for (const RowRange& part : parts) {
        const EmbeddingParams p{uint32_t(out.numel()),
                                uint32_t(row_elems),
                                uint32_t(rows),
                                count,
                                uint32_t(part.first),
                                uint32_t(part.count),
                                0,
                                0};
        const Tensor bound =
            parts.size() == 1 ? table : table.view(part.first * row_elems, {part.count, row_elems});
        rec.dispatch(k, {bound, indices, out, Binding::uniform(p)}, rec.grid_1d(p.total, wg));
    }
}

const Op& embedding_op() {
    static const Embedding op;
    return op;
}

}  // namespace wgx::ops
