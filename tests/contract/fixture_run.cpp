#include "fixture_run.h"

#include <cstdlib>
#include <fstream>
#include <string>

#include "gpu/handle.h"
#include "io/npy.h"

namespace wgx::contract {

std::filesystem::path fixture_dir(const char* name) {
    const char* env = std::getenv("WGX_FIXTURES_DIR");
    return std::filesystem::path(env ? env : WGX_FIXTURES_DIR) / name;
}

std::vector<std::vector<std::byte>> read_inputs(const std::filesystem::path& dir,
                                                const Program& program) {
    std::vector<std::vector<std::byte>> out;
    for (size_t i = 0; i < program.inputs().size(); ++i) {
        io::NpyArray a = io::read_npy(dir / ("input_" + std::to_string(i) + ".npy"));
        if (a.dtype != program.inputs()[i].dtype || a.shape != program.inputs()[i].shape) {
            throw InvalidArgument("input " + std::to_string(i) + " of " + dir.string() +
                                  " does not match the program");
        }
        out.push_back(std::move(a.data));
    }
    return out;
}

std::vector<std::vector<std::byte>> run_program(Context& ctx, const Program& program,
                                                const std::vector<std::vector<std::byte>>& inputs) {
    std::vector<Tensor> io;
    for (size_t i = 0; i < program.inputs().size(); ++i) {
        const TensorInfo& info = program.inputs()[i];
        io.push_back(ctx.tensor(info.dtype, info.shape));
        io.back().set_bytes(inputs.at(i));
    }
    for (const TensorInfo& info : program.outputs())
        io.push_back(ctx.tensor(info.dtype, info.shape));
    ctx.record(program, io);
    ctx.submit();
    ctx.sync();
    std::vector<std::vector<std::byte>> outputs;
    for (size_t o = 0; o < program.outputs().size(); ++o) {
        outputs.push_back(io[program.inputs().size() + o].get_bytes());
    }
    ctx.reset();
    return outputs;
}

int64_t resident_kib() {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line)) {
        if (line.rfind("VmRSS:", 0) == 0) return std::stoll(line.substr(6));
    }
    return -1;
}

int64_t live_gpu_handles() { return gpu::live_handles().total(); }

std::string describe_live_gpu_handles() {
    gpu::LiveHandles live = gpu::live_handles();
    std::string out;
    for (int i = 0; i < gpu::kHandleKinds; ++i) {
        if (live.count[i] == 0) continue;
        if (!out.empty()) out += ", ";
        out += std::string(gpu::handle_kind_name(static_cast<gpu::HandleKind>(i))) + " " +
               std::to_string(live.count[i]);
    }
    return out.empty() ? "none" : out;
}

}  // namespace wgx::contract
