// Attention as one call (passes/fuse_attention) on the GPU: multi-head attention cut from one
// packed q/k/v projection, as PyTorch exports it (reshape, permute, select, q scaled, k
// transposed, bmm, softmax with or without the guard for fully masked rows, bmm), run with the
// passes on (one wgx.attention call reading the projection through strides) and off (every
// call as exported), both against a float64 reference. And what must stay unfused: weights
// that are also a graph output.
#include <cmath>

#include "graph/graph.h"
#include "test_util.h"
#include "wgx/program.h"

namespace wgx::test {
namespace {

namespace pg = wgx::graph;

constexpr int64_t H = 3, L = 11, d = 5, E = H * d;
constexpr double kScale = 0.3;

// qkv [L, 3E] -> view [L, 3, H, d] -> permute [1, 2, 0, 3] -> [3, H, L, d]; q, k, v = select 0,
// 1, 2; q * scale; k^T = permute(k, [0, 2, 1]); S = bmm(q, k^T); P = softmax(S) (guarded:
// where(all(S == -inf), 0, P)); out = bmm(P, v). `weights_out`: P is a graph output too.
pg::Graph attention_graph(bool guarded, bool weights_out) {
    pg::Graph g;
    g.origin = "attention example";
    auto add = [&](pg::Value v) {
        g.values.push_back(std::move(v));
        return int32_t(g.values.size() - 1);
    };
    auto f32 = [](std::vector<int64_t> dims) {
        pg::Tensor t;
        t.dims = std::move(dims);
        return t;
    };
    auto b8 = [](std::vector<int64_t> dims) {
        pg::Tensor t;
        t.dtype = DType::boolean;
        t.dims = std::move(dims);
        return t;
    };
    const int32_t qkv = add(f32({L, 3 * E}));
    const int32_t r = add(f32({L, 3, H, d}));
    g.chain.push_back({"aten.view_copy.default", {qkv, add(pg::IntList{{L, 3, H, d}}), r}});
    const int32_t p = add(f32({3, H, L, d}));
    g.chain.push_back({"aten.permute_copy.default", {r, add(pg::IntList{{1, 2, 0, 3}}), p}});
    int32_t qkv_parts[3];
    for (int64_t i = 0; i < 3; ++i) {
        qkv_parts[i] = add(f32({H, L, d}));
        g.chain.push_back(
            {"aten.select_copy.int", {p, add(pg::Int{0}), add(pg::Int{i}), qkv_parts[i]}});
    }
    const int32_t qs = add(f32({H, L, d}));
    g.chain.push_back({"aten.mul.Scalar", {qkv_parts[0], add(pg::Double{kScale}), qs}});
    const int32_t kt = add(f32({H, d, L}));
    g.chain.push_back(
        {"aten.permute_copy.default", {qkv_parts[1], add(pg::IntList{{0, 2, 1}}), kt}});
    const int32_t s = add(f32({H, L, L}));
    g.chain.push_back({"aten.bmm.default", {qs, kt, s}});
    const int32_t last = add(pg::Int{-1});
    const int32_t no = add(pg::Bool{false});
    const int32_t w = add(f32({H, L, L}));
    g.chain.push_back({"aten._softmax.default", {s, last, no, w}});
    int32_t weights = w;
    if (guarded) {
        const int32_t eq = add(b8({H, L, L})), n1 = add(b8({H, L, L})), any = add(b8({H, L, 1})),
                      n2 = add(b8({H, L, 1})), zeros = add(f32({H, L, L}));
        weights = add(f32({H, L, L}));
        const int32_t none = add(pg::Null{});
        g.chain.push_back({"aten.eq.Scalar", {s, add(pg::Double{-INFINITY}), eq}});
        g.chain.push_back({"aten.logical_not.default", {eq, n1}});
        g.chain.push_back({"aten.any.dim", {n1, last, add(pg::Bool{true}), any}});
        g.chain.push_back(
            {"aten.full_like.default", {w, add(pg::Int{0}), none, none, none, no, none, zeros}});
        g.chain.push_back({"aten.logical_not.default", {any, n2}});
        g.chain.push_back({"aten.where.self", {n2, zeros, w, weights}});
    }
    const int32_t out = add(f32({H, L, d}));
    g.chain.push_back({"aten.bmm.default", {weights, qkv_parts[2], out}});
    g.input_ids = {qkv};
    g.output_ids = {out};
    if (weights_out) g.output_ids.push_back(w);
    return g;
}

std::vector<double> reference(const std::vector<float>& qkv) {
    std::vector<double> out(size_t(H * L * d));
    auto at = [&](int64_t part, int64_t h, int64_t l, int64_t c) {
        return double(qkv[size_t(l * 3 * E + part * E + h * d + c)]);
    };
    for (int64_t h = 0; h < H; ++h) {
        for (int64_t i = 0; i < L; ++i) {
            std::vector<double> s(static_cast<size_t>(L));
            double m = -INFINITY, sum = 0;
            for (int64_t j = 0; j < L; ++j) {
                double dot = 0;
                for (int64_t c = 0; c < d; ++c) dot += kScale * at(0, h, i, c) * at(1, h, j, c);
                m = std::max(m, s[size_t(j)] = dot);
            }
            for (auto& x : s) sum += (x = std::exp(x - m));
            for (int64_t c = 0; c < d; ++c) {
                double acc = 0;
                for (int64_t j = 0; j < L; ++j) acc += s[size_t(j)] * at(2, h, j, c);
                out[size_t((h * L + i) * d + c)] = acc / sum;
            }
        }
    }
    return out;
}

size_t count_calls(const Program& prog, std::string_view name) {
    size_t n = 0;
    for (const auto& call : prog.graph().chain) n += call.name == name;
    return n;
}

TEST(ProgramAttention, PackedProjectionBecomesOneCallAndMatchesFloat64) {
    const std::vector<float> xs = random_floats(size_t(L * 3 * E), 17);
    const std::vector<double> want = reference(xs);
    for (bool guarded : {true, false}) {
        for (bool fuse : {true, false}) {
            ProgramOptions options;
            options.fuse = fuse;
            Program prog = Program::from_graph(attention_graph(guarded, false), options);
            // Fused: the attention call alone (the copies cutting q, k, v out are dropped).
            EXPECT_EQ(count_calls(prog, "wgx.attention.default"), fuse ? 1u : 0u);
            if (fuse) {
                EXPECT_EQ(prog.graph().chain.size(), 1u) << "guarded " << guarded;
            }
            Tensor x = ctx().tensor(DType::f32, {L, 3 * E}).set_data(xs);
            Tensor out = ctx().tensor(DType::f32, {H, L, d});
            poison(out);
            ctx().reset();
            ctx().record(prog, {x, out});
            ctx().submit();
            EXPECT_LE(max_rel_error(out.get_data<float>(), want), 2e-5)
                << "guarded " << guarded << " fuse " << fuse;
            ctx().reset();
        }
    }
}

TEST(ProgramAttention, WeightsReadElsewhereStayUnfused) {
    Program prog = Program::from_graph(attention_graph(false, true));
    EXPECT_EQ(count_calls(prog, "wgx.attention.default"), 0u);
    EXPECT_EQ(count_calls(prog, "aten._softmax.default"), 1u);
    EXPECT_EQ(count_calls(prog, "aten.bmm.default"), 2u);
}

}  // namespace
}  // namespace wgx::test
