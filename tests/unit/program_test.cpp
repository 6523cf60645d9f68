// Programs built as graphs: the seed's pooled example, a user op inside a program, and the
// load-time errors (unknown ops, wrong inputs).
#include "wgx/program.h"
#include "graph/graph.h"
#include "normalize_image.h"
#include "test_util.h"

namespace wgx::test {
namespace {

namespace pg = wgx::graph;

pg::Tensor f32_tensor(std::vector<int64_t> dims, int32_t pool) {
    pg::Tensor t;
    t.dtype = DType::f32;
    t.dims = std::move(dims);
    t.mem_obj_id = pool;
    return t;
}

// The seed's program: out = (in1 + 1.5 * in2) @ in3, with in1 and out sharing pool 0.
pg::Graph seed_graph() {
    pg::Graph g;
    g.origin = "seed example";
    g.values = {f32_tensor({2, 2}, 0), f32_tensor({2, 2}, 1), pg::Double{1.5},
                f32_tensor({2, 2}, 2), f32_tensor({2, 2}, 3), f32_tensor({2, 2}, 0)};
    g.chain = {{"aten.add.Tensor", {0, 1, 2, 3}}, {"aten.mm.default", {3, 4, 5}}};
    g.input_ids = {0, 1, 4};
    g.output_ids = {5};
    return g;
}

TEST(Program, SeedExampleWithPoolAliasing) {
    Program prog = Program::from_graph(seed_graph());
    ASSERT_EQ(prog.inputs().size(), 3u);
    ASSERT_EQ(prog.outputs().size(), 1u);
    Tensor in1 = ctx().tensor(DType::f32, {2, 2}).set_data({1.f, 2.f, 3.f, 4.f});
    Tensor in2 = ctx().tensor(DType::f32, {2, 2}).set_data({10.f, 20.f, 30.f, 40.f});
    Tensor in3 = ctx().tensor(DType::f32, {2, 2}).set_data({1.f, 2.f, 3.f, 4.f});
    Tensor out = ctx().tensor(DType::f32, {2, 2});
    ctx().reset();
    ctx().record(prog, {in1, in2, in3, out});
    ctx().submit();
    EXPECT_EQ(out.get_data<float>(), (std::vector<float>{112, 160, 240, 352}));
    // Replay with new inputs.
    in1.set_data({0.f, 0.f, 0.f, 1.f});
    ctx().submit();
    EXPECT_EQ(out.get_data<float>(), (std::vector<float>{105, 150, 228, 334}));
    ctx().reset();
}

TEST(Program, ConstantsAreUploadedOnce) {
    pg::Graph g;
    g.origin = "constant example";
    static const std::vector<float> weights = {2.f, 0.f, 0.f, 3.f};
    auto bytes = std::make_shared<std::vector<uint8_t>>(16);
    std::memcpy(bytes->data(), weights.data(), 16);
    g.storage.push_back(bytes);
    g.constants.push_back({std::span<const uint8_t>(*bytes), "w"});
    pg::Tensor w = f32_tensor({2, 2}, -1);
    w.constant_id = 0;
    g.values = {f32_tensor({1, 2}, -1), w, f32_tensor({1, 2}, -1)};
    g.chain = {{"aten.mm.default", {0, 1, 2}}};
    g.input_ids = {0};
    g.output_ids = {2};
    Program prog = Program::from_graph(std::move(g));
    Tensor x = ctx().tensor(DType::f32, {1, 2}).set_data({5.f, 7.f});
    Tensor y = ctx().tensor(DType::f32, {1, 2});
    ctx().reset();
    ctx().record(prog, {x, y});
    ctx().submit();
    EXPECT_EQ(y.get_data<float>(), (std::vector<float>{10.f, 21.f}));
    ctx().reset();
}

TEST(Program, UserOpInsideAProgram) {
    example::NormalizeImage normalize({0.5f, 0.5f, 0.5f}, {0.25f, 0.5f, 1.0f});
    pg::Graph g;
    g.origin = "user op example";
    pg::Tensor image;
    image.dtype = DType::u8;
    image.dims = {2, 3, 3};
    g.values = {image, f32_tensor({1, 3, 2, 3}, -1), f32_tensor({1, 3, 2, 3}, -1)};
    g.chain = {{"example.normalize_image", {0, 1}}, {"aten.mul.Tensor", {1, 1, 2}}};
    g.input_ids = {0};
    g.output_ids = {2};
    ProgramOptions options;
    options.extra_ops = {&normalize};
    Program prog = Program::from_graph(std::move(g), options);

    std::vector<uint8_t> pixels(18);
    for (size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<uint8_t>(i * 14 + 3);
    Tensor img = ctx().tensor(DType::u8, {2, 3, 3}).set_data(pixels);
    Tensor out = ctx().tensor(DType::f32, {1, 3, 2, 3});
    ctx().reset();
    ctx().record(prog, {img, out});
    ctx().submit();
    auto got = out.get_data<float>();
    const float inv_std[3] = {4.f, 2.f, 1.f};
    for (int c = 0; c < 3; ++c)
        for (int p = 0; p < 6; ++p) {
            double v = (pixels[p * 3 + c] / 255.0 - 0.5) * inv_std[c];
            EXPECT_NEAR(got[c * 6 + p], v * v, 1e-5) << c << "," << p;
        }
    ctx().reset();
}

TEST(Program, UnknownOpsAreListedWithCountsAtLoad) {
    pg::Graph g = seed_graph();
    g.chain.push_back({"aten.frobnicate.default", {5, 5}});
    g.chain.push_back({"aten.frobnicate.default", {5, 5}});
    g.chain.push_back({"aten.zorch.default", {5, 5}});
    try {
        Program::from_graph(std::move(g));
        FAIL() << "expected an error";
    } catch (const LoadError& e) {
        std::string m = e.what();
        EXPECT_NE(m.find("aten.frobnicate.default x2"), std::string::npos) << m;
        EXPECT_NE(m.find("aten.zorch.default x1"), std::string::npos) << m;
    }
}

TEST(Program, WrongNumberOrShapeOfInputsIsAClearError) {
    Program prog = Program::from_graph(seed_graph());
    Tensor a = ctx().tensor(DType::f32, {2, 2});
    Tensor wrong = ctx().tensor(DType::f32, {2, 3});
    ctx().reset();
    try {
        ctx().record(prog, {a, a, a});
        FAIL() << "expected an error";
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("expected 4 tensors"), std::string::npos) << e.what();
    }
    try {
        ctx().record(prog, {a, wrong, a, a});
        FAIL() << "expected an error";
    } catch (const InvalidArgument& e) {
        std::string m = e.what();
        EXPECT_NE(m.find("input 1"), std::string::npos) << m;
        EXPECT_NE(m.find("[2, 3]"), std::string::npos) << m;
    }
    ctx().reset();
}

TEST(Program, BadOpArgumentsFailAtRecordNamingTheOp) {
    pg::Graph g = seed_graph();
    g.values[4] = f32_tensor({3, 2}, 3);  // mm no longer chains
    Program prog = Program::from_graph(std::move(g));
    Tensor a = ctx().tensor(DType::f32, {2, 2});
    Tensor b = ctx().tensor(DType::f32, {3, 2});
    ctx().reset();
    try {
        ctx().record(prog, {a, a, b, a});
        FAIL() << "expected an error";
    } catch (const LoadError& e) {
        std::string m = e.what();
        EXPECT_NE(m.find("op 1 (aten.mm.default)"), std::string::npos) << m;
    }
    ctx().reset();
}

}  // namespace
}  // namespace wgx::test
