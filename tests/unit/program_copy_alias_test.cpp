// The copy passes on the GPU: a chain of permutes composed into one (compose_permutes), and a
// permute that moves only size-1 dims, a select on a size-1 dim and a clone turned into aliases
// (alias_reshapes) give the same numbers as a CPU reference, with the passes on and off.
#include <algorithm>
#include <string>

#include "graph/graph.h"
#include "test_util.h"
#include "wgx/program.h"

namespace wgx::test {
namespace {

namespace pg = wgx::graph;

pg::Tensor f32(std::vector<int64_t> dims) {
    pg::Tensor t;
    t.dtype = DType::f32;
    t.dims = std::move(dims);
    return t;
}

// CPU permute of a contiguous tensor: out dim i is in dim perm[i].
std::vector<float> permute(const std::vector<float>& in, const std::vector<int64_t>& dims,
                           const std::vector<int64_t>& perm) {
    std::vector<int64_t> strides(dims.size(), 1), out_dims;
    for (size_t d = dims.size(); d-- > 1;) strides[d - 1] = strides[d] * dims[d];
    for (int64_t p : perm) out_dims.push_back(dims[size_t(p)]);
    std::vector<float> out(in.size());
    std::vector<int64_t> idx(perm.size(), 0);
    for (size_t i = 0; i < out.size(); ++i) {
        int64_t src = 0;
        for (size_t d = 0; d < perm.size(); ++d) src += idx[d] * strides[size_t(perm[d])];
        out[i] = in[size_t(src)];
        for (size_t d = perm.size(); d-- > 0;) {
            if (++idx[d] < out_dims[d]) break;
            idx[d] = 0;
        }
    }
    return out;
}

// x [1, 3, 4, 5] -> a = relu(x) -> permutes [2, 0, 1, 3], [1, 2, 0, 3], [2, 0, 1, 3] (vit's
// three, one [4, 1, 3, 5] permute once composed) -> m = p3 * p3 -> q = permute(m, [1, 0, 2, 3])
// ([1, 4, 3, 5]: a size-1 move) -> s = select(q, 0, 0) ([4, 3, 5]) -> c = clone(s) ->
// e = permute(c, [1, 0, 2]), f = permute(e, [1, 0, 2]) (the identity: a view) -> out = f + s.
pg::Graph copies_graph() {
    pg::Graph g;
    g.origin = "copy alias example";
    auto add = [&](pg::Value v) {
        g.values.push_back(std::move(v));
        return int32_t(g.values.size() - 1);
    };
    auto call = [&](std::string name, std::vector<int32_t> args) {
        g.chain.push_back({std::move(name), std::move(args), uint32_t(g.chain.size())});
    };
    auto perm = [&](int32_t in, std::vector<int64_t> p, int32_t out) {
        call("aten.permute_copy.default", {in, add(pg::IntList{std::move(p)}), out});
    };
    const int32_t x = add(f32({1, 3, 4, 5})), a = add(f32({1, 3, 4, 5})),
                  p1 = add(f32({4, 1, 3, 5})), p2 = add(f32({1, 3, 4, 5})),
                  p3 = add(f32({4, 1, 3, 5})), m = add(f32({4, 1, 3, 5})),
                  q = add(f32({1, 4, 3, 5})), s = add(f32({4, 3, 5})), c = add(f32({4, 3, 5})),
                  e = add(f32({3, 4, 5})), f = add(f32({4, 3, 5})), out = add(f32({4, 3, 5}));
    call("aten.relu.default", {x, a});
    perm(a, {2, 0, 1, 3}, p1);
    perm(p1, {1, 2, 0, 3}, p2);
    perm(p2, {2, 0, 1, 3}, p3);
    call("aten.mul.Tensor", {p3, p3, m});
    perm(m, {1, 0, 2, 3}, q);
    call("aten.select_copy.int", {q, add(pg::Int{0}), add(pg::Int{0}), s});
    call("aten.clone.default", {s, add(pg::Null{}), c});
    perm(c, {1, 0, 2}, e);
    perm(e, {1, 0, 2}, f);
    call("aten.add.Tensor", {f, s, out});
    g.input_ids = {x};
    g.output_ids = {out};
    return g;
}

TEST(ProgramCopyAliases, ComposedAndAliasedCopiesMatchTheReference) {
    const std::vector<float> xs = random_floats(60, 11);
    std::vector<float> a(xs.size());
    std::transform(xs.begin(), xs.end(), a.begin(), [](float v) { return std::max(v, 0.f); });
    std::vector<float> p = permute(a, {1, 3, 4, 5}, {2, 0, 1, 3});
    p = permute(p, {4, 1, 3, 5}, {1, 2, 0, 3});
    p = permute(p, {1, 3, 4, 5}, {2, 0, 1, 3});
    for (float& v : p) v *= v;
    const std::vector<float> q = permute(p, {4, 1, 3, 5}, {1, 0, 2, 3});  // select [0]: all of q
    std::vector<double> want(q.size());
    for (size_t i = 0; i < q.size(); ++i) want[i] = double(q[i]) + double(q[i]);

    for (bool fuse : {true, false}) {
        ProgramOptions options;
        options.fuse = fuse;
        Program prog = Program::from_graph(copies_graph(), options);
        size_t permutes = 0, copies = 0;
        for (const auto& call : prog.graph().chain) {
            permutes += call.name == "aten.permute_copy.default";
            copies += call.name == "aten.select_copy.int" || call.name == "aten.clone.default" ||
                      call.name == "aten.view_copy.default";
        }
        // On: one composed permute; the size-1 permute, select, clone and view are aliases.
        EXPECT_EQ(permutes, fuse ? 1u : 6u) << "fuse " << fuse;
        EXPECT_EQ(copies, fuse ? 0u : 2u) << "fuse " << fuse;
        EXPECT_EQ(prog.graph().chain.size(), fuse ? 4u : 11u) << "fuse " << fuse;

        Tensor x = ctx().tensor(DType::f32, {1, 3, 4, 5}).set_data(xs);
        Tensor out = ctx().tensor(DType::f32, {4, 3, 5});
        poison(out);
        ctx().reset();
        ctx().record(prog, {x, out});
        ctx().submit();
        EXPECT_LE(max_rel_error(out.get_data<float>(), want), 1e-6) << "fuse " << fuse;
        ctx().reset();
    }
}

}  // namespace
}  // namespace wgx::test
