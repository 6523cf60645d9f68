// fuse_rms_norm: the six calls of a decomposed RMSNorm become one et_vk.rms_norm, in either
// operand order of the products; near misses are left alone. (The op's numbers are tested on the
// GPU by the unit tests, and the LLM fixtures' plain programs run fused against PyTorch.)
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "graph/graph_check.h"
#include "graph/memory_plan.h"
#include "graph/passes/fuse_rms_norm.h"
#include "graph_compare.h"

namespace wgx::graph {
namespace {

// Float32 activations [1, 5, 8], their per-row [1, 5, 1] statistics, constants.
struct Builder {
    Graph g;
    std::shared_ptr<std::vector<uint8_t>> bytes = std::make_shared<std::vector<uint8_t>>();
    std::vector<std::pair<size_t, size_t>> spans;

    int32_t add(Value v) {
        g.values.push_back(std::move(v));
        return int32_t(g.values.size() - 1);
    }
    int32_t tensor(std::vector<int64_t> dims) {
        return add(Tensor{DType::f32, std::move(dims), -1, -1, false, ""});
    }
    int32_t row() { return tensor({1, 5, 8}); }
    int32_t stat() { return tensor({1, 5, 1}); }
    int32_t constant(std::vector<float> v, std::vector<int64_t> dims) {
        const size_t at = bytes->size();
        bytes->resize(at + v.size() * 4);
        std::memcpy(bytes->data() + at, v.data(), v.size() * 4);
        spans.emplace_back(at, v.size() * 4);
        return add(Tensor{DType::f32, std::move(dims), int32_t(spans.size() - 1), -1, false, ""});
    }
    void call(std::string name, std::vector<int32_t> args) {
        g.chain.push_back({std::move(name), std::move(args), uint32_t(g.chain.size())});
    }
    Graph& finish(std::vector<int32_t> inputs, std::vector<int32_t> outputs) {
        g.storage.push_back(bytes);
        for (auto [at, n] : spans) g.constants.push_back({std::span(*bytes).subspan(at, n), "c"});
        g.input_ids = std::move(inputs);
        g.output_ids = std::move(outputs);
        return g;
    }
};

// The norm as ExecuTorch's Llama writes it; `vary` changes one detail of it.
struct Norm {
    bool weight_first = false, rsqrt_first = false, keepdim = true;
    int64_t dim = -1;
    std::vector<int64_t> weight_dims{8};
    bool extra_reader = false;  // the mean is also a graph output
};

struct Built {
    Builder b;
    int32_t x = -1, w = -1, out = -1;
};

std::unique_ptr<Built> build(const Norm& n) {
    auto t = std::make_unique<Built>();
    Builder& b = t->b;
    t->x = b.row();
    t->w = b.constant(std::vector<float>(size_t(n.weight_dims[0]), 1.5f), n.weight_dims);
    const int32_t eps = b.constant({1e-5f}, {});
    const int32_t sq = b.row(), mean = n.keepdim ? b.stat() : b.tensor({1, 5}), plus = b.stat(),
                  r = b.stat(), scaled = b.row();
    t->out = b.row();
    b.call("aten.mul.Tensor", {t->x, t->x, sq});
    b.call("aten.mean.dim",
           {sq, b.add(IntList{{n.dim}}), b.add(Bool{n.keepdim}), b.add(Null{}), mean});
    b.call("aten.add.Tensor", {mean, eps, b.add(Int{1}), plus});
    b.call("aten.rsqrt.default", {plus, r});
    b.call("aten.mul.Tensor",
           n.rsqrt_first ? std::vector{r, t->x, scaled} : std::vector{t->x, r, scaled});
    b.call("aten.mul.Tensor",
           n.weight_first ? std::vector{t->w, scaled, t->out} : std::vector{scaled, t->w, t->out});
    std::vector<int32_t> outputs{t->out};
    if (n.extra_reader) outputs.push_back(mean);
    b.finish({t->x}, outputs);
    return t;
}

std::vector<std::string> names(const Graph& g) {
    std::vector<std::string> out;
    for (const OpCall& op : g.chain) out.push_back(op.name);
    return out;
}

TEST(FuseRmsNorm, EveryOperandOrder) {
    for (bool weight_first : {false, true}) {
        for (bool rsqrt_first : {false, true}) {
            for (int64_t dim : {-1, 2}) {
                auto t = build({weight_first, rsqrt_first, true, dim});
                Graph& g = t->b.g;
                EXPECT_EQ(fuse_rms_norm(g), 1u);
                ASSERT_EQ(names(g), std::vector<std::string>{"et_vk.rms_norm.default"});
                const auto& args = g.chain[0].args;
                ASSERT_EQ(args.size(), 4u);
                EXPECT_EQ(args[0], t->x);
                EXPECT_EQ(args[1], t->w);
                EXPECT_NEAR(std::get<Double>(g.values[size_t(args[2])]).value, 1e-5, 1e-12);
                EXPECT_EQ(args[3], t->out);
                check_graph(g, "fused");
                assign_memory_pools(g);
                test::expect_pools_disjoint(g);
            }
        }
    }
}

TEST(FuseRmsNorm, NearMissesStay) {
    const std::vector<std::pair<const char*, Norm>> misses = {
        {"mean without keepdim", {false, false, false, -1}},
        {"mean over another dim", {false, false, true, 1}},
        {"weight of another size", {false, false, true, -1, {4}}},
        {"mean read elsewhere", {false, false, true, -1, {8}, true}},
    };
    for (const auto& [what, n] : misses) {
        auto t = build(n);
        EXPECT_EQ(fuse_rms_norm(t->b.g), 0u) << what;
        EXPECT_EQ(t->b.g.chain.size(), 6u) << what;
    }
}

}  // namespace
}  // namespace wgx::graph
