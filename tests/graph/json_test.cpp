// program.json + weights.bin: the seed's version 1 (camelCase and snake_case), the typed
// version 1.1, the writer, round trips and bad input.
#include <gtest/gtest.h>

#include <cstring>
#include <limits>

#include "graph/json/program_json.h"
#include "graph/load.h"
#include "graph/memory_plan.h"
#include "graph_compare.h"
#include "synthetic.h"
#include "test_util.h"

namespace wgx::graph {
namespace {

using test::Bytes;

Graph read(const std::string& json, Bytes weights = {}) {
    return load_json_bytes(json, test::share(std::move(weights)), "p/program.json",
                           "p/weights.bin");
}

// The seed's program test: out = (a + 1.5 * b) @ c, six values, pools of 16 bytes.
const char* kSeedProgram = R"({
  "version": "1",
  "chain": [
    {"name": "aten.add.Tensor", "args": [0, 1, 3, 4]},
    {"name": "aten.mm.default", "args": [4, 2, 5]}
  ],
  "values": [
    {"type": "tensor", "shape": [2, 2], "dtype": "float32", "memObjId": 0},
    {"type": "tensor", "shape": [2, 2], "dtype": "float32", "memObjId": 1},
    {"type": "tensor", "shape": [2, 2], "dtype": "float32", "memObjId": 2},
    {"type": "scalar", "value": 1.5},
    {"type": "tensor", "shape": [2, 2], "dtype": "float32", "memObjId": 3},
    {"type": "tensor", "shape": [2, 2], "dtype": "float32", "memObjId": 0}
  ],
  "inputIds": [0, 1, 2],
  "outputIds": [5],
  "memoryPlan": {"pools": [{"id": 0, "size": 16}, {"id": 1, "size": 16},
                           {"id": 2, "size": 16}, {"id": 3, "size": 16}]}
})";

TEST(Json, ReadsSeedVersion1) {
    const Graph g = read(kSeedProgram);
    ASSERT_EQ(g.values.size(), 6u);
    EXPECT_EQ(std::get<Double>(g.values[3]).value, 1.5);
    EXPECT_EQ(std::get<Tensor>(g.values[5]).mem_obj_id, 0);
    EXPECT_EQ(g.chain[1].name, "aten.mm.default");
    EXPECT_EQ(g.input_ids, (std::vector<int32_t>{0, 1, 2}));
    EXPECT_EQ(g.output_ids, (std::vector<int32_t>{5}));
}

TEST(Json, ReadsSnakeCaseKeysAndConstants) {
    const std::vector<float> weights = {1, 2, 3, 4, 5, 6};
    const Graph g = read(R"({
      "version": "1",
      "chain": [{"name": "aten.add.Tensor", "args": [0, 1, 2, 3]}],
      "values": [
        {"type": "tensor", "shape": [2, 3], "dtype": "float32", "mem_obj_id": 0},
        {"type": "tensor", "shape": [2, 3], "dtype": "float32", "weights_offset": 0, "weights_length": 24},
        {"type": "scalar", "value": 1},
        {"type": "tensor", "shape": [2, 3], "dtype": "float32", "mem_obj_id": 1}
      ],
      "input_ids": [0], "output_ids": [3],
      "memory_plan": {"pools": [{"id": 0, "size": 24}, {"id": 1, "size": 24}]}
    })",
                         test::bytes_of(weights));
    const auto& constant = std::get<Tensor>(g.values[1]);
    ASSERT_EQ(constant.constant_id, 0);
    EXPECT_EQ(g.constants[0].bytes.size(), 24u);
    float last = 0;
    std::memcpy(&last, g.constants[0].bytes.data() + 20, 4);
    EXPECT_EQ(last, 6.0f);
    EXPECT_EQ(std::get<Int>(g.values[2]).value, 1);  // an integral literal is an Int
    EXPECT_EQ(g.output_ids, (std::vector<int32_t>{3}));
}

TEST(Json, Version1ScalarAndListRules) {
    const Graph g = read(R"({
      "version": "1",
      "values": [
        {"type": "scalar", "value": 2}, {"type": "scalar", "value": 2.0},
        {"type": "scalar", "value": 1.7976931348623157e308}, {"type": "scalar", "value": true},
        {"type": "scalar", "value": "floor"}, {"type": "list", "items": [2, 3]},
        {"type": "list", "items": [1, 0.5]}, {"type": "list", "items": [true, false]},
        {"type": "list", "items": []}, {"type": "null"}
      ],
      "inputIds": [], "outputIds": []
    })");
    EXPECT_EQ(std::get<Int>(g.values[0]).value, 2);
    EXPECT_EQ(std::get<Double>(g.values[1]).value, 2.0);
    EXPECT_EQ(std::get<Double>(g.values[2]).value, std::numeric_limits<double>::max());
    EXPECT_TRUE(std::get<Bool>(g.values[3]).value);
    EXPECT_EQ(std::get<String>(g.values[4]).value, "floor");
    EXPECT_EQ(std::get<IntList>(g.values[5]).items, (std::vector<int64_t>{2, 3}));
    EXPECT_EQ(std::get<DoubleList>(g.values[6]).items, (std::vector<double>{1, 0.5}));
    EXPECT_EQ(std::get<BoolList>(g.values[7]).items, (std::vector<bool>{true, false}));
    EXPECT_TRUE(std::get<IntList>(g.values[8]).items.empty());
    EXPECT_TRUE(std::holds_alternative<Null>(g.values[9]));
}

TEST(Json, TypedKinds) {
    const Graph g = read(R"({
      "version": "1.1",
      "values": [
        {"type": "scalar", "kind": "double", "value": 2},
        {"type": "scalar", "kind": "symint", "value": 7},
        {"type": "scalar", "kind": "double", "value": "inf"},
        {"type": "list", "kind": "double_list", "items": [1, "-inf", "nan"]},
        {"type": "list", "kind": "value_list", "items": [0, -1]},
        {"type": "list", "kind": "int_list", "items": [9223372036854775807]},
        {"type": "tensor", "kind": "tensor", "shape": [3], "dtype": "int64", "dynamicBound": true,
         "name": "x"}
      ],
      "inputIds": [6], "outputIds": []
    })");
    EXPECT_EQ(std::get<Double>(g.values[0]).value, 2.0);
    EXPECT_EQ(std::get<SymInt>(g.values[1]).value, 7);
    EXPECT_TRUE(std::isinf(std::get<Double>(g.values[2]).value));
    const auto& doubles = std::get<DoubleList>(g.values[3]).items;
    EXPECT_TRUE(std::isinf(doubles[1]) && doubles[1] < 0);
    EXPECT_TRUE(std::isnan(doubles[2]));
    EXPECT_EQ(std::get<ValueList>(g.values[4]).items, (std::vector<int32_t>{0, -1}));
    EXPECT_EQ(std::get<IntList>(g.values[5]).items[0], std::numeric_limits<int64_t>::max());
    const auto& t = std::get<Tensor>(g.values[6]);
    EXPECT_EQ(t.dtype, DType::i64);
    EXPECT_TRUE(t.dynamic_bound);
    EXPECT_EQ(t.name, "x");
}

Graph every_kind_graph(const SharedBytes& storage) {
    Graph g;
    g.storage.push_back(storage);
    std::span<const uint8_t> all(*storage);
    g.constants.push_back({all.subspan(0, 8), "w0"});
    g.constants.push_back({all.subspan(8, 16), "sha-abc"});
    g.values = {
        Tensor{DType::f32, {2, 2}, -1, 0, false, "input"},
        Tensor{DType::i64, {1}, 0, -1, false, ""},
        Tensor{DType::f16, {2, 4}, 1, -1, false, "weight"},
        Null{},
        Int{-(int64_t{1} << 62)},
        Double{std::numeric_limits<double>::max()},
        Double{-std::numeric_limits<double>::infinity()},
        Bool{true},
        String{"trunc"},
        SymInt{5},
        IntList{{1, -2, 3}},
        DoubleList{{0.1, std::nan("")}},
        BoolList{{false, true}},
        ValueList{{0, -1, 1}},
        Tensor{DType::boolean, {2, 2}, -1, 3, true, ""},
        Tensor{DType::u8, {0}, -1, -1, false, ""},
    };
    g.chain = {{"aten.add.Tensor", {0, 1, 4, 14}, 3}, {"et_vk.foo.default", {13, 2, 15}, 0}};
    g.input_ids = {0};
    g.output_ids = {14, 15};
    return g;
}

TEST(Json, RoundTripKeepsEveryKind) {
    Bytes storage(24);
    for (size_t i = 0; i < storage.size(); ++i) storage[i] = static_cast<uint8_t>(i * 7);
    const Graph original = every_kind_graph(test::share(storage));
    const ProgramJson written = write_program_json(original);
    EXPECT_EQ(written.weights.size(), 24u);
    const Graph back = read(written.json, written.weights);
    test::expect_same_graph(original, back);
    // A second trip is byte-identical.
    const ProgramJson again = write_program_json(back);
    EXPECT_EQ(again.json, written.json);
    EXPECT_EQ(again.weights, written.weights);
}

TEST(Json, WriterMemoryPlanListsPools) {
    Bytes storage(24);
    const Graph g = every_kind_graph(test::share(storage));
    const ProgramJson written = write_program_json(g);
    EXPECT_NE(written.json.find("\"memoryPlan\""), std::string::npos);
    EXPECT_NE(written.json.find("\"version\": \"1.1\""), std::string::npos);
    // Reading it checks that every pool used exists and is large enough.
    EXPECT_NO_THROW(read(written.json, written.weights));
}

TEST(Json, BadInput) {
    EXPECT_LOAD_ERROR(read("{"), "p/program.json", "not valid JSON");
    EXPECT_LOAD_ERROR(read("[]"), "not a JSON object");
    EXPECT_LOAD_ERROR(read(R"({"version": "2", "values": []})"), "unsupported version '2'");
    EXPECT_LOAD_ERROR(read(R"({"version": "1"})"), "no 'values'");
    const std::string head = R"({"version": "1", "inputIds": [], "outputIds": [], "values": [)";
    EXPECT_LOAD_ERROR(read(head + R"({"type": "blob"}]})"), "value 0", "unknown type 'blob'");
    EXPECT_LOAD_ERROR(read(head + R"({"type": "tensor", "shape": [2], "dtype": "complex"}]})"),
                      "value 0", "unknown dtype 'complex'");
    EXPECT_LOAD_ERROR(read(head + R"({"type": "tensor", "shape": [2.5], "dtype": "f32"}]})"),
                      "value 0 shape[0]", "integer");
    EXPECT_LOAD_ERROR(read(head + R"({"type": "tensor", "shape": [-2], "dtype": "f32"}]})"),
                      "value 0", "negative");
    EXPECT_LOAD_ERROR(
        read(head + R"({"type": "tensor", "shape": [4294967296, 4294967296], "dtype": "f32"}]})"),
        "value 0", "elements");
    EXPECT_LOAD_ERROR(read(head + R"({"type": "tensor", "shape": [2], "dtype": "f32",
                           "weightsOffset": 4, "weightsLength": 8}]})",
                           Bytes(8)),
                      "value 0", "weights [offset 4, length 8]", "p/weights.bin (8 bytes)");
    EXPECT_LOAD_ERROR(read(head + R"({"type": "tensor", "shape": [2], "dtype": "f32",
                           "weightsOffset": 0, "weightsLength": 4}]})",
                           Bytes(8)),
                      "needs 8 bytes", "weightsLength is 4");
    EXPECT_LOAD_ERROR(read(head + R"({"type": "tensor", "shape": [2], "dtype": "f32",
                           "weightsOffset": 0}]})",
                           Bytes(8)),
                      "only one of weightsOffset and weightsLength");
    EXPECT_LOAD_ERROR(read(head + R"({"type": "list", "items": [1, "a"]}]})"), "value 0", "mixing");
    EXPECT_LOAD_ERROR(read(head + R"({"type": "scalar", "kind": "int", "value": 1.5}]})"),
                      "value 0", "integer");
    EXPECT_LOAD_ERROR(
        read(head + R"({"type": "scalar", "kind": "int", "value": 18446744073709551615}]})"),
        "value 0", "larger than a signed 64-bit");
    EXPECT_LOAD_ERROR(read(head + R"({"type": "scalar", "kind": "nope", "value": 1}]})"),
                      "unknown kind 'nope'");
    EXPECT_LOAD_ERROR(read(head + R"({"type": "list", "kind": "value_list", "items": [3]}]})"),
                      "value list 0 item 0", "value 3");
    EXPECT_LOAD_ERROR(
        read(R"({"version": "1", "values": [{"type": "null"}], "inputIds": [1], "outputIds": []})"),
        "input 0", "value 1");
    EXPECT_LOAD_ERROR(
        read(R"({"version": "1", "values": [{"type": "null"}], "inputIds": [], "outputIds": [],
                           "chain": [{"name": "aten.relu.default", "args": [0, 7]}]})"),
        "op 0", "aten.relu.default", "argument 1", "value 7");
    EXPECT_LOAD_ERROR(read(R"({"version": "1", "inputIds": [], "outputIds": [],
                           "values": [{"type": "tensor", "shape": [8], "dtype": "float32", "memObjId": 2}],
                           "memoryPlan": {"pools": [{"id": 2, "size": 16}]}})"),
                      "memory pool 2 has size 16", "needs 32 bytes");
    EXPECT_LOAD_ERROR(read(R"({"version": "1", "inputIds": [], "outputIds": [],
                           "values": [{"type": "tensor", "shape": [8], "dtype": "float32", "memObjId": 5}],
                           "memoryPlan": {"pools": []}})"),
                      "memory pool 5", "does not list");
}

TEST(Json, InvalidUtf8StringsAreReplacedNotFatal) {
    Graph g;
    g.values = {String{std::string("bad\xff\xfe")}};
    g.chain = {{std::string("op\xc3"), {0}, 0}};
    const ProgramJson written = write_program_json(g);
    const Graph back = read(written.json);
    EXPECT_EQ(std::get<String>(back.values[0]).value, "bad\xef\xbf\xbd\xef\xbf\xbd");
}

TEST(Json, DeepNestingDoesNotCrash) {
    const std::string deep = std::string(100000, '[') + std::string(100000, ']');
    EXPECT_LOAD_ERROR(read(deep), "not a JSON object");
}

}  // namespace
}  // namespace wgx::graph
