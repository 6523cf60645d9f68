// Context mechanics: recording, replay, copies, reset, destroy, device loss.
#include <cstdlib>
#include "core/context_state.h"
#include "test_util.h"

namespace wgx::test {
namespace {

TEST(Context, SeedQuickStartAddWithAlphaAndBroadcast) {
    Context& c = ctx();
    c.reset();
    Tensor in1 = c.tensor(DType::f32, {2, 3}).set_data({1.f, 2.f, 3.f, 4.f, 5.f, 6.f});
    Tensor in2 = c.tensor(DType::f32, {1, 3}).set_data({10.f, 20.f, 30.f});
    Tensor out = c.tensor(DType::f32, {2, 3});
    c.record(op("aten.add.Tensor"), {in1, in2, 2.0, out});
    c.submit();
    c.sync();
    EXPECT_EQ(out.get_data<float>(), (std::vector<float>{21, 42, 63, 24, 45, 66}));
    c.reset();
}

TEST(Context, ResubmittingReplaysWithNewInputs) {
    Context& c = ctx();
    c.reset();
    Tensor a = c.tensor(DType::f32, {4}).set_data({1.f, 2.f, 3.f, 4.f});
    Tensor b = c.tensor(DType::f32, {4}).set_data({10.f, 10.f, 10.f, 10.f});
    Tensor out = c.tensor(DType::f32, {4});
    c.record(op("aten.mul.Tensor"), {a, b, out});
    c.submit();
    c.sync();
    EXPECT_EQ(out.get_data<float>(), (std::vector<float>{10, 20, 30, 40}));
    a.set_data({-1.f, -2.f, -3.f, -4.f});
    c.submit();  // same recording, re-encoded
    c.sync();
    EXPECT_EQ(out.get_data<float>(), (std::vector<float>{-10, -20, -30, -40}));
    c.reset();
}

// From the second submit of the same recording on, the next run is encoded ahead; any change
// of the recording (a new call, a failed record, a reset) must drop that command buffer.
TEST(Context, ReplaysEncodedAheadSeeNewInputsAndNewCalls) {
    Context& c = ctx();
    c.reset();
    RecordingState& recording = c.state()->recording();
    const char* env = std::getenv("WGX_ENCODE_AHEAD");
    const bool ahead_on = !(env && std::string_view(env) == "0");
    Tensor a = c.tensor(DType::f32, {5}).set_data({1.f, 2.f, 3.f, 4.f, 5.f});
    Tensor b = c.tensor(DType::f32, {5}).set_data({2.f, 2.f, 2.f, 2.f, 2.f});
    Tensor t = c.tensor(DType::f32, {5});
    Tensor out = c.tensor(DType::f32, {5});
    c.record(op("aten.mul.Tensor"), {a, b, t});
    c.copy(t, out);
    for (int run = 0; run < 4; ++run) {
        const float x = float(run + 1);
        a.set_data({x, -x, 2 * x, 0.5f, -3.f});
        c.submit();
        c.sync();
        EXPECT_EQ(out.get_data<float>(), (std::vector<float>{2 * x, -2 * x, 4 * x, 1, -6}))
            << "run " << run;
        EXPECT_EQ(recording.encoded_ahead(), ahead_on && run >= 1) << "run " << run;
    }
    // A new call after the copy: the command buffer encoded ahead lacks it.
    c.record(op("aten.add.Tensor"), {t, b, 1.0, out});
    EXPECT_FALSE(recording.encoded_ahead());
    for (int run = 0; run < 3; ++run) {
        c.submit();
        c.sync();
        EXPECT_EQ(out.get_data<float>(), (std::vector<float>{10, -6, 18, 3, -4})) << "run " << run;
    }
    // A record that fails leaves the recording as it was, and no stale command buffer runs.
    EXPECT_THROW(c.record(op("aten.mul.Tensor"), {a, c.tensor(DType::f32, {3}), t}),
                 InvalidArgument);
    a.set_data({1.f, 1.f, 1.f, 1.f, 1.f});
    c.submit();
    c.sync();
    EXPECT_EQ(out.get_data<float>(), (std::vector<float>{4, 4, 4, 4, 4}));
    // After a reset, the new recording runs alone.
    c.reset();
    EXPECT_FALSE(recording.encoded_ahead());
    c.record(op("aten.mul.Tensor"), {b, b, out});
    for (int run = 0; run < 3; ++run) {
        c.submit();
        c.sync();
        EXPECT_EQ(out.get_data<float>(), (std::vector<float>{4, 4, 4, 4, 4})) << "run " << run;
    }
    c.reset();
}

TEST(Context, ChainedOpsAndCopiesRunInOrder) {
    Context& c = ctx();
    c.reset();
    Tensor a = c.tensor(DType::f32, {3}).set_data({1.f, 2.f, 3.f});
    Tensor t = c.tensor(DType::f32, {3});
    Tensor copy = c.tensor(DType::f32, {3});
    Tensor out = c.tensor(DType::f32, {3});
    c.record(op("aten.add.Tensor"), {a, a, t});       // t = 2a
    c.copy(t, copy);                                  // between passes
    c.record(op("aten.mul.Tensor"), {copy, t, out});  // out = 4a^2
    c.submit();
    c.sync();
    EXPECT_EQ(out.get_data<float>(), (std::vector<float>{4, 16, 36}));
    c.reset();
}

TEST(Context, SubmitWithNothingRecordedAndSyncWithoutSubmit) {
    Context& c = ctx();
    c.reset();
    EXPECT_NO_THROW(c.submit());
    EXPECT_NO_THROW(c.sync());
}

TEST(Context, CopyValidatesShapesAndDtypes) {
    Context& c = ctx();
    Tensor a = c.tensor(DType::f32, {3});
    Tensor b = c.tensor(DType::f32, {4});
    Tensor i = c.tensor(DType::i32, {3});
    EXPECT_THROW(c.copy(a, b), InvalidArgument);
    EXPECT_THROW(c.copy(a, i), InvalidArgument);
}

TEST(Context, DestroyIsIdempotentAndBlocksFurtherUse) {
    Context c = Context::create();
    Tensor t = c.tensor(DType::f32, {2}).set_data({1.f, 2.f});
    c.destroy();
    EXPECT_TRUE(c.destroyed());
    EXPECT_NO_THROW(c.destroy());
    try {
        c.tensor(DType::f32, {2});
        FAIL() << "expected an error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("destroyed"), std::string::npos) << e.what();
    }
    EXPECT_THROW(t.get_data<float>(), Error);
    EXPECT_THROW(c.submit(), Error);
}

TEST(Context, LostDeviceGivesDeviceLostAtTheNextCall) {
    Context c = Context::create();
    Tensor t = c.tensor(DType::f32, {2}).set_data({1.f, 2.f});
    c.lose_device_for_testing();
    EXPECT_THROW(t.get_data<float>(), DeviceLost);
    EXPECT_THROW(c.tensor(DType::f32, {2}), DeviceLost);
    EXPECT_THROW(c.sync(), DeviceLost);
}

TEST(Context, WrapsAnExternalBufferWithoutCopying) {
    Context& c = ctx();
    Tensor owner = c.tensor(DType::i32, {8}).set_data(std::vector<int32_t>{1, 2, 3, 4, 5, 6, 7, 8});
    // A view of the last four elements of the same GPU buffer.
    Tensor view = c.wrap(owner.impl().buffer->buffer.get(), DType::i32, {4}, 16);
    EXPECT_EQ(view.get_data<int32_t>(), (std::vector<int32_t>{5, 6, 7, 8}));
    EXPECT_THROW(c.wrap(owner.impl().buffer->buffer.get(), DType::i32, {8}, 16), InvalidArgument);
}

}  // namespace
}  // namespace wgx::test

namespace wgx::test {
namespace {

// Adds 1 to every element of x through a kernel whose text is the same for every label, so
// two instances share one compiled pipeline.
class AddOneOp final : public Op {
  public:
    explicit AddOneOp(std::string label) : label_(std::move(label)) {}
    std::string_view name() const override { return label_; }
    void record(Recorder& rec, const Args& args) const override {
        const Tensor& x = args.tensor(0, "x");
        Kernel k = rec.kernel(label_,
                              "@group(0) @binding(0) var<storage, read_write> x: array<f32>;\n"
                              "@compute @workgroup_size(64)\n"
                              "fn main(@builtin(global_invocation_id) g: vec3<u32>) {\n"
                              "    if (g.x < arrayLength(&x)) { x[g.x] = x[g.x] + 1.0; }\n"
                              "}\n");
        rec.dispatch(k, {x}, rec.grid_1d(uint64_t(x.numel()), 64));
    }

  private:
    std::string label_;
};

// A profile lists every dispatch with the label its op gave, even when two ops share one
// compiled kernel, and the work still runs (each profiled run adds 1 twice).
TEST(Context, ProfileNamesEachDispatchByItsOwnLabel) {
    Context& c = ctx();
    if (!c.device_info().features.timestamp_query) GTEST_SKIP() << "no GPU timestamps";
    c.reset();
    Tensor x = c.tensor(DType::f32, {100}).set_data(std::vector<float>(100, 0.f));
    AddOneOp first("test.first"), second("test.second");
    c.record(first, {x});
    c.record(second, {x});
    Profile p = c.profile();
    ASSERT_EQ(p.dispatches.size(), 2u);
    EXPECT_EQ(p.dispatches[0].kernel, "test.first");
    EXPECT_EQ(p.dispatches[1].kernel, "test.second");
    for (const DispatchTime& d : p.dispatches) EXPECT_GE(d.ms, 0.0);
    EXPECT_EQ(x.get_data<float>(), std::vector<float>(100, 2.f));
    c.reset();
}

}  // namespace
}  // namespace wgx::test

namespace wgx::test {
namespace {

// Without the implementation's runtime checks (DeviceOptions::shader_checks = false) kernels
// compute the same: a GEMM (loops, vec4 access, bounds at odd sizes) and a softmax against a
// double-precision reference, on a device made that way.
TEST(Context, ShaderChecksOffGivesTheSameResults) {
    DeviceOptions options;
    options.shader_checks = false;
    Context c = Context::create(options);
    EXPECT_FALSE(c.device_info().shader_checks);
    const int64_t m = 37, k = 53, n = 29;
    std::vector<float> a(m * k), b(k * n);
    for (size_t i = 0; i < a.size(); ++i) a[i] = float(std::sin(0.37 * double(i) + 1.0));
    for (size_t i = 0; i < b.size(); ++i) b[i] = float(std::cos(0.21 * double(i) - 0.5));
    Tensor ta = c.tensor(DType::f32, {m, k}).set_data(a);
    Tensor tb = c.tensor(DType::f32, {k, n}).set_data(b);
    Tensor tc = c.tensor(DType::f32, {m, n});
    Tensor ts = c.tensor(DType::f32, {m, n});
    c.record(op("aten.mm.default"), {ta, tb, tc});
    c.record(op("aten._softmax.default"), {tc, int64_t(1), false, ts});
    c.submit();
    auto got = ts.get_data<float>();
    for (int64_t i = 0; i < m; ++i) {
        std::vector<double> row(n);
        double mx = -1e300, sum = 0;
        for (int64_t j = 0; j < n; ++j) {
            double s = 0;
            for (int64_t q = 0; q < k; ++q) s += double(a[i * k + q]) * double(b[q * n + j]);
            row[j] = s;
            mx = std::max(mx, s);
        }
        for (double& v : row) sum += (v = std::exp(v - mx));
        for (int64_t j = 0; j < n; ++j) {
            EXPECT_NEAR(got[i * n + j], row[j] / sum, 1e-5) << i << "," << j;
        }
    }
    DeviceOptions checked;
    checked.shader_checks = true;
    const DeviceInfo all_checked = Context::create(checked).device_info();
    EXPECT_TRUE(all_checked.shader_checks);
    EXPECT_TRUE(all_checked.builtin_shader_checks);
}

// The default: the engine's own kernels without runtime checks where the implementation can
// skip them (wgpu-native), every other kernel with them; WGX_SHADER_CHECKS sets both.
TEST(Context, ShaderChecksDefaultSparesOnlyTheEnginesKernels) {
    const char* saved = std::getenv("WGX_SHADER_CHECKS");
    const std::string saved_value = saved ? saved : "";
    unsetenv("WGX_SHADER_CHECKS");
    const DeviceInfo defaults = Context::create(DeviceOptions{}).device_info();
    EXPECT_TRUE(defaults.shader_checks);
    EXPECT_EQ(defaults.builtin_shader_checks, webgpu_implementation().find("Dawn") == 0);
    setenv("WGX_SHADER_CHECKS", "1", 1);
    EXPECT_TRUE(Context::create(DeviceOptions{}).device_info().builtin_shader_checks);
    setenv("WGX_SHADER_CHECKS", "0", 1);
    const DeviceInfo none = Context::create(DeviceOptions{}).device_info();
    EXPECT_EQ(none.shader_checks, webgpu_implementation().find("Dawn") == 0);
    if (saved) {
        setenv("WGX_SHADER_CHECKS", saved_value.c_str(), 1);
    } else {
        unsetenv("WGX_SHADER_CHECKS");
    }
}

// A user's op and a built-in op recorded into one context each get their own setting: the
// same kernel text compiled for both is two pipelines, and both compute.
class UserScale final : public Op {
  public:
    std::string_view name() const override { return "test.user_scale"; }
    void record(Recorder& rec, const Args& args) const override {
        const Tensor& x = args.tensor(0, "x");
        const Tensor& y = args.tensor(1, "y");
        Kernel k =
            rec.kernel("test.user_scale",
                       "@group(0) @binding(0) var<storage, read> x: array<f32>;\n"
                       "@group(0) @binding(1) var<storage, read_write> y: array<f32>;\n"
                       "@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) "
                       "g: vec3<u32>) { if (g.x < arrayLength(&y)) { y[g.x] = 2.0 * x[g.x]; } }\n");
        rec.dispatch(k, {x, y}, Grid{uint32_t((y.numel() + 63) / 64), 1, 1});
    }
};

TEST(Context, UserAndBuiltinKernelsCompileWithTheirOwnChecks) {
    Context c = Context::create(DeviceOptions{});
    std::vector<float> xs(100);
    for (size_t i = 0; i < xs.size(); ++i) xs[i] = float(i) - 40.5f;
    Tensor x = c.tensor(DType::f32, {100}).set_data(xs);
    Tensor y = c.tensor(DType::f32, {100});
    Tensor z = c.tensor(DType::f32, {100});
    UserScale user;
    c.record(user, {x, y});
    c.record(op("aten.relu.default"), {y, z});
    c.submit();
    auto got = z.get_data<float>();
    for (size_t i = 0; i < xs.size(); ++i) EXPECT_EQ(got[i], std::max(0.f, 2.f * xs[i])) << i;
}

// Which setting an op's kernels take comes from the op itself: every registered op says it is
// built in, a user's op keeps the default.
TEST(Context, EveryRegisteredOpIsBuiltinAndUserOpsAreNot) {
    for (const Op* registered : builtin_ops())
        EXPECT_TRUE(registered->builtin()) << registered->name();
    EXPECT_FALSE(UserScale().builtin());
}

}  // namespace
}  // namespace wgx::test
