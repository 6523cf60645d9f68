#include "graph/passes/fuse_conv_epilogue.h"

#include "graph/passes/graph_uses.h"
#include "graph/schema/fused_ops.h"

#include <optional>
#include <string_view>
#include <vector>

namespace wgx::graph {
namespace {

using Conv = schema::Convolution;
constexpr std::string_view kAdd = "aten.add.Tensor";

// A fused call: the convolution's shared arguments, then room for `count` in all.
OpCall fused_conv(std::string_view name, const OpCall& conv, size_t count) {
    OpCall fused;
    fused.name = std::string(name);
    fused.debug_handle = conv.debug_handle;
    fused.args.assign(conv.args.begin(), conv.args.begin() + Conv::prefix);
    fused.args.resize(count, -1);
    return fused;
}

// For the convolution at chain position `i`: its output, when a float32 tensor (or float16,
// with `float16`) that only one later call reads and that is not a graph output, and the
// position of that reader, which must not be rewritten yet. The convolution's input, weight and
// bias must each be written at most once, so the call can move to the reader's place and still
// read the same values.
struct ConvOutput {
    int32_t id;
    const Tensor* tensor;
    size_t reader;
};
std::optional<ConvOutput> conv_with_one_reader(const Graph& g, const Uses& uses,
                                               const ChainEdit& edit, size_t i, bool float16) {
    const OpCall& conv = g.chain[i];
    if (conv.name != Conv::name || conv.args.size() != Conv::count || edit.taken(i)) {
        return std::nullopt;
    }
    const int32_t t = conv.args.back();
    const Tensor* tt = tensor_at(g, t);
    if (!tt || !(tt->dtype == DType::f32 || (float16 && tt->dtype == DType::f16)) ||
        !uses.private_to_one_reader(t)) {
        return std::nullopt;
    }
    for (size_t a : {Conv::input, Conv::weight, Conv::bias}) {
        if (tensor_at(g, conv.args[a]) && uses.write_count(conv.args[a]) > 1) return std::nullopt;
    }
    const size_t j = uses.reader.at(t);
    if (edit.taken(j)) return std::nullopt;
    return ConvOutput{t, tt, j};
}

}  // namespace

size_t fuse_conv_epilogue(Graph& g) {
    const Uses uses = count_uses(g);
    ChainEdit edit(g);

    for (size_t i = 0; i < g.chain.size(); ++i) {
        const auto found = conv_with_one_reader(g, uses, edit, i, /*float16=*/false);
        if (!found) continue;
        const OpCall& conv = g.chain[i];
        const int32_t t = found->id;
        const Tensor* tt = found->tensor;
        // Ungrouped and not transposed: the convolutions that take the GEMM's epilogue.
        const auto* transposed =
            std::get_if<Bool>(&g.values[static_cast<size_t>(conv.args[Conv::transposed])]);
        auto groups = number_at(g, conv.args[Conv::groups]);
        if (!transposed || transposed->value || !groups || *groups != 1) continue;

        const size_t j = found->reader;
        const OpCall& add = g.chain[j];
        if (add.name != kAdd || (add.args.size() != 3 && add.args.size() != 4)) continue;
        if (add.args.size() == 4 && !is_null(g, add.args[2])) {
            auto alpha = number_at(g, add.args[2]);
            if (!alpha || *alpha != 1.0) continue;
        }
        if ((add.args[0] == t) == (add.args[1] == t)) continue;  // t + t, or t not an operand
        const int32_t r = add.args[0] == t ? add.args[1] : add.args[0];
        const Tensor* rt = tensor_at(g, r);
        const int32_t u = add.args.back();
        const Tensor* ut = tensor_at(g, u);
        if (!rt || rt->dtype != DType::f32 || rt->dims != tt->dims || uses.write_count(r) > 1 ||
            !ut || ut->dims != tt->dims || ut->dtype != DType::f32) {
            continue;
        }

        // The activation after the add, when only it reads the sum.
        size_t last = j;
        int32_t out = u;
        ClampBounds bounds;
        if (uses.private_to_one_reader(u)) {
            const size_t k = uses.reader.at(u);
            if (!edit.taken(k)) {
                if (auto b = clamp_bounds(g, g.chain[k]); b && g.chain[k].args[0] == u) {
                    const Tensor* yt = tensor_at(g, g.chain[k].args.back());
                    if (yt && yt->dims == ut->dims && yt->dtype == DType::f32) {
                        last = k;
                        out = g.chain[k].args.back();
                        bounds = *b;
                    }
                }
            }
        }

        using Fused = schema::ConvAddClamp;
        OpCall fused = fused_conv(Fused::name, conv, Fused::count);
        fused.args[Fused::residual] = r;
        fused.args[Fused::output_min] = append_number(g, bounds.lo);
        fused.args[Fused::output_max] = append_number(g, bounds.hi);
        fused.args[Fused::out] = out;
        edit.replace(last == j ? std::vector<size_t>{i, j} : std::vector<size_t>{i, j, last},
                     std::move(fused));
    }
    return edit.apply(g);
}

size_t fuse_conv_activation(Graph& g) {
    const Uses uses = count_uses(g);
    ChainEdit edit(g);

    for (size_t i = 0; i < g.chain.size(); ++i) {
        // Every convolution path (GEMM, depthwise, direct, transposed) applies the activation,
        // in float32 and in float16.
        const auto found = conv_with_one_reader(g, uses, edit, i, /*float16=*/true);
        if (!found) continue;
        const OpCall& conv = g.chain[i];
        const int32_t t = found->id;
        const Tensor* tt = found->tensor;
        const size_t j = found->reader;
        const OpCall& act = g.chain[j];
        const schema::Activation activation = epilogue_activation(act);
        if (activation == schema::Activation::none || act.args[0] != t) continue;
        const int32_t y = act.args[1];
        const Tensor* yt = tensor_at(g, y);
        if (!yt || yt->dims != tt->dims || yt->dtype != tt->dtype) continue;

        using Fused = schema::ConvActivation;
        OpCall fused = fused_conv(Fused::name, conv, Fused::count);
        g.values.push_back(String{std::string(schema::activation_name(activation))});
        fused.args[Fused::activation] = static_cast<int32_t>(g.values.size() - 1);
        fused.args[Fused::out] = y;
        edit.replace({i, j}, std::move(fused));
    }
    return edit.apply(g);
}

}  // namespace wgx::graph
