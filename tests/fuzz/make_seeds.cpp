// Writes a seed corpus for fuzz_readers from the exported fixtures: every .pte as is, each of
// its Vulkan delegate payloads, and its program.json + NUL + weights.bin.
//   make_seeds FIXTURES_DIR OUT_DIR
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "graph/json/program_json.h"
#include "graph/load.h"
#include "graph/pte/pte_file.h"
#include "graph/util/file.h"
#include "synthetic.h"
#include "wgx/error.h"

namespace fs = std::filesystem;
using namespace wgx::graph;

namespace {

void write(const fs::path& path, std::span<const uint8_t> bytes) {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()),
              static_cast<std::streamsize>(bytes.size()));
}

// Shapes the fixtures lack: an inline delegate with inline constants, a .ptd with external
// constants, every value kind.
void write_synthetic_seeds(const fs::path& out_dir) {
    namespace fb = executorch_flatbuffer;
    namespace vk = vkgraph;
    wgx::test::VkGraphWriter v;
    const int x = v.tensor(vk::VkDataType::FLOAT32, {2, 2}, -1, 0);
    const int c = v.inline_constant(std::vector<uint8_t>(16, 0x3f));
    const int w = v.tensor(vk::VkDataType::FLOAT32, {2, 2}, c);
    const int sum = v.tensor(vk::VkDataType::FLOAT32, {2, 2}, -1, 1);
    const int list = v.value_list({x, sum});
    const int out = v.tensor(vk::VkDataType::FLOAT32, {4, 2}, -1, 0);
    v.op("aten.add.Tensor", {x, w, v.double_value(0.5), sum}, 1);
    v.op("aten.cat.default", {list, v.int_value(0), out}, 2);
    v.op("x.kinds.default",
         {v.symint(3), v.string_value("s"), v.bool_list({true}), v.double_list({1.5}),
          v.int_list({-1}), v.null_value(), out},
         3);
    v.inputs = {static_cast<uint32_t>(x)};
    v.outputs = {static_cast<uint32_t>(out)};
    const auto payload = v.finish();
    write(out_dir / "synthetic_inline.vk", payload);

    wgx::test::PteWriter p;
    const int in = p.tensor(fb::ScalarType::FLOAT, {2, 2});
    const int result = p.tensor(fb::ScalarType::FLOAT, {4, 2}, {.planned = true});
    const int ext = p.tensor(fb::ScalarType::FLOAT, {2}, {.fqn = "ext.w", .external = true});
    const int relu = p.tensor(fb::ScalarType::FLOAT, {4, 2}, {.planned = true});
    p.delegate_call(p.delegate("VulkanBackend", payload, false), {in, result});
    p.kernel_call(p.op("aten::relu", "out"), {result, relu, relu});
    p.kernel_call(p.op("aten::mul", "out"), {ext, ext, relu, relu});
    p.inputs = {in};
    p.outputs = {relu};
    write(out_dir / "synthetic_inline_delegate.pte", p.finish());
    // The same with the delegate, a named-data key and a constant in segments (eh00 header).
    wgx::test::VkGraphWriter nv;
    const int nx = nv.tensor(vk::VkDataType::FLOAT32, {2, 2}, -1, 0);
    const int nw = nv.tensor(vk::VkDataType::FLOAT32, {2, 2}, nv.named_constant("key-1", 16));
    const int nout = nv.tensor(vk::VkDataType::FLOAT32, {2, 2}, -1, 1);
    nv.op("aten.mul.Tensor", {nx, nw, nout}, 1);
    nv.inputs = {static_cast<uint32_t>(nx)};
    nv.outputs = {static_cast<uint32_t>(nout)};
    wgx::test::PteWriter q;
    const int qin = q.tensor(fb::ScalarType::FLOAT, {2, 2});
    const int qmid = q.tensor(fb::ScalarType::FLOAT, {2, 2}, {.planned = true});
    const int qc = q.tensor(
        fb::ScalarType::FLOAT, {2, 2},
        {.data_buffer_idx = q.constant_data(std::vector<uint8_t>(16, 0x40)), .fqn = "bias"});
    const int qout = q.tensor(fb::ScalarType::FLOAT, {2, 2}, {.planned = true});
    q.named_data("key-1", std::vector<uint8_t>(16, 0x3f));
    q.delegate_call(q.delegate("VulkanBackend", nv.finish(), true), {qin, qmid});
    q.kernel_call(q.op("aten::add", "out"), {qmid, qc, q.int_value(1), qout, qout});
    q.inputs = {qin};
    q.outputs = {qout};
    write(out_dir / "synthetic_segments.pte", q.finish());

    write(out_dir / "synthetic.ptd",
          wgx::test::ptd_file({{"ext.w", std::vector<uint8_t>(8, 1)}, {"other", {}}}));
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: %s FIXTURES_DIR OUT_DIR\n", argv[0]);
        return 2;
    }
    const fs::path out_dir = argv[2];
    fs::create_directories(out_dir);
    int count = 0;
    for (const auto& entry : fs::recursive_directory_iterator(argv[1])) {
        if (entry.path().extension() != ".pte") continue;
        const std::string stem =
            entry.path().parent_path().filename().string() + "_" + entry.path().stem().string();
        try {
            SharedBytes bytes = read_file_bytes(entry.path());
            write(out_dir / (stem + ".pte"), *bytes);
            const PteFile file(bytes, entry.path().string());
            for (const std::string& method : file.method_names()) {
                const auto* delegates = file.plan(method).delegates();
                for (uint32_t i = 0; delegates && i < delegates->size(); ++i) {
                    write(out_dir / (stem + "_" + method + "_delegate" + std::to_string(i) + ".vk"),
                          file.delegate_payload(*delegates->Get(i), "seed"));
                }
                const ProgramJson json = write_program_json(load_pte_bytes(bytes, method));
                std::vector<uint8_t> seed(json.json.begin(), json.json.end());
                seed.push_back(0);
                seed.insert(seed.end(), json.weights.begin(), json.weights.end());
                write(out_dir / (stem + "_" + method + ".json"), seed);
            }
            count++;
        } catch (const wgx::Error& error) {
            std::fprintf(stderr, "skipping %s: %s\n", entry.path().c_str(), error.what());
        }
    }
    write_synthetic_seeds(out_dir);
    std::printf("seeds from %d files in %s\n", count, out_dir.c_str());
    return 0;
}
