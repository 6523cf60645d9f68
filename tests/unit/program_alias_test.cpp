// Reshapes as aliases on the GPU (passes/alias_reshapes): a program whose views share their
// input's buffer gives the same numbers as the same program run with buffer copies, including
// a dispatch that reads two views of one buffer and tensors made while a view is still to be
// read (they must not take its buffer); and a split and a slice into contiguous chunks, whose
// outputs are the input's buffer bound at an offset.
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

// a = relu(x); v = view(a, [3, 4]); s = squeeze(unsqueeze(v, 0), [0]); t = v * s (two views
// of a in one dispatch); q = relu(t); out = s * q (s read after t and q were made). So
// out = relu(x)^3. Only a is written by a kernel, and only in op 0: a's buffer must stay
// a's until the last op, although a itself is never read after op 1 of the file.
pg::Graph views_graph() {
    pg::Graph g;
    g.origin = "alias example";
    g.values = {f32({12}),   f32({12}),      pg::IntList{{3, 4}}, f32({3, 4}),
                pg::Int{0},  f32({1, 3, 4}), pg::IntList{{0}},    f32({3, 4}),
                f32({3, 4}), f32({3, 4}),    f32({3, 4})};
    g.chain = {{"aten.relu.default", {0, 1}},
               {"aten.view_copy.default", {1, 2, 3}},
               {"aten.unsqueeze_copy.default", {3, 4, 5}},
               {"aten.squeeze_copy.dims", {5, 6, 7}},
               {"aten.mul.Tensor", {3, 7, 8}},
               {"aten.relu.default", {8, 9}},
               {"aten.mul.Tensor", {7, 9, 10}}};
    g.input_ids = {0};
    g.output_ids = {10};
    return g;
}

TEST(ProgramAliases, ViewsShareTheBufferAndMatchTheCopies) {
    const std::vector<float> xs = random_floats(12, 7);
    std::vector<float> cube(12);
    for (size_t i = 0; i < 12; ++i) {
        const float a = std::max(xs[i], 0.f);
        cube[i] = a * std::max(a * a, 0.f);
    }
    for (bool fuse : {true, false}) {
        ProgramOptions options;
        options.fuse = fuse;  // off: the program as the file says, reshapes as copies
        Program prog = Program::from_graph(views_graph(), options);
        size_t reshapes = 0;
        for (const auto& call : prog.graph().chain) {
            reshapes += call.name.find("squeeze") != std::string::npos ||
                        call.name.find("view") != std::string::npos;
        }
        EXPECT_EQ(reshapes, fuse ? 0u : 3u) << "fuse " << fuse;
        EXPECT_EQ(prog.graph().alias_groups.size(), fuse ? 1u : 0u) << "fuse " << fuse;

        Tensor x = ctx().tensor(DType::f32, {12}).set_data(xs);
        Tensor out = ctx().tensor(DType::f32, {3, 4});
        ctx().reset();
        ctx().record(prog, {x, out});
        ctx().submit();
        EXPECT_EQ(out.get_data<float>(), cube) << "fuse " << fuse;
        ctx().reset();
    }
}

// a = relu(x [1, 4, 64]); split a along dim 1 into p [1, 1, 64] and q [1, 3, 64] (q at
// element 64: 256 bytes); r = q[:, 1:3] (element 128 of a: 512 bytes); out = r * p, so
// out[0, c, w] = relu(x[0, 2 + c, w]) * relu(x[0, 0, w]). With the passes, the split and the
// slice leave the chain and the mul reads two offsets of a's buffer.
pg::Graph chunks_graph() {
    pg::Graph g;
    g.origin = "chunk example";
    g.values = {f32({1, 4, 64}), f32({1, 4, 64}), pg::IntList{{1, 3}},   pg::Int{1},
                f32({1, 1, 64}), f32({1, 3, 64}), pg::ValueList{{4, 5}}, pg::Int{3},
                f32({1, 2, 64}), f32({1, 2, 64})};
    g.chain = {{"aten.relu.default", {0, 1}},
               {"aten.split_with_sizes_copy.default", {1, 2, 3, 6}},
               {"aten.slice_copy.Tensor", {5, 3, 3, 7, 3, 8}},
               {"aten.mul.Tensor", {8, 4, 9}}};
    g.input_ids = {0};
    g.output_ids = {9};
    return g;
}

TEST(ProgramAliases, ChunksAtAnOffsetMatchTheCopies) {
    const std::vector<float> xs = random_floats(256, 11);
    std::vector<float> want(128);
    for (size_t c = 0; c < 2; ++c) {
        for (size_t w = 0; w < 64; ++w) {
            want[c * 64 + w] = std::max(xs[(2 + c) * 64 + w], 0.f) * std::max(xs[w], 0.f);
        }
    }
    for (bool fuse : {true, false}) {
        ProgramOptions options;
        options.fuse = fuse;
        Program prog = Program::from_graph(chunks_graph(), options);
        EXPECT_EQ(prog.graph().chain.size(), fuse ? 2u : 4u) << "fuse " << fuse;
        EXPECT_EQ(prog.graph().alias_offsets.size(), fuse ? 2u : 0u) << "fuse " << fuse;

        Tensor x = ctx().tensor(DType::f32, {1, 4, 64}).set_data(xs);
        Tensor out = ctx().tensor(DType::f32, {1, 2, 64});
        ctx().reset();
        ctx().record(prog, {x, out});
        ctx().submit();
        EXPECT_EQ(out.get_data<float>(), want) << "fuse " << fuse;
        ctx().reset();
    }
}

}  // namespace
}  // namespace wgx::test
