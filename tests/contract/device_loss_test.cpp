// The error contract after a lost or destroyed device and after Context::destroy() (see
// include/wgx/context.h and include/wgx/error.h).
#include <gtest/gtest.h>

#include <string>

#include "fixture_run.h"

namespace wgx::contract {
namespace {

template <typename E, typename F>
std::string message_of(F&& call) {
    try {
        call();
    } catch (const E& e) {
        return e.what();
    } catch (const std::exception& e) {
        return std::string("wrong exception type: ") + e.what();
    }
    return "no exception";
}

TEST(DeviceLoss, EveryLaterCallThrowsDeviceLostWithAClearMessage) {
    std::filesystem::path dir = fixture_dir("conv");
    const Program program = Program::load(dir / "vulkan.pte");
    const auto inputs = read_inputs(dir, program);
    Context ctx = Context::create();
    auto before = run_program(ctx, program, inputs);  // works before the loss
    Tensor in = ctx.tensor(program.inputs()[0].dtype, program.inputs()[0].shape);
    Tensor out = ctx.tensor(program.outputs()[0].dtype, program.outputs()[0].shape);

    ctx.lose_device_for_testing();

    std::string m = message_of<DeviceLost>([&] { ctx.record(program, {in, out}); });
    EXPECT_NE(m.find("The GPU device is lost"), std::string::npos) << m;
    EXPECT_NE(m.find("create a new context"), std::string::npos) << m;
    EXPECT_EQ(message_of<DeviceLost>([&] { ctx.submit(); }), m);
    EXPECT_EQ(message_of<DeviceLost>([&] { ctx.sync(); }), m);
    EXPECT_EQ(message_of<DeviceLost>([&] { ctx.tensor(DType::f32, {4}); }), m);
    EXPECT_EQ(message_of<DeviceLost>([&] { in.set_bytes(inputs[0]); }), m);
    EXPECT_EQ(message_of<DeviceLost>([&] { (void)out.get_bytes(); }), m);
    EXPECT_EQ(message_of<DeviceLost>([&] { ctx.reset(); }), m);
    // A DeviceLost is a GpuError and an Error: callers may catch the general kinds.
    EXPECT_THROW(ctx.submit(), GpuError);
    EXPECT_THROW(ctx.submit(), Error);
    // Metadata stays readable, and destroying the context is allowed and final.
    EXPECT_EQ(in.shape(), program.inputs()[0].shape);
    EXPECT_NO_THROW(ctx.destroy());
    EXPECT_TRUE(ctx.destroyed());

    // The program is untouched: a new context runs it and gets the same result.
    Context fresh = Context::create();
    EXPECT_TRUE(run_program(fresh, program, inputs) == before);
}

TEST(DeviceLoss, ADestroyedContextThrowsErrorNamingIt) {
    std::filesystem::path dir = fixture_dir("conv");
    const Program program = Program::load(dir / "vulkan.pte");
    Context ctx = Context::create();
    Tensor in = ctx.tensor(program.inputs()[0].dtype, program.inputs()[0].shape);
    Tensor out = ctx.tensor(program.outputs()[0].dtype, program.outputs()[0].shape);
    ctx.destroy();
    std::string m = message_of<Error>([&] { ctx.record(program, {in, out}); });
    EXPECT_NE(m.find("The context was destroyed"), std::string::npos) << m;
    EXPECT_EQ(message_of<Error>([&] { ctx.submit(); }), m);
    EXPECT_EQ(message_of<Error>([&] { (void)out.get_bytes(); }), m);
    EXPECT_NO_THROW(ctx.destroy());  // idempotent
}

TEST(DeviceLoss, TensorsOfAnotherContextAreRejected) {
    std::filesystem::path dir = fixture_dir("conv");
    const Program program = Program::load(dir / "vulkan.pte");
    Context a = Context::create();
    Context b = Context::create();
    Tensor in = a.tensor(program.inputs()[0].dtype, program.inputs()[0].shape);
    Tensor out = a.tensor(program.outputs()[0].dtype, program.outputs()[0].shape);
    std::string m = message_of<InvalidArgument>([&] { b.record(program, {in, out}); });
    EXPECT_NE(m.find("belongs to another context"), std::string::npos) << m;
}

}  // namespace
}  // namespace wgx::contract
