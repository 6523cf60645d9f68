// passes/fuse_linear_epilogue on the GPU: programs with the transformer blocks' patterns give
// the same numbers fused (wgx.linear_epilogue) as unfused (every call as the file says), and
// both match a float64 reference written here; and in float16 (the pass runs first, then the
// fused call takes float16 tensors) they stay within float16's rounding of it.
//   ConvNeXt's MLP tail: x [B, H, W, C] -> view -> linear -> gelu(tanh) -> linear -> view ->
//     permute to [B, C, H, W] -> mul(gamma [C, 1, 1]) -> add(residual): two fused calls, the
//     second channels-first;
//   ViT's: x [1, T, D] -> view -> linear -> gelu -> linear -> view -> add(x): two fused calls.
#include <cmath>
#include <memory>
#include <string>

#include "graph/graph.h"
#include "half_test_util.h"
#include "test_util.h"
#include "wgx/program.h"

namespace wgx::test {
namespace {

namespace pg = wgx::graph;

struct Builder {
    pg::Graph g;
    int32_t add(pg::Value v) {
        g.values.push_back(std::move(v));
        return int32_t(g.values.size() - 1);
    }
    int32_t tensor(std::vector<int64_t> dims) {
        pg::Tensor t;
        t.dims = std::move(dims);
        return add(t);
    }
    int32_t constant(std::vector<int64_t> dims, const std::vector<float>& v) {
        auto bytes = std::make_shared<const std::vector<uint8_t>>(
            reinterpret_cast<const uint8_t*>(v.data()),
            reinterpret_cast<const uint8_t*>(v.data() + v.size()));
        g.storage.push_back(bytes);
        g.constants.push_back({std::span(*bytes), "c"});
        pg::Tensor t;
        t.dims = std::move(dims);
        t.constant_id = int32_t(g.constants.size() - 1);
        return add(t);
    }
    void call(std::string name, std::vector<int32_t> args) {
        g.chain.push_back({std::move(name), std::move(args), uint32_t(g.chain.size())});
    }
    int32_t view(int32_t in, std::vector<int64_t> dims) {
        const int32_t out = tensor(dims);
        call("aten.view_copy.default", {in, add(pg::IntList{std::move(dims)}), out});
        return out;
    }
};

double gelu_ref(double v, bool tanh_form) {
    if (!tanh_form) return 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0)));
    return 0.5 * v * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (v + 0.044715 * v * v * v)));
}

// rows [M, K] @ w[N, K]^T + b, then GELU when `act` (tanh form when `tanh_form`).
std::vector<double> linear_ref(const std::vector<double>& x, const std::vector<float>& w,
                               const std::vector<float>& b, int64_t M, int64_t K, int64_t N,
                               bool act, bool tanh_form) {
    std::vector<double> y(M * N);
    for (int64_t m = 0; m < M; ++m) {
        for (int64_t n = 0; n < N; ++n) {
            double s = b[n];
            for (int64_t k = 0; k < K; ++k) s += x[m * K + k] * w[n * K + k];
            y[m * N + n] = act ? gelu_ref(s, tanh_form) : s;
        }
    }
    return y;
}

// A test program: its graph, its inputs' data and shapes, the output's shape and the
// float64 reference.
struct Case {
    std::string name;
    pg::Graph graph;
    std::vector<std::vector<float>> inputs;
    std::vector<Shape> input_shapes;
    Shape out_shape;
    std::vector<double> want;
};

Case convnext_case() {
    const int64_t B = 2, H = 3, W = 5, C = 12, F = 20, P = H * W;
    Builder b;
    auto x = random_floats(B * P * C, 1), r = random_floats(B * C * P, 2);
    auto w1 = random_floats(F * C, 3), b1 = random_floats(F, 4);
    auto w2 = random_floats(C * F, 5), b2 = random_floats(C, 6), gamma = random_floats(C, 7);
    const int32_t xv = b.tensor({B, H, W, C}), rv = b.tensor({B, C, H, W});
    const int32_t rows = b.view(xv, {B * P, C});
    const int32_t h = b.tensor({B * P, F}), hg = b.tensor({B * P, F}), t = b.tensor({B * P, C});
    b.call("aten.linear.default", {rows, b.constant({F, C}, w1), b.constant({F}, b1), h});
    b.call("aten.gelu.default", {h, b.add(pg::String{"tanh"}), hg});
    b.call("aten.linear.default", {hg, b.constant({C, F}, w2), b.constant({C}, b2), t});
    const int32_t nhwc = b.view(t, {B, H, W, C});
    const int32_t nchw = b.tensor({B, C, H, W}), scaled = b.tensor({B, C, H, W}),
                  y = b.tensor({B, C, H, W});
    b.call("aten.permute_copy.default", {nhwc, b.add(pg::IntList{{0, 3, 1, 2}}), nchw});
    b.call("aten.mul.Tensor", {b.constant({C, 1, 1}, gamma), nchw, scaled});
    b.call("aten.add.Tensor", {scaled, rv, b.add(pg::Int{1}), y});
    b.g.origin = "convnext tail";
    b.g.input_ids = {xv, rv};
    b.g.output_ids = {y};

    const auto h_ref = linear_ref({x.begin(), x.end()}, w1, b1, B * P, C, F, true, true);
    const auto t_ref = linear_ref(h_ref, w2, b2, B * P, F, C, false, false);
    std::vector<double> want(B * C * P);
    for (int64_t i = 0; i < B; ++i) {
        for (int64_t p = 0; p < P; ++p) {
            for (int64_t c = 0; c < C; ++c) {
                const int64_t at = (i * C + c) * P + p;
                want[at] = t_ref[(i * P + p) * C + c] * gamma[c] + r[at];
            }
        }
    }
    return {"convnext", std::move(b.g), {x, r}, {{B, H, W, C}, {B, C, H, W}}, {B, C, H, W}, want};
}

Case vit_case() {
    const int64_t T = 7, D = 10, F = 19;
    Builder b;
    auto x = random_floats(T * D, 11);
    auto w1 = random_floats(F * D, 12), b1 = random_floats(F, 13);
    auto w2 = random_floats(D * F, 14), b2 = random_floats(D, 15);
    const int32_t xv = b.tensor({1, T, D});
    const int32_t rows = b.view(xv, {T, D});
    const int32_t h = b.tensor({T, F}), hg = b.tensor({T, F}), t = b.tensor({T, D});
    b.call("aten.linear.default", {rows, b.constant({F, D}, w1), b.constant({F}, b1), h});
    b.call("aten.gelu.default", {h, b.add(pg::String{"none"}), hg});
    b.call("aten.linear.default", {hg, b.constant({D, F}, w2), b.constant({D}, b2), t});
    const int32_t back = b.view(t, {1, T, D});
    const int32_t y = b.tensor({1, T, D});
    b.call("aten.add.Tensor", {xv, back, b.add(pg::Int{1}), y});
    b.g.origin = "vit mlp";
    b.g.input_ids = {xv};
    b.g.output_ids = {y};

    const std::vector<double> xd(x.begin(), x.end());
    const auto h_ref = linear_ref(xd, w1, b1, T, D, F, true, false);
    auto want = linear_ref(h_ref, w2, b2, T, F, D, false, false);
    for (int64_t i = 0; i < T * D; ++i) want[i] += xd[i];
    return {"vit", std::move(b.g), {x}, {{1, T, D}}, {1, T, D}, want};
}

// Runs `c` with the given options; returns the output and how many fused calls ran.
std::pair<std::vector<float>, size_t> run(const Case& c, bool fuse, bool float16) {
    ProgramOptions options;
    options.fuse = fuse;
    options.float16 = float16;
    Program prog = Program::from_graph(c.graph, options);
    size_t fused = 0;
    for (const auto& call : prog.graph().chain) fused += call.name == "wgx.linear_epilogue.default";
    std::vector<Tensor> io;
    for (size_t i = 0; i < c.inputs.size(); ++i) {
        io.push_back(ctx().tensor(DType::f32, c.input_shapes[i]).set_data(c.inputs[i]));
    }
    Tensor out = ctx().tensor(DType::f32, c.out_shape);
    poison(out);
    io.push_back(out);
    ctx().reset();
    ctx().record(prog, io);
    ctx().submit();
    auto got = out.get_data<float>();
    ctx().reset();
    return {got, fused};
}

TEST(ProgramLinearEpilogue, FusedMatchesUnfusedAndFloat64) {
    for (const Case& c : {convnext_case(), vit_case()}) {
        auto [fused, fused_calls] = run(c, true, false);
        auto [plain, plain_calls] = run(c, false, false);
        EXPECT_EQ(fused_calls, 2u) << c.name;
        EXPECT_EQ(plain_calls, 0u) << c.name;
        EXPECT_LE(max_rel_error(fused, c.want), 1e-5) << c.name << " fused";
        EXPECT_LE(max_rel_error(plain, c.want), 1e-5) << c.name << " unfused";
        const std::vector<double> plain_d(plain.begin(), plain.end());
        EXPECT_LE(max_rel_error(fused, plain_d), 1e-5) << c.name << " fused vs unfused";
    }
}

TEST(ProgramLinearEpilogue, Float16FusedStaysNearFloat64) {
    WGX_SKIP_WITHOUT_F16();
    for (const Case& c : {convnext_case(), vit_case()}) {
        auto [got, fused_calls] = run(c, true, true);
        EXPECT_EQ(fused_calls, 2u) << c.name;
        // Inputs, weights and the hidden activations each rounded to float16 (2^-11 relative)
        // through two layers of at most 20 terms: about 5e-4 of the largest value here.
        EXPECT_LE(max_rel_error(got, c.want), 3e-3) << c.name << " float16";
    }
}

}  // namespace
}  // namespace wgx::test
