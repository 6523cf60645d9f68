// wgx_soak: repeats load/run/destroy cycles of a fixture and prints the process's resident
// memory and the engine's live WebGPU handles at cycles 1, 10, 100, 1000, ... (docs/HYGIENE.md).
//   wgx_soak [--cycles N] [--fixture NAME] [--reuse-context]
// A full cycle loads the program, creates a context, runs it once, reads the outputs and
// destroys everything; --reuse-context keeps one context and records a freshly loaded program
// into it each cycle (then resets it).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>

#include "fixture_run.h"

using namespace wgx;

int main(int argc, char** argv) {
    setenv("XDG_RUNTIME_DIR", "/tmp", 0);  // silences Mesa's Wayland probe (see apps/wgx)
    int cycles = 1000;
    std::string fixture = "conv";
    bool reuse = false;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--cycles" && i + 1 < argc)
            cycles = std::atoi(argv[++i]);
        else if (a == "--fixture" && i + 1 < argc)
            fixture = argv[++i];
        else if (a == "--reuse-context")
            reuse = true;
        else {
            std::fprintf(stderr, "usage: %s [--cycles N] [--fixture NAME] [--reuse-context]\n",
                         argv[0]);
            return 2;
        }
    }
    try {
        std::filesystem::path dir = contract::fixture_dir(fixture.c_str());
        std::printf("fixture %s, %d cycles, %s\n", fixture.c_str(), cycles,
                    reuse ? "one context" : "a new context per cycle");
        std::printf("%8s %10s %12s %12s %10s  %s\n", "cycle", "RSS KiB", "vs cycle 10",
                    "live handles", "ms/cycle", "kinds");
        int64_t start_rss = contract::resident_kib(), rss10 = -1;
        std::printf("%8d %10lld %12s %12lld %10s  %s\n", 0, static_cast<long long>(start_rss), "",
                    static_cast<long long>(contract::live_gpu_handles()), "",
                    contract::describe_live_gpu_handles().c_str());
        std::optional<Context> shared;
        if (reuse) shared = Context::create();
        auto since = std::chrono::steady_clock::now();
        int last = 0;
        for (int i = 1; i <= cycles; ++i) {
            {
                const Program program = Program::load(dir / "vulkan.pte");
                auto inputs = contract::read_inputs(dir, program);
                if (reuse) {
                    contract::run_program(*shared, program, inputs);
                } else {
                    Context ctx = Context::create();
                    contract::run_program(ctx, program, inputs);
                    ctx.destroy();
                }
            }
            bool checkpoint = i == 1 || i == cycles;
            for (int p = 10; p <= cycles; p *= 10) checkpoint = checkpoint || i == p;
            if (!checkpoint) continue;
            int64_t rss = contract::resident_kib();
            if (i == 10) rss10 = rss;
            auto now = std::chrono::steady_clock::now();
            double ms = std::chrono::duration<double, std::milli>(now - since).count() / (i - last);
            since = now;
            last = i;
            std::string delta = rss10 < 0 ? "" : std::to_string(rss - rss10);
            std::printf("%8d %10lld %12s %12lld %10.1f  %s\n", i, static_cast<long long>(rss),
                        delta.c_str(), static_cast<long long>(contract::live_gpu_handles()), ms,
                        contract::describe_live_gpu_handles().c_str());
            std::fflush(stdout);
        }
        if (shared) shared->destroy();
        shared.reset();
        std::printf("after the last handle: %lld live handles (%s), RSS %lld KiB\n",
                    static_cast<long long>(contract::live_gpu_handles()),
                    contract::describe_live_gpu_handles().c_str(),
                    static_cast<long long>(contract::resident_kib()));
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "wgx_soak: %s\n", e.what());
        return 1;
    }
}
