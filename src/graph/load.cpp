#include "graph/load.h"

#include <cstring>
#include <system_error>

#include "graph/graph_check.h"
#include "graph/json/program_json.h"
#include "graph/lower.h"
#include "graph/pte/ptd_file.h"
#include "graph/pte/pte_file.h"
#include "graph/util/file.h"
#include "graph/util/text.h"
#include "graph/vkgraph/vkgraph_reader.h"

namespace wgx::graph {

namespace fs = std::filesystem;

namespace {

struct JsonPaths {
    fs::path program;
    fs::path weights;
};

// A directory holding program.json, or a .json file; weights.bin sits beside it.
std::optional<JsonPaths> json_paths(const fs::path& model) {
    std::error_code ec;
    if (fs::is_directory(model, ec)) {
        if (!fs::exists(model / "program.json", ec)) return std::nullopt;
        return JsonPaths{model / "program.json", model / "weights.bin"};
    }
    if (model.extension() == ".json") return JsonPaths{model, model.parent_path() / "weights.bin"};
    return std::nullopt;
}

bool has_pte_identifier(const std::vector<uint8_t>& bytes) {
    return bytes.size() >= 8 && std::memcmp(bytes.data() + 4, "ET12", 4) == 0;
}

Graph load_json_files(const JsonPaths& paths) {
    SharedBytes text = read_file_bytes(paths.program);
    std::error_code ec;
    // A program without constants needs no weights.bin.
    const bool has_weights = fs::exists(paths.weights, ec);
    SharedBytes weights = has_weights ? read_file_bytes(paths.weights) : share_bytes({});
    const std::string weights_name =
        paths.weights.string() + (has_weights ? "" : " (file not found)");
    const std::string_view json(reinterpret_cast<const char*>(text->data()), text->size());
    return load_json_bytes(json, std::move(weights), paths.program.string(), weights_name);
}

[[noreturn]] void unknown_format(const fs::path& model, const std::vector<uint8_t>& bytes) {
    fail(model.string(), cat("is neither a .pte (bytes 4..8 are not 'ET12'",
                             bytes.size() < 8 ? ", the file is shorter than 8 bytes" : "",
                             ") nor a program.json (a .json file or a directory holding one)"));
}

}  // namespace

Graph load_pte_bytes(SharedBytes pte, std::string_view method, SharedBytes ptd,
                     const std::string& name, const std::string& ptd_name) {
    const PteFile file(std::move(pte), name);
    if (!ptd) return lower_method(file, method);
    const NamedDataMap external = read_ptd(ptd, ptd_name);
    return lower_method(file, method, &external, std::move(ptd));
}

std::vector<std::string> pte_method_names(SharedBytes pte, const std::string& name) {
    return PteFile(std::move(pte), name).method_names();
}

Graph load_json_bytes(std::string_view json, SharedBytes weights, const std::string& name,
                      const std::string& weights_name) {
    return read_program_json(json, std::move(weights), name, weights_name);
}

Graph load_vkgraph_bytes(SharedBytes payload, const std::string& name) {
    if (!payload) fail(name, "no bytes");
    Graph graph = read_vkgraph(*payload, NamedDataSources{}, name, "delegate payload");
    graph.storage.push_back(std::move(payload));
    return graph;
}

Graph load_graph(const fs::path& model, const LoadOptions& options) {
    if (auto paths = json_paths(model)) {
        if (options.method != "forward") {
            fail(paths->program.string(),
                 cat("has only the method 'forward', not '", options.method, "'"));
        }
        return load_json_files(*paths);
    }
    SharedBytes bytes = read_file_bytes(model);
    if (!has_pte_identifier(*bytes)) unknown_format(model, *bytes);
    SharedBytes ptd = options.ptd ? read_file_bytes(*options.ptd) : nullptr;
    return load_pte_bytes(std::move(bytes), options.method, std::move(ptd), model.string(),
                          options.ptd ? options.ptd->string() : std::string());
}

std::vector<std::string> method_names(const fs::path& model) {
    if (json_paths(model)) return {"forward"};
    SharedBytes bytes = read_file_bytes(model);
    if (!has_pte_identifier(*bytes)) unknown_format(model, *bytes);
    return pte_method_names(std::move(bytes), model.string());
}

}  // namespace wgx::graph
