// wgx.channel_shuffle.default: ShuffleNet's channel shuffle in one dispatch. With x the
// concatenation of `tensors` along `dim` (C channels there), the shuffled tensor y has channel
// i * groups + j = channel j * (C / groups) + i of x (x viewed as [.., groups, C / groups, ..],
// the two dims swapped, viewed back); out is y, or y split along `dim` into pieces of
// split_sizes. Args: [tensors (list), dim, groups, split_sizes (int list or none), out (a
// tensor when split_sizes is none, else a list with one entry per piece; absent entries are
// skipped)].
//
// Made by passes/fuse_channel_shuffle from cat -> view -> permute -> view -> split, which run
// call by call takes a dispatch for the cat, one for the permute and one per piece of the split
// (four in most ShuffleNetV2 blocks). Every dtype, moved as bits (float16 needs no
// shader-f16). Up to four inputs and four outputs take one dispatch; more outputs take one
// dispatch per four, more inputs a concatenation first.
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "graph/schema/fused_ops.h"
#include "ops/common/dims.h"
#include "ops/registry.h"
#include "ops/shape/channel_shuffle.wgsl.h"
#include "ops/shape/strided_copy.h"

namespace wgx::ops {
namespace {

using Schema = schema::ChannelShuffle;

constexpr size_t kSlots =
    4;  // inputs and outputs per dispatch: 8 storage buffers, WebGPU's minimum

struct Params {
    uint32_t threads, inner, groups, per_group;
    uint32_t pad[4];
    uint32_t in_offsets[4], in_sizes[4];
    uint32_t out_offsets[4], out_sizes[4];
    uint32_t out_first[4], out_numel[4];
};
static_assert(sizeof(Params) == 128);
static_assert(offsetof(Params, in_offsets) == 32);

// A piece of the shuffled tensor that a dispatch writes.
struct Piece {
    Tensor tensor;
    int64_t offset = 0;  // first channel in the shuffled tensor
};

// The bindings and binding pickers channel_shuffle.wgsl expects, for this many inputs and outputs.
std::string bindings_wgsl(size_t ins, size_t outs) {
    std::string s =
        fmt::format("const IN_COUNT: u32 = {}u;\nconst OUT_COUNT: u32 = {}u;\n", ins, outs);
    for (size_t j = 0; j < ins; ++j) {
        s += fmt::format("@group(0) @binding({}) var<storage, read> in{}: array<u32>;\n", j, j);
    }
    for (size_t k = 0; k < outs; ++k) {
        s += fmt::format("@group(0) @binding({}) var<storage, read_write> out{}: array<u32>;\n",
                         ins + k, k);
    }
    s += fmt::format("@group(0) @binding({}) var<uniform> params: Params;\n", ins + outs);
    s += "fn load_in(j: u32, at: u32) -> u32 {\n";
    for (size_t j = 1; j < ins; ++j)
        s += fmt::format("    if (j == {}u) {{ return in{}[at]; }}\n", j, j);
    s += "    return in0[at];\n}\n";
    s += "fn load_out(k: u32, at: u32) -> u32 {\n";
    for (size_t k = 1; k < outs; ++k)
        s += fmt::format("    if (k == {}u) {{ return out{}[at]; }}\n", k, k);
    s += "    return out0[at];\n}\n";
    s += "fn store_out(k: u32, at: u32, v: u32) {\n";
    for (size_t k = 1; k < outs; ++k) {
        s += fmt::format("    if (k == {}u) {{ out{}[at] = v; return; }}\n", k, k);
    }
    s += "    out0[at] = v;\n}\n";
    return s;
}

class ChannelShuffle final : public BuiltinOp {
  public:
    std::string_view name() const override { return schema::ChannelShuffle::name; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(Schema::count, Schema::count);
        auto list = args.tensor_list(Schema::tensors, "tensors");
        if (list.empty()) args.fail("tensors is empty.");
        std::vector<Tensor> inputs;
        for (size_t i = 0; i < list.size(); ++i) {
            if (!list[i]) args.fail(fmt::format("tensors[{}] is absent.", i));
            inputs.push_back(*list[i]);
        }
        const Tensor first = inputs[0];
        if (first.rank() == 0)
            args.fail("tensors[0] is zero-dimensional; the shuffle needs a dim.");
        const DType dtype = first.dtype();
        const int64_t dim = wrap_dim(args, args.integer(Schema::dim, "dim"), first.rank(), "dim");

        // The concatenation's shape.
        Shape shape = first.shape();
        shape[dim] = 0;
        for (size_t i = 0; i < inputs.size(); ++i) {
            const Tensor& t = inputs[i];
            const std::string what = fmt::format("tensors[{}]", i);
            expect_dtype(args, t, dtype, what);
            bool match = t.rank() == first.rank();
            for (int64_t d = 0; match && d < first.rank(); ++d) {
                match = d == dim || t.shape()[d] == first.shape()[d];
            }
            if (!match) {
                args.fail(fmt::format("{} has shape {}; expected {} except in dim {}.", what,
                                      shape_string(t.shape()), shape_string(first.shape()), dim));
            }
            expect_indexable(args, t, what);
            shape[dim] += t.shape()[dim];
        }
        const int64_t channels = shape[dim];

        const int64_t groups = args.integer(Schema::groups, "groups");
        if (groups < 1 || channels % groups != 0) {
            args.fail(
                fmt::format("groups ({}) must be positive and divide the {} channels of "
                            "dim {} of the concatenation {}.",
                            groups, channels, dim, shape_string(shape)));
        }

        // The pieces to write: the whole shuffled tensor, or the split's present outputs.
        std::vector<Piece> pieces;
        const auto& out_value = args[Schema::out].value();
        if (args.is_none(Schema::split_sizes)) {
            if (!std::holds_alternative<Tensor>(out_value)) {
                args.fail(fmt::format("out must be a tensor when split_sizes is none, got {}.",
                                      args[Schema::out].describe()));
            }
            const Tensor& out = std::get<Tensor>(out_value);
            expect_dtype(args, out, dtype, "out");
            expect_shape(args, out, shape, "out");
            pieces.push_back({out, 0});
        } else {
            std::vector<int64_t> sizes = int_list_arg(args, Schema::split_sizes, "split_sizes");
            int64_t total = 0;
            for (int64_t s : sizes) {
                if (s < 0) {
                    args.fail(fmt::format("split_sizes {} holds {}; sizes must be >= 0.",
                                          shape_string(sizes), s));
                }
                total += s;
            }
            if (total != channels) {
                args.fail(
                    fmt::format("split_sizes {} add up to {}, but the concatenation {} has "
                                "{} channels in dim {}.",
                                shape_string(sizes), total, shape_string(shape), channels, dim));
            }
            auto outs = args.tensor_list(Schema::out, "out");
            if (outs.size() != sizes.size()) {
                args.fail(fmt::format("out has {} tensors; split_sizes makes {}.", outs.size(),
                                      sizes.size()));
            }
            int64_t offset = 0;
            for (size_t k = 0; k < sizes.size(); ++k) {
                if (outs[k]) {
                    const std::string what = fmt::format("out[{}]", k);
                    Shape piece = shape;
                    piece[dim] = sizes[k];
                    expect_dtype(args, *outs[k], dtype, what);
                    expect_shape(args, *outs[k], piece, what);
                    pieces.push_back({*outs[k], offset});
                }
                offset += sizes[k];
            }
        }
        for (const Piece& p : pieces) expect_indexable(args, p.tensor, "out");

        if (pieces.empty()) return;  // every output absent
        // More than four inputs are concatenated first.
        if (inputs.size() > kSlots) {
            Tensor joined = rec.scratch(dtype, shape);
            Arg::TensorList joined_inputs(inputs.begin(), inputs.end());
            const std::vector<Arg> cat_args = {Arg(joined_inputs), Arg(dim), Arg(joined)};
            cat_op().record(rec, Args(args.op(), cat_args));
            inputs = {joined};
        }

        Params p{};
        int64_t inner = 1;
        for (size_t d = size_t(dim) + 1; d < shape.size(); ++d) inner *= shape[d];
        p.inner = uint32_t(inner);
        p.groups = uint32_t(groups);
        p.per_group = uint32_t(channels / groups);
        int64_t in_offset = 0;
        for (size_t j = 0; j < inputs.size(); ++j) {
            p.in_offsets[j] = uint32_t(in_offset);
            p.in_sizes[j] = uint32_t(inputs[j].shape()[dim]);
            in_offset += inputs[j].shape()[dim];
        }

        const uint32_t lanes = lanes_per_word(dtype);
        const uint32_t wg = rec.workgroup_size(256);
        // Up to four pieces per dispatch, as long as the invocations stay 32-bit indexable
        // (each piece alone does).
        const uint64_t max_threads = std::numeric_limits<int32_t>::max();
        for (size_t at = 0, count = 0; at < pieces.size(); at += count) {
            uint64_t threads = 0;
            for (count = 0; count < kSlots && at + count < pieces.size(); ++count) {
                const Tensor& t = pieces[at + count].tensor;
                const uint64_t words = (uint64_t(t.numel()) + lanes - 1) / lanes;
                if (count > 0 && threads + words > max_threads) break;
                p.out_offsets[count] = uint32_t(pieces[at + count].offset);
                p.out_sizes[count] = uint32_t(t.shape()[dim]);
                p.out_first[count] = uint32_t(threads);
                p.out_numel[count] = uint32_t(t.numel());
                threads += words;
            }
            p.threads = uint32_t(threads);
            Kernel kernel = rec.kernel(
                fmt::format("{}/{}in{}out", name(), inputs.size(), count),
                bindings_wgsl(inputs.size(), count) + std::string(wgsl::ops_shape_channel_shuffle),
                {{"WG", double(wg)}, {"LANES", double(lanes)}});
            std::vector<Binding> bindings(inputs.begin(), inputs.end());
            for (size_t k = 0; k < count; ++k) bindings.emplace_back(pieces[at + k].tensor);
            bindings.push_back(Binding::uniform(p));
            rec.dispatch(kernel, bindings, rec.grid_1d(threads, wg));
        }
    }
};

}  // namespace

const Op& channel_shuffle_op() {
    static const ChannelShuffle op;
    return op;
}

}  // namespace wgx::ops
