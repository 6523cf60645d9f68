// A run's sizes found on the CPU: symbolic integers evaluated, each op's size rule applied, and
// the errors for inputs beyond their bounds and for sizes a rule cannot follow.
#include "graph/run_sizes.h"

#include <gtest/gtest.h>

#include <cstring>
#include <limits>

#include "graph/schema/size_rules.h"
#include "wgx/error.h"

namespace wgx::graph {
namespace {

Tensor tensor(DType dtype, std::vector<int64_t> dims, bool dynamic = false) {
    Tensor t;
    t.dtype = dtype;
    t.dims = std::move(dims);
    t.dynamic_bound = dynamic;
    return t;
}

// tokens i64 [1, <=8] and pos i64 [1] as a Llama export gives them:
//   s = sym_size(tokens, 1); p = select_as_symint(pos, 0, 0); e = p + s
//   x = embedding(table [11, 6], tokens)            -> [1, s, 6]
//   y = view_copy(x, [s, 6])                        -> [s, 6]
//   f = slice_copy(freqs [16, 3], 0, p, e, 1)       -> [s, 3]
//   z = linear(y, w [5, 6])                         -> [s, 5]
//   r = aten.relu(z)
struct LlamaLike {
    Graph g;
    LlamaLike() {
        g.origin = "llama-like";
        g.values = {
            tensor(DType::i64, {1, 8}, true),  // 0 tokens
            tensor(DType::i64, {1}),           // 1 pos
            Int{1},                            // 2
            SymInt{0},                         // 3 s
            Int{0},                            // 4
            SymInt{0},                         // 5 p
            SymInt{0},                         // 6 e
            tensor(DType::f32, {11, 6}),       // 7 table
            Int{-1},                           // 8
            Bool{false},                       // 9
            tensor(DType::f32, {1, 8, 6}),     // 10 x
            Int{6},                            // 11
            ValueList{{3, 11}},                // 12 [s, 6]
            tensor(DType::f32, {8, 6}),        // 13 y
            tensor(DType::f32, {16, 3}),       // 14 freqs
            tensor(DType::f32, {8, 3}),        // 15 f
            tensor(DType::f32, {5, 6}),        // 16 w
            Null{},                            // 17
            tensor(DType::f32, {8, 5}),        // 18 z
            tensor(DType::f32, {8, 5}),        // 19 r
        };
        g.chain = {
            {"sym_size.int", {0, 2, 3}},
            {"et_vk.select_as_symint.default", {1, 4, 4, 5}},
            {"add", {5, 3, 6}},
            {"aten.embedding.default", {7, 0, 8, 9, 9, 10}},
            {"aten.view_copy.default", {10, 12, 13}},
            {"aten.slice_copy.Tensor", {14, 4, 5, 6, 2, 15}},
            {"aten.linear.default", {13, 16, 17, 18}},
            {"aten.relu.default", {18, 19}},
        };
        g.input_ids = {0, 1};
        g.output_ids = {19, 15};
    }
};

std::vector<std::byte> i64_bytes(std::vector<int64_t> v) {
    std::vector<std::byte> b(v.size() * 8);
    std::memcpy(b.data(), v.data(), b.size());
    return b;
}

TEST(RunSizes, SymbolsAndRulesFollowTheInputs) {
    LlamaLike m;
    for (int64_t s : {1, 3, 8}) {
        for (int64_t p : {0, 5}) {
            const auto pos = i64_bytes({p});
            std::vector<RunInput> in = {{{1, s}, {}}, {{1}, pos}};
            const RunSizes sizes = infer_run_sizes(m.g, in);
            EXPECT_EQ(sizes.ints[3], s);
            EXPECT_EQ(sizes.ints[5], p);
            EXPECT_EQ(sizes.ints[6], p + s);
            EXPECT_EQ(sizes.dims[10], (std::vector<int64_t>{1, s, 6}));
            EXPECT_EQ(sizes.dims[13], (std::vector<int64_t>{s, 6}));
            EXPECT_EQ(sizes.dims[15], (std::vector<int64_t>{std::min<int64_t>(s, 16 - p), 3}));
            EXPECT_EQ(sizes.dims[18], (std::vector<int64_t>{s, 5}));
            EXPECT_EQ(sizes.dims[19], (std::vector<int64_t>{s, 5}));
        }
    }
}

// The runner reuses a run's sizes for the next inputs of the same dims when the values the rules
// read are the same: here the position's, never the tokens' (the embedding and the views only
// carry the tokens' bytes on). Reusing the same RunSizes gives what a fresh one does.
TEST(RunSizes, RecordWhichInputValuesTheyRead) {
    LlamaLike m;
    RunSizes reused;
    for (int64_t p : {0, 5, 2}) {
        const auto pos = i64_bytes({p});
        const auto tokens = i64_bytes({7, 3});
        std::vector<RunInput> in = {{{1, 2}, tokens}, {{1}, pos}};
        infer_run_sizes_into(m.g, in, reused);
        EXPECT_EQ(reused.input_values_read, (std::vector<bool>{false, true}));
        const RunSizes fresh = infer_run_sizes(m.g, in);
        EXPECT_EQ(reused.dims, fresh.dims);
        EXPECT_EQ(reused.ints, fresh.ints);
        EXPECT_EQ(reused.ints[5], p);
    }
}

// The Vulkan delegate's static int8 convolutions follow a dynamic image size: strided, depthwise
// (channels from the input, its weights [kH, kW, C_p]) and transposed (output_padding).
TEST(RunSizes, Q8taConvolutionsFollowTheImage) {
    Graph g;
    g.origin = "q8ta";
    g.values = {
        tensor(DType::i8, {1, 4, 16, 16}, true),  // 0 x
        Double{0.1},                              // 1 scale
        Int{0},                                   // 2 zero point
        tensor(DType::i8, {8, 36}),               // 3 weights
        Null{},                                   // 4
        IntList{{3, 3}},                          // 5 kernel
        IntList{{2, 2}},                          // 6 stride
        IntList{{1, 1}},                          // 7 padding
        IntList{{1, 1}},                          // 8 dilation
        Int{1},                                   // 9 groups
        String{"none"},                           // 10
        tensor(DType::i8, {1, 8, 8, 8}),          // 11 strided
        tensor(DType::i8, {3, 3, 4}),             // 12 depthwise weights
        Int{4},                                   // 13 groups
        tensor(DType::i8, {1, 4, 16, 16}),        // 14 depthwise
        tensor(DType::i8, {8, 36}),               // 15 transposed weights
        tensor(DType::i8, {1, 8, 32, 32}),        // 16 transposed
    };
    auto conv = [](std::vector<int32_t> mid, int32_t groups, int32_t w, int32_t out) {
        std::vector<int32_t> a = {0, 1, 2, w, 4, 4, 1, 2, 4};
        a.insert(a.end(), mid.begin(), mid.end());
        a.insert(a.end(), {8, groups, 10, out});
        return a;
    };
    g.chain = {{"et_vk.q8ta_conv2d.default", conv({5, 6, 7}, 9, 3, 11)},
               {"et_vk.q8ta_conv2d_dw.default", conv({5, 8, 7}, 13, 12, 14)},
               {"et_vk.q8ta_conv2d_transposed.default", conv({5, 6, 7, 8}, 9, 15, 16)}};
    g.input_ids = {0};
    g.output_ids = {11, 14, 16};
    std::vector<RunInput> in = {{{1, 4, 9, 13}, {}}};
    const RunSizes s = infer_run_sizes(g, in);
    EXPECT_EQ(s.dims[11], (std::vector<int64_t>{1, 8, 5, 7}));
    EXPECT_EQ(s.dims[14], (std::vector<int64_t>{1, 4, 9, 13}));
    // (9 - 1) * 2 - 2 + 2 + 1 + 1 = 18 (output_padding 1), (13 - 1) * 2 - 2 + 2 + 1 + 1 = 26
    EXPECT_EQ(s.dims[16], (std::vector<int64_t>{1, 8, 18, 26}));
}

TEST(RunSizes, InputsBeyondTheirBoundsNameTheInputDimAndBound) {
    LlamaLike m;
    const auto pos = i64_bytes({0});
    auto message = [&](std::vector<RunInput> in) {
        try {
            infer_run_sizes(m.g, in);
        } catch (const InvalidArgument& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    std::string e = message({{{1, 9}, {}}, {{1}, pos}});
    EXPECT_NE(e.find("input 0"), std::string::npos) << e;
    EXPECT_NE(e.find("size 9 in dim 1"), std::string::npos) << e;
    EXPECT_NE(e.find("bound 8"), std::string::npos) << e;
    e = message({{{1, 0}, {}}, {{1}, pos}});
    EXPECT_NE(e.find("size 0 in dim 1"), std::string::npos) << e;
    e = message({{{8}, {}}, {{1}, pos}});
    EXPECT_NE(e.find("rank 1"), std::string::npos) << e;
    e = message({{{1, 8}, {}}, {{2}, pos}});
    EXPECT_NE(e.find("input 1 has size 2 in dim 0, not the fixed size 1"), std::string::npos) << e;
    e = message({{{1, 4}, {}}});
    EXPECT_NE(e.find("expected 2 inputs"), std::string::npos) << e;
}

TEST(RunSizes, SelectAsSymintNeedsTheInputData) {
    LlamaLike m;
    std::vector<RunInput> in = {{{1, 3}, {}}, {{1}, {}}};
    try {
        infer_run_sizes(m.g, in);
        FAIL() << "no error";
    } catch (const LoadError& e) {
        EXPECT_NE(std::string(e.what()).find("op 1 (et_vk.select_as_symint.default)"),
                  std::string::npos)
            << e.what();
        EXPECT_NE(std::string(e.what()).find("known only on the GPU"), std::string::npos);
    }
    EXPECT_TRUE(sizes_depend_on_data(m.g));
}

TEST(RunSizes, AnOpWithoutARuleMustSeeTheFileSizes) {
    LlamaLike m;
    m.g.chain[7].name = "aten.some_op_without_rule.default";
    const auto pos = i64_bytes({0});
    std::vector<RunInput> at_bound = {{{1, 8}, {}}, {{1}, pos}};
    EXPECT_NO_THROW(infer_run_sizes(m.g, at_bound));
    std::vector<RunInput> smaller = {{{1, 3}, {}}, {{1}, pos}};
    try {
        infer_run_sizes(m.g, smaller);
        FAIL() << "no error";
    } catch (const LoadError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("op 7 (aten.some_op_without_rule.default) has no size rule"),
                  std::string::npos)
            << what;
        EXPECT_NE(what.find("value 18 has the sizes [3, 5]"), std::string::npos) << what;
    }
}

TEST(RunSizes, ARuleCannotGrowATensorBeyondItsPlan) {
    LlamaLike m;
    // The view's sizes grow past what value 13 was planned with.
    m.g.values[11] = Int{12};
    std::get<Tensor>(m.g.values[7]).dims = {11, 12};
    std::get<Tensor>(m.g.values[10]).dims = {1, 8, 12};
    const auto pos = i64_bytes({0});
    std::vector<RunInput> in = {{{1, 8}, {}}, {{1}, pos}};
    try {
        infer_run_sizes(m.g, in);
        FAIL() << "no error";
    } catch (const LoadError& e) {
        EXPECT_NE(std::string(e.what()).find("more elements than the [8, 6]"), std::string::npos)
            << e.what();
    }
}

TEST(RunSizes, SymintArithmetic) {
    Graph g;
    g.origin = "arith";
    g.values = {tensor(DType::f32, {9}, true),
                Int{0},
                SymInt{},
                Int{-4},
                SymInt{},
                SymInt{},
                SymInt{},
                SymInt{}};
    g.chain = {{"sym_size.int", {0, 1, 2}},
               {"floordiv", {2, 3, 4}},
               {"mul", {2, 3, 5}},
               {"sub", {2, 3, 6}},
               {"floordiv", {3, 2, 7}}};
    g.input_ids = {0};
    g.output_ids = {0};
    std::vector<RunInput> in = {{{7}, {}}};
    const RunSizes s = infer_run_sizes(g, in);
    EXPECT_EQ(s.ints[4], -2);  // floor(7 / -4), as Python's //
    EXPECT_EQ(s.ints[5], -28);
    EXPECT_EQ(s.ints[6], 11);
    EXPECT_EQ(s.ints[7], -1);  // floor(-4 / 7)
    EXPECT_TRUE(is_host_op("floordiv"));
    EXPECT_FALSE(is_host_op("aten.add.Tensor"));
}

// The rules a hybrid LLM's layers need when the prompt length s changes (Qwen 3.5's DeltaNet,
// LFM2's short convolutions): x [1, C, s] joined after a conv state [1, C, 3], a depthwise
// conv1d (kernel 4) back to [1, C, s], its last s positions taken with a start of -s (the
// symint neg), a split along C, the delta rule's two outputs, and the state's writes (copy,
// copy_, slice_scatter: self's sizes).
TEST(RunSizes, HybridLayerRulesFollowTheLength) {
    Graph g;
    g.origin = "hybrid";
    const int64_t kMax = std::numeric_limits<int64_t>::max();
    g.values = {
        tensor(DType::f32, {1, 6, 8}, true),   // 0 x
        Int{2},                                // 1
        SymInt{},                              // 2 s
        tensor(DType::f32, {1, 6, 3}),         // 3 state
        ValueList{{3, 0}},                     // 4
        Int{-1},                               // 5
        tensor(DType::f32, {1, 6, 11}, true),  // 6 joined
        tensor(DType::f32, {6, 1, 4}),         // 7 weight
        Null{},                                // 8
        IntList{{1}},                          // 9 stride / dilation
        IntList{{0}},                          // 10 padding / output_padding
        Bool{false},                           // 11
        Int{6},                                // 12 groups
        tensor(DType::f32, {1, 6, 8}, true),   // 13 conv
        SymInt{},                              // 14 -s
        Int{kMax},                             // 15
        Int{1},                                // 16
        tensor(DType::f32, {1, 6, 8}, true),   // 17 last s
        IntList{{2, 4}},                       // 18 split sizes
        Int{1},                                // 19 dim
        tensor(DType::f32, {1, 2, 8}, true),   // 20 piece 0
        tensor(DType::f32, {1, 4, 8}, true),   // 21 piece 1
        ValueList{{20, 21}},                   // 22
        tensor(DType::f32, {1, 6, 3}),         // 23 new state (slice of joined)
        Int{-3},                               // 24
        tensor(DType::f32, {1, 6, 3}),         // 25 copy
        tensor(DType::f32, {1, 6, 3}),         // 26 slice_scatter
        Int{0},                                // 27
        // gated_delta_rule: q, k [1, 2, s, 4], v [1, 2, s, 5], decay, beta [1, 2, s], state
        tensor(DType::f32, {1, 2, 8, 4}, true),  // 28 q
        tensor(DType::f32, {1, 2, 8, 5}, true),  // 29 v
        tensor(DType::f32, {1, 2, 8}, true),     // 30 decay, beta
        tensor(DType::f32, {1, 2, 4, 5}),        // 31 initial state
        tensor(DType::f32, {1, 2, 8, 5}, true),  // 32 out
        tensor(DType::f32, {1, 2, 4, 5}),        // 33 final state
        ValueList{{32, 33}},                     // 34
    };
    g.chain = {
        {"sym_size.int", {0, 1, 2}},
        {"aten.cat.default", {4, 5, 6}},
        {"aten.convolution.default", {6, 7, 8, 9, 10, 9, 11, 10, 12, 13}},
        {"neg", {2, 14}},
        {"aten.slice_copy.Tensor", {13, 1, 14, 15, 16, 17}},
        {"aten.split_with_sizes_copy.default", {17, 18, 19, 22}},
        {"aten.slice_copy.Tensor", {6, 1, 24, 15, 16, 23}},
        {"aten.copy.default", {3, 23, 11, 25}},
        {"aten.slice_scatter.default", {3, 25, 27, 27, 16, 16, 26}},
        {"aten.copy_.default", {3, 26, 11, 3}},
        {"llama.gated_delta_rule.default", {28, 28, 29, 30, 30, 31, 34}},
    };
    g.input_ids = {0, 28, 29, 30};
    g.output_ids = {17, 20, 21, 32, 33, 3};
    const std::vector<RunInput> in = {
        {{1, 6, 5}, {}}, {{1, 2, 5, 4}, {}}, {{1, 2, 5, 5}, {}}, {{1, 2, 5}, {}}};
    const RunSizes s = infer_run_sizes(g, in);
    EXPECT_EQ(s.ints[14], -5);
    EXPECT_EQ(s.dims[6], (std::vector<int64_t>{1, 6, 8}));
    EXPECT_EQ(s.dims[13], (std::vector<int64_t>{1, 6, 5}));
    EXPECT_EQ(s.dims[17], (std::vector<int64_t>{1, 6, 5}));
    EXPECT_EQ(s.dims[20], (std::vector<int64_t>{1, 2, 5}));
    EXPECT_EQ(s.dims[21], (std::vector<int64_t>{1, 4, 5}));
    EXPECT_EQ(s.dims[23], (std::vector<int64_t>{1, 6, 3}));
    EXPECT_EQ(s.dims[26], (std::vector<int64_t>{1, 6, 3}));
    EXPECT_EQ(s.dims[3], (std::vector<int64_t>{1, 6, 3}));
    EXPECT_EQ(s.dims[32], (std::vector<int64_t>{1, 2, 5, 5}));
    EXPECT_EQ(s.dims[33], (std::vector<int64_t>{1, 2, 4, 5}));
    EXPECT_TRUE(is_host_op("neg"));
}

// The quantized_decomposed ops of a dynamically quantized program: per-token qparams take the
// input's sizes with the last dim 1, per-tensor ones one element, the rest the input's sizes.
TEST(RunSizes, QuantizedOpsFollowTheInput) {
    Graph g;
    g.origin = "quant";
    g.values = {
        tensor(DType::f32, {8, 6}, true),  // 0 x
        Int{1},                            // 1 dtype int8
        tensor(DType::f64, {8, 1}, true),  // 2 per-token scales
        tensor(DType::i64, {8, 1}, true),  // 3 per-token zero points
        ValueList{{2, 3}},                 // 4
        Int{-128},                         // 5
        Int{127},                          // 6
        tensor(DType::i8, {8, 6}, true),   // 7 q
        Int{6},                            // 8 output dtype float
        tensor(DType::f32, {8, 6}, true),  // 9 dq
        Double{1e-5},                      // 10 eps
        tensor(DType::f64, {1}),           // 11 scale
        tensor(DType::i64, {1}),           // 12 zero point
        ValueList{{11, 12}},               // 13
        tensor(DType::i8, {8, 6}, true),   // 14 q2
    };
    g.chain = {
        {"quantized_decomposed.choose_qparams_per_token_asymmetric.default", {0, 1, 4}},
        {"quantized_decomposed.quantize_per_token.default", {0, 2, 3, 5, 6, 1, 7}},
        {"quantized_decomposed.dequantize_per_token.default", {7, 2, 3, 5, 6, 1, 8, 9}},
        {"quantized_decomposed.choose_qparams.tensor", {9, 5, 6, 10, 1, 13}},
        {"quantized_decomposed.quantize_per_tensor.tensor", {9, 11, 12, 5, 6, 1, 14}},
    };
    g.input_ids = {0};
    g.output_ids = {9, 14};
    const RunSizes s = infer_run_sizes(g, std::vector<RunInput>{{{3, 6}, {}}});
    EXPECT_EQ(s.dims[2], (std::vector<int64_t>{3, 1}));
    EXPECT_EQ(s.dims[3], (std::vector<int64_t>{3, 1}));
    EXPECT_EQ(s.dims[7], (std::vector<int64_t>{3, 6}));
    EXPECT_EQ(s.dims[9], (std::vector<int64_t>{3, 6}));
    EXPECT_EQ(s.dims[11], (std::vector<int64_t>{1}));
    EXPECT_EQ(s.dims[12], (std::vector<int64_t>{1}));
    EXPECT_EQ(s.dims[14], (std::vector<int64_t>{3, 6}));
}

// A transposed convolution's length and a strided one's, as PyTorch computes them.
TEST(RunSizes, ConvolutionRuleHasPyTorchsLengths) {
    for (const bool transposed : {false, true}) {
        Graph g;
        g.origin = "conv";
        g.values = {tensor(DType::f32, {1, 4, 20}, true),
                    tensor(DType::f32, transposed ? std::vector<int64_t>{4, 3, 3}
                                                  : std::vector<int64_t>{6, 4, 3}),
                    Null{},
                    IntList{{2}},
                    IntList{{1}},
                    IntList{{2}},
                    Bool{transposed},
                    IntList{{1}},
                    Int{1},
                    tensor(DType::f32, {1, transposed ? 3 : 6, 64}, true)};
        g.chain = {{"aten.convolution.default", {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}}};
        g.input_ids = {0};
        g.output_ids = {9};
        const RunSizes s = infer_run_sizes(g, std::vector<RunInput>{{{1, 4, 9}, {}}});
        // (9 + 2 - 2 * 2 - 1) / 2 + 1 = 4; (9 - 1) * 2 - 2 + 2 * 2 + 1 + 1 = 20
        EXPECT_EQ(s.dims[9], (std::vector<int64_t>{1, transposed ? 3 : 6, transposed ? 20 : 4}));
        // A stride of 0 (a damaged file) is an error naming the op, not a division by zero.
        g.values[3] = IntList{{0}};
        try {
            infer_run_sizes(g, std::vector<RunInput>{{{1, 4, 9}, {}}});
            ADD_FAILURE() << "stride 0 accepted";
        } catch (const LoadError& e) {
            EXPECT_NE(std::string(e.what()).find("aten.convolution.default"), std::string::npos)
                << e.what();
        }
    }
}

}  // namespace
}  // namespace wgx::graph
