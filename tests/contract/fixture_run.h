// Helpers of the contract and hygiene tests: run a fixture program in a context, read the
// process's resident memory and the engine's live GPU handles.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "wgx/wgx.h"

namespace wgx::contract {

// tests/fixtures/<name> (WGX_FIXTURES_DIR overrides the build-time path, for packed runs).
std::filesystem::path fixture_dir(const char* name);

// The fixture's inputs (input_<i>.npy), in the program's order.
std::vector<std::vector<std::byte>> read_inputs(const std::filesystem::path& dir,
                                                const Program& program);

// Records the program into `ctx`, runs it once and returns every output's bytes (host layout).
// The tensors and the recording are dropped before returning.
std::vector<std::vector<std::byte>> run_program(Context& ctx, const Program& program,
                                                const std::vector<std::vector<std::byte>>& inputs);

// VmRSS of this process in KiB (from /proc/self/status), or -1 when unavailable.
int64_t resident_kib();

// References to WebGPU objects the engine holds right now (all kinds together).
int64_t live_gpu_handles();
// "buffer 3, bind group 2, ..." for the kinds with a non-zero count.
std::string describe_live_gpu_handles();

}  // namespace wgx::contract
