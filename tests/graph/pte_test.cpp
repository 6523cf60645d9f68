// The .pte reader and lowering on synthetic programs: plain kernel calls, delegates inline and
// in segments, constants (segment, inline buffer, named data, .ptd), value kinds, errors.
#include <gtest/gtest.h>

#include <cstring>

#include "graph/graph_summary.h"
#include "graph/load.h"
#include "synthetic.h"
#include "test_util.h"

namespace wgx::graph {
namespace {

using test::Bytes;
using test::PteWriter;
using test::VkGraphWriter;
namespace fb = executorch_flatbuffer;
namespace vk = vkgraph;

Graph load(const Bytes& file, std::string_view method = "forward") {
    return load_pte_bytes(test::share(file), method, nullptr, "test.pte");
}

const Tensor& tensor_at(const Graph& g, int32_t id) { return std::get<Tensor>(g.values.at(id)); }

template <typename T>
std::vector<T> read_constant(const Graph& g, int32_t tensor_id) {
    const auto bytes = g.constants.at(tensor_at(g, tensor_id).constant_id).bytes;
    std::vector<T> out(bytes.size() / sizeof(T));
    std::memcpy(out.data(), bytes.data(), bytes.size());
    return out;
}

TEST(Pte, PlainProgramKernelCalls) {
    PteWriter w;
    const int x = w.tensor(fb::ScalarType::FLOAT, {2, 3});
    const std::vector<float> bias = {1, 2, 3, 4, 5, 6};
    const int b =
        w.tensor(fb::ScalarType::FLOAT, {2, 3},
                 {.data_buffer_idx = w.constant_data(test::bytes_of(bias)), .fqn = "bias"});
    const int alpha = w.int_value(1);
    const int sum = w.tensor(fb::ScalarType::FLOAT, {2, 3}, {.planned = true});
    const int dim = w.int_value(1);
    const int half = w.bool_value(false);
    const int out = w.tensor(fb::ScalarType::FLOAT, {2, 3}, {.planned = true});
    const int add = w.op("aten::add", "out");
    const int softmax = w.op("aten::_softmax", "out");
    // As ExecuTorch emits them: schema args, out, then the return slot (the out again).
    w.kernel_call(add, {x, b, alpha, sum, sum});
    w.kernel_call(softmax, {sum, dim, half, out, out});
    w.inputs = {x};
    w.outputs = {out};
    const Graph g = load(w.finish());

    ASSERT_EQ(g.chain.size(), 2u);
    EXPECT_EQ(g.chain[0].name, "aten.add.Tensor");
    EXPECT_EQ(g.chain[0].args, (std::vector<int32_t>{x, b, alpha, sum}));
    EXPECT_EQ(g.chain[1].name, "aten._softmax.default");
    EXPECT_EQ(g.chain[1].args, (std::vector<int32_t>{sum, dim, half, out}));
    EXPECT_EQ(g.input_ids, (std::vector<int32_t>{x}));
    EXPECT_EQ(g.output_ids, (std::vector<int32_t>{out}));
    EXPECT_EQ(read_constant<float>(g, b), bias);
    EXPECT_EQ(tensor_at(g, b).name, "bias");
    EXPECT_EQ(g.constants[tensor_at(g, b).constant_id].key, "bias");
    EXPECT_EQ(tensor_at(g, sum).mem_obj_id, -1);  // the engine plans memory itself
    EXPECT_EQ(std::get<Int>(g.values[alpha]).value, 1);
    ASSERT_FALSE(g.storage.empty());
    const auto counts = count_ops(g);
    ASSERT_EQ(counts.size(), 2u);
    EXPECT_EQ(op_counts_text(counts), "aten._softmax.default x1, aten.add.Tensor x1");
}

TEST(Pte, ScalarTypesMapToDTypes) {
    const std::pair<fb::ScalarType, DType> cases[] = {
        {fb::ScalarType::BYTE, DType::u8},    {fb::ScalarType::CHAR, DType::i8},
        {fb::ScalarType::INT, DType::i32},    {fb::ScalarType::LONG, DType::i64},
        {fb::ScalarType::HALF, DType::f16},   {fb::ScalarType::FLOAT, DType::f32},
        {fb::ScalarType::DOUBLE, DType::f64}, {fb::ScalarType::BOOL, DType::boolean},
    };
    for (const auto& [type, dtype] : cases) {
        PteWriter w;
        w.tensor(type, {2});
        EXPECT_EQ(tensor_at(load(w.finish()), 0).dtype, dtype);
    }
    for (auto type : {fb::ScalarType::BFLOAT16, fb::ScalarType::QINT8, fb::ScalarType::SHORT}) {
        PteWriter w;
        w.tensor(type, {2}, {.fqn = "layer.weight"});
        EXPECT_LOAD_ERROR(load(w.finish()), "test.pte", "layer.weight",
                          fb::EnumNameScalarType(type), "not support");
    }
    PteWriter w;
    w.tensor(static_cast<fb::ScalarType>(99), {2});
    EXPECT_LOAD_ERROR(load(w.finish()), "tensor value 0", "(99)");
}

TEST(Pte, ValueKinds) {
    PteWriter w;
    const int n = w.null_value();
    const int d = w.double_value(-0.25);
    const int s = w.string_value("mean");
    const int il = w.int_list({3, 4, 5});
    const int dl = w.double_list({1.5, 2.5});
    const int bl = w.bool_list({false, true});
    const int t0 = w.tensor(fb::ScalarType::FLOAT, {1});
    const int t1 = w.tensor(fb::ScalarType::FLOAT, {1});
    const int tl = w.tensor_list({t0, t1});
    const int otl = w.optional_tensor_list({t0, -1, n});
    const Graph g = load(w.finish());
    EXPECT_TRUE(std::holds_alternative<Null>(g.values[n]));
    EXPECT_EQ(std::get<Double>(g.values[d]).value, -0.25);
    EXPECT_EQ(std::get<String>(g.values[s]).value, "mean");
    EXPECT_EQ(std::get<IntList>(g.values[il]).items, (std::vector<int64_t>{3, 4, 5}));
    EXPECT_EQ(std::get<DoubleList>(g.values[dl]).items, (std::vector<double>{1.5, 2.5}));
    EXPECT_EQ(std::get<BoolList>(g.values[bl]).items, (std::vector<bool>{false, true}));
    EXPECT_EQ(std::get<ValueList>(g.values[tl]).items, (std::vector<int32_t>{t0, t1}));
    EXPECT_EQ(std::get<ValueList>(g.values[otl]).items, (std::vector<int32_t>{t0, -1, n}));
}

TEST(Pte, BadValueReferences) {
    {
        PteWriter w;
        w.int_list_of_ids({5});
        EXPECT_LOAD_ERROR(load(w.finish()), "int list 0 item 0", "value 5");
    }
    {
        PteWriter w;
        const int t = w.tensor(fb::ScalarType::FLOAT, {1});
        w.int_list_of_ids({t});
        EXPECT_LOAD_ERROR(load(w.finish()), "int list 1 item 0", "expected Int");
    }
    {
        PteWriter w;
        w.tensor_list({-1});
        EXPECT_LOAD_ERROR(load(w.finish()), "tensor list 0 item 0", "value -1");
    }
    {
        PteWriter w;
        const int i = w.int_value(3);
        w.tensor_list({i});
        EXPECT_LOAD_ERROR(load(w.finish()), "tensor list 1 item 0", "expected Tensor");
    }
    {
        PteWriter w;
        w.untyped_value(0);
        EXPECT_LOAD_ERROR(load(w.finish()), "value 0", "no type");
    }
    {
        PteWriter w;
        w.untyped_value(200);
        EXPECT_LOAD_ERROR(load(w.finish()), "value 0", "unknown type tag 200");
    }
    {
        PteWriter w;
        w.tensor(fb::ScalarType::FLOAT, {1});
        w.inputs = {4};
        EXPECT_LOAD_ERROR(load(w.finish()), "method input 0", "value 4");
    }
    {
        PteWriter w;
        w.tensor(fb::ScalarType::FLOAT, {1});
        w.outputs = {-3};
        EXPECT_LOAD_ERROR(load(w.finish()), "method output 0", "value -3");
    }
    {
        PteWriter w;
        const int t = w.tensor(fb::ScalarType::FLOAT, {1});
        w.kernel_call(w.op("aten::relu", "out"), {t, 9});
        EXPECT_LOAD_ERROR(load(w.finish()), "instruction 0", "aten::relu.out", "argument 1",
                          "value 9");
    }
    {
        PteWriter w;
        const int t = w.tensor(fb::ScalarType::FLOAT, {1});
        w.kernel_call(3, {t, t});
        EXPECT_LOAD_ERROR(load(w.finish()), "instruction 0", "operator 3");
    }
}

TEST(Pte, TensorShapeRules) {
    {
        PteWriter w;
        w.tensor(fb::ScalarType::FLOAT, {1, 3, 4, 4}, {.fqn = "x", .dim_order = {0, 2, 3, 1}});
        EXPECT_LOAD_ERROR(load(w.finish()), "'x'", "dim order [0, 2, 3, 1]", "contiguous");
    }
    {
        PteWriter w;
        w.tensor(fb::ScalarType::FLOAT, {4, 2},
                 {.dynamism = fb::TensorShapeDynamism::DYNAMIC_BOUND});
        EXPECT_TRUE(tensor_at(load(w.finish()), 0).dynamic_bound);
    }
    {
        PteWriter w;
        w.tensor(fb::ScalarType::FLOAT, {4},
                 {.dynamism = fb::TensorShapeDynamism::DYNAMIC_UNBOUND});
        EXPECT_LOAD_ERROR(load(w.finish()), "tensor value 0", "unbounded");
    }
    {
        PteWriter w;
        w.tensor(fb::ScalarType::FLOAT, {2, -1});
        EXPECT_LOAD_ERROR(load(w.finish()), "tensor value 0", "negative dim");
    }
    {
        PteWriter w;
        w.tensor(fb::ScalarType::FLOAT, {0, 5});
        EXPECT_EQ(tensor_at(load(w.finish()), 0).dims, (std::vector<int64_t>{0, 5}));
    }
    {
        PteWriter w;
        w.tensor(fb::ScalarType::DOUBLE, {1 << 30, 1 << 30, 1 << 30});
        EXPECT_LOAD_ERROR(load(w.finish()), "tensor value 0", "elements");
    }
}

TEST(Pte, InlineConstantBufferOfOldFiles) {
    PteWriter w;
    const std::vector<int64_t> data = {10, -20, 30};
    const int c = w.tensor(fb::ScalarType::LONG, {3},
                           {.data_buffer_idx = w.inline_constant_data(test::bytes_of(data))});
    const Graph g = load(w.finish());
    EXPECT_EQ(read_constant<int64_t>(g, c), data);  // i64 stays as stored
}

TEST(Pte, ConstantOutsideSegmentIsAnError) {
    PteWriter w;
    const uint32_t index = w.constant_data(Bytes(8, 1));
    w.tensor(fb::ScalarType::FLOAT, {64}, {.data_buffer_idx = index});
    EXPECT_LOAD_ERROR(load(w.finish()), "tensor value 0", "needs 256 bytes", "segment");
}

TEST(Pte, ConstantIndexPastOffsetsIsAnError) {
    PteWriter w;
    w.constant_data(Bytes(16, 1));
    w.tensor(fb::ScalarType::FLOAT, {4}, {.data_buffer_idx = 7});
    EXPECT_LOAD_ERROR(load(w.finish()), "tensor value 0", "data index 7", "2 offsets");
}

TEST(Pte, MutableTensorWithoutMutableSegmentsIsAnError) {
    // A planned tensor with data takes its initial value from mutable_data_segments, which
    // this synthetic file lacks.
    PteWriter w;
    w.tensor(fb::ScalarType::FLOAT, {4}, {.data_buffer_idx = 1, .planned = true, .fqn = "cache"});
    EXPECT_LOAD_ERROR(load(w.finish()), "'cache'", "mutable data segment");
}

TEST(Pte, ExternalConstantsFromPtd) {
    PteWriter w;
    const int t = w.tensor(fb::ScalarType::FLOAT, {2}, {.fqn = "linear.weight", .external = true});
    const Bytes pte = w.finish();
    EXPECT_LOAD_ERROR(load(pte), "linear.weight", "no .ptd file given");

    const std::vector<float> weights = {4.0f, -8.0f};
    const Bytes ptd =
        test::ptd_file({{"other", Bytes(4)}, {"linear.weight", test::bytes_of(weights)}});
    const Graph g =
        load_pte_bytes(test::share(pte), "forward", test::share(ptd), "test.pte", "test.ptd");
    EXPECT_EQ(read_constant<float>(g, t), weights);
    EXPECT_EQ(g.storage.size(), 2u);  // the .pte and the .ptd

    const Bytes wrong = test::ptd_file({{"other", Bytes(4)}});
    EXPECT_LOAD_ERROR(
        load_pte_bytes(test::share(pte), "forward", test::share(wrong), "test.pte", "test.ptd"),
        "'linear.weight'", "test.pte (", "test.ptd (1 keys)");
    const Bytes short_data = test::ptd_file({{"linear.weight", Bytes(4)}});
    EXPECT_LOAD_ERROR(load_pte_bytes(test::share(pte), "forward", test::share(short_data),
                                     "test.pte", "test.ptd"),
                      "needs 8 bytes", "has 4");
}

TEST(Ptd, BadFiles) {
    const Bytes good = test::ptd_file({{"k", Bytes(8, 1)}});
    Bytes pte = PteWriter().finish();
    auto load_with = [&](const Bytes& ptd) {
        return load_pte_bytes(test::share(pte), "forward", test::share(ptd), "test.pte", "x.ptd");
    };
    EXPECT_NO_THROW(load_with(good));
    EXPECT_LOAD_ERROR(load_with(Bytes(20)), "x.ptd", "too small");
    Bytes bad_magic = good;
    bad_magic[9] = 'X';
    EXPECT_LOAD_ERROR(load_with(bad_magic), "x.ptd", "FH01");
    Bytes bad_id = good;
    bad_id[5] = 'X';
    EXPECT_LOAD_ERROR(load_with(bad_id), "x.ptd", "FT01");
    Bytes truncated(good.begin(), good.end() - 4);
    EXPECT_LOAD_ERROR(load_with(truncated), "x.ptd", "truncated");
}

TEST(Pte, MethodSelection) {
    PteWriter w;
    w.tensor(fb::ScalarType::FLOAT, {1});
    w.end_plan("encode");
    w.tensor(fb::ScalarType::FLOAT, {2});
    w.tensor(fb::ScalarType::FLOAT, {3});
    w.end_plan("decode");
    const Bytes file = w.finish();
    EXPECT_EQ(pte_method_names(test::share(file)), (std::vector<std::string>{"encode", "decode"}));
    EXPECT_EQ(load(file, "decode").values.size(), 2u);
    EXPECT_LOAD_ERROR(load(file), "no method 'forward'", "encode", "decode");
}

TEST(Pte, ControlFlowIsRejected) {
    PteWriter w;
    const int cond = w.bool_value(true);
    w.jump_false_call(cond, 0);
    EXPECT_LOAD_ERROR(load(w.finish()), "instruction 0", "JumpFalseCall", "control flow");
    PteWriter u;
    u.raw_instruction(9);
    EXPECT_LOAD_ERROR(load(u.finish()), "instruction 0", "unknown instruction type 9");
}

TEST(Pte, MoveAndFreeCalls) {
    PteWriter w;
    const int x = w.tensor(fb::ScalarType::FLOAT, {2});
    const int y = w.tensor(fb::ScalarType::FLOAT, {2}, {.planned = true});
    const int z = w.tensor(fb::ScalarType::FLOAT, {2}, {.planned = true});
    const int moved = w.tensor(fb::ScalarType::FLOAT, {2});
    const int relu = w.op("aten::relu", "out");
    w.kernel_call(relu, {x, y});
    w.move_call(y, moved);
    w.kernel_call(relu, {moved, z});
    w.free_call(y);
    w.move_call(z, moved);
    w.inputs = {x};
    w.outputs = {moved};
    const Graph g = load(w.finish());
    EXPECT_EQ(g.chain[1].args, (std::vector<int32_t>{y, z}));
    EXPECT_EQ(g.output_ids, (std::vector<int32_t>{z}));
}

TEST(Pte, MultiOutputReturnListBecomesTheOutput) {
    PteWriter w;
    const int x = w.tensor(fb::ScalarType::FLOAT, {1, 8, 4, 4});
    const int weight = w.null_value();
    const int eps = w.double_value(1e-5);
    const int y = w.tensor(fb::ScalarType::FLOAT, {1, 8, 4, 4}, {.planned = true});
    const int mean = w.tensor(fb::ScalarType::FLOAT, {0}, {.planned = true});
    const int rstd = w.tensor(fb::ScalarType::FLOAT, {0}, {.planned = true});
    const int ret = w.tensor_list({y, mean, rstd});
    w.kernel_call(w.op("aten::_native_batch_norm_legit_no_training", "out"),
                  {x, weight, weight, weight, weight, eps, eps, y, mean, rstd, ret});
    w.inputs = {x};
    w.outputs = {y};
    const Graph g = load(w.finish());
    ASSERT_EQ(g.chain.size(), 1u);
    EXPECT_EQ(g.chain[0].name, "aten._native_batch_norm_legit_no_training.default");
    EXPECT_EQ(g.chain[0].args,
              (std::vector<int32_t>{x, weight, weight, weight, weight, eps, eps, ret}));
    EXPECT_EQ(g.values.size(), static_cast<size_t>(ret + 1));  // no extra list was made
}

// Without ExecuTorch's return slot the out args are packed by the table.
TEST(Pte, KernelCallArgumentFixups) {
    PteWriter w;
    const int x = w.tensor(fb::ScalarType::FLOAT, {1, 3, 4, 4});
    const int k = w.int_list({2, 2});
    const int s = w.int_list({2, 2});
    const int p = w.int_list({0, 0});
    const int d = w.int_list({1, 1});
    const int ceil = w.bool_value(false);
    const int out = w.tensor(fb::ScalarType::FLOAT, {1, 3, 2, 2}, {.planned = true});
    const int indices = w.tensor(fb::ScalarType::LONG, {1, 3, 2, 2}, {.planned = true});
    w.kernel_call(w.op("aten::max_pool2d_with_indices", "out"),
                  {x, k, s, p, d, ceil, out, indices});
    const int blocking = w.bool_value(false);
    const int order = w.null_value();
    const int copy = w.tensor(fb::ScalarType::HALF, {1, 3, 2, 2}, {.planned = true});
    w.kernel_call(w.op("dim_order_ops::_to_dim_order_copy", "out"), {out, blocking, order, copy});
    const int shape = w.int_list({3, 4});
    const int view = w.tensor(fb::ScalarType::HALF, {3, 4}, {.planned = true});
    w.kernel_call(w.op("executorch_prim::et_view", "default"), {copy, shape, view});
    w.inputs = {x};
    w.outputs = {view, indices};
    const Graph g = load(w.finish());

    ASSERT_EQ(g.chain.size(), 3u);
    EXPECT_EQ(g.chain[0].name, "aten.max_pool2d_with_indices.default");
    ASSERT_EQ(g.chain[0].args.size(), 7u);
    const auto& outputs = std::get<ValueList>(g.values.at(g.chain[0].args.back()));
    EXPECT_EQ(outputs.items, (std::vector<int32_t>{out, indices}));

    EXPECT_EQ(g.chain[1].name, "dim_order_ops._to_dim_order_copy.default");
    ASSERT_EQ(g.chain[1].args.size(), 8u);
    EXPECT_EQ(g.chain[1].args[0], out);
    for (int i = 1; i <= 4; ++i) {
        EXPECT_TRUE(std::holds_alternative<Null>(g.values.at(g.chain[1].args[i]))) << i;
    }
    EXPECT_EQ(g.chain[1].args[5], blocking);
    EXPECT_EQ(g.chain[1].args[7], copy);

    EXPECT_EQ(g.chain[2].name, "aten.view_copy.default");
    EXPECT_EQ(g.chain[2].args, (std::vector<int32_t>{copy, shape, view}));
}

TEST(Pte, SymbolicSizesBecomeSymIntsAndValueLists) {
    PteWriter w;
    const int x = w.tensor(fb::ScalarType::FLOAT, {8, 4},
                           {.dynamism = fb::TensorShapeDynamism::DYNAMIC_BOUND});
    const int zero = w.int_value(0);
    const int rows = w.int_value(8);  // written by sym_size at run time
    const int four = w.int_value(4);
    const int shape = w.int_list_of_ids({rows, four});
    const int view = w.tensor(fb::ScalarType::FLOAT, {8, 4}, {.planned = true});
    w.kernel_call(w.op("aten::sym_size", "int"), {x, zero, rows});
    w.kernel_call(w.op("executorch_prim::et_view", "default"), {x, shape, view});
    const int doubled = w.int_value(16);
    w.kernel_call(w.op("executorch_prim::mul", "Scalar"), {rows, rows, doubled});
    w.inputs = {x};
    w.outputs = {view};
    const Graph g = load(w.finish());
    EXPECT_EQ(g.chain[0].name, "sym_size.int");
    EXPECT_EQ(g.chain[2].name, "mul");
    EXPECT_EQ(std::get<SymInt>(g.values[rows]).value, 8);
    EXPECT_EQ(std::get<SymInt>(g.values[doubled]).value, 16);
    EXPECT_EQ(std::get<Int>(g.values[four]).value, 4);
    EXPECT_EQ(std::get<ValueList>(g.values[shape]).items, (std::vector<int32_t>{rows, four}));
}

// A zero-size tensor planned at the same location as a real one (batch norm's unused
// save_mean) holds no bytes: a later view of the real tensor must still copy from it.
TEST(PteLowering, ZeroSizeTensorAtAViewsLocationDoesNotHideItsSource) {
    PteWriter w;
    const int x = w.tensor(fb::ScalarType::FLOAT, {8, 4});
    const int a = w.tensor(fb::ScalarType::FLOAT, {8, 4}, {.planned = true, .memory_offset = 256});
    const int empty = w.tensor(fb::ScalarType::FLOAT, {0}, {.planned = true, .memory_offset = 256});
    const int view = w.tensor(fb::ScalarType::FLOAT, {32}, {.planned = true, .memory_offset = 256});
    const int out = w.tensor(fb::ScalarType::FLOAT, {32}, {.planned = true, .memory_offset = 0});
    const int abs = w.op("aten::abs", "out");
    w.kernel_call(abs, {x, a});
    w.kernel_call(abs, {x, empty});
    w.kernel_call(abs, {view, out});
    w.inputs = {x};
    w.outputs = {out};
    const Graph g = load(w.finish());
    ASSERT_EQ(g.chain.size(), 4u);
    EXPECT_EQ(g.chain[2].name, "aten.view_copy.default");
    EXPECT_EQ(g.chain[2].args.front(), a);
    EXPECT_EQ(g.chain[2].args.back(), view);
}

// A tensor that is read, written by nothing, and is not a view of what its location holds would
// be read as unwritten memory: that is a load error naming the value.
TEST(PteLowering, TensorReadBeforeAnyWriteIsALoadError) {
    PteWriter w;
    const int x = w.tensor(fb::ScalarType::FLOAT, {8, 4});
    const int a = w.tensor(fb::ScalarType::FLOAT, {8, 4}, {.planned = true, .memory_offset = 0});
    const int stray = w.tensor(fb::ScalarType::FLOAT, {5}, {.planned = true, .memory_offset = 0});
    const int out = w.tensor(fb::ScalarType::FLOAT, {5}, {.planned = true, .memory_offset = 512});
    const int abs = w.op("aten::abs", "out");
    w.kernel_call(abs, {x, a});
    w.kernel_call(abs, {stray, out});
    w.inputs = {x};
    w.outputs = {out};
    try {
        load(w.finish());
        FAIL() << "expected a LoadError";
    } catch (const LoadError& e) {
        EXPECT_NE(std::string(e.what()).find("is read before any instruction writes it"),
                  std::string::npos)
            << e.what();
    }
}

// ---- delegates -------------------------------------------------------------------------------

// A VkGraph computing out = relu(x + w) with a constant w: [x, w, sum, out, alpha] values.
Bytes relu_add_payload(const Bytes& weight_bytes, bool named, uint32_t length = 16) {
    VkGraphWriter v;
    const int x = v.tensor(vk::VkDataType::FLOAT32, {4}, -1, 0);
    const int c = named ? v.named_constant("weights-sha", length) : v.inline_constant(weight_bytes);
    const int wt = v.tensor(vk::VkDataType::FLOAT32, {4}, c);
    const int sum = v.tensor(vk::VkDataType::FLOAT32, {4}, -1, 1);
    const int alpha = v.int_value(1);
    const int out = v.tensor(vk::VkDataType::FLOAT32, {4}, -1, 0);
    const int list = v.value_list({x, sum});
    v.op("aten.add.Tensor", {x, wt, alpha, sum}, 5);
    v.op("aten.relu.default", {sum, out}, 6);
    v.op("test.uses_list.default", {list, out}, 7);
    v.inputs = {static_cast<uint32_t>(x)};
    v.outputs = {static_cast<uint32_t>(out)};
    return v.finish();
}

struct DelegateProgram {
    Bytes file;
    int x, y, z;
};

// x -> delegate -> y -> relu kernel -> z -> delegate again -> output
DelegateProgram delegate_program(const Bytes& payload, bool in_segment, bool named_data = false,
                                 const Bytes& named_bytes = {}) {
    PteWriter w;
    DelegateProgram p{};
    p.x = w.tensor(fb::ScalarType::FLOAT, {4});
    p.y = w.tensor(fb::ScalarType::FLOAT, {4}, {.planned = true});
    p.z = w.tensor(fb::ScalarType::FLOAT, {4}, {.planned = true});
    const int out = w.tensor(fb::ScalarType::FLOAT, {4}, {.planned = true});
    if (named_data) w.named_data("weights-sha", named_bytes);
    const int d = w.delegate("VulkanBackend", payload, in_segment);
    w.delegate_call(d, {p.x, p.y});
    w.kernel_call(w.op("aten::relu", "out"), {p.y, p.z});
    w.delegate_call(d, {p.z, out});
    w.inputs = {p.x};
    w.outputs = {out};
    p.file = w.finish();
    return p;
}

void expect_inlined(const Graph& g, const DelegateProgram& p, const std::vector<float>& weights) {
    // 4 plan values + 2 x (6 VkGraph values - 2 bound).
    ASSERT_EQ(g.values.size(), 4u + 2 * 4u);
    ASSERT_EQ(g.chain.size(), 7u);
    EXPECT_EQ(g.chain[0].name, "aten.add.Tensor");
    EXPECT_EQ(g.chain[0].args[0], p.x);  // the VkGraph input is bound to the plan value
    EXPECT_EQ(g.chain[0].debug_handle, 5u);
    EXPECT_EQ(g.chain[1].args.back(), p.y);
    EXPECT_EQ(g.chain[3].name, "aten.relu.default");
    EXPECT_EQ(g.chain[3].args, (std::vector<int32_t>{p.y, p.z}));
    EXPECT_EQ(g.chain[4].args[0], p.z);
    // The value list inside the VkGraph is remapped too.
    const auto& list = std::get<ValueList>(g.values.at(g.chain[2].args[0]));
    EXPECT_EQ(list.items[0], p.x);
    EXPECT_EQ(list.items[1], g.chain[0].args[3]);
    // Constants: one per inlined delegate.
    ASSERT_EQ(g.constants.size(), 2u);
    const auto& weight = tensor_at(g, g.chain[0].args[1]);
    ASSERT_EQ(weight.constant_id, 0);
    std::vector<float> read(4);
    std::memcpy(read.data(), g.constants[0].bytes.data(), 16);
    EXPECT_EQ(read, weights);
    EXPECT_EQ(tensor_at(g, g.chain[4].args[1]).constant_id, 1);
    // Pool ids of the two inlined copies never collide; bound plan tensors keep -1.
    const int first_sum = g.chain[0].args[3];
    const int second_sum = g.chain[4].args[3];
    EXPECT_EQ(tensor_at(g, first_sum).mem_obj_id, 1);
    EXPECT_EQ(tensor_at(g, second_sum).mem_obj_id, 3);
    EXPECT_EQ(tensor_at(g, p.x).mem_obj_id, -1);
}

TEST(PteDelegate, InlineDelegateWithInlineConstants) {
    const std::vector<float> weights = {1, -2, 3, -4};
    const auto p = delegate_program(relu_add_payload(test::bytes_of(weights), false), false);
    expect_inlined(load(p.file), p, weights);
}

TEST(PteDelegate, SegmentDelegateWithNamedDataConstants) {
    const std::vector<float> weights = {0.5, 1.5, 2.5, 3.5};
    const auto p =
        delegate_program(relu_add_payload({}, true), true, true, test::bytes_of(weights));
    const Graph g = load(p.file);
    expect_inlined(g, p, weights);
    EXPECT_EQ(g.constants[0].key, "weights-sha");
}

TEST(PteDelegate, MissingNamedKeyNamesKeyAndFiles) {
    const auto p = delegate_program(relu_add_payload({}, true), true, false);
    EXPECT_LOAD_ERROR(load(p.file), "delegate 0", "instruction 0", "weights-sha", "test.pte",
                      "no .ptd file given");
}

TEST(PteDelegate, NamedDataShorterThanConstant) {
    const auto p = delegate_program(relu_add_payload({}, true, 64), true, true, Bytes(16));
    EXPECT_LOAD_ERROR(load(p.file), "constant 0", "length 64", "16 bytes");
}

TEST(PteDelegate, ShapeAndDtypeMismatchesAreNamed) {
    const Bytes payload = relu_add_payload(Bytes(16), false);
    {
        PteWriter w;
        const int x = w.tensor(fb::ScalarType::FLOAT, {5});
        const int y = w.tensor(fb::ScalarType::FLOAT, {4});
        w.delegate_call(w.delegate("VulkanBackend", payload, false), {x, y});
        EXPECT_LOAD_ERROR(load(w.finish()), "delegate 0", "input 0", "plan value 0", "float32 [4]",
                          "float32 [5]");
    }
    {
        PteWriter w;
        const int x = w.tensor(fb::ScalarType::FLOAT, {4});
        const int y = w.tensor(fb::ScalarType::INT, {4});
        w.delegate_call(w.delegate("VulkanBackend", payload, false), {x, y});
        EXPECT_LOAD_ERROR(load(w.finish()), "output 0", "int32 [4]");
    }
    {
        PteWriter w;
        const int x = w.tensor(fb::ScalarType::FLOAT, {4});
        const int y = w.int_value(3);
        w.delegate_call(w.delegate("VulkanBackend", payload, false), {x, y});
        EXPECT_LOAD_ERROR(load(w.finish()), "output 0", "plan value is int");
    }
    {
        PteWriter w;
        const int x = w.tensor(fb::ScalarType::FLOAT, {4});
        w.delegate_call(w.delegate("VulkanBackend", payload, false), {x});
        EXPECT_LOAD_ERROR(load(w.finish()), "passes 1 args", "1 inputs and 1 outputs");
    }
}

TEST(PteDelegate, Int64PlanTensorMatchesDowncastInt32) {
    VkGraphWriter v;
    const int x = v.tensor(vk::VkDataType::INT32, {3});
    const int out = v.tensor(vk::VkDataType::INT32, {3});
    v.op("aten.neg.default", {x, out});
    v.inputs = {static_cast<uint32_t>(x)};
    v.outputs = {static_cast<uint32_t>(out)};
    PteWriter w;
    const int a = w.tensor(fb::ScalarType::LONG, {3});
    const int b = w.tensor(fb::ScalarType::LONG, {3});
    w.delegate_call(w.delegate("VulkanBackend", v.finish(), true), {a, b});
    w.inputs = {a};
    w.outputs = {b};
    const Graph g = load(w.finish());
    EXPECT_EQ(tensor_at(g, a).dtype, DType::i64);  // the caller-facing type is kept
    EXPECT_EQ(g.chain[0].args, (std::vector<int32_t>{a, b}));
}

TEST(PteDelegate, OtherBackendsAreRejected) {
    PteWriter w;
    const int x = w.tensor(fb::ScalarType::FLOAT, {4});
    w.delegate_call(w.delegate("XnnpackBackend", Bytes(64), false), {x});
    EXPECT_LOAD_ERROR(load(w.finish()), "delegate 0", "XnnpackBackend", "VulkanBackend");
}

TEST(PteDelegate, BadDelegateReferences) {
    {
        PteWriter w;
        const int x = w.tensor(fb::ScalarType::FLOAT, {4});
        w.delegate_call(2, {x});
        EXPECT_LOAD_ERROR(load(w.finish()), "instruction 0", "delegate 2", "0 delegates");
    }
    {
        PteWriter w;
        const int x = w.tensor(fb::ScalarType::FLOAT, {4});
        w.delegate_call(w.delegate("VulkanBackend", Bytes(10), false), {x});
        EXPECT_LOAD_ERROR(load(w.finish()), "delegate 0", "too small for a VH00 header");
    }
}

}  // namespace
}  // namespace wgx::graph

namespace wgx::graph {
namespace {

TEST(Pte, VoidKernelReturnSlotIsDropped) {
    PteWriter w;
    const int x = w.tensor(fb::ScalarType::FLOAT, {4, 2});
    const int sizes = w.int_list({1, 3});
    const int dim = w.int_value(0);
    const int a = w.tensor(fb::ScalarType::FLOAT, {1, 2}, {.planned = true});
    const int b = w.tensor(fb::ScalarType::FLOAT, {3, 2}, {.planned = true});
    const int outs = w.tensor_list({a, b});
    const int none = w.null_value();
    w.kernel_call(w.op("aten::split_with_sizes_copy", "out"), {x, sizes, dim, outs, none});
    w.inputs = {x};
    w.outputs = {a, b};
    const Graph g = load(w.finish());
    EXPECT_EQ(g.chain[0].name, "aten.split_with_sizes_copy.default");
    EXPECT_EQ(g.chain[0].args, (std::vector<int32_t>{x, sizes, dim, outs}));
}

TEST(PteDelegate, SymIntInputUpgradesPlanInt) {
    VkGraphWriter v;
    const int x = v.tensor(vk::VkDataType::FLOAT32, {4});
    const int n = v.symint(4);
    const int out = v.tensor(vk::VkDataType::FLOAT32, {4});
    v.op("et_vk.uses_symint.default", {x, n, out});
    v.inputs = {static_cast<uint32_t>(x), static_cast<uint32_t>(n)};
    v.outputs = {static_cast<uint32_t>(out)};
    PteWriter w;
    const int px = w.tensor(fb::ScalarType::FLOAT, {4});
    const int pn = w.int_value(4);
    const int pout = w.tensor(fb::ScalarType::FLOAT, {4});
    w.delegate_call(w.delegate("VulkanBackend", v.finish(), false), {px, pn, pout});
    w.inputs = {px};
    w.outputs = {pout};
    const Graph g = load(w.finish());
    EXPECT_EQ(std::get<SymInt>(g.values[pn]).value, 4);
    EXPECT_EQ(g.chain[0].args, (std::vector<int32_t>{px, pn, pout}));
}

TEST(PteDelegate, AnOutputThatIsAnInputBecomesACopy) {
    // The exporter drops identity ops (clone), leaving a VkGraph whose output is its input.
    VkGraphWriter v;
    const int x = v.tensor(vk::VkDataType::FLOAT32, {4});
    v.inputs = {static_cast<uint32_t>(x)};
    v.outputs = {static_cast<uint32_t>(x)};
    PteWriter w;
    const int a = w.tensor(fb::ScalarType::FLOAT, {4});
    const int b = w.tensor(fb::ScalarType::FLOAT, {4});
    w.delegate_call(w.delegate("VulkanBackend", v.finish(), false), {a, b});
    w.inputs = {a};
    w.outputs = {b};
    const Graph g = load(w.finish());
    ASSERT_EQ(g.chain.size(), 1u);
    EXPECT_EQ(g.chain[0].name, "aten.view_copy.default");
    EXPECT_EQ(g.chain[0].args.front(), a);
    EXPECT_EQ(g.chain[0].args.back(), b);
}

// A VkGraph tensor that is its plan tensor but for size-1 dims (the exporter fused a view_copy
// at the delegate's edge into a linear layer) gets a squeeze or unsqueeze at the boundary;
// other shape differences stay errors.
TEST(PteDelegate, SizeOneDimsDifferingAtTheBoundaryBecomeReshapes) {
    VkGraphWriter v;
    const int x = v.tensor(vk::VkDataType::FLOAT32, {1, 3, 4});
    const int out = v.tensor(vk::VkDataType::FLOAT32, {1, 3, 4});
    v.op("aten.neg.default", {x, out});
    v.inputs = {static_cast<uint32_t>(x)};
    v.outputs = {static_cast<uint32_t>(out)};
    const Bytes payload = v.finish();
    {
        PteWriter w;
        const int a = w.tensor(fb::ScalarType::FLOAT, {3, 4});
        const int b = w.tensor(fb::ScalarType::FLOAT, {1, 3, 4});
        w.delegate_call(w.delegate("VulkanBackend", payload, false), {a, b});
        w.inputs = {a};
        w.outputs = {b};
        const Graph g = load(w.finish());
        ASSERT_EQ(g.chain.size(), 2u);
        EXPECT_EQ(g.chain[0].name, "aten.unsqueeze_copy.default");  // [3, 4] -> [1, 3, 4]
        EXPECT_EQ(g.chain[0].args.front(), a);
        EXPECT_EQ(std::get<Int>(g.values.at(g.chain[0].args[1])).value, 0);
        EXPECT_EQ(tensor_at(g, g.chain[0].args.back()).dims, (std::vector<int64_t>{1, 3, 4}));
        EXPECT_EQ(g.chain[1].name, "aten.neg.default");
        EXPECT_EQ(g.chain[1].args[0], g.chain[0].args.back());
        EXPECT_EQ(g.chain[1].args[1], b);
    }
    {
        PteWriter w;
        const int a = w.tensor(fb::ScalarType::FLOAT, {1, 3, 4});
        const int b = w.tensor(fb::ScalarType::FLOAT, {3, 4});
        w.delegate_call(w.delegate("VulkanBackend", payload, false), {a, b});
        w.inputs = {a};
        w.outputs = {b};
        const Graph g = load(w.finish());
        ASSERT_EQ(g.chain.size(), 2u);
        EXPECT_EQ(g.chain[0].args[0], a);
        EXPECT_EQ(g.chain[1].name, "aten.squeeze_copy.dims");
        EXPECT_EQ(std::get<IntList>(g.values.at(g.chain[1].args[1])).items,
                  (std::vector<int64_t>{0}));
        EXPECT_EQ(g.chain[1].args[0], g.chain[0].args.back());
        EXPECT_EQ(g.chain[1].args.back(), b);
    }
    {
        PteWriter w;
        const int a = w.tensor(fb::ScalarType::FLOAT, {1, 3, 4});
        const int b = w.tensor(fb::ScalarType::FLOAT, {4, 3});
        w.delegate_call(w.delegate("VulkanBackend", payload, false), {a, b});
        EXPECT_LOAD_ERROR(load(w.finish()), "output 0", "float32 [1, 3, 4]", "float32 [4, 3]");
    }
}

TEST(PteDelegate, InputsBoundTwiceAreRejected) {
    VkGraphWriter v;
    const int x = v.tensor(vk::VkDataType::FLOAT32, {4});
    v.inputs = {static_cast<uint32_t>(x), static_cast<uint32_t>(x)};
    PteWriter w;
    const int a = w.tensor(fb::ScalarType::FLOAT, {4});
    const int b = w.tensor(fb::ScalarType::FLOAT, {4});
    w.delegate_call(w.delegate("VulkanBackend", v.finish(), false), {a, b});
    EXPECT_LOAD_ERROR(load(w.finish()), "input 1", "already bound to plan value 0", "aliased");
}

TEST(PteDelegate, PoolIdsCannotOverflow) {
    auto payload = [](int32_t pool) {
        VkGraphWriter v;
        const int x = v.tensor(vk::VkDataType::FLOAT32, {4});
        const int mid = v.tensor(vk::VkDataType::FLOAT32, {4}, -1, pool);
        const int out = v.tensor(vk::VkDataType::FLOAT32, {4});
        v.op("aten.relu.default", {x, mid});
        v.op("aten.relu.default", {mid, out});
        v.inputs = {static_cast<uint32_t>(x)};
        v.outputs = {static_cast<uint32_t>(out)};
        return v.finish();
    };
    {
        PteWriter w;
        const int a = w.tensor(fb::ScalarType::FLOAT, {4});
        const int b = w.tensor(fb::ScalarType::FLOAT, {4});
        w.delegate_call(w.delegate("VulkanBackend", payload(int32_t{1} << 30), false), {a, b});
        w.delegate_call(w.delegate("VulkanBackend", payload(5), false), {b, a});
        EXPECT_LOAD_ERROR(load(w.finish()), "delegate 1", "memory pool ids exceed");
    }
    {
        PteWriter w;
        const int a = w.tensor(fb::ScalarType::FLOAT, {4});
        const int b = w.tensor(fb::ScalarType::FLOAT, {4});
        w.delegate_call(w.delegate("VulkanBackend", payload(0x7fffffff), false), {a, b});
        EXPECT_LOAD_ERROR(load(w.finish()), "tensor value 1", "memory pool id 2147483647");
    }
}

}  // namespace
}  // namespace wgx::graph
