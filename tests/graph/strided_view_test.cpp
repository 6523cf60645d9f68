// passes/strided_view: the index algebra (permute, select, reshape with merges, splits and
// size-1 dims, and the reshapes strides cannot express) checked element by element against
// the copies the calls would make, and trace_view walking a chain of calls back.
#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "graph/passes/strided_view.h"

namespace wgx::graph {
namespace {

// Element offsets of a view in row-major order of its dims.
std::vector<int64_t> offsets(const StridedView& v) {
    std::vector<int64_t> out;
    std::vector<int64_t> idx(v.dims.size(), 0);
    int64_t count = 1;
    for (int64_t d : v.dims) count *= d;
    for (int64_t n = 0; n < count; ++n) {
        int64_t o = v.offset;
        for (size_t k = 0; k < idx.size(); ++k) o += idx[k] * v.strides[k];
        out.push_back(o);
        for (size_t k = idx.size(); k-- > 0;) {
            if (++idx[k] < v.dims[k]) break;
            idx[k] = 0;
        }
    }
    return out;
}

// The same, computed by materialising: `data` (the base's values = their offsets) permuted.
std::vector<int64_t> permute_copy(const std::vector<int64_t>& data,
                                  const std::vector<int64_t>& dims,
                                  const std::vector<int64_t>& perm) {
    StridedView c = contiguous_view(0, dims);
    StridedView p = *permuted(c, perm);
    std::vector<int64_t> out;
    for (int64_t o : offsets(p)) out.push_back(data[size_t(o)]);
    return out;
}

TEST(StridedView, PermuteSelectReshapeMatchCopies) {
    // [2, 3, 4] permuted [2, 0, 1] is [4, 2, 3] with strides (1, 12, 4); its last two dims
    // are one block (12 == 4 * 3), so [4, 6] is expressible.
    std::vector<int64_t> base(24);
    std::iota(base.begin(), base.end(), 0);
    StridedView v = *permuted(contiguous_view(0, {2, 3, 4}), {2, 0, 1});
    EXPECT_EQ(offsets(v), permute_copy(base, {2, 3, 4}, {2, 0, 1}));
    auto r = reshaped(v, {4, 6});
    ASSERT_TRUE(r);
    EXPECT_EQ(offsets(*r), offsets(v));  // same elements in the same order
    // Split a dim, add size-1 dims anywhere.
    auto r2 = reshaped(*r, {1, 2, 2, 1, 3, 2, 1});
    ASSERT_TRUE(r2);
    EXPECT_EQ(offsets(*r2), offsets(v));
    // Merging the permuted dims 0 and 1 ([4] stride 1 with [2] stride 12) is not expressible.
    EXPECT_FALSE(reshaped(v, {8, 3}));
    // Select: dim 1 index 1 of the [4, 2, 3] view.
    StridedView s = selected(v, 1, 1);
    std::vector<int64_t> want;
    for (int64_t a = 0; a < 4; ++a) {
        for (int64_t c = 0; c < 3; ++c) want.push_back(a + 12 * 1 + 4 * c);
    }
    EXPECT_EQ(offsets(s), want);
    // Not a permutation.
    EXPECT_FALSE(permuted(v, {0, 0, 1}));
    EXPECT_FALSE(permuted(v, {0, 1}));
    // Element counts must agree.
    EXPECT_FALSE(reshaped(v, {5, 5}));
}

TEST(StridedView, TraceFollowsReshapePermuteSelectAndScale) {
    // x [4, 6] -> view [4, 2, 3] -> permute [1, 0, 2] -> select(0, 1) -> mul 0.5 -> y [4, 3].
    Graph g;
    auto add = [&](Value v) {
        g.values.push_back(std::move(v));
        return int32_t(g.values.size() - 1);
    };
    auto f32 = [](std::vector<int64_t> dims) {
        Tensor t;
        t.dims = std::move(dims);
        return t;
    };
    const int32_t x = add(f32({4, 6})), r = add(f32({4, 2, 3})), p = add(f32({2, 4, 3})),
                  s = add(f32({4, 3})), y = add(f32({4, 3}));
    g.chain = {{"aten.view_copy.default", {x, add(IntList{{4, 2, 3}}), r}},
               {"aten.permute_copy.default", {r, add(IntList{{1, 0, 2}}), p}},
               {"aten.select_copy.int", {p, add(Int{0}), add(Int{-1}), s}},
               {"aten.mul.Scalar", {s, add(Double{0.5}), y}},
               {"aten.relu.default", {y, add(f32({4, 3}))}}};
    g.input_ids = {x};
    const Uses uses = count_uses(g);
    std::vector<size_t> through;
    StridedView v = trace_view(g, uses, y, true, &through);
    EXPECT_EQ(v.base, x);
    EXPECT_EQ(v.scale, 0.5);
    EXPECT_EQ(through.size(), 4u);
    // y[a, c] = x[a, 3 + c] * 0.5.
    std::vector<int64_t> want;
    for (int64_t a = 0; a < 4; ++a) {
        for (int64_t c = 0; c < 3; ++c) want.push_back(a * 6 + 3 + c);
    }
    EXPECT_EQ(offsets(v), want);
    // Without scales the walk stops at the multiply's output.
    StridedView u = trace_view(g, uses, y, false);
    EXPECT_EQ(u.base, y);
    EXPECT_EQ(u.scale, 1.0);
}

}  // namespace
}  // namespace wgx::graph
