// Row gathers from quantized embedding tables (embedding_quantized.wgsl), one row per form:
//   et_vk.embedding_q4gsw.default, as ExecuTorch's Vulkan partitioner writes `export_llama -E
//     4,G`: [weight uint8 [V, D / 2], weight_scales float32 [V, D / G], group_size G, indices,
//     is_linear_weight (the nibble order: true puts the even column in the low nibble, as a
//     linear layer's weights), out]; symmetric 4-bit values (nibble - 8) * scale.
//   quantized_decomposed.embedding_4bit(.dtype), as the portable path writes -E 4,G (ExecuTorch
//     1.2's Vulkan partitioner leaves it outside the delegate): [weight uint8 [V, D / 2],
//     weight_scales [V, D / G] or [V], weight_zero_points (same shape, float) or none,
//     weight_quant_min -8, weight_quant_max 7, indices, (dtype,) out]; the even column in the
//     high nibble; (nibble - 8 - zero_point) * scale.
//   quantized_decomposed.embedding_byte(.dtype), for -E 8,G: the same with int8 or uint8 values
//     [V, D], (value - zero_point) * scale.
// indices: int32 or int64 of any shape; out float32 [*indices.shape, D]. An index outside
// [0, V) gives a row of zeros, as aten.embedding does here (embedding.cpp says why).
#include <fmt/format.h>

#include "ops/common/dims.h"
#include "ops/op_table.h"
#include "ops/quant/embedding_quantized.wgsl.h"
#include "ops/registry.h"

namespace wgx::ops {
namespace {

struct EmbeddingQParams {
    uint32_t total, dim, rows, groups;
    uint32_t group, pad0, pad1, pad2;
};
static_assert(sizeof(EmbeddingQParams) == 32);

enum class Form { vulkan_q4gsw, decomposed_4bit, decomposed_byte };

struct EmbeddingRow {
    const char* name;
    Form form;
    bool dtype_arg;  // the .dtype overload: one more argument before out
};

constexpr EmbeddingRow kEmbeddingOps[] = {
    {"et_vk.embedding_q4gsw.default", Form::vulkan_q4gsw, false},
    {"quantized_decomposed.embedding_4bit.default", Form::decomposed_4bit, false},
    {"quantized_decomposed.embedding_4bit.dtype", Form::decomposed_4bit, true},
    {"quantized_decomposed.embedding_byte.default", Form::decomposed_byte, false},
    {"quantized_decomposed.embedding_byte.dtype", Form::decomposed_byte, true},
};

struct EmbeddingCall {
    const Tensor* weight;
    const Tensor* scales;
    std::optional<Tensor> zero_points;
    const Tensor* indices;
    const Tensor* out;
    int64_t group = 0;  // 0: from the scales' shape
    bool low_first = false;
};

class EmbeddingQuantized final : public BuiltinOp {
  public:
    constexpr EmbeddingQuantized(const EmbeddingRow& row) : row_(row) {}
    std::string_view name() const override { return row_.name; }

    void record(Recorder& rec, const Args& args) const override {
        EmbeddingCall c;
        if (row_.form == Form::vulkan_q4gsw) {
            args.expect_count(5, 6);
            c = {&args.tensor(0, "weight"),
                 &args.tensor(1, "weight_scales"),
                 std::nullopt,
                 &args.tensor(3, "indices"),
                 &args.tensor(args.size() - 1, "out"),
                 args.integer(2, "group_size"),
                 args.size() == 6 && args.boolean(4, "is_linear_weight")};
        } else {
            const size_t n = row_.dtype_arg ? 8 : 7;
            args.expect_count(n, n);
            c = {&args.tensor(0, "weight"), &args.tensor(1, "weight_scales"),
                 args.optional_tensor(2, "weight_zero_points"), &args.tensor(5, "indices"),
                 &args.tensor(n - 1, "out")};
            if (row_.dtype_arg) {
                const auto dtype = optional_scalar_type_arg(args, 6, "dtype");
                if (dtype && *dtype != DType::f32) args.fail("dtype must be float32 or none.");
            }
            const int64_t qmin = args.integer(3, "weight_quant_min");
            const int64_t qmax = args.integer(4, "weight_quant_max");
            if (row_.form == Form::decomposed_4bit && (qmin != -8 || qmax != 7)) {
                args.fail(
                    fmt::format("expects weight_quant_min -8 and weight_quant_max 7 (4-bit "
                                "values stored as nibble - 8), got {} and {}.",
                                qmin, qmax));
            }
        }
        record_gather(rec, args, c);
    }

  private:
    void record_gather(Recorder& rec, const Args& args, const EmbeddingCall& c) const {
        const Tensor &weight = *c.weight, &scales = *c.scales, &indices = *c.indices;
        const Tensor& out = *c.out;
        const bool four_bit = row_.form != Form::decomposed_byte;
        if (four_bit) {
            expect_dtype(args, weight, DType::u8, "weight");
        } else if (weight.dtype() != DType::i8 && weight.dtype() != DType::u8) {
            args.fail(
                fmt::format("weight must be int8 or uint8, got {}.", dtype_name(weight.dtype())));
        }
        expect_dtype(args, scales, DType::f32, "weight_scales");
        expect_dtype(args, out, DType::f32, "out");
        if (weight.rank() != 2) {
            args.fail(fmt::format("weight must be 2-D [num_embeddings, {}], got {}.",
                                  four_bit ? "embedding_dim / 2" : "embedding_dim",
                                  shape_string(weight.shape())));
        }
        if (indices.dtype() != DType::i64 && indices.dtype() != DType::i32) {
            args.fail(fmt::format("indices must be int64 or int32, got {}.",
                                  dtype_name(indices.dtype())));
        }
        const int64_t V = weight.shape()[0], D = weight.shape()[1] * (four_bit ? 2 : 1);
        if (scales.rank() < 1 || scales.rank() > 2 || scales.shape()[0] != V) {
            args.fail(fmt::format("weight_scales {} must be [{}] or [{}, groups].",
                                  shape_string(scales.shape()), V, V));
        }
        const int64_t groups = scales.rank() == 2 ? scales.shape()[1] : 1;
        const int64_t G = c.group ? c.group : (groups > 0 && D % groups == 0 ? D / groups : 0);
        if (G < 1 || D % G != 0 || groups * G != D) {
            args.fail(fmt::format(
                "weight_scales {} do not divide the embedding dim {} into "
                "groups{}.",
                shape_string(scales.shape()), D, c.group ? fmt::format(" of {}", c.group) : ""));
        }
        if (c.zero_points) {
            expect_dtype(args, *c.zero_points, DType::f32, "weight_zero_points");
            expect_shape(args, *c.zero_points, scales.shape(), "weight_zero_points");
        }
        Shape want = indices.shape();
        want.push_back(D);
        expect_shape(args, out, want, "out");
        expect_indexable(args, weight, "weight");
        expect_indexable(args, out, "out");
        if (out.numel() == 0) return;

        const EmbeddingQParams p{uint32_t(out.numel()), uint32_t(D), uint32_t(V), uint32_t(groups),
                                 uint32_t(G),           0,           0,           0};
        const uint32_t wg = rec.workgroup_size(128);
        const uint32_t bits = four_bit ? 4 : 8;
        const bool is_signed = weight.dtype() == DType::i8;
        Kernel k = rec.kernel(
            fmt::format("quantized embedding/{}{}{}{}", bits, c.low_first ? " low first" : "",
                        is_signed ? " signed" : "", c.zero_points ? " zp" : ""),
            std::string(wgsl::ops_quant_embedding_quantized),
            {{"WG", double(wg)},
             {"BITS", double(bits)},
             {"LOW_FIRST", c.low_first ? 1.0 : 0.0},
             {"SIGNED", is_signed ? 1.0 : 0.0},
             {"HAS_ZP", c.zero_points ? 1.0 : 0.0}});
        // Without zero points, scales are bound in their place (never read).
        rec.dispatch(
            k, {weight, scales, c.zero_points.value_or(scales), indices, out, Binding::uniform(p)},
            rec.grid_1d(p.total, wg));
    }

    EmbeddingRow row_;
};

}  // namespace

std::span<const Op* const> embedding_quantized_ops() {
    static const OpTable<EmbeddingQuantized> table(kEmbeddingOps);
    return table.ops();
}

}  // namespace wgx::ops
