// The threading contract (include/wgx/context.h): one Context per thread, a loaded Program
// shared read-only. Two threads, each with its own context, run the same Program object at the
// same time and must agree bit for bit with each other and with PyTorch's output.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <exception>
#include <latch>
#include <thread>

#include "fixture_run.h"
#include "io/npy.h"

namespace wgx::contract {
namespace {

std::vector<float> as_floats(const std::vector<std::byte>& bytes) {
    std::vector<float> v(bytes.size() / sizeof(float));
    std::memcpy(v.data(), bytes.data(), v.size() * sizeof(float));
    return v;
}

TEST(Threads, TwoContextsOnTwoThreadsShareOneProgramAndAgree) {
    std::filesystem::path dir = fixture_dir("residual");
    const Program program = Program::load(dir / "vulkan.pte");
    const auto inputs = read_inputs(dir, program);
    ASSERT_EQ(program.outputs().size(), 1u);
    ASSERT_EQ(program.outputs()[0].dtype, DType::f32);

    constexpr int kThreads = 2, kRuns = 3;
    std::vector<std::vector<std::vector<std::byte>>> results(kThreads);
    std::vector<std::exception_ptr> errors(kThreads);
    std::latch start(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            try {
                start.arrive_and_wait();  // create devices, compile and run concurrently
                Context ctx = Context::create();
                for (int r = 0; r < kRuns; ++r) {
                    results[t].push_back(run_program(ctx, program, inputs).at(0));
                }
                ctx.destroy();
            } catch (...) {
                errors[t] = std::current_exception();
            }
        });
    }
    for (auto& th : threads) th.join();
    for (int t = 0; t < kThreads; ++t) {
        if (errors[t]) {
            try {
                std::rethrow_exception(errors[t]);
            } catch (const std::exception& e) {
                FAIL() << "thread " << t << ": " << e.what();
            }
        }
    }

    // The same program, device kind and input give identical bits on every thread and run.
    for (int t = 0; t < kThreads; ++t) {
        ASSERT_EQ(results[t].size(), size_t(kRuns));
        for (int r = 0; r < kRuns; ++r) {
            EXPECT_TRUE(results[t][r] == results[0][0]) << "thread " << t << " run " << r;
        }
    }
    // And the result is the right one, not an agreed-upon wrong one.
    io::NpyArray expected = io::read_npy(dir / "expected_0.npy");
    std::vector<float> got = as_floats(results[0][0]), want = as_floats(expected.data);
    ASSERT_EQ(got.size(), want.size());
    double scale = 1.0, err = 0.0;
    for (size_t i = 0; i < got.size(); ++i) {
        scale = std::max(scale, double(std::abs(want[i])));
        err = std::max(err, double(std::abs(got[i] - want[i])));
    }
    EXPECT_LE(err / scale, 1e-4);
}

}  // namespace
}  // namespace wgx::contract
