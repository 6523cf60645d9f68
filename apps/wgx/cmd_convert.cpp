// wgx convert MODEL.pte -o DIR: writes DIR/program.json + DIR/weights.bin (docs/FORMAT.md).
#include <fmt/format.h>

#include <filesystem>
#include <fstream>

#include "commands.h"
#include "graph/json/program_json.h"
#include "graph/load.h"
#include "wgx/wgx.h"

namespace wgx::cli {
namespace {

struct ConvertOptions {
    std::string model;
    std::string out_dir;
    std::string method = "forward";
    std::string data_file;
};

void write_file(const std::filesystem::path& path, const void* data, size_t size) {
    std::ofstream out(path, std::ios::binary);
    out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
    if (!out) throw Error(fmt::format("{}: writing failed.", path.string()));
}

int convert(const ConvertOptions& opt) {
    graph::LoadOptions load;
    load.method = opt.method;
    if (!opt.data_file.empty()) load.ptd = opt.data_file;
    graph::Graph graph = graph::load_graph(opt.model, load);
    graph::ProgramJson out = graph::write_program_json(graph);
    std::filesystem::create_directories(opt.out_dir);
    auto dir = std::filesystem::path(opt.out_dir);
    write_file(dir / "program.json", out.json.data(), out.json.size());
    write_file(dir / "weights.bin", out.weights.data(), out.weights.size());
    fmt::print("{} -> {} ({} ops, {} values, {} bytes of weights)\n", opt.model, opt.out_dir,
               graph.chain.size(), graph.values.size(), out.weights.size());
    return 0;
}

}  // namespace

void add_convert_command(Cli& cli, GlobalOptions&) {
    static ConvertOptions opt;
    Command cmd = cli.subcommand("convert", "Convert a .pte into program.json + weights.bin");
    cmd.option("model", opt.model, "The .pte file", {.required = true});
    cmd.option("-o,--out", opt.out_dir, "Output directory", {.required = true});
    cmd.option("--method", opt.method, "Method to convert", {.show_default = true});
    cmd.option("--data", opt.data_file, "External constants (.ptd)");
    cmd.on_run([] { return convert(opt); });
}

}  // namespace wgx::cli
