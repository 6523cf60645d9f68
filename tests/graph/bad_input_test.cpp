// Damaged files: truncation, random bit flips, wrong magic, offsets past the end. Every case must
// end in a wgx::LoadError (or, for harmless flips, a valid Graph), never a crash or another
// exception type.
#include <gtest/gtest.h>

#include <random>

#include "graph/json/program_json.h"
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

Bytes delegate_payload(bool named) {
    VkGraphWriter v;
    const int x = v.tensor(vk::VkDataType::FLOAT32, {2, 4}, -1, 0);
    const std::vector<float> w = {1, 2, 3, 4, 5, 6, 7, 8};
    const int c = named ? v.named_constant("k0", 32) : v.inline_constant(test::bytes_of(w));
    const int wt = v.tensor(vk::VkDataType::FLOAT32, {2, 4}, c);
    const int alpha = v.double_value(0.5);
    const int dims = v.int_list({1});
    const int sum = v.tensor(vk::VkDataType::FLOAT32, {2, 4}, -1, 1);
    const int list = v.value_list({x, sum});
    const int cat = v.tensor(vk::VkDataType::FLOAT32, {4, 4}, -1, 2);
    const int zero = v.int_value(0);
    v.op("aten.add.Tensor", {x, wt, alpha, sum}, 1);
    v.op("aten.cat.default", {list, zero, cat}, 2);
    v.op("aten.sum.dim_IntList", {cat, dims, cat}, 3);
    v.inputs = {static_cast<uint32_t>(x)};
    v.outputs = {static_cast<uint32_t>(cat)};
    return v.finish();
}

// A program with a segment delegate (named-data constant), an inline delegate, kernel calls and
// a constant-segment tensor: every structure the reader follows.
Bytes rich_pte() {
    PteWriter w;
    const int x = w.tensor(fb::ScalarType::FLOAT, {2, 4});
    const int y = w.tensor(fb::ScalarType::FLOAT, {4, 4}, {.planned = true});
    const int z = w.tensor(fb::ScalarType::FLOAT, {4, 4}, {.planned = true});
    const std::vector<float> k(32, 0.25f);
    w.named_data("k0", test::bytes_of(k));
    const std::vector<float> bias(16, 2.0f);
    const int b = w.tensor(fb::ScalarType::FLOAT, {4, 4},
                           {.data_buffer_idx = w.constant_data(test::bytes_of(bias)), .fqn = "b"});
    const int alpha = w.int_value(1);
    const int out = w.tensor(fb::ScalarType::FLOAT, {4, 4}, {.planned = true});
    const int shape = w.int_list({16});
    const int flat = w.tensor(fb::ScalarType::FLOAT, {16}, {.planned = true});
    w.delegate_call(w.delegate("VulkanBackend", delegate_payload(true), true), {x, y});
    w.kernel_call(w.op("aten::add", "out"), {y, b, alpha, z});
    w.delegate_call(w.delegate("VulkanBackend", delegate_payload(false), false), {x, out});
    w.kernel_call(w.op("executorch_prim::et_view", "default"), {z, shape, flat});
    w.inputs = {x};
    w.outputs = {flat, out};
    return w.finish();
}

// Loading must either succeed or throw LoadError; anything else fails the test.
bool loads(const Bytes& file) {
    try {
        load_pte_bytes(test::share(file), "forward", nullptr, "fuzz.pte");
        return true;
    } catch (const LoadError&) {
        return false;
    }
}

TEST(BadInput, RichProgramLoads) {
    const Graph g = load_pte_bytes(test::share(rich_pte()));
    EXPECT_EQ(g.chain.size(), 3u + 1u + 3u + 1u);
    EXPECT_EQ(g.constants.size(), 3u);
}

TEST(BadInput, TruncationAt64Points) {
    const Bytes file = rich_pte();
    for (size_t k = 0; k < 64; ++k) {
        const size_t size = file.size() * k / 64;
        const Bytes cut(file.begin(), file.begin() + static_cast<std::ptrdiff_t>(size));
        EXPECT_LOAD_ERROR(load_pte_bytes(test::share(cut), "forward", nullptr, "cut.pte"),
                          "cut.pte");
    }
    const Bytes payload = delegate_payload(false);
    for (size_t k = 0; k < 64; ++k) {
        const size_t size = payload.size() * k / 64;
        const Bytes cut(payload.begin(), payload.begin() + static_cast<std::ptrdiff_t>(size));
        EXPECT_LOAD_ERROR(load_vkgraph_bytes(test::share(cut), "cut.vk"), "cut.vk");
    }
    Bytes storage(8, 1);
    const ProgramJson json = write_program_json(load_pte_bytes(test::share(file)));
    for (size_t k = 0; k < 64; ++k) {
        const std::string cut = json.json.substr(0, json.json.size() * k / 64);
        EXPECT_LOAD_ERROR(load_json_bytes(cut, test::share(json.weights), "cut.json"), "cut.json");
    }
    for (size_t k = 0; k < 64; ++k) {
        const Bytes weights(
            json.weights.begin(),
            json.weights.begin() + static_cast<std::ptrdiff_t>(json.weights.size() * k / 64));
        EXPECT_LOAD_ERROR(load_json_bytes(json.json, test::share(weights), "p.json", "w.bin"),
                          "w.bin");
    }
}

TEST(BadInput, RandomBitFlips) {
    const Bytes file = rich_pte();
    std::mt19937_64 rng(20240611);
    size_t loaded = 0;
    constexpr int kIterations = 20000;
    for (int i = 0; i < kIterations; ++i) {
        Bytes damaged = file;
        const int flips = 1 + static_cast<int>(rng() % 8);
        for (int f = 0; f < flips; ++f)
            damaged[rng() % damaged.size()] ^= static_cast<uint8_t>(1u << (rng() % 8));
        loaded += loads(damaged);
    }
    // Flips in padding or constant data are harmless; most others must be caught.
    EXPECT_LT(loaded, static_cast<size_t>(kIterations));
    RecordProperty("bitflip_loads", static_cast<int>(loaded));
}

TEST(BadInput, RandomBitFlipsInPayload) {
    const Bytes payload = delegate_payload(false);
    std::mt19937_64 rng(99);
    for (int i = 0; i < 20000; ++i) {
        Bytes damaged = payload;
        damaged[rng() % damaged.size()] ^= static_cast<uint8_t>(1u << (rng() % 8));
        try {
            load_vkgraph_bytes(test::share(damaged));
        } catch (const LoadError&) {}
    }
}

TEST(BadInput, RandomBitFlipsInJson) {
    const ProgramJson json = write_program_json(load_pte_bytes(test::share(rich_pte())));
    std::mt19937_64 rng(7);
    for (int i = 0; i < 5000; ++i) {
        std::string damaged = json.json;
        damaged[rng() % damaged.size()] ^= static_cast<char>(1u << (rng() % 7));
        try {
            load_json_bytes(damaged, test::share(json.weights));
        } catch (const LoadError&) {}
    }
}

TEST(BadInput, WrongMagic) {
    Bytes file = rich_pte();
    file[4] = 'X';
    EXPECT_LOAD_ERROR(load_pte_bytes(test::share(file), "forward", nullptr, "m.pte"), "m.pte",
                      "bytes 4..8", "'XT12'", "expected 'ET12'");
    file = rich_pte();
    file[9] = 'X';  // "eh00" -> "eX00": no extended header, so segments cannot be located
    EXPECT_LOAD_ERROR(load_pte_bytes(test::share(file), "forward", nullptr, "m.pte"), "m.pte");
    EXPECT_LOAD_ERROR(load_pte_bytes(test::share(Bytes{}), "forward", nullptr, "e.pte"), "e.pte",
                      "0 bytes");
    EXPECT_LOAD_ERROR(load_pte_bytes(test::share(Bytes(64, 0xff)), "forward", nullptr, "f.pte"),
                      "0xffffffff");
}

void put_u64(Bytes& file, size_t at, uint64_t value) {
    for (size_t i = 0; i < 8; ++i) file[at + i] = static_cast<uint8_t>(value >> (8 * i));
}

TEST(BadInput, ExtendedHeaderFields) {
    const Bytes file = rich_pte();
    auto with = [&](size_t at, uint64_t value) {
        Bytes copy = file;
        put_u64(copy, at, value);
        return load_pte_bytes(test::share(copy), "forward", nullptr, "h.pte");
    };
    // Field offsets in the file: eh00 at 8; length u32 at 12; program size at 16; segment base
    // at 24; segment data size at 32.
    EXPECT_LOAD_ERROR(with(16, file.size() + 1), "program is", "truncated");
    EXPECT_LOAD_ERROR(with(16, 4), "program is 4 bytes");
    EXPECT_LOAD_ERROR(with(24, file.size() + 100), "segment base offset");
    EXPECT_LOAD_ERROR(with(24, UINT64_MAX), "segment base offset");
    EXPECT_LOAD_ERROR(with(32, UINT64_MAX), "segment data");
    Bytes short_header = file;
    short_header[12] = 16;  // header length 16 < 24
    EXPECT_LOAD_ERROR(load_pte_bytes(test::share(short_header), "forward", nullptr, "h.pte"),
                      "extended header", "length 16");
}

TEST(BadInput, SegmentOffsetsPastTheEnd) {
    // Build a file whose segment table points past the end by shrinking segment data.
    Bytes file = rich_pte();
    // Drop the last 64 bytes but fix the header's data size so only the per-segment check fails.
    uint64_t data_size = 0;
    std::memcpy(&data_size, file.data() + 32, 8);
    file.resize(file.size() - 64);
    put_u64(file, 32, data_size - 64);
    EXPECT_LOAD_ERROR(load_pte_bytes(test::share(file), "forward", nullptr, "s.pte"), "s.pte",
                      "segment", "past the end of the file");
}

}  // namespace
}  // namespace wgx::graph
