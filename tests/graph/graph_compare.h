// Field-by-field comparison of two Graphs (the IR structs define no operator==).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "graph/graph.h"

namespace wgx::test {

inline bool same_double(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

inline std::string value_difference(const graph::Value& a, const graph::Value& b) {
    using namespace graph;
    if (a.index() != b.index()) return "different kinds";
    if (auto* x = std::get_if<Int>(&a)) return x->value == std::get<Int>(b).value ? "" : "int";
    if (auto* x = std::get_if<SymInt>(&a))
        return x->value == std::get<SymInt>(b).value ? "" : "symint";
    if (auto* x = std::get_if<Bool>(&a)) return x->value == std::get<Bool>(b).value ? "" : "bool";
    if (auto* x = std::get_if<String>(&a))
        return x->value == std::get<String>(b).value ? "" : "string";
    if (auto* x = std::get_if<Double>(&a)) {
        return same_double(x->value, std::get<Double>(b).value) ? "" : "double";
    }
    if (auto* x = std::get_if<IntList>(&a))
        return x->items == std::get<IntList>(b).items ? "" : "int list";
    if (auto* x = std::get_if<BoolList>(&a))
        return x->items == std::get<BoolList>(b).items ? "" : "bool list";
    if (auto* x = std::get_if<ValueList>(&a)) {
        return x->items == std::get<ValueList>(b).items ? "" : "value list";
    }
    if (auto* x = std::get_if<DoubleList>(&a)) {
        const auto& y = std::get<DoubleList>(b);
        if (x->items.size() != y.items.size()) return "double list size";
        for (size_t i = 0; i < x->items.size(); ++i) {
            if (!same_double(x->items[i], y.items[i])) return "double list item";
        }
        return "";
    }
    if (auto* x = std::get_if<Tensor>(&a)) {
        const auto& y = std::get<Tensor>(b);
        if (x->dtype != y.dtype) return "dtype";
        if (x->dims != y.dims) return "dims";
        if (x->constant_id != y.constant_id) return "constant id";
        if (x->mem_obj_id != y.mem_obj_id) return "pool id";
        if (x->dynamic_bound != y.dynamic_bound) return "dynamic bound";
        if (x->name != y.name) return "name";
    }
    return "";
}

inline void expect_same_graph(const graph::Graph& a, const graph::Graph& b) {
    ASSERT_EQ(a.values.size(), b.values.size());
    for (size_t i = 0; i < a.values.size(); ++i) {
        EXPECT_EQ(value_difference(a.values[i], b.values[i]), "") << "value " << i;
    }
    ASSERT_EQ(a.chain.size(), b.chain.size());
    for (size_t i = 0; i < a.chain.size(); ++i) {
        EXPECT_EQ(a.chain[i].name, b.chain[i].name) << "op " << i;
        EXPECT_EQ(a.chain[i].args, b.chain[i].args) << "op " << i;
        EXPECT_EQ(a.chain[i].debug_handle, b.chain[i].debug_handle) << "op " << i;
    }
    EXPECT_EQ(a.input_ids, b.input_ids);
    EXPECT_EQ(a.output_ids, b.output_ids);
    ASSERT_EQ(a.constants.size(), b.constants.size());
    for (size_t i = 0; i < a.constants.size(); ++i) {
        EXPECT_EQ(a.constants[i].key, b.constants[i].key) << "constant " << i;
        EXPECT_TRUE(std::equal(a.constants[i].bytes.begin(), a.constants[i].bytes.end(),
                               b.constants[i].bytes.begin(), b.constants[i].bytes.end()))
            << "constant " << i;
    }
}

// Members of one memory pool never have overlapping lifetimes (first to last use, inclusive).
// Inclusive [first, last] op indices per value, through value lists.
inline std::map<int32_t, std::pair<size_t, size_t>> lifetimes(const graph::Graph& g) {
    std::map<int32_t, std::pair<size_t, size_t>> life;
    auto touch = [&](int32_t id, size_t op) {
        auto [it, inserted] = life.emplace(id, std::make_pair(op, op));
        if (!inserted) it->second.second = op;
    };
    for (size_t op = 0; op < g.chain.size(); ++op) {
        for (int32_t arg : g.chain[op].args) {
            touch(arg, op);
            if (auto* list = std::get_if<graph::ValueList>(&g.values[arg])) {
                for (int32_t item : list->items) touch(item, op);
            }
        }
    }
    return life;
}

// The members of an alias group are one storage: they may overlap each other, and each one
// counts as alive from the first use of any member to the last use of any member.
inline void expect_pools_disjoint(const graph::Graph& g) {
    auto life = lifetimes(g);
    std::map<int32_t, size_t> group_of;
    for (size_t k = 0; k < g.alias_groups.size(); ++k) {
        std::pair<size_t, size_t> merged{SIZE_MAX, 0};
        bool used = false;
        for (int32_t id : g.alias_groups[k]) {
            group_of[id] = k;
            if (auto it = life.find(id); it != life.end()) {
                merged = {std::min(merged.first, it->second.first),
                          std::max(merged.second, it->second.second)};
                used = true;
            }
        }
        if (used) {
            for (int32_t id : g.alias_groups[k]) life[id] = merged;
        }
    }
    std::map<int32_t, std::vector<int32_t>> members;
    for (size_t id = 0; id < g.values.size(); ++id) {
        if (auto* t = std::get_if<graph::Tensor>(&g.values[id]); t && t->mem_obj_id >= 0) {
            members[t->mem_obj_id].push_back(static_cast<int32_t>(id));
        }
    }
    for (const auto& [pool, ids] : members) {
        for (size_t i = 0; i < ids.size(); ++i) {
            for (size_t j = i + 1; j < ids.size(); ++j) {
                auto a = life.find(ids[i]);
                auto b = life.find(ids[j]);
                if (a == life.end() || b == life.end()) continue;
                auto ga = group_of.find(ids[i]), gb = group_of.find(ids[j]);
                if (ga != group_of.end() && gb != group_of.end() && ga->second == gb->second)
                    continue;
                const bool disjoint =
                    a->second.second < b->second.first || b->second.second < a->second.first;
                EXPECT_TRUE(disjoint) << "pool " << pool << " holds values " << ids[i] << " and "
                                      << ids[j] << " with overlapping lifetimes";
            }
        }
    }
}

}  // namespace wgx::test
