// The VkGraph reader on synthetic payloads: every value kind, constants, schema defaults,
// header validation and bad ids.
#include <gtest/gtest.h>

#include <limits>

#include "graph/load.h"
#include "synthetic.h"
#include "test_util.h"

namespace wgx::graph {
namespace {

using test::Bytes;
using test::VkGraphWriter;
namespace vk = vkgraph;

Graph load(const Bytes& payload) { return load_vkgraph_bytes(test::share(payload), "test.vk"); }

TEST(VkGraph, ReadsEveryValueKind) {
    VkGraphWriter w;
    const int null_id = w.null_value();
    const int int_id = w.int_value(-7);
    const int double_id = w.double_value(2.5);
    const int bool_id = w.bool_value(true);
    const int string_id = w.string_value("hello");
    const int symint_id = w.symint(12);
    const int int_list_id = w.int_list({1, 2, 3});
    const int double_list_id = w.double_list({0.5, -1.0});
    const int bool_list_id = w.bool_list({true, false, true});
    const int a = w.tensor(vk::VkDataType::FLOAT32, {2, 3}, -1, 0);
    const int b = w.tensor(vk::VkDataType::INT32, {4}, -1, 1);
    const int list_id = w.value_list({a, b});
    const int out = w.tensor(vk::VkDataType::FLOAT16, {2, 3}, -1, 2);
    w.op("aten.add.Tensor", {a, a, int_id, out}, 42);
    w.inputs = {static_cast<uint32_t>(a)};
    w.outputs = {static_cast<uint32_t>(out)};
    const Graph g = load(w.finish());

    ASSERT_EQ(g.values.size(), 13u);
    EXPECT_TRUE(std::holds_alternative<Null>(g.values[null_id]));
    EXPECT_EQ(std::get<Int>(g.values[int_id]).value, -7);
    EXPECT_EQ(std::get<Double>(g.values[double_id]).value, 2.5);
    EXPECT_TRUE(std::get<Bool>(g.values[bool_id]).value);
    EXPECT_EQ(std::get<String>(g.values[string_id]).value, "hello");
    EXPECT_EQ(std::get<SymInt>(g.values[symint_id]).value, 12);
    EXPECT_EQ(std::get<IntList>(g.values[int_list_id]).items, (std::vector<int64_t>{1, 2, 3}));
    EXPECT_EQ(std::get<DoubleList>(g.values[double_list_id]).items,
              (std::vector<double>{0.5, -1.0}));
    EXPECT_EQ(std::get<BoolList>(g.values[bool_list_id]).items,
              (std::vector<bool>{true, false, true}));
    EXPECT_EQ(std::get<ValueList>(g.values[list_id]).items, (std::vector<int32_t>{a, b}));
    const auto& ta = std::get<Tensor>(g.values[a]);
    EXPECT_EQ(ta.dtype, DType::f32);
    EXPECT_EQ(ta.dims, (std::vector<int64_t>{2, 3}));
    EXPECT_EQ(ta.constant_id, -1);
    EXPECT_EQ(ta.mem_obj_id, 0);
    EXPECT_EQ(std::get<Tensor>(g.values[b]).dtype, DType::i32);
    EXPECT_EQ(std::get<Tensor>(g.values[out]).dtype, DType::f16);
    ASSERT_EQ(g.chain.size(), 1u);
    EXPECT_EQ(g.chain[0].name, "aten.add.Tensor");
    EXPECT_EQ(g.chain[0].args, (std::vector<int32_t>{a, a, int_id, out}));
    EXPECT_EQ(g.chain[0].debug_handle, 42u);
    EXPECT_EQ(g.input_ids, (std::vector<int32_t>{a}));
    EXPECT_EQ(g.output_ids, (std::vector<int32_t>{out}));
}

TEST(VkGraph, MapsEveryDataType) {
    const std::pair<vk::VkDataType, DType> cases[] = {
        {vk::VkDataType::BOOL, DType::boolean}, {vk::VkDataType::UINT8, DType::u8},
        {vk::VkDataType::INT8, DType::i8},      {vk::VkDataType::INT32, DType::i32},
        {vk::VkDataType::FLOAT16, DType::f16},  {vk::VkDataType::FLOAT32, DType::f32},
        {vk::VkDataType::FLOAT64, DType::f64},  {vk::VkDataType::INT64, DType::i64},
    };
    for (const auto& [type, dtype] : cases) {
        VkGraphWriter w;
        w.tensor(type, {3});
        EXPECT_EQ(std::get<Tensor>(load(w.finish()).values[0]).dtype, dtype);
    }
}

TEST(VkGraph, RejectsUnsetAndUnknownDataTypes) {
    for (auto type : {vk::VkDataType::UNSET, static_cast<vk::VkDataType>(42)}) {
        VkGraphWriter w;
        w.tensor(type, {3});
        EXPECT_LOAD_ERROR(load(w.finish()), "test.vk", "tensor value 0", "data type");
    }
}

// FlatBuffers omits fields equal to the schema default; constant 0 and pool 0 are real ids.
TEST(VkGraph, SchemaDefaultsAreRealIds) {
    VkGraphWriter w;
    const std::vector<float> weights = {1, 2, 3, 4};
    w.inline_constant(test::bytes_of(weights));
    w.tensor(vk::VkDataType::FLOAT32, {4}, 0, -1);  // constant 0, written as "absent"
    w.tensor(vk::VkDataType::FLOAT32, {4}, -1, 0);  // pool 0, written as "absent"
    const Graph g = load(w.finish());
    const auto& constant = std::get<Tensor>(g.values[0]);
    EXPECT_EQ(constant.constant_id, 0);
    EXPECT_EQ(constant.mem_obj_id, -1);
    ASSERT_EQ(g.constants.size(), 1u);
    ASSERT_EQ(g.constants[0].bytes.size(), 16u);
    float first = 0;
    std::memcpy(&first, g.constants[0].bytes.data(), 4);
    EXPECT_EQ(first, 1.0f);
    const auto& pooled = std::get<Tensor>(g.values[1]);
    EXPECT_EQ(pooled.constant_id, -1);
    EXPECT_EQ(pooled.mem_obj_id, 0);
}

TEST(VkGraph, ConstantSizeMustMatchTensor) {
    VkGraphWriter w;
    w.inline_constant(Bytes(12, 1));
    w.tensor(vk::VkDataType::FLOAT32, {4}, 0);
    EXPECT_LOAD_ERROR(load(w.finish()), "tensor value 0", "needs 16 bytes", "has 12");
}

TEST(VkGraph, NamedConstantWithoutProgramIsAnError) {
    VkGraphWriter w;
    w.named_constant("abc123", 16);
    w.tensor(vk::VkDataType::FLOAT32, {4}, 0);
    EXPECT_LOAD_ERROR(load(w.finish()), "constant 0", "abc123");
}

TEST(VkGraph, NamedConstantWithoutKeyIsAnError) {
    VkGraphWriter w;
    w.named_constant("", 16);
    EXPECT_LOAD_ERROR(load(w.finish()), "constant 0", "no named key");
}

TEST(VkGraph, IdsOutOfRange) {
    {
        VkGraphWriter w;
        const int t = w.tensor(vk::VkDataType::FLOAT32, {1});
        w.op("aten.relu.default", {t, 5});
        EXPECT_LOAD_ERROR(load(w.finish()), "op 0", "aten.relu.default", "argument 1", "value 5");
    }
    {
        VkGraphWriter w;
        w.tensor(vk::VkDataType::FLOAT32, {1});
        w.inputs = {3};
        EXPECT_LOAD_ERROR(load(w.finish()), "input id 0", "value 3");
    }
    {
        VkGraphWriter w;
        w.tensor(vk::VkDataType::FLOAT32, {1});
        w.outputs = {1};
        EXPECT_LOAD_ERROR(load(w.finish()), "output id 0", "value 1");
    }
    {
        VkGraphWriter w;
        w.value_list({0, 9});
        EXPECT_LOAD_ERROR(load(w.finish()), "value list 0 item 1", "value 9");
    }
    {
        VkGraphWriter w;
        w.tensor(vk::VkDataType::FLOAT32, {1}, 3);
        EXPECT_LOAD_ERROR(load(w.finish()), "tensor value 0", "constant 3");
    }
    {
        VkGraphWriter w;
        w.inline_constant(Bytes(4));
        w.tensor(vk::VkDataType::FLOAT32, {1});
        w.op("aten.relu.default", {0, -1});
        EXPECT_LOAD_ERROR(load(w.finish()), "argument 1", "value -1");
    }
}

TEST(VkGraph, UntypedAndUnknownValues) {
    {
        VkGraphWriter w;
        w.untyped_value(0);
        EXPECT_LOAD_ERROR(load(w.finish()), "value 0", "no type");
    }
    {
        VkGraphWriter w;
        w.untyped_value(77);
        EXPECT_LOAD_ERROR(load(w.finish()), "value 0", "unknown type tag 77");
    }
    {
        // A known tag whose body is another table reads as that table with default fields
        // (FlatBuffers cannot tell); it must not crash.
        VkGraphWriter w;
        w.untyped_value(static_cast<uint8_t>(vk::GraphTypes::VkTensor));
        try {
            load(w.finish());
        } catch (const LoadError&) {}
    }
}

TEST(VkGraph, ZeroSizeAndAbsurdDims) {
    {
        VkGraphWriter w;
        w.tensor(vk::VkDataType::FLOAT32, {0, 3});  // an empty tensor is legal
        EXPECT_EQ(std::get<Tensor>(load(w.finish()).values[0]).dims, (std::vector<int64_t>{0, 3}));
    }
    {
        VkGraphWriter w;
        w.tensor(vk::VkDataType::FLOAT32, {0xffffffffu, 0xffffffffu, 0xffffffffu});
        EXPECT_LOAD_ERROR(load(w.finish()), "tensor value 0", "elements");
    }
    {
        VkGraphWriter w;
        w.tensor(vk::VkDataType::FLOAT32, {1u << 20, 1u << 20, 1u << 4});
        EXPECT_LOAD_ERROR(load(w.finish()), "tensor value 0", "limit");
    }
}

// ---- VH00 header -------------------------------------------------------------------------

Bytes valid_payload() {
    VkGraphWriter w;
    w.inline_constant(Bytes(16, 7));
    w.tensor(vk::VkDataType::FLOAT32, {4}, 0);
    return w.finish();
}

// Rewrites the header of a valid payload.
Bytes with_header(Bytes payload, uint16_t length, uint32_t fb_offset, uint32_t fb_size,
                  uint32_t bytes_offset, uint64_t bytes_size) {
    const Bytes header = test::vh00_header(length, fb_offset, fb_size, bytes_offset, bytes_size);
    std::copy(header.begin(), header.begin() + 30, payload.begin());
    return payload;
}

struct HeaderFields {
    uint16_t length;
    uint32_t fb_offset, fb_size, bytes_offset;
    uint64_t bytes_size;
};

HeaderFields fields_of(const Bytes& p) {
    auto u32 = [&](size_t at) {
        uint32_t v;
        std::memcpy(&v, p.data() + at, 4);
        return v;
    };
    uint16_t length;
    std::memcpy(&length, p.data() + 8, 2);
    uint64_t bytes_size;
    std::memcpy(&bytes_size, p.data() + 22, 8);
    return {length, u32(10), u32(14), u32(18), bytes_size};
}

TEST(VkHeader, ValidPayloadReads) {
    const Bytes payload = valid_payload();
    const auto f = fields_of(payload);
    EXPECT_EQ(f.length, 30);
    EXPECT_EQ(f.fb_offset, 32u);
    EXPECT_EQ(load(payload).constants.size(), 1u);
}

TEST(VkHeader, FieldsOutOfRange) {
    const Bytes payload = valid_payload();
    const auto f = fields_of(payload);
    const auto size = static_cast<uint32_t>(payload.size());
    EXPECT_LOAD_ERROR(
        load(with_header(payload, 29, f.fb_offset, f.fb_size, f.bytes_offset, f.bytes_size)),
        "header length", "header length 29");
    EXPECT_LOAD_ERROR(
        load(with_header(payload, 0xffff, f.fb_offset, f.fb_size, f.bytes_offset, f.bytes_size)),
        "header length 65535");
    EXPECT_LOAD_ERROR(load(with_header(payload, 30, 16, f.fb_size, f.bytes_offset, f.bytes_size)),
                      "flatbuffer offset is inside the header");
    EXPECT_LOAD_ERROR(load(with_header(payload, 30, f.fb_offset, 0, f.bytes_offset, f.bytes_size)),
                      "flatbuffer size is 0");
    EXPECT_LOAD_ERROR(load(with_header(payload, 30, f.fb_offset, size, size, f.bytes_size)),
                      "flatbuffer runs past the end");
    EXPECT_LOAD_ERROR(load(with_header(payload, 30, 0xfffffff0u, 0x100, size, f.bytes_size)),
                      "flatbuffer runs past the end");
    EXPECT_LOAD_ERROR(
        load(with_header(payload, 30, f.fb_offset, f.fb_size, f.fb_offset, f.bytes_size)),
        "constant bytes start inside the flatbuffer");
    EXPECT_LOAD_ERROR(
        load(with_header(payload, 30, f.fb_offset, f.fb_size, size + 1, f.bytes_size)),
        "constant bytes start past the end");
    EXPECT_LOAD_ERROR(load(with_header(payload, 30, f.fb_offset, f.fb_size, f.bytes_offset, 1000)),
                      "constant bytes run past the end");
    EXPECT_LOAD_ERROR(load(with_header(payload, 30, f.fb_offset, f.fb_size, f.bytes_offset,
                                       std::numeric_limits<uint64_t>::max())),
                      "constant bytes run past the end");
    // Every message names the fields.
    EXPECT_LOAD_ERROR(load(with_header(payload, 30, f.fb_offset, 0, f.bytes_offset, f.bytes_size)),
                      "flatbuffer size 0", "payload size");
}

TEST(VkHeader, WrongMagicAndTooSmall) {
    Bytes payload = valid_payload();
    payload[5] = 'X';
    EXPECT_LOAD_ERROR(load(payload), "no VH00 header");
    EXPECT_LOAD_ERROR(load(Bytes(29, 0)), "too small for a VH00 header");
    EXPECT_LOAD_ERROR(load(Bytes{}), "0 bytes");
}

TEST(VkHeader, ZeroBytesSizeMeansRestOfPayload) {
    Bytes payload = valid_payload();
    const auto f = fields_of(payload);
    const Graph g = load(with_header(payload, 30, f.fb_offset, f.fb_size, f.bytes_offset, 0));
    EXPECT_EQ(g.constants[0].bytes.size(), 16u);
}

TEST(VkHeader, CorruptFlatbufferFailsVerification) {
    Bytes payload = valid_payload();
    const auto f = fields_of(payload);
    payload[f.fb_offset + 4] = 'X';  // the VK00 identifier
    EXPECT_LOAD_ERROR(load(payload), "VkGraph flatbuffer", "verification");
}

// A flatbuffer at an odd offset is copied to aligned memory before it is read.
TEST(VkHeader, MisalignedFlatbufferStillReads) {
    Bytes payload = valid_payload();
    auto f = fields_of(payload);
    Bytes shifted(payload.begin(), payload.begin() + f.fb_offset);
    shifted.push_back(0);
    shifted.insert(shifted.end(), payload.begin() + f.fb_offset, payload.end());
    shifted =
        with_header(shifted, 30, f.fb_offset + 1, f.fb_size, f.bytes_offset + 1, f.bytes_size);
    const Graph g = load(shifted);
    EXPECT_EQ(g.constants[0].bytes[0], 7);
}

}  // namespace
}  // namespace wgx::graph
