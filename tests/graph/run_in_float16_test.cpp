// run_in_float16: which values become float16, where conversions go, and that constants are
// converted once. (That programs run this way match PyTorch is tested on the GPU:
// tests/programs Float16Fixtures.)
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/half.h"
#include "graph/graph_check.h"
#include "graph/memory_plan.h"
#include "graph/passes/run_in_float16.h"
#include "graph_compare.h"

namespace wgx::graph {
namespace {

const std::set<std::string> kHalfOps = {"aten.add.Tensor", "aten.cat.default", "aten.mul.Tensor"};

bool accepts(std::string_view name) { return kHalfOps.count(std::string(name)) > 0; }

Tensor f32(std::vector<int64_t> dims, int32_t constant = -1) {
    return Tensor{DType::f32, std::move(dims), constant, -1, false, ""};
}

// x (input) -> t = add(x, w) [float16 op] -> u = sigmoid(t) [float32 op]
//   -> v = cat([t, u]) [float16] -> y = mul(v, v) [float16, an output]
//   -> z = sub(t, c) [float32 op, an output; c a constant only it reads]
struct Chain {
    enum : int32_t { x, w, alpha, t, u, list, dim, v, y, c, z, count };
    Graph g;
    std::vector<float> w_values = {1.5f, -2.25f, 1e5f, 3e-8f, 0.1f, 3.0f};
    Chain() {
        g.values.resize(count);
        g.values[x] = f32({2, 3});
        g.values[w] = f32({2, 3}, 0);
        g.values[alpha] = Int{1};
        g.values[t] = f32({2, 3});
        g.values[u] = f32({2, 3});
        g.values[list] = ValueList{{t, u}};
        g.values[dim] = Int{0};
        g.values[v] = f32({4, 3});
        g.values[y] = f32({4, 3});
        g.values[c] = f32({1}, 1);
        g.values[z] = f32({2, 3});
        auto bytes = std::make_shared<std::vector<uint8_t>>(4 * 7);
        std::memcpy(bytes->data(), w_values.data(), 4 * 6);
        float c_value = 0.5f;
        std::memcpy(bytes->data() + 24, &c_value, 4);
        g.storage.push_back(bytes);
        g.constants = {{std::span<const uint8_t>(*bytes).first(24), "w"},
                       {std::span<const uint8_t>(*bytes).last(4), "c"}};
        g.chain = {{"aten.add.Tensor", {x, w, alpha, t}, 1},
                   {"aten.sigmoid.default", {t, u}, 2},
                   {"aten.cat.default", {list, dim, v}, 3},
                   {"aten.mul.Tensor", {v, v, y}, 4},
                   {"aten.sub.Tensor", {t, c, alpha, z}, 5}};
        g.input_ids = {x};
        g.output_ids = {y, z};
        g.origin = "float16 chain";
    }
};

const Tensor& tensor(const Graph& g, int32_t id) { return std::get<Tensor>(g.values[id]); }

TEST(RunInFloat16, ConversionsSitWhereFloat16MeetsFloat32) {
    Chain ch;
    Graph& g = ch.g;
    Float16Stats stats = run_in_float16(g, accepts);
    check_graph(g, "after the pass");

    std::vector<std::string> names;
    for (const auto& call : g.chain) names.push_back(call.name);
    const std::string cv = "aten._to_copy.default";
    EXPECT_EQ(names, (std::vector<std::string>{cv, "aten.add.Tensor", cv, "aten.sigmoid.default",
                                               cv, "aten.cat.default", "aten.mul.Tensor", cv,
                                               "aten.sub.Tensor"}));
    EXPECT_EQ(stats.conversions, 4u);
    // The input stays float32 and is converted once before the add.
    EXPECT_EQ(tensor(g, Chain::x).dtype, DType::f32);
    EXPECT_EQ(g.chain[0].args[0], Chain::x);
    int32_t x16 = g.chain[0].args[1];
    EXPECT_EQ(tensor(g, x16).dtype, DType::f16);
    EXPECT_EQ(g.chain[1].args[0], x16);
    // t is written by a float16 op: float16; the sigmoid reads a float32 copy, and so does
    // the sub later (the same copy).
    EXPECT_EQ(tensor(g, Chain::t).dtype, DType::f16);
    int32_t t32 = g.chain[2].args[1];
    EXPECT_EQ(g.chain[2].args[0], Chain::t);
    EXPECT_EQ(tensor(g, t32).dtype, DType::f32);
    EXPECT_EQ(g.chain[3].args[0], t32);
    EXPECT_EQ(g.chain[8].args[0], t32);
    // u is written by the float32 sigmoid: it stays float32, and the cat reads a float16 copy
    // through a new list (the file's list is left as it was).
    EXPECT_EQ(tensor(g, Chain::u).dtype, DType::f32);
    EXPECT_EQ(g.chain[4].args[0], Chain::u);
    int32_t u16 = g.chain[4].args[1];
    int32_t new_list = g.chain[5].args[0];
    EXPECT_NE(new_list, Chain::list);
    EXPECT_EQ(std::get<ValueList>(g.values[new_list]).items, (std::vector<int32_t>{Chain::t, u16}));
    EXPECT_EQ(std::get<ValueList>(g.values[Chain::list]).items,
              (std::vector<int32_t>{Chain::t, Chain::u}));
    // y, an output written by the float16 mul, is converted after it; z is written in float32.
    EXPECT_EQ(tensor(g, Chain::v).dtype, DType::f16);
    int32_t y16 = g.chain[6].args[2];
    EXPECT_EQ(tensor(g, y16).dtype, DType::f16);
    EXPECT_EQ(g.chain[7].args, (std::vector<int32_t>{y16, Chain::y}));
    EXPECT_EQ(tensor(g, Chain::y).dtype, DType::f32);
    EXPECT_EQ(tensor(g, Chain::z).dtype, DType::f32);
    EXPECT_EQ(g.output_ids, (std::vector<int32_t>{Chain::y, Chain::z}));

    assign_memory_pools(g);
    check_graph(g, "planned");
    test::expect_pools_disjoint(g);
}

TEST(RunInFloat16, ConstantsReadOnlyByFloat16OpsAreConvertedOnce) {
    Chain ch;
    Graph& g = ch.g;
    Float16Stats stats = run_in_float16(g, accepts);
    const Tensor& w = tensor(g, Chain::w);
    ASSERT_EQ(w.dtype, DType::f16);
    ASSERT_GE(w.constant_id, 0);
    const Constant& c = g.constants[static_cast<size_t>(w.constant_id)];
    ASSERT_EQ(c.bytes.size(), 12u);
    for (size_t k = 0; k < ch.w_values.size(); ++k) {
        uint16_t h;
        std::memcpy(&h, c.bytes.data() + 2 * k, 2);
        EXPECT_EQ(h, float_to_half(ch.w_values[k])) << k;
    }
    EXPECT_TRUE(std::isinf(half_to_float(float_to_half(1e5f))));  // 1e5 exceeds float16's range
    // c is read by the float32 sub only: untouched.
    EXPECT_EQ(tensor(g, Chain::c).dtype, DType::f32);
    EXPECT_EQ(tensor(g, Chain::c).constant_id, 1);
    EXPECT_EQ(stats.constants, 1u);
    EXPECT_EQ(stats.tensors, 3u);  // w, t and v (new values are not counted)
}

TEST(RunInFloat16, NothingChangesWhenNoOpTakesFloat16) {
    Chain ch;
    Graph before = ch.g;
    Float16Stats stats = run_in_float16(ch.g, [](std::string_view) { return false; });
    EXPECT_EQ(stats.conversions, 0u);
    EXPECT_EQ(stats.tensors, 0u);
    test::expect_same_graph(before, ch.g);
}

// A state (a cache written in place, as a plain export's update_cache or copy_ writes it) is
// written in its own buffer, never in a converted copy: in float16 only when every op writing
// it in place takes float16 (else those ops run in float32), and a reader's conversion of it is
// made again after each in-place write.
//   y1 = mul(cache, cache);  update_cache(x, cache, 0, dummy);  [copy_(cache, x2)];
//   y2 = mul(cache, cache)
struct StateChain {
    enum : int32_t { x, cache, start, dummy, y1, y2, x2, flag, count };
    Graph g;
    explicit StateChain(bool with_copy) {
        g.values.resize(count);
        g.values[x] = f32({1, 2, 3});
        g.values[cache] = f32({1, 8, 3});
        g.values[start] = Int{0};
        g.values[dummy] = f32({1});
        g.values[y1] = f32({1, 8, 3});
        g.values[y2] = f32({1, 8, 3});
        g.values[x2] = f32({1, 8, 3});
        g.values[flag] = Bool{false};
        g.chain = {{"aten.mul.Tensor", {cache, cache, y1}, 1},
                   {"llama.update_cache.default", {x, cache, start, dummy}, 2}};
        if (with_copy) g.chain.push_back({"aten.copy_.default", {cache, x2, flag, cache}, 3});
        g.chain.push_back({"aten.mul.Tensor", {cache, cache, y2}, 4});
        g.input_ids = with_copy ? std::vector<int32_t>{x, x2} : std::vector<int32_t>{x};
        g.output_ids = {y1, y2};
    }
    const OpCall& call(std::string_view name) const {
        for (const OpCall& c : g.chain) {
            if (c.name == name) return c;
        }
        throw std::runtime_error("no call");
    }
    DType dtype(int32_t id) const { return std::get<Tensor>(g.values[size_t(id)]).dtype; }
};

TEST(RunInFloat16, AStateWrittenByAFloat32OpStaysFloat32AndIsReconvertedAfterEachWrite) {
    StateChain s(false);
    run_in_float16(s.g, accepts);  // mul takes float16, update_cache does not
    EXPECT_EQ(s.dtype(StateChain::cache), DType::f32);
    EXPECT_EQ(s.call("llama.update_cache.default").args[1], StateChain::cache);
    // Each mul reads its own conversion, made after the write before it.
    int conversions_of_cache = 0;
    for (const OpCall& c : s.g.chain) {
        if (c.name == "aten._to_copy.default" && c.args[0] == StateChain::cache) {
            ++conversions_of_cache;
        }
    }
    EXPECT_EQ(conversions_of_cache, 2);
}

TEST(RunInFloat16, AStateWhoseWritersAllTakeFloat16IsFloat16) {
    StateChain s(false);
    run_in_float16(s.g, [](std::string_view n) {
        return n == "aten.mul.Tensor" || n == "llama.update_cache.default";
    });
    EXPECT_EQ(s.dtype(StateChain::cache), DType::f16);
    EXPECT_EQ(s.call("llama.update_cache.default").args[1], StateChain::cache);
    EXPECT_EQ(s.call("aten.mul.Tensor").args[0], StateChain::cache);
}

TEST(RunInFloat16, OneFloat32WriterKeepsEveryWriterOfTheStateInFloat32) {
    StateChain s(true);  // copy_ does not take float16 here: update_cache must not either
    run_in_float16(s.g, [](std::string_view n) {
        return n == "aten.mul.Tensor" || n == "llama.update_cache.default";
    });
    EXPECT_EQ(s.dtype(StateChain::cache), DType::f32);
    const OpCall& update = s.call("llama.update_cache.default");
    EXPECT_EQ(update.args[1], StateChain::cache);
    EXPECT_EQ(s.dtype(update.args[0]), DType::f32);  // its value is not converted to float16
    EXPECT_EQ(s.call("aten.copy_.default").args[0], StateChain::cache);
}

}  // namespace
}  // namespace wgx::graph
