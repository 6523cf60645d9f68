// load_graph / method_names on files: format sniffing, program.json directories and paths.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "graph/json/program_json.h"
#include "graph/load.h"
#include "synthetic.h"
#include "test_util.h"

namespace wgx::graph {
namespace {

namespace fs = std::filesystem;
namespace fb = executorch_flatbuffer;

class TempDir {
  public:
    TempDir() {
        path_ =
            fs::temp_directory_path() /
            ("wgx_load_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
             "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(path_);
        fs::create_directories(path_);
    }
    ~TempDir() { fs::remove_all(path_); }
    const fs::path& path() const { return path_; }

  private:
    fs::path path_;
};

void write_file(const fs::path& path, std::span<const uint8_t> bytes) {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()),
              static_cast<std::streamsize>(bytes.size()));
}

test::Bytes small_pte() {
    test::PteWriter w;
    const int x = w.tensor(fb::ScalarType::FLOAT, {2});
    const std::vector<float> c = {1.5f, 2.5f};
    const int k = w.tensor(fb::ScalarType::FLOAT, {2},
                           {.data_buffer_idx = w.constant_data(test::bytes_of(c))});
    const int y = w.tensor(fb::ScalarType::FLOAT, {2}, {.planned = true});
    w.kernel_call(w.op("aten::mul", "out"), {x, k, y, y});
    w.inputs = {x};
    w.outputs = {y};
    return w.finish();
}

TEST(Load, SniffsPteAndJson) {
    TempDir dir;
    const fs::path pte = dir.path() / "model.bin";  // the extension does not matter for .pte
    write_file(pte, small_pte());
    const Graph from_pte = load_graph(pte);
    EXPECT_EQ(from_pte.chain.at(0).name, "aten.mul.Tensor");
    EXPECT_EQ(method_names(pte), (std::vector<std::string>{"forward"}));

    const ProgramJson json = write_program_json(from_pte);
    const fs::path out = dir.path() / "converted";
    fs::create_directories(out);
    write_file(out / "program.json",
               std::span(reinterpret_cast<const uint8_t*>(json.json.data()), json.json.size()));
    write_file(out / "weights.bin", json.weights);
    for (const fs::path& path : {out, out / "program.json"}) {
        const Graph g = load_graph(path);
        EXPECT_EQ(g.chain.at(0).name, "aten.mul.Tensor");
        EXPECT_EQ(g.constants.size(), 1u);
        EXPECT_EQ(method_names(path), (std::vector<std::string>{"forward"}));
    }
    EXPECT_LOAD_ERROR(load_graph(out, {.method = "decode"}), "program.json",
                      "only the method 'forward'");

    fs::remove(out / "weights.bin");
    EXPECT_LOAD_ERROR(load_graph(out), "weights.bin (file not found)", "outside");
}

TEST(Load, UnknownFormatsAndMissingFiles) {
    TempDir dir;
    const fs::path junk = dir.path() / "junk.pte";
    write_file(junk, test::Bytes(100, 'x'));
    EXPECT_LOAD_ERROR(load_graph(junk), "junk.pte", "neither a .pte");
    const fs::path tiny = dir.path() / "tiny";
    write_file(tiny, test::Bytes(3, 0));
    EXPECT_LOAD_ERROR(load_graph(tiny), "shorter than 8 bytes");
    EXPECT_LOAD_ERROR(load_graph(dir.path() / "missing.pte"), "missing.pte", "cannot read");
    EXPECT_LOAD_ERROR(load_graph(dir.path()), "is a directory");
    EXPECT_LOAD_ERROR(method_names(junk), "junk.pte");

    const fs::path pte = dir.path() / "m.pte";
    write_file(pte, small_pte());
    LoadOptions options;
    options.ptd = dir.path() / "absent.ptd";
    EXPECT_LOAD_ERROR(load_graph(pte, options), "absent.ptd", "cannot read");
}

}  // namespace
}  // namespace wgx::graph
