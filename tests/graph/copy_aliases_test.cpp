// alias_reshapes on the copies that keep their input's bytes in order: permute_copy that moves
// only size-1 dims, select_copy.int on a dim of size 1, clone and _clone_dim_order that keep
// the shape and layout. Each is aliased where the alias rules allow and stays a copy where
// not (wrong order, other bytes, boundary values, values written twice, malformed arguments);
// pass + planner give the same outputs as a buffer per value (copy_interpreter.h), for
// hand-made and random graphs. (tests/unit/program_copy_alias_test.cpp runs them on the GPU.)
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "copy_interpreter.h"
#include "graph/graph_check.h"
#include "graph/memory_plan.h"
#include "graph/passes/alias_reshapes.h"
#include "graph/passes/permutation.h"
#include "graph_compare.h"

namespace wgx::graph {
namespace {

using test::call_names;
using test::expect_same_results;
using test::GraphBuilder;
using test::pool_of;

size_t run(Graph& g) { return test::alias_and_plan(g); }

// x -> relu -> `in` (dims) -> copy made by `make` -> `out` (out_dims) -> relu -> result.
// Returns the number of calls alias_reshapes removed; the graph is left in `b`.
template <typename Make>
size_t run_middle(GraphBuilder& b, std::vector<int64_t> dims, std::vector<int64_t> out_dims,
                  Make make, int32_t* in_id = nullptr, int32_t* out_id = nullptr) {
    const int32_t x = b.tensor(dims), in = b.tensor(dims), out = b.tensor(out_dims),
                  res = b.tensor(out_dims);
    b.relu(x, in);
    make(in, out);
    b.relu(out, res);
    b.g.input_ids = {x};
    b.g.output_ids = {res};
    if (in_id) *in_id = in;
    if (out_id) *out_id = out;
    const Graph before = b.g;
    const size_t n = run(b.g);
    expect_same_results(before, b.g);
    return n;
}

TEST(CopyInterpreter, PermuteAndSelectGatherAsTheOpsDo) {
    // [2, 3] by [1, 0]: out[j][i] = in[i][j]; select dim 0 index 1 of [2, 3]: the second row.
    GraphBuilder b;
    const int32_t x = b.tensor({2, 3}), t = b.tensor({3, 2}), s = b.tensor({3});
    b.permute(x, {1, 0}, t);
    b.select(x, -2, -1, s);
    b.g.input_ids = {x};
    b.g.output_ids = {t, s};
    const auto outs = test::simulate(b.g, {{0, 1, 2, 10, 11, 12}}, false);
    EXPECT_EQ(outs[0], (test::Words{0, 10, 1, 11, 2, 12}));
    EXPECT_EQ(outs[1], (test::Words{10, 11, 12}));
}

TEST(Permutation, KeepsElementOrderOnlyWhenLargeDimsKeepTheirOrder) {
    EXPECT_TRUE(keeps_element_order({1, 26, 48}, {1, 0, 2}));
    EXPECT_TRUE(keeps_element_order({1, 48, 1, 1}, {0, 2, 3, 1}));
    EXPECT_TRUE(keeps_element_order({2, 3}, {0, 1}));
    EXPECT_FALSE(keeps_element_order({2, 3}, {1, 0}));
    EXPECT_FALSE(keeps_element_order({1, 26, 1, 3, 48}, {3, 1, 2, 0, 4}));
    EXPECT_EQ(compose({2, 0, 1, 3}, {1, 2, 0, 3}), (std::vector<int64_t>{0, 1, 2, 3}));
    EXPECT_EQ(compose({0, 1, 2, 3}, {2, 0, 1, 3}), (std::vector<int64_t>{2, 0, 1, 3}));
    // [a, b, c] -> [b, a, c] -> [b, c, a]: x's dims 1, 2, 0.
    EXPECT_EQ(compose({1, 0, 2}, {0, 2, 1}), (std::vector<int64_t>{1, 2, 0}));
    Graph g;
    g.values = {IntList{{2, -3, 1}}, IntList{{0, 0, 1}}, IntList{{0, 1}}, IntList{{0, 3, 1}},
                Int{0}};
    EXPECT_EQ(permutation_at(g, 0, 3), (std::vector<int64_t>{2, 0, 1}));
    EXPECT_FALSE(permutation_at(g, 1, 3));  // a dim twice
    EXPECT_FALSE(permutation_at(g, 2, 3));  // wrong rank
    EXPECT_FALSE(permutation_at(g, 3, 3));  // out of range
    EXPECT_FALSE(permutation_at(g, 4, 1));  // not a list
    EXPECT_FALSE(permutation_at(g, 9, 1));  // no such value
}

TEST(CopyAliases, PermuteOfSizeOneDimsBecomesAnAlias) {
    GraphBuilder b;
    int32_t in = -1, out = -1;
    EXPECT_EQ(run_middle(
                  b, {1, 26, 48}, {26, 1, 48},
                  [&](int32_t i, int32_t o) {
                      b.permute(i, {1, 0, 2}, o);
                  },
                  &in, &out),
              1u);
    EXPECT_EQ(call_names(b.g),
              (std::vector<std::string>{"aten.relu.default", "aten.relu.default"}));
    ASSERT_EQ(b.g.alias_groups.size(), 1u);
    EXPECT_EQ(b.g.alias_groups[0], (std::vector<int32_t>{in, out}));
    EXPECT_EQ(pool_of(b.g, in), pool_of(b.g, out));

    GraphBuilder c;  // convnext's [1, 48, 1, 1] to channels-last, negative dims
    EXPECT_EQ(run_middle(c, {1, 48, 1, 1}, {1, 1, 1, 48},
                         [&](int32_t i, int32_t o) {
                             c.permute(i, {0, -2, -1, 1}, o);
                         }),
              1u);
}

TEST(CopyAliases, PermuteThatReordersStaysACopy) {
    GraphBuilder b;
    EXPECT_EQ(run_middle(b, {2, 3, 4}, {3, 2, 4},
                         [&](int32_t i, int32_t o) {
                             b.permute(i, {1, 0, 2}, o);
                         }),
              0u);
    EXPECT_EQ(b.g.chain.size(), 3u);
    GraphBuilder c;  // vit's qkv split: 26 and 3 swap places although size-1 dims sit between
    EXPECT_EQ(run_middle(c, {1, 26, 1, 3, 8}, {3, 26, 1, 1, 8},
                         [&](int32_t i, int32_t o) {
                             c.permute(i, {3, 1, 2, 0, 4}, o);
                         }),
              0u);
}

TEST(CopyAliases, MalformedPermuteStaysACopy) {
    for (const std::vector<int64_t>& perm :
         std::vector<std::vector<int64_t>>{{0, 0, 2}, {1, 0}, {0, 1, 3}, {1, 0, 2, 3}}) {
        GraphBuilder b;
        const int32_t x = b.tensor({1, 2, 3}), a = b.tensor({1, 2, 3}), p = b.tensor({2, 1, 3});
        b.relu(x, a);
        b.permute(a, perm, p);
        b.g.input_ids = {x};
        b.g.output_ids = {b.tensor({2, 1, 3})};
        b.relu(p, b.g.output_ids[0]);
        EXPECT_EQ(alias_reshapes(b.g), 0u);
    }
    // The output's shape is not the permuted shape (same element count).
    GraphBuilder b;
    const int32_t x = b.tensor({1, 2, 3}), a = b.tensor({1, 2, 3}), p = b.tensor({3, 1, 2}),
                  out = b.tensor({3, 1, 2});
    b.relu(x, a);
    b.permute(a, {1, 0, 2}, p);
    b.relu(p, out);
    b.g.input_ids = {x};
    b.g.output_ids = {out};
    EXPECT_EQ(alias_reshapes(b.g), 0u);
    // Dims given as a value list (not an int list), or not a list at all.
    for (Value dims : {Value{ValueList{{}}}, Value{Int{0}}}) {
        GraphBuilder c;
        const int32_t y = c.tensor({1, 4}), q = c.tensor({1, 4}), r = c.tensor({4, 1}),
                      res = c.tensor({4, 1});
        c.relu(y, q);
        c.call("aten.permute_copy.default", {q, c.add(dims), r});
        c.relu(r, res);
        c.g.input_ids = {y};
        c.g.output_ids = {res};
        EXPECT_EQ(alias_reshapes(c.g), 0u);
    }
}

TEST(CopyAliases, SelectOnASizeOneDimBecomesAnAlias) {
    GraphBuilder b;
    int32_t in = -1, out = -1;
    EXPECT_EQ(
        run_middle(
            b, {3, 1, 4}, {3, 4}, [&](int32_t i, int32_t o) { b.select(i, 1, 0, o); }, &in, &out),
        1u);
    ASSERT_EQ(b.g.alias_groups.size(), 1u);
    EXPECT_EQ(b.g.alias_groups[0], (std::vector<int32_t>{in, out}));
    GraphBuilder c;  // negative dim and index
    EXPECT_EQ(
        run_middle(c, {1, 5, 2}, {5, 2}, [&](int32_t i, int32_t o) { c.select(i, -3, -1, o); }),
        1u);
}

TEST(CopyAliases, OtherSelectsStayCopies) {
    GraphBuilder b;  // a dim of size 3: a third of the bytes
    EXPECT_EQ(run_middle(b, {3, 1, 4}, {1, 4}, [&](int32_t i, int32_t o) { b.select(i, 0, 1, o); }),
              0u);
    // Index out of range, dim out of range, and a shape that does not match: left for the op.
    for (auto [dim, index] : std::vector<std::pair<int64_t, int64_t>>{{1, 1}, {3, 0}, {-4, 0}}) {
        GraphBuilder c;
        const int32_t x = c.tensor({3, 1, 4}), a = c.tensor({3, 1, 4}), s = c.tensor({3, 4}),
                      out = c.tensor({3, 4});
        c.relu(x, a);
        c.select(a, dim, index, s);
        c.relu(s, out);
        c.g.input_ids = {x};
        c.g.output_ids = {out};
        EXPECT_EQ(alias_reshapes(c.g), 0u) << dim << " " << index;
    }
    GraphBuilder d;
    const int32_t x = d.tensor({3, 1, 4}), a = d.tensor({3, 1, 4}), s = d.tensor({4, 3}),
                  out = d.tensor({4, 3});
    d.relu(x, a);
    d.select(a, 1, 0, s);
    d.relu(s, out);
    d.g.input_ids = {x};
    d.g.output_ids = {out};
    EXPECT_EQ(alias_reshapes(d.g), 0u);
}

TEST(CopyAliases, ClonesBecomeAliases) {
    GraphBuilder b;
    int32_t in = -1, out = -1;
    EXPECT_EQ(run_middle(
                  b, {1, 16, 10, 10}, {1, 16, 10, 10}, [&](int32_t i, int32_t o) { b.clone(i, o); },
                  &in, &out),
              1u);
    ASSERT_EQ(b.g.alias_groups.size(), 1u);
    EXPECT_EQ(b.g.alias_groups[0], (std::vector<int32_t>{in, out}));
    // torch.contiguous_format (0) and torch.preserve_format (1) as an int.
    for (int64_t format : {0, 1}) {
        GraphBuilder c;
        EXPECT_EQ(run_middle(c, {4, 5}, {4, 5},
                             [&](int32_t i, int32_t o) {
                                 c.call("aten.clone.default", {i, c.add(Int{format}), o});
                             }),
                  1u);
    }
    // Without the optional argument; a 0-dim tensor; an int32 tensor.
    GraphBuilder d;
    EXPECT_EQ(run_middle(d, {}, {},
                         [&](int32_t i, int32_t o) {
                             d.call("aten.clone.default", {i, o});
                         }),
              1u);
    GraphBuilder e;
    const int32_t x = e.tensor({6}, DType::i32), a = e.tensor({6}, DType::i32),
                  c = e.tensor({6}, DType::i32), res = e.tensor({6}, DType::i32);
    e.relu(x, a);
    e.clone(a, c);
    e.relu(c, res);
    e.g.input_ids = {x};
    e.g.output_ids = {res};
    EXPECT_EQ(run(e.g), 1u);
    // _clone_dim_order with no order and with the contiguous order.
    for (bool with_order : {false, true}) {
        GraphBuilder f;
        EXPECT_EQ(
            run_middle(
                f, {2, 3, 4}, {2, 3, 4},
                [&](int32_t i, int32_t o) {
                    const int32_t order = with_order ? f.add(IntList{{0, 1, 2}}) : f.add(Null{});
                    f.call("dim_order_ops._clone_dim_order.default",
                           {i, f.add(Bool{false}), order, o});
                }),
            1u);
    }
}

TEST(CopyAliases, ClonesThatChangeLayoutOrShapeStayCopies) {
    {
        GraphBuilder b;  // torch.channels_last (2)
        EXPECT_EQ(run_middle(b, {1, 2, 3, 4}, {1, 2, 3, 4},
                             [&](int32_t i, int32_t o) {
                                 b.call("aten.clone.default", {i, b.add(Int{2}), o});
                             }),
                  0u);
    }
    {
        GraphBuilder b;  // a channels-last dim order
        EXPECT_EQ(run_middle(b, {1, 2, 3, 4}, {1, 2, 3, 4},
                             [&](int32_t i, int32_t o) {
                                 b.call("dim_order_ops._clone_dim_order.default",
                                        {i, b.add(Bool{false}), b.add(IntList{{0, 2, 3, 1}}), o});
                             }),
                  0u);
    }
    {
        GraphBuilder b;  // a dtype change is not a clone of the same bytes
        const int32_t x = b.tensor({6}), a = b.tensor({6}), c = b.tensor({6}, DType::f16),
                      res = b.tensor({6}, DType::f16);
        b.relu(x, a);
        b.clone(a, c);
        b.relu(c, res);
        b.g.input_ids = {x};
        b.g.output_ids = {res};
        EXPECT_EQ(alias_reshapes(b.g), 0u);
    }
    {
        GraphBuilder b;  // another shape of the same count: a clone does not reshape
        EXPECT_EQ(run_middle(b, {2, 3}, {3, 2}, [&](int32_t i, int32_t o) { b.clone(i, o); }), 0u);
    }
}

// expand_copy to the input's own shape (the portable export puts one before each bmm) is a
// copy of the bytes; one that broadcasts repeats elements and stays a copy.
TEST(CopyAliases, ExpandToTheSameShapeBecomesAnAlias) {
    GraphBuilder b;
    int32_t in = -1, out = -1;
    EXPECT_EQ(run_middle(
                  b, {1, 3, 26, 16}, {1, 3, 26, 16},
                  [&](int32_t i, int32_t o) {
                      b.call("aten.expand_copy.default",
                             {i, b.add(IntList{{1, 3, 26, 16}}), b.add(Bool{false}), o});
                  },
                  &in, &out),
              1u);
    ASSERT_EQ(b.g.alias_groups.size(), 1u);
    EXPECT_EQ(b.g.alias_groups[0], (std::vector<int32_t>{in, out}));
    GraphBuilder c;
    EXPECT_EQ(run_middle(c, {1, 1, 48}, {1, 4, 48},
                         [&](int32_t i, int32_t o) {
                             c.call("aten.expand_copy.default",
                                    {i, c.add(IntList{{1, 4, 48}}), c.add(Bool{false}), o});
                         }),
              0u);
}

TEST(CopyAliases, ClonesOfWrittenAgainValuesStayCopies) {
    // The clone's input changes after the clone (a mutable buffer updated in place): the clone
    // must keep the old values.
    {
        GraphBuilder b;
        const int32_t x = b.tensor({4}), a = b.tensor({4}), c = b.tensor({4}), out = b.tensor({4});
        b.relu(x, a);
        b.clone(a, c);
        b.call("aten.copy_.default", {a, x, a});
        b.add_op(a, c, out);
        b.g.input_ids = {x};
        b.g.output_ids = {out};
        EXPECT_EQ(alias_reshapes(b.g), 0u);
    }
    // The clone's output is written again (an in-place op on it).
    {
        GraphBuilder b;
        const int32_t x = b.tensor({4}), a = b.tensor({4}), c = b.tensor({4}), out = b.tensor({4});
        b.relu(x, a);
        b.clone(a, c);
        b.call("aten.relu_.default", {c, c});
        b.add_op(a, c, out);
        b.g.input_ids = {x};
        b.g.output_ids = {out};
        EXPECT_EQ(alias_reshapes(b.g), 0u);
    }
    // A clone of a graph input and a clone that is a graph output.
    {
        GraphBuilder b;
        const int32_t x = b.tensor({4}), c = b.tensor({4}), a = b.tensor({4}), out = b.tensor({4});
        b.clone(x, c);
        b.relu(c, a);
        b.clone(a, out);
        b.g.input_ids = {x};
        b.g.output_ids = {out};
        EXPECT_EQ(alias_reshapes(b.g), 0u);
        EXPECT_EQ(b.g.chain.size(), 3u);
    }
}

TEST(CopyAliases, ChannelShuffleClonesAndViewsJoinOneGroupEach) {
    // shufflenet's block tail: cat -> clone -> view [1, 2, 8, 5, 5] -> permute (a real one) ->
    // clone -> view [1, 16, 5, 5] -> split. The clones and views go; the permute stays.
    GraphBuilder b;
    const int32_t x = b.tensor({1, 8, 5, 5}), y = b.tensor({1, 8, 5, 5}),
                  l = b.tensor({1, 8, 5, 5}), r = b.tensor({1, 8, 5, 5}),
                  cat = b.tensor({1, 16, 5, 5}), c1 = b.tensor({1, 16, 5, 5}),
                  v1 = b.tensor({1, 2, 8, 5, 5}), p = b.tensor({1, 8, 2, 5, 5}),
                  c2 = b.tensor({1, 8, 2, 5, 5}), v2 = b.tensor({1, 16, 5, 5}),
                  s1 = b.tensor({1, 8, 5, 5}), s2 = b.tensor({1, 8, 5, 5}),
                  out = b.tensor({1, 8, 5, 5});
    b.relu(x, l);
    b.relu(y, r);
    b.call("aten.cat.default", {b.add(ValueList{{l, r}}), b.add(Int{1}), cat});
    b.clone(cat, c1);
    b.view(c1, v1);
    b.permute(v1, {0, 2, 1, 3, 4}, p);
    b.clone(p, c2);
    b.view(c2, v2);
    b.call("aten.split_with_sizes_copy.default",
           {v2, b.add(IntList{{8, 8}}), b.add(Int{1}), b.add(ValueList{{s1, s2}})});
    b.add_op(s1, s2, out);
    b.g.input_ids = {x, y};
    b.g.output_ids = {out};
    const Graph before = b.g;
    EXPECT_EQ(run(b.g), 4u);
    EXPECT_EQ(call_names(b.g),
              (std::vector<std::string>{"aten.relu.default", "aten.relu.default",
                                        "aten.cat.default", "aten.permute_copy.default",
                                        "aten.split_with_sizes_copy.default", "aten.add.Tensor"}));
    ASSERT_EQ(b.g.alias_groups.size(), 2u);
    EXPECT_EQ(b.g.alias_groups[0], (std::vector<int32_t>{cat, c1, v1}));
    EXPECT_EQ(b.g.alias_groups[1], (std::vector<int32_t>{p, c2, v2}));
    expect_same_results(before, b.g);
}

// Random functional graphs of hashing ops, views, clones, selects and permutes (some that
// only move size-1 dims, some that reorder); values are written once and read after.
TEST(CopyAliases, RandomGraphsGiveTheSameResults) {
    std::mt19937 rng(20260522);
    size_t aliased = 0;
    for (int trial = 0; trial < 300; ++trial) {
        GraphBuilder b;
        std::vector<int32_t> written;
        for (int i = 0, n = 1 + int(rng() % 2); i < n; ++i) {
            written.push_back(b.tensor({1, 2 + int64_t(rng() % 2), 1, 3}));
            b.g.input_ids.push_back(written.back());
        }
        for (int op = 0, n = 2 + int(rng() % 30); op < n; ++op) {
            const int32_t src = written[rng() % written.size()];
            const std::vector<int64_t> dims = b.dims(src);
            int32_t out = -1;
            switch (rng() % 6) {
                case 0: {  // a permutation of the dims: some keep the order, some do not
                    std::vector<int64_t> perm(dims.size());
                    for (size_t d = 0; d < perm.size(); ++d) perm[d] = int64_t(d);
                    std::shuffle(perm.begin(), perm.end(), rng);
                    std::vector<int64_t> shape;
                    for (int64_t d : perm) shape.push_back(dims[size_t(d)]);
                    out = b.tensor(shape);
                    b.permute(src, perm, out);
                    break;
                }
                case 1: {  // select on a size-1 dim when there is one, else on dim 0
                    size_t dim = 0;
                    for (size_t d = 0; d < dims.size(); ++d) {
                        if (dims[d] == 1 && rng() % 2) dim = d;
                    }
                    if (dims.size() < 2) {
                        out = b.tensor({1, dims.empty() ? 1 : dims[0]});
                        b.view(src, out);
                        break;
                    }
                    std::vector<int64_t> shape = dims;
                    shape.erase(shape.begin() + long(dim));
                    out = b.tensor(shape);
                    b.select(src, int64_t(dim),
                             dims[dim] == 1 ? 0 : int64_t(rng() % size_t(dims[dim])), out);
                    break;
                }
                case 2:
                    out = b.tensor(dims);
                    b.clone(src, out);
                    break;
                case 3: {  // a view adding a size-1 dim somewhere
                    std::vector<int64_t> shape = dims;
                    shape.insert(shape.begin() + long(rng() % (shape.size() + 1)), 1);
                    out = b.tensor(shape);
                    b.view(src, out);
                    break;
                }
                default: {
                    const int32_t other = written[rng() % written.size()];
                    out = b.tensor(rng() % 2 ? dims : b.dims(other));
                    b.add_op(src, other, out);
                }
            }
            written.push_back(out);
        }
        test::add_random_outputs(b.g, written, rng);
        if (b.g.output_ids.empty()) continue;
        aliased += test::passes_keep_results(b.g, rng, run);
        if (HasFailure()) {
            ADD_FAILURE() << "trial " << trial;
            break;
        }
    }
    EXPECT_GT(aliased, 300u);
}

}  // namespace
}  // namespace wgx::graph
