// wgx.channel_shuffle (src/ops/shape/channel_shuffle.cpp) against a float64 reference written
// here: cat, shuffle and split done on the host, compared exactly (the op moves values, it does
// not compute). float32 and float16 (odd slabs and outputs whose last word is half used),
// int32 and bytes (four to a word), 1 to 6 inputs, 1 to 5 outputs, absent and empty pieces,
// every dim. Then programs: the pattern passes/fuse_channel_shuffle rewrites gives the same
// numbers fused and unfused, in float32 and float16.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "half_test_util.h"
#include "test_util.h"
#include "wgx/program.h"

namespace wgx::test {
namespace {

constexpr std::string_view kOp = "wgx.channel_shuffle.default";

// Values exactly representable in `dt`, none zero.
std::vector<double> values_for(DType dt, size_t n, uint32_t seed) {
    std::vector<double> v;
    if (dt == DType::f32) {
        for (float x : random_floats(n, seed)) v.push_back(x);
    } else if (dt == DType::f16) {
        for (float x : round_to_half(random_floats(n, seed))) v.push_back(x);
    } else if (dt == DType::u8) {
        for (int x : random_ints(n, seed, 1, 255)) v.push_back(x);
    } else {
        for (int x : random_ints(n, seed, 1, 100000)) v.push_back(x);
    }
    return v;
}

Tensor make(DType dt, const Shape& s, const std::vector<double>& v) {
    Tensor t = ctx().tensor(dt, s);
    if (dt == DType::f32) t.set_data(std::vector<float>(v.begin(), v.end()));
    if (dt == DType::f16) return half_tensor(s, std::vector<float>(v.begin(), v.end()));
    if (dt == DType::i32) t.set_data(std::vector<int32_t>(v.begin(), v.end()));
    if (dt == DType::u8) t.set_data(std::vector<uint8_t>(v.begin(), v.end()));
    return t;
}

// An output holding a value no input holds (0), so unwritten elements show up.
Tensor blank(DType dt, const Shape& s) {
    return make(dt, s, std::vector<double>(static_cast<size_t>(numel(s)), 0.0));
}

std::vector<double> read(const Tensor& t) {
    switch (t.dtype()) {
        case DType::f32: {
            auto v = t.get_data<float>();
            return {v.begin(), v.end()};
        }
        case DType::f16: {
            auto v = read_half(t);
            return {v.begin(), v.end()};
        }
        case DType::i32: {
            auto v = t.get_data<int32_t>();
            return {v.begin(), v.end()};
        }
        case DType::u8: {
            auto v = t.get_data<uint8_t>();
            return {v.begin(), v.end()};
        }
        default: return {};
    }
}

// The reference: the inputs concatenated along `dim`, channel i * groups + j of the result
// taken from channel j * (C / groups) + i, split into pieces of `sizes` (one piece of C when
// empty).
std::vector<std::vector<double>> reference(const std::vector<std::vector<double>>& ins,
                                           const std::vector<Shape>& shapes, size_t dim,
                                           int64_t groups, std::vector<int64_t> sizes) {
    int64_t outer = 1, inner = 1, C = 0;
    for (size_t d = 0; d < dim; ++d) outer *= shapes[0][d];
    for (size_t d = dim + 1; d < shapes[0].size(); ++d) inner *= shapes[0][d];
    for (const Shape& s : shapes) C += s[dim];
    if (sizes.empty()) sizes = {C};
    // x[o][c][i]: the concatenation.
    auto x = [&](int64_t o, int64_t c, int64_t i) {
        size_t k = 0;
        while (c >= shapes[k][dim]) c -= shapes[k++][dim];
        return ins[k][static_cast<size_t>((o * shapes[k][dim] + c) * inner + i)];
    };
    std::vector<std::vector<double>> outs;
    int64_t offset = 0;
    for (int64_t size : sizes) {
        std::vector<double> piece;
        for (int64_t o = 0; o < outer; ++o) {
            for (int64_t c = offset; c < offset + size; ++c) {
                const int64_t src = (c % groups) * (C / groups) + c / groups;
                for (int64_t i = 0; i < inner; ++i) piece.push_back(x(o, src, i));
            }
        }
        outs.push_back(std::move(piece));
        offset += size;
    }
    return outs;
}

std::string describe(DType dt, const std::vector<Shape>& shapes, int64_t dim, int64_t groups,
                     const std::vector<int64_t>& sizes) {
    std::string s = std::string(dtype_name(dt)) + " inputs";
    for (const Shape& sh : shapes) {
        s += " [";
        for (size_t d = 0; d < sh.size(); ++d) s += (d ? "," : "") + std::to_string(sh[d]);
        s += "]";
    }
    s += " dim " + std::to_string(dim) + " groups " + std::to_string(groups) + " sizes";
    for (int64_t x : sizes) s += " " + std::to_string(x);
    return s;
}

// Runs the op on inputs of `shapes` and checks every output. `sizes` empty: no split (one
// output tensor); `absent` names a piece whose output entry is left out.
void check(DType dt, const std::vector<Shape>& shapes, int64_t dim, int64_t groups,
           const std::vector<int64_t>& sizes, std::optional<size_t> absent = std::nullopt) {
    const size_t d = static_cast<size_t>(dim < 0 ? dim + int64_t(shapes[0].size()) : dim);
    std::vector<std::vector<double>> ins;
    Arg::TensorList inputs;
    Shape whole = shapes[0];
    whole[d] = 0;
    for (size_t k = 0; k < shapes.size(); ++k) {
        ins.push_back(values_for(dt, size_t(numel(shapes[k])), 100 + uint32_t(k)));
        inputs.push_back(make(dt, shapes[k], ins.back()));
        whole[d] += shapes[k][d];
    }
    const auto want = reference(ins, shapes, d, groups, sizes);
    const std::string what = describe(dt, shapes, dim, groups, sizes);
    ctx().reset();
    if (sizes.empty()) {
        Tensor out = blank(dt, whole);
        ctx().record(op(kOp), {inputs, dim, groups, Arg(), out});
        ctx().submit();
        EXPECT_EQ(read(out), want[0]) << what;
    } else {
        Arg::TensorList outs;
        for (size_t k = 0; k < sizes.size(); ++k) {
            Shape s = whole;
            s[d] = sizes[k];
            outs.push_back(absent == k ? std::nullopt : std::optional(blank(dt, s)));
        }
        ctx().record(op(kOp), {inputs, dim, groups, sizes, outs});
        ctx().submit();
        for (size_t k = 0; k < sizes.size(); ++k) {
            if (outs[k]) {
                EXPECT_EQ(read(*outs[k]), want[k]) << what << ", piece " << k;
            }
        }
    }
    ctx().reset();
}

TEST(ShapeChannelShuffle, ShuffleNetBlocks) {
    for (DType dt : {DType::f32, DType::f16}) {
        check(dt, {{1, 8, 10, 10}, {1, 8, 10, 10}}, 1, 2, {8, 8});
        check(dt, {{1, 24, 7, 7}, {1, 24, 7, 7}}, 1, 2, {24, 24});  // odd slabs
        check(dt, {{1, 24, 7, 7}, {1, 24, 7, 7}}, 1, 2, {});        // a stage's last block
        check(dt, {{3, 5, 3, 3}, {3, 5, 3, 3}}, 1, 2, {5, 5});      // batch 3, odd channels
    }
}

TEST(ShapeChannelShuffle, GroupsInputsAndPiecesOfAnySize) {
    for (DType dt : {DType::f32, DType::f16}) {
        check(dt, {{2, 3, 7, 3}, {2, 5, 7, 3}, {2, 4, 7, 3}}, 1, 3, {5, 7});
        check(dt, {{2, 12, 5}}, 1, 4, {1, 2, 3, 4, 2});  // five pieces: two dispatches
        check(dt, {{2, 12, 5}}, 1, 1, {7, 5});           // one group: cat and split
        check(dt, {{2, 6, 5}, {2, 6, 5}}, 1, 12, {});    // one channel per group
        check(dt, {{1, 1, 3}, {1, 2, 3}, {1, 1, 3}, {1, 3, 3}, {1, 2, 3}, {1, 3, 3}}, 1, 2,
              {6, 6});                                          // six inputs: joined first
        check(dt, {{3, 4, 5}, {3, 2, 5}}, 1, 3, {2, 2, 2}, 1);  // an absent piece
        check(dt, {{3, 4, 5}, {3, 2, 5}}, 1, 2, {3, 0, 3}, 1);  // an empty (absent) piece
    }
}

TEST(ShapeChannelShuffle, EveryDim) {
    for (DType dt : {DType::f32, DType::f16}) {
        check(dt, {{4, 3}, {2, 3}}, 0, 2, {3, 3});          // outer 1
        check(dt, {{5, 3}, {5, 3}}, -1, 3, {1, 5});         // inner 1: a word spans channels
        check(dt, {{3, 5, 2, 4}, {3, 5, 2, 2}}, 3, 2, {});  // the last of four dims
        check(dt, {{7}, {5}}, 0, 4, {5, 7});                // rank 1
    }
}

TEST(ShapeChannelShuffle, Int32AndBytes) {
    check(DType::i32, {{2, 3, 5}, {2, 5, 5}}, 1, 2, {4, 4});
    check(DType::u8, {{2, 3, 5}, {2, 5, 5}}, 1, 2, {3, 5});  // four to a word, odd pieces
    check(DType::u8, {{3, 7}, {3, 5}}, -1, 4, {});
}

TEST(ShapeChannelShuffle, BadArgumentsAreRejected) {
    auto f32 = [](const Shape& s) { return blank(DType::f32, s); };
    Tensor a = f32({1, 4, 3}), b = f32({1, 4, 3});
    Tensor whole = f32({1, 8, 3}), half = f32({1, 4, 3});
    Arg::TensorList ab = {a, b};
    Arg::TensorList halves = {half, f32({1, 4, 3})};
    auto expect_invalid = [](std::vector<Arg> args, const std::string& part) {
        ctx().reset();
        try {
            ctx().record(op(kOp), args);
            ADD_FAILURE() << "expected InvalidArgument containing \"" << part << "\"";
        } catch (const InvalidArgument& e) {
            const std::string msg = e.what();
            EXPECT_NE(msg.find(std::string(kOp)), std::string::npos) << msg;
            EXPECT_NE(msg.find(part), std::string::npos) << msg;
        }
        ctx().reset();
    };
    const std::vector<int64_t> four_four = {4, 4};
    expect_invalid({Arg::TensorList{}, 1, 2, Arg(), whole}, "empty");
    expect_invalid({Arg::TensorList{a, std::nullopt}, 1, 2, Arg(), whole}, "absent");
    expect_invalid({Arg::TensorList{a, blank(DType::f16, {1, 4, 3})}, 1, 2, Arg(), whole},
                   "tensors[1]");
    expect_invalid({Arg::TensorList{a, f32({2, 4, 3})}, 1, 2, Arg(), whole}, "except in dim 1");
    expect_invalid({ab, 3, 2, Arg(), whole}, "dim");
    expect_invalid({ab, 1, 3, Arg(), whole}, "groups (3)");
    expect_invalid({ab, 1, 0, Arg(), whole}, "groups (0)");
    expect_invalid({ab, 1, 2, Arg(), f32({1, 8, 4})}, "out");
    expect_invalid({ab, 1, 2, Arg(), halves}, "must be a tensor");
    expect_invalid({ab, 1, 2, std::vector<int64_t>{4, 3}, halves}, "add up to 7");
    expect_invalid({ab, 1, 2, std::vector<int64_t>{9, -1}, halves}, ">= 0");
    expect_invalid({ab, 1, 2, four_four, Arg::TensorList{half}}, "out has 1 tensors");
    expect_invalid({ab, 1, 2, four_four, Arg::TensorList{half, f32({1, 4, 2})}}, "out[1]");
    expect_invalid({ab, 1, 2, four_four, whole}, "list of tensors");
    expect_invalid({ab, 1, 2, Arg(), whole, whole}, "expects 5 arguments");
}

// --- the fused program against the unfused one --------------------------------------------

namespace pg = wgx::graph;

pg::Tensor f32_value(std::vector<int64_t> dims) {
    pg::Tensor t;
    t.dims = std::move(dims);
    return t;
}

// Two ShuffleNetV2 block tails over inputs a, b of [N, C/2, H, W]:
//   y = split(view(permute(view(clone(cat([a, b])), [N, 2, C/2, H, W]), [0, 2, 1, 3, 4]),
//             [N, C, H, W]), [C/2, C/2]) -> (y0, y1)
//   z = view(permute(view(cat([y0, relu(y1)]), ...), ...), ...)   (no split: a stage's end)
// outputs y0 (read again by the second cat) and z; relu makes the second cat's inputs come
// from two different calls.
pg::Graph shuffle_graph(int64_t n, int64_t c, int64_t h, int64_t w) {
    const int64_t half = c / 2;
    pg::Graph g;
    g.origin = "channel shuffle example";
    auto add = [&](pg::Value v) {
        g.values.push_back(std::move(v));
        return int32_t(g.values.size() - 1);
    };
    const int32_t a = add(f32_value({n, half, h, w})), b = add(f32_value({n, half, h, w}));
    const int32_t one = add(pg::Int{1});
    const int32_t split5 = add(pg::IntList{{n, 2, half, h, w}});
    const int32_t whole = add(pg::IntList{{n, c, h, w}});
    const int32_t perm = add(pg::IntList{{0, 2, 1, 3, 4}});
    const int32_t sizes = add(pg::IntList{{half, half}});
    const int32_t none = add(pg::Null{});
    // First block.
    const int32_t ab = add(pg::ValueList{{a, b}});
    const int32_t x = add(f32_value({n, c, h, w})), xc = add(f32_value({n, c, h, w}));
    const int32_t v = add(f32_value({n, 2, half, h, w})), p = add(f32_value({n, half, 2, h, w}));
    const int32_t q = add(f32_value({n, c, h, w})), qc = add(f32_value({n, c, h, w}));
    const int32_t y0 = add(f32_value({n, half, h, w})), y1 = add(f32_value({n, half, h, w}));
    const int32_t ys = add(pg::ValueList{{y0, y1}});
    // Second block.
    const int32_t r = add(f32_value({n, half, h, w}));
    const int32_t yr = add(pg::ValueList{{y0, r}});
    const int32_t x2 = add(f32_value({n, c, h, w}));
    const int32_t v2 = add(f32_value({n, 2, half, h, w})), p2 = add(f32_value({n, half, 2, h, w}));
    const int32_t z = add(f32_value({n, c, h, w}));
    g.chain = {{"aten.cat.default", {ab, one, x}, 1},
               {"aten.clone.default", {x, none, xc}, 2},
               {"aten.view_copy.default", {xc, split5, v}, 3},
               {"aten.permute_copy.default", {v, perm, p}, 4},
               {"aten.view_copy.default", {p, whole, q}, 5},
               {"aten.clone.default", {q, none, qc}, 6},
               {"aten.split_with_sizes_copy.default", {qc, sizes, one, ys}, 7},
               {"aten.relu.default", {y1, r}, 8},
               {"aten.cat.default", {yr, one, x2}, 9},
               {"aten.view_copy.default", {x2, split5, v2}, 10},
               {"aten.permute_copy.default", {v2, perm, p2}, 11},
               {"aten.view_copy.default", {p2, whole, z}, 12}};
    g.input_ids = {a, b};
    g.output_ids = {y0, z};
    return g;
}

void check_program(bool float16) {
    const int64_t n = 2, c = 6, h = 3, w = 5;
    const int64_t half = c / 2;
    const size_t count = size_t(n * half * h * w);
    std::vector<float> av = random_floats(count, 11), bv = random_floats(count, 12);
    if (float16) {
        av = round_to_half(av);
        bv = round_to_half(bv);
    }
    // Reference in float64: y = shuffle(cat(a, b)), z = shuffle(cat(y0, relu(y1))).
    const std::vector<Shape> shapes = {{n, half, h, w}, {n, half, h, w}};
    const auto y =
        reference({{av.begin(), av.end()}, {bv.begin(), bv.end()}}, shapes, 1, 2, {half, half});
    std::vector<double> r = y[1];
    for (double& x : r) x = std::max(x, 0.0);
    const auto z = reference({y[0], r}, shapes, 1, 2, {})[0];

    std::vector<std::vector<float>> results;
    for (bool fuse : {true, false}) {
        ProgramOptions options;
        options.fuse = fuse;
        options.float16 = float16;
        Program prog = Program::from_graph(shuffle_graph(n, c, h, w), options);
        size_t fused = 0, replaced = 0;
        for (const auto& call : prog.graph().chain) {
            fused += call.name == kOp;
            replaced += call.name.find("cat") != std::string::npos ||
                        call.name.find("permute") != std::string::npos ||
                        call.name.find("split") != std::string::npos ||
                        call.name.find("clone") != std::string::npos;
        }
        EXPECT_EQ(fused, fuse ? 2u : 0u);
        EXPECT_EQ(replaced, fuse ? 0u : 7u);

        Tensor a = ctx().tensor(DType::f32, {n, half, h, w}).set_data(av);
        Tensor b = ctx().tensor(DType::f32, {n, half, h, w}).set_data(bv);
        Tensor y0 = ctx().tensor(DType::f32, {n, half, h, w});
        Tensor zt = ctx().tensor(DType::f32, {n, c, h, w});
        poison(y0);
        poison(zt);
        ctx().reset();
        ctx().record(prog, {a, b, y0, zt});
        ctx().submit();
        auto y0v = y0.get_data<float>(), zv = zt.get_data<float>();
        EXPECT_EQ(std::vector<double>(y0v.begin(), y0v.end()), y[0]) << "fuse " << fuse;
        EXPECT_EQ(std::vector<double>(zv.begin(), zv.end()), z) << "fuse " << fuse;
        ctx().reset();
    }
}

TEST(ProgramChannelShuffle, FusedMatchesUnfused) { check_program(false); }

TEST(ProgramChannelShuffle, FusedMatchesUnfusedInFloat16) {
    WGX_SKIP_WITHOUT_F16();
    check_program(true);
}

}  // namespace
}  // namespace wgx::test
