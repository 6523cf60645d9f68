// assign_memory_pools: lifetimes never overlap within a pool, boundaries get their own pools,
// existing ids are kept, alias groups get one pool and one merged lifetime.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

#include "graph/graph_check.h"
#include "graph/memory_plan.h"
#include "graph_compare.h"
#include "wgx/error.h"

namespace wgx::graph {
namespace {

Tensor activation(int64_t n) { return Tensor{DType::f32, {n}, -1, -1, false, ""}; }

TEST(MemoryPlan, ChainReusesPoolsWithoutOverlap) {
    // x -> a -> b -> c -> d -> out, each op reading the previous tensor.
    Graph g;
    for (int i = 0; i < 6; ++i) g.values.push_back(activation(16));
    for (int i = 0; i < 5; ++i) g.chain.push_back({"aten.relu.default", {i, i + 1}, 0});
    g.input_ids = {0};
    g.output_ids = {5};
    assign_memory_pools(g);
    std::set<int32_t> pools;
    for (const Value& v : g.values) pools.insert(std::get<Tensor>(v).mem_obj_id);
    EXPECT_EQ(pools.count(-1), 0u);
    // Input and output alone; the four intermediates alternate between two pools.
    EXPECT_EQ(pools.size(), 4u);
    EXPECT_NE(std::get<Tensor>(g.values[1]).mem_obj_id, std::get<Tensor>(g.values[2]).mem_obj_id);
    EXPECT_EQ(std::get<Tensor>(g.values[1]).mem_obj_id, std::get<Tensor>(g.values[3]).mem_obj_id);
    test::expect_pools_disjoint(g);
}

TEST(MemoryPlan, KeepsExistingIdsAndConstants) {
    Graph g;
    g.values = {activation(4), Tensor{DType::f32, {4}, -1, 7, false, ""},
                Tensor{DType::f32, {4}, 0, -1, false, ""}, activation(4)};
    g.constants.push_back({});
    g.chain = {{"a", {0, 2, 1}, 0}, {"b", {1, 3}, 0}};
    g.input_ids = {0};
    g.output_ids = {3};
    assign_memory_pools(g);
    EXPECT_EQ(std::get<Tensor>(g.values[1]).mem_obj_id, 7);
    EXPECT_EQ(std::get<Tensor>(g.values[2]).mem_obj_id, -1);  // constants have no pool
    EXPECT_GT(std::get<Tensor>(g.values[0]).mem_obj_id, 7);   // new ids start past old ones
    EXPECT_GT(std::get<Tensor>(g.values[3]).mem_obj_id, 7);
    EXPECT_NE(std::get<Tensor>(g.values[0]).mem_obj_id, std::get<Tensor>(g.values[3]).mem_obj_id);
}

TEST(MemoryPlan, HighExistingIdsAreCompactedNotOverflowed) {
    Graph g;
    g.values = {activation(4), Tensor{DType::f32, {4}, -1, kMaxPoolId, false, ""},
                Tensor{DType::f32, {4}, -1, kMaxPoolId, false, ""}, activation(4), activation(4)};
    // Values 1 and 2 share a pool with disjoint lifetimes ([0, 1] and [2, 3]).
    g.chain = {{"a", {0, 1}, 0}, {"b", {1, 3}, 0}, {"c", {3, 2}, 0}, {"d", {2, 4}, 0}};
    g.input_ids = {0};
    g.output_ids = {4};
    assign_memory_pools(g);
    EXPECT_NO_THROW(check_graph(g, "test"));
    const auto& a = std::get<Tensor>(g.values[1]);
    const auto& b = std::get<Tensor>(g.values[2]);
    EXPECT_EQ(a.mem_obj_id, b.mem_obj_id);  // still sharing
    EXPECT_LT(a.mem_obj_id, kMaxPoolId);
    test::expect_pools_disjoint(g);
}

TEST(MemoryPlan, ValueListMembersStayAlive) {
    // a, b made early, consumed together by cat through a list at the end.
    Graph g;
    g.values = {activation(4), activation(4),     activation(4),
                activation(4), ValueList{{1, 2}}, activation(8)};
    g.chain = {{"p", {0, 1}, 0}, {"q", {0, 2}, 0}, {"r", {0, 3}, 0}, {"cat", {4, 5}, 0}};
    g.input_ids = {0};
    g.output_ids = {5};
    assign_memory_pools(g);
    EXPECT_NE(std::get<Tensor>(g.values[1]).mem_obj_id, std::get<Tensor>(g.values[2]).mem_obj_id);
    test::expect_pools_disjoint(g);
}

// Linear-ish time: many overlapping tensors and a long list shared by many ops.
TEST(MemoryPlan, LargeGraphsStayFast) {
    Graph g;
    constexpr int kTensors = 100000;
    for (int i = 0; i < kTensors; ++i) g.values.push_back(activation(1 + i % 7));
    ValueList all;
    for (int i = 1; i < kTensors; ++i) all.items.push_back(i);
    g.values.push_back(all);
    const int list = kTensors;
    for (int i = 1; i < kTensors; ++i) g.chain.push_back({"make", {0, i}, 0});
    for (int i = 0; i < 1000; ++i) g.chain.push_back({"use", {list, 0}, 0});
    g.input_ids = {0};
    assign_memory_pools(g);
    // Every tensor is alive until the last use of the list: no two may share.
    std::set<int32_t> pools;
    for (int i = 1; i < kTensors; ++i) pools.insert(std::get<Tensor>(g.values[i]).mem_obj_id);
    EXPECT_EQ(pools.size(), static_cast<size_t>(kTensors - 1));
}

// Alias groups (one storage under several shapes, Graph::alias_groups) are placed as one unit.

TEST(MemoryPlan, AliasGroupSharesOnePool) {
    // x -> a; v is a view of a (the reshape call already gone); v -> out.
    Graph g;
    for (int i = 0; i < 4; ++i) g.values.push_back(activation(12));
    g.chain = {{"aten.relu.default", {0, 1}, 0}, {"aten.relu.default", {2, 3}, 1}};
    g.input_ids = {0};
    g.output_ids = {3};
    g.alias_groups = {{1, 2}};
    assign_memory_pools(g);
    const int32_t pool = std::get<Tensor>(g.values[1]).mem_obj_id;
    EXPECT_GE(pool, 0);
    EXPECT_EQ(std::get<Tensor>(g.values[2]).mem_obj_id, pool);
    EXPECT_NE(std::get<Tensor>(g.values[0]).mem_obj_id, pool);
    EXPECT_NE(std::get<Tensor>(g.values[3]).mem_obj_id, pool);
    EXPECT_NO_THROW(check_graph(g, "test"));
}

TEST(MemoryPlan, AliasGroupLifetimesAreMerged) {
    // a (written by op 0, read by nobody else) and its view v (read by op 3) are one storage,
    // alive over ops 0..3. Member by member, a would be dead after op 0 and t, u (same size,
    // alive over ops 1..3) could take its pool, overwriting v's data before op 3 reads it.
    Graph g;
    for (int i = 0; i < 6; ++i) g.values.push_back(activation(12));
    const int32_t x = 0, a = 1, v = 2, t = 3, u = 4, out = 5;
    g.chain = {{"aten.relu.default", {x, a}, 0},
               {"aten.relu.default", {x, t}, 1},
               {"aten.relu.default", {t, u}, 2},
               {"aten.add.Tensor", {v, u, out}, 3}};
    g.input_ids = {x};
    g.output_ids = {out};
    g.alias_groups = {{a, v}};
    assign_memory_pools(g);
    const int32_t pool = std::get<Tensor>(g.values[a]).mem_obj_id;
    EXPECT_EQ(std::get<Tensor>(g.values[v]).mem_obj_id, pool);
    EXPECT_NE(std::get<Tensor>(g.values[t]).mem_obj_id, pool);
    EXPECT_NE(std::get<Tensor>(g.values[u]).mem_obj_id, pool);
    test::expect_pools_disjoint(g);
}

TEST(MemoryPlan, AliasGroupPoolIsFreeOnceTheGroupIsDead) {
    // x -> a, v = view(a) read by op 1 -> b -> c -> out: the group lives over ops 0..1, so c
    // (made by op 2) may reuse its pool while b (made by op 1, alive with v) may not.
    Graph g;
    for (int i = 0; i < 6; ++i) g.values.push_back(activation(12));
    const int32_t x = 0, a = 1, v = 2, b = 3, c = 4, out = 5;
    g.chain = {{"aten.relu.default", {x, a}, 0},
               {"aten.relu.default", {v, b}, 1},
               {"aten.relu.default", {b, c}, 2},
               {"aten.relu.default", {c, out}, 3}};
    g.input_ids = {x};
    g.output_ids = {out};
    g.alias_groups = {{a, v}};
    assign_memory_pools(g);
    const int32_t pool = std::get<Tensor>(g.values[a]).mem_obj_id;
    EXPECT_NE(std::get<Tensor>(g.values[b]).mem_obj_id, pool);
    EXPECT_EQ(std::get<Tensor>(g.values[c]).mem_obj_id, pool);
    test::expect_pools_disjoint(g);
}

TEST(MemoryPlan, AliasGroupWithAPoolKeepsIt) {
    Graph g;
    for (int i = 0; i < 4; ++i) g.values.push_back(activation(12));
    std::get<Tensor>(g.values[1]).mem_obj_id = 5;
    std::get<Tensor>(g.values[2]).mem_obj_id = 5;
    g.chain = {{"aten.relu.default", {0, 1}, 0}, {"aten.relu.default", {2, 3}, 1}};
    g.input_ids = {0};
    g.output_ids = {3};
    g.alias_groups = {{1, 2}};
    assign_memory_pools(g);
    EXPECT_EQ(std::get<Tensor>(g.values[1]).mem_obj_id, 5);
    EXPECT_EQ(std::get<Tensor>(g.values[2]).mem_obj_id, 5);
}

TEST(MemoryPlan, RejectsAliasGroupsThatBreakTheRules) {
    Graph g;
    for (int i = 0; i < 4; ++i) g.values.push_back(activation(12));
    g.chain = {{"aten.relu.default", {0, 1}, 0}, {"aten.relu.default", {2, 3}, 1}};
    g.input_ids = {0};
    g.output_ids = {3};
    g.alias_groups = {{1, 3}};  // a graph output
    EXPECT_THROW(assign_memory_pools(g), LoadError);
    g.alias_groups = {{1, 2}};
    std::get<Tensor>(g.values[2]).dims = {13};  // not the same bytes
    EXPECT_THROW(assign_memory_pools(g), LoadError);
}

TEST(MemoryPlan, RandomGraphsNeverOverlap) {
    std::mt19937 rng(1234);
    for (int trial = 0; trial < 200; ++trial) {
        Graph g;
        const int count = 3 + static_cast<int>(rng() % 40);
        for (int i = 0; i < count; ++i) g.values.push_back(activation(1 + rng() % 64));
        const int ops = 1 + static_cast<int>(rng() % 50);
        for (int op = 0; op < ops; ++op) {
            std::vector<int32_t> args;
            const int n = 1 + static_cast<int>(rng() % 4);
            for (int k = 0; k < n; ++k) args.push_back(static_cast<int32_t>(rng() % count));
            g.chain.push_back({"op", args, 0});
        }
        g.input_ids = {0};
        g.output_ids = {count - 1};
        assign_memory_pools(g);
        test::expect_pools_disjoint(g);
        for (const Value& v : g.values) EXPECT_GE(std::get<Tensor>(v).mem_obj_id, 0);
    }
}

// plan_memory_pools keeps the cheaper of the file's plan and a fresh one: a file that gave
// every intermediate its own pool is replanned, a file whose plan is already tight keeps it.
TEST(MemoryPlan, KeepsTheCheaperOfTheFilesPlanAndAFreshOne) {
    auto chain = [](bool tight) {
        // x -> a -> b -> c -> d -> out; the file's ids: all different, or alternating.
        Graph g;
        for (int i = 0; i < 6; ++i) {
            int32_t id = (i == 0 || i == 5) ? -1 : (tight ? 10 + i % 2 : 10 + i);
            g.values.push_back(Tensor{DType::f32, {16}, -1, id, false, ""});
        }
        for (int i = 0; i < 5; ++i) g.chain.push_back({"aten.relu.default", {i, i + 1}, 0});
        g.input_ids = {0};
        g.output_ids = {5};
        return g;
    };
    Graph wasteful = chain(false);
    Graph kept = wasteful;
    assign_memory_pools(kept);
    plan_memory_pools(wasteful);
    EXPECT_EQ(pool_bytes(kept), 6u * 64);      // input, output, four intermediates
    EXPECT_EQ(pool_bytes(wasteful), 4u * 64);  // intermediates in two pools
    test::expect_pools_disjoint(wasteful);

    Graph tight = chain(true);
    plan_memory_pools(tight);
    EXPECT_EQ(pool_bytes(tight), 4u * 64);
    EXPECT_EQ(std::get<Tensor>(tight.values[1]).mem_obj_id, 11);  // the file's ids stay
    EXPECT_EQ(std::get<Tensor>(tight.values[2]).mem_obj_id, 10);
    test::expect_pools_disjoint(tight);
}

}  // namespace
}  // namespace wgx::graph
