// Real exported fixtures (tests/fixtures/<name>/{vulkan.pte, plain.pte, meta.json,
// *.inspect.json}): every fixture loads, agrees with the facts in meta.json, and agrees with
// the dump tool (python/inspect_pte.py, whose output is stored beside each .pte) value by
// value, op by op. Skipped only when the fixture directory is absent.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include <nlohmann/json.hpp>

#include "graph/graph_check.h"
#include "graph/json/program_json.h"
#include "graph/load.h"
#include "graph/memory_plan.h"
#include "graph/pte/kernel_names.h"
#include "graph/pte/pte_file.h"
#include "graph/util/file.h"
#include "graph/vkgraph/vh00_header.h"
#include "graph/vkgraph/vkgraph_reader.h"
#include "graph_compare.h"
#include "wgx/error.h"

namespace wgx::graph {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

struct Fixture {
    std::string name;
    fs::path dir;
    Json meta;
};

std::vector<Fixture> fixtures() {
    std::vector<Fixture> result;
    std::error_code ec;
    if (!fs::is_directory(WGX_FIXTURES_DIR, ec)) return result;
    for (const auto& entry : fs::directory_iterator(WGX_FIXTURES_DIR)) {
        const fs::path meta = entry.path() / "meta.json";
        if (!fs::exists(meta)) continue;
        std::ifstream in(meta);
        result.push_back({entry.path().filename().string(), entry.path(), Json::parse(in)});
    }
    std::sort(result.begin(), result.end(),
              [](const Fixture& a, const Fixture& b) { return a.name < b.name; });
    return result;
}

#define REQUIRE_FIXTURES(list)    \
    const auto list = fixtures(); \
    if (list.empty()) GTEST_SKIP() << "no fixtures under " << WGX_FIXTURES_DIR;

Json read_json(const fs::path& path) {
    std::ifstream in(path);
    return Json::parse(in);
}

std::string_view plan_dtype_name(DType t) {
    switch (t) {
        case DType::f32: return "FLOAT";
        case DType::f16: return "HALF";
        case DType::i32: return "INT";
        case DType::i64: return "LONG";
        case DType::i8: return "CHAR";
        case DType::u8: return "BYTE";
        case DType::boolean: return "BOOL";
        case DType::f64: return "DOUBLE";
    }
    return "?";
}

std::string_view vk_dtype_name(DType t) {
    switch (t) {
        case DType::f32: return "FLOAT32";
        case DType::f16: return "FLOAT16";
        case DType::i32: return "INT32";
        case DType::i64: return "INT64";
        case DType::i8: return "INT8";
        case DType::u8: return "UINT8";
        case DType::boolean: return "BOOL";
        case DType::f64: return "FLOAT64";
    }
    return "?";
}

// "aten::add.out" -> functional graph name.
std::string functional_name(const std::string& kernel) {
    const size_t dot = kernel.rfind('.');
    return functional_op(kernel.substr(0, dot), kernel.substr(dot + 1)).name;
}

void expect_tensor_facts(const Graph& g, int32_t id, const Json& fact, const std::string& what) {
    SCOPED_TRACE(what);
    const auto* tensor = std::get_if<Tensor>(&g.values.at(static_cast<size_t>(id)));
    ASSERT_NE(tensor, nullptr);
    EXPECT_EQ(tensor->dims, fact["shape"].get<std::vector<int64_t>>());
    EXPECT_EQ(tensor->dtype, parse_dtype(fact["dtype"].get<std::string>()).value());
}

TEST(Fixtures, LoadAndMatchMeta) {
    REQUIRE_FIXTURES(all);
    for (const Fixture& fixture : all) {
        for (const char* file : {"vulkan.pte", "plain.pte"}) {
            const fs::path path = fixture.dir / file;
            if (!fs::exists(path)) continue;
            SCOPED_TRACE(path.string());
            Graph g;
            ASSERT_NO_THROW(g = load_graph(path));
            EXPECT_FALSE(g.chain.empty());
            const Json& inputs = fixture.meta["inputs"];
            const Json& outputs = fixture.meta["outputs"];
            ASSERT_EQ(g.input_ids.size(), inputs.size());
            ASSERT_EQ(g.output_ids.size(), outputs.size());
            for (size_t i = 0; i < inputs.size(); ++i) {
                expect_tensor_facts(g, g.input_ids[i], inputs[i], "input " + std::to_string(i));
            }
            for (size_t i = 0; i < outputs.size(); ++i) {
                expect_tensor_facts(g, g.output_ids[i], outputs[i], "output " + std::to_string(i));
            }
            EXPECT_EQ(method_names(path), (std::vector<std::string>{"forward"}));
        }
    }
}

// The lowered chain is the delegates' ops and the functional names of the kernel calls, in
// instruction order.
TEST(Fixtures, ChainMatchesDumpTool) {
    REQUIRE_FIXTURES(all);
    for (const Fixture& fixture : all) {
        for (const char* stem : {"vulkan", "plain"}) {
            const fs::path pte = fixture.dir / (std::string(stem) + ".pte");
            const fs::path dump = fixture.dir / (std::string(stem) + ".inspect.json");
            if (!fs::exists(pte) || !fs::exists(dump)) continue;
            SCOPED_TRACE(pte.string());
            const Json facts = read_json(dump);
            const Json& plan = facts["execution_plans"][0];
            std::vector<std::string> expected;
            for (const Json& instruction : plan["chains"][0]["instructions"]) {
                const std::string kind = instruction["kind"];
                if (kind == "KernelCall") {
                    expected.push_back(functional_name(instruction["op"]));
                } else if (kind == "DelegateCall") {
                    const int index = instruction["delegate_index"];
                    for (const Json& delegate : facts["vulkan_delegates"]) {
                        if (delegate["delegate_index"] == index) {
                            for (const Json& name : delegate["op_names"]) expected.push_back(name);
                        }
                    }
                }
            }
            const Graph g = load_graph(pte);
            std::vector<std::string> names;
            size_t view_copies_inserted = 0;
            for (const OpCall& op : g.chain) {
                // Plain programs' views have no instruction; lowering makes each an explicit
                // view_copy (the original chain never holds one: executorch removes them).
                if (stem == std::string_view("plain") && op.name == "aten.view_copy.default") {
                    ++view_copies_inserted;
                    continue;
                }
                names.push_back(op.name);
            }
            EXPECT_EQ(names, expected);
            if (fixture.name == "linear" && stem == std::string_view("plain")) {
                EXPECT_EQ(view_copies_inserted, 2u);  // [2,5,16] -> [10,16] and back
            }
        }
    }
}

void expect_plan_value(const Graph& g, const Json& fact) {
    const int32_t id = fact["id"];
    SCOPED_TRACE("plan value " + std::to_string(id));
    const Value& value = g.values.at(static_cast<size_t>(id));
    const std::string type = fact["type"];
    if (type == "Tensor") {
        const auto* t = std::get_if<Tensor>(&value);
        ASSERT_NE(t, nullptr);
        EXPECT_EQ(t->dims, fact["sizes"].get<std::vector<int64_t>>());
        EXPECT_EQ(plan_dtype_name(t->dtype), fact["dtype"].get<std::string>());
        const bool constant = fact.contains("data_buffer_idx") && fact["data_buffer_idx"] > 0 &&
                              !fact.contains("memory_id");
        EXPECT_EQ(t->constant_id >= 0, constant);
        if (constant) {
            EXPECT_EQ(g.constants.at(t->constant_id).bytes.size(), host_nbytes(*t));
        }
        EXPECT_EQ(t->mem_obj_id, -1);
    } else if (type == "Int") {
        const int64_t expected = fact["value"];
        if (auto* v = std::get_if<Int>(&value)) {
            EXPECT_EQ(v->value, expected);
        } else {
            ASSERT_TRUE(std::holds_alternative<SymInt>(value));
            EXPECT_EQ(std::get<SymInt>(value).value, expected);
        }
    } else if (type == "Double") {
        EXPECT_EQ(std::get<Double>(value).value, fact["value"].get<double>());
    } else if (type == "Bool") {
        EXPECT_EQ(std::get<Bool>(value).value, fact["value"].get<bool>());
    } else if (type == "String") {
        EXPECT_EQ(std::get<String>(value).value, fact["value"].get<std::string>());
    } else if (type == "Null") {
        EXPECT_TRUE(std::holds_alternative<Null>(value));
    } else if (type == "IntList") {
        if (auto* list = std::get_if<IntList>(&value)) {
            EXPECT_EQ(list->items, fact["value"].get<std::vector<int64_t>>());
        } else {
            EXPECT_EQ(std::get<ValueList>(value).items, fact["items"].get<std::vector<int32_t>>());
        }
    } else if (type == "DoubleList") {
        EXPECT_EQ(std::get<DoubleList>(value).items, fact["value"].get<std::vector<double>>());
    } else if (type == "BoolList") {
        EXPECT_EQ(std::get<BoolList>(value).items, fact["value"].get<std::vector<bool>>());
    } else if (type == "TensorList" || type == "OptionalTensorList") {
        EXPECT_EQ(std::get<ValueList>(value).items, fact["items"].get<std::vector<int32_t>>());
    } else {
        ADD_FAILURE() << "dump type " << type << " not covered by this test";
    }
}

void expect_vk_value(const Graph& g, const Json& fact) {
    const int32_t id = fact["id"];
    SCOPED_TRACE("VkGraph value " + std::to_string(id));
    const Value& value = g.values.at(static_cast<size_t>(id));
    const std::string type = fact["type"];
    if (type == "VkTensor") {
        const auto* t = std::get_if<Tensor>(&value);
        ASSERT_NE(t, nullptr);
        EXPECT_EQ(t->dims, fact["dims"].get<std::vector<int64_t>>());
        EXPECT_EQ(vk_dtype_name(t->dtype), fact["dtype"].get<std::string>());
        EXPECT_EQ(t->constant_id, std::max(-1, fact["constant_id"].get<int>()));
        EXPECT_EQ(t->mem_obj_id, std::max(-1, fact["mem_obj_id"].get<int>()));
    } else if (type == "Int") {
        EXPECT_EQ(std::get<Int>(value).value, fact["value"].get<int64_t>());
    } else if (type == "SymInt") {
        EXPECT_EQ(std::get<SymInt>(value).value, fact["value"].get<int64_t>());
    } else if (type == "Double") {
        EXPECT_EQ(std::get<Double>(value).value, fact["value"].get<double>());
    } else if (type == "Bool") {
        EXPECT_EQ(std::get<Bool>(value).value, fact["value"].get<bool>());
    } else if (type == "String") {
        EXPECT_EQ(std::get<String>(value).value, fact["value"].get<std::string>());
    } else if (type == "Null") {
        EXPECT_TRUE(std::holds_alternative<Null>(value));
    } else if (type == "IntList") {
        EXPECT_EQ(std::get<IntList>(value).items, fact["value"].get<std::vector<int64_t>>());
    } else if (type == "DoubleList") {
        EXPECT_EQ(std::get<DoubleList>(value).items, fact["value"].get<std::vector<double>>());
    } else if (type == "BoolList") {
        EXPECT_EQ(std::get<BoolList>(value).items, fact["value"].get<std::vector<bool>>());
    } else if (type == "ValueList") {
        EXPECT_EQ(std::get<ValueList>(value).items, fact["value"].get<std::vector<int32_t>>());
    } else {
        ADD_FAILURE() << "dump type " << type << " not covered by this test";
    }
}

// Every plan value, header field and VkGraph value/op/constant agrees with the dump tool.
TEST(Fixtures, ValuesMatchDumpTool) {
    REQUIRE_FIXTURES(all);
    size_t checked = 0;
    for (const Fixture& fixture : all) {
        for (const char* stem : {"vulkan", "plain"}) {
            const fs::path path = fixture.dir / (std::string(stem) + ".pte");
            const fs::path dump = fixture.dir / (std::string(stem) + ".inspect.json");
            if (!fs::exists(path) || !fs::exists(dump)) continue;
            SCOPED_TRACE(path.string());
            const Json facts = read_json(dump);
            const PteFile file(read_file_bytes(path), path.string());

            if (facts.contains("extended_header") && facts["extended_header"].is_object()) {
                const Json& header = facts["extended_header"];
                ASSERT_TRUE(file.extended_header().has_value());
                EXPECT_EQ(file.extended_header()->program_size,
                          header["program_size"].get<uint64_t>());
                EXPECT_EQ(file.extended_header()->segment_base_offset,
                          header["segment_base_offset"].get<uint64_t>());
                EXPECT_EQ(file.extended_header()->segment_data_size,
                          header["segment_data_size"].get<uint64_t>());
            }
            EXPECT_EQ(file.named_data().entries.size(), facts["named_data"]["count"].get<size_t>());

            const Graph g = load_graph(path);
            const Json& plan = facts["execution_plans"][0];
            EXPECT_EQ(g.input_ids, plan["inputs"].get<std::vector<int32_t>>());
            EXPECT_EQ(g.output_ids, plan["outputs"].get<std::vector<int32_t>>());
            for (const Json& value : plan["values"]) {
                expect_plan_value(g, value);
                ++checked;
            }

            for (const Json& delegate : facts["vulkan_delegates"]) {
                const int index = delegate["delegate_index"];
                const auto* fb_delegate = file.plan("forward").delegates()->Get(index);
                const std::string where = "delegate " + std::to_string(index);
                const auto payload = file.delegate_payload(*fb_delegate, where);
                const Json& header = delegate["header"];
                const VkHeader vh = read_vk_header(payload, path.string(), where);
                EXPECT_EQ(vh.length, header["header_length"].get<int>());
                EXPECT_EQ(vh.flatbuffer_offset, header["flatbuffer_offset"].get<uint32_t>());
                EXPECT_EQ(vh.flatbuffer_size, header["flatbuffer_size"].get<uint32_t>());
                EXPECT_EQ(vh.bytes_offset, header["bytes_offset"].get<uint32_t>());

                const NamedDataSources named{&file.named_data(), nullptr};
                const Graph sub = read_vkgraph(payload, named, path.string(), where);
                EXPECT_EQ(sub.values.size(), delegate["num_values"].get<size_t>());
                EXPECT_EQ(sub.input_ids, delegate["input_ids"].get<std::vector<int32_t>>());
                EXPECT_EQ(sub.output_ids, delegate["output_ids"].get<std::vector<int32_t>>());
                for (const Json& value : delegate["values"]) {
                    expect_vk_value(sub, value);
                    ++checked;
                }
                ASSERT_EQ(sub.chain.size(), delegate["chain"].size());
                for (size_t i = 0; i < sub.chain.size(); ++i) {
                    const Json& op = delegate["chain"][i];
                    EXPECT_EQ(sub.chain[i].name, op["name"].get<std::string>());
                    EXPECT_EQ(sub.chain[i].args, op["args"].get<std::vector<int32_t>>());
                    EXPECT_EQ(sub.chain[i].debug_handle, op["node_id"].get<uint32_t>());
                }
                ASSERT_EQ(sub.constants.size(), delegate["constants"].size());
                for (size_t i = 0; i < sub.constants.size(); ++i) {
                    const Json& constant = delegate["constants"][i];
                    EXPECT_EQ(sub.constants[i].bytes.size(), constant["length"].get<uint64_t>());
                    if (constant.contains("named_key") && constant["named_key"].is_string()) {
                        EXPECT_EQ(sub.constants[i].key, constant["named_key"].get<std::string>());
                    }
                }
            }
        }
    }
    EXPECT_GT(checked, 0u);
}

TEST(Fixtures, JsonRoundTripAndMemoryPlan) {
    REQUIRE_FIXTURES(all);
    for (const Fixture& fixture : all) {
        for (const char* file : {"vulkan.pte", "plain.pte"}) {
            const fs::path path = fixture.dir / file;
            if (!fs::exists(path)) continue;
            SCOPED_TRACE(path.string());
            Graph g = load_graph(path);
            const ProgramJson json = write_program_json(g);
            const Graph back = load_json_bytes(json.json, graph::share_bytes(json.weights));
            // Constants come back in the order the writer stored them: compare through tensors.
            ASSERT_EQ(back.values.size(), g.values.size());
            for (size_t id = 0; id < g.values.size(); ++id) {
                const auto* a = std::get_if<Tensor>(&g.values[id]);
                const auto* b = std::get_if<Tensor>(&back.values[id]);
                if (!a || a->constant_id < 0) continue;
                ASSERT_TRUE(b && b->constant_id >= 0);
                const auto x = g.constants[a->constant_id].bytes;
                const auto y = back.constants[b->constant_id].bytes;
                EXPECT_TRUE(std::equal(x.begin(), x.end(), y.begin(), y.end())) << "value " << id;
            }
            const ProgramJson again = write_program_json(back);
            EXPECT_EQ(again.json, json.json);
            EXPECT_EQ(again.weights, json.weights);

            assign_memory_pools(g);
            test::expect_pools_disjoint(g);
            for (const Value& value : g.values) {
                if (auto* t = std::get_if<Tensor>(&value); t && t->constant_id < 0) {
                    EXPECT_GE(t->mem_obj_id, 0);
                }
            }
            EXPECT_NO_THROW(check_graph(g, path.string()));
        }
    }
}

// Real files damaged: truncation at 64 points must fail cleanly; bit flips must load or fail
// cleanly (a LoadError), never crash.
TEST(Fixtures, SurviveTruncationAndBitFlips) {
    REQUIRE_FIXTURES(all);
    std::mt19937_64 rng(424242);
    for (const Fixture& fixture : all) {
        for (const char* file : {"vulkan.pte", "plain.pte"}) {
            const fs::path path = fixture.dir / file;
            if (!fs::exists(path)) continue;
            SCOPED_TRACE(path.string());
            const SharedBytes bytes = read_file_bytes(path);
            for (size_t k = 0; k < 64; ++k) {
                const size_t size = bytes->size() * k / 64;
                auto cut = share_bytes(std::vector<uint8_t>(bytes->begin(), bytes->begin() + size));
                EXPECT_THROW(load_pte_bytes(cut), wgx::LoadError) << "cut at " << size;
            }
            for (int i = 0; i < 500; ++i) {
                std::vector<uint8_t> damaged = *bytes;
                const int flips = 1 + static_cast<int>(rng() % 4);
                for (int f = 0; f < flips; ++f) {
                    damaged[rng() % damaged.size()] ^= static_cast<uint8_t>(1u << (rng() % 8));
                }
                try {
                    load_pte_bytes(share_bytes(std::move(damaged)));
                } catch (const wgx::LoadError&) {}
            }
        }
    }
}

}  // namespace
}  // namespace wgx::graph
