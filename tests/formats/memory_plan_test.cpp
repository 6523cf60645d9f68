// assign_memory_pools: lifetimes never overlap within a pool, boundaries get their own pools,
// existing ids are kept.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

#include "graph_compare.h"
#include "program/graph_check.h"
#include "program/memory_plan.h"

namespace wgx::program {
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

}  // namespace
}  // namespace wgx::program
