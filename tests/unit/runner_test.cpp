// wgx::Runner: a program run many times with sizes that change within their bounds (one
// recording per distinct set of sizes, replayed when sizes repeat) and clear errors for inputs
// outside them.
#include "wgx/runner.h"

#include <cstring>
#include <limits>

#include "graph/graph.h"
#include "test_util.h"

namespace wgx::test {
namespace {

namespace pg = wgx::graph;

pg::Tensor tensor(std::vector<int64_t> dims, int32_t pool, bool dynamic = false) {
    pg::Tensor t;
    t.dtype = DType::f32;
    t.dims = std::move(dims);
    t.mem_obj_id = pool;
    t.dynamic_bound = dynamic;
    return t;
}

// x f32 [1, <=8, 4] (dynamic):  s = sym_size(x, 1);  y = view_copy(x, [s, 4]);
// z = linear(y, w [3, 4]) + b;  out = relu(z)  -> [s, 3]
struct DynamicLinear {
    pg::Graph g;
    std::vector<float> w, b;
    DynamicLinear() : w(random_floats(12, 7)), b(random_floats(3, 8)) {
        g.origin = "dynamic linear";
        auto bytes = std::make_shared<std::vector<uint8_t>>((w.size() + b.size()) * 4);
        std::memcpy(bytes->data(), w.data(), w.size() * 4);
        std::memcpy(bytes->data() + w.size() * 4, b.data(), b.size() * 4);
        g.storage.push_back(bytes);
        g.constants.push_back({std::span<const uint8_t>(bytes->data(), 48), "w"});
        g.constants.push_back({std::span<const uint8_t>(bytes->data() + 48, 12), "b"});
        pg::Tensor wt = tensor({3, 4}, -1), bt = tensor({3}, -1);
        wt.constant_id = 0;
        bt.constant_id = 1;
        g.values = {tensor({1, 8, 4}, -1, true),  // 0 x
                    pg::Int{1},                   // 1
                    pg::SymInt{0},                // 2 s
                    pg::Int{4},                   // 3
                    pg::ValueList{{2, 3}},        // 4 [s, 4]
                    tensor({8, 4}, 0),            // 5 y
                    wt,                           // 6
                    bt,                           // 7
                    tensor({8, 3}, 1),            // 8 z
                    tensor({8, 3}, 0)};           // 9 out
        g.chain = {{"sym_size.int", {0, 1, 2}},
                   {"aten.view_copy.default", {0, 4, 5}},
                   {"aten.linear.default", {5, 6, 7, 8}},
                   {"aten.relu.default", {8, 9}}};
        g.input_ids = {0};
        g.output_ids = {9};
    }

    std::vector<double> reference(const std::vector<float>& x, int64_t s) const {
        std::vector<double> out(static_cast<size_t>(s) * 3);
        for (int64_t r = 0; r < s; ++r) {
            for (int64_t n = 0; n < 3; ++n) {
                double acc = b[n];
                for (int64_t k = 0; k < 4; ++k) acc += double(x[r * 4 + k]) * w[n * 4 + k];
                out[r * 3 + n] = std::max(acc, 0.0);
            }
        }
        return out;
    }
};

TEST(Runner, SizesChangeBetweenRunsAndRecordingsAreReplayed) {
    DynamicLinear m;
    Program program = Program::from_graph(m.g);
    Runner runner(ctx(), program);
    for (int64_t s : {3, 8, 1, 3, 8, 5}) {
        const std::vector<float> x = random_floats(static_cast<size_t>(s) * 4, 100 + s);
        std::vector<Tensor> out = runner.run({HostTensor::of<float>(x, {1, s, 4})});
        ASSERT_EQ(out.size(), 1u);
        EXPECT_EQ(out[0].shape(), (Shape{s, 3}));
        EXPECT_LT(max_rel_error(out[0].get_data<float>(), m.reference(x, s)), 1e-5) << "s = " << s;
    }
    EXPECT_EQ(runner.recordings(), 4u);  // sizes 3, 8, 1 and 5
    EXPECT_FALSE(runner.has_state());
}

TEST(Runner, InputsOutsideTheirBoundsAreClearErrors) {
    DynamicLinear m;
    Runner runner(ctx(), Program::from_graph(m.g));
    const std::vector<float> x(9 * 4, 0.5f);
    auto message = [&](HostTensor in) {
        try {
            runner.run({in});
        } catch (const InvalidArgument& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    std::string e = message(HostTensor::of<float>(x, {1, 9, 4}));
    EXPECT_NE(e.find("input 0 has size 9 in dim 1, outside 1 .. the bound 8"), std::string::npos)
        << e;
    e = message(HostTensor::of<float>(std::span<const float>(x).first(27), {1, 9, 3}));
    EXPECT_NE(e.find("size 9 in dim 1"), std::string::npos) << e;
    e = message(HostTensor::of<float>(std::span<const float>(x).first(16), {1, 4, 4, 1}));
    EXPECT_NE(e.find("rank 4"), std::string::npos) << e;
    e = message(HostTensor::of<float>(std::span<const float>(x).first(15), {1, 4, 4}));
    EXPECT_NE(e.find("60 bytes of data"), std::string::npos) << e;
    const std::vector<int64_t> ints(16, 1);
    e = message(HostTensor::of<int64_t>(ints, {1, 4, 4}));
    EXPECT_NE(e.find("is int64, the program expects float32"), std::string::npos) << e;
    EXPECT_EQ(runner.recordings(), 0u);
}

TEST(Runner, ARecordingIntoAContextRunsDynamicProgramsAtTheirBounds) {
    DynamicLinear m;
    Program program = Program::from_graph(m.g);
    const std::vector<float> x = random_floats(32, 3);
    Tensor in = ctx().tensor(DType::f32, {1, 8, 4}).set_data(x);
    Tensor out = ctx().tensor(DType::f32, {8, 3});
    ctx().reset();
    ctx().record(program, {in, out});
    ctx().submit();
    EXPECT_LT(max_rel_error(out.get_data<float>(), m.reference(x, 8)), 1e-5);
    ctx().reset();
}

// A slice whose start is a negative symbolic integer (a hybrid LLM's last `seq_len` positions,
// `start = -s`): x [1, <=8, 3];  s = sym_size(x, 1);  n = neg(s);
// out = view_copy(x, [s, 3]) + slice_copy(table [16, 3], 0, n, INT64_MAX)  -> [s, 3], the
// table's last s rows. The start is baked into each recording (it follows the sizes).
TEST(Runner, ANegativeSymbolicSliceStartCountsFromTheEnd) {
    const std::vector<float> table = random_floats(48, 21);
    auto bytes = std::make_shared<std::vector<uint8_t>>(table.size() * 4);
    std::memcpy(bytes->data(), table.data(), bytes->size());
    pg::Graph g;
    g.origin = "negative slice start";
    g.storage.push_back(bytes);
    g.constants.push_back({std::span<const uint8_t>(bytes->data(), bytes->size()), "table"});
    pg::Tensor t = tensor({16, 3}, -1);
    t.constant_id = 0;
    g.values = {tensor({1, 8, 3}, -1, true),                   // 0 x
                pg::Int{1},                                    // 1
                pg::SymInt{0},                                 // 2 s
                pg::SymInt{0},                                 // 3 -s
                t,                                             // 4 table
                pg::Int{0},                                    // 5
                pg::Int{std::numeric_limits<int64_t>::max()},  // 6
                tensor({8, 3}, 0),                             // 7 rows
                pg::Int{3},                                    // 8
                pg::ValueList{{2, 8}},                         // 9 [s, 3]
                tensor({8, 3}, 1),                             // 10 y
                tensor({8, 3}, 2)};                            // 11 out
    g.chain = {{"sym_size.int", {0, 1, 2}},
               {"neg", {2, 3}},
               {"aten.slice_copy.Tensor", {4, 5, 3, 6, 1, 7}},
               {"aten.view_copy.default", {0, 9, 10}},
               {"aten.add.Tensor", {10, 7, 1, 11}}};
    g.input_ids = {0};
    g.output_ids = {11};
    Runner runner(ctx(), Program::from_graph(g));
    for (int64_t n : {3, 8, 1, 3}) {
        const std::vector<float> x = random_floats(size_t(n) * 3, 200 + uint32_t(n));
        std::vector<Tensor> out = runner.run({HostTensor::of<float>(x, {1, n, 3})});
        ASSERT_EQ(out.at(0).shape(), (Shape{n, 3}));
        std::vector<double> want(size_t(n) * 3);
        for (int64_t i = 0; i < n * 3; ++i) want[i] = double(x[i]) + table[(16 - n) * 3 + i];
        EXPECT_LT(max_rel_error(out[0].get_data<float>(), want), 1e-6) << "s = " << n;
    }
    EXPECT_EQ(runner.recordings(), 3u);
}

}  // namespace
}  // namespace wgx::test
