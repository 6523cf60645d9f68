// Context mechanics: recording, replay, copies, reset, destroy, device loss.
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

TEST(Context, ChainedOpsAndCopiesRunInOrder) {
    Context& c = ctx();
    c.reset();
    Tensor a = c.tensor(DType::f32, {3}).set_data({1.f, 2.f, 3.f});
    Tensor t = c.tensor(DType::f32, {3});
    Tensor copy = c.tensor(DType::f32, {3});
    Tensor out = c.tensor(DType::f32, {3});
    c.record(op("aten.add.Tensor"), {a, a, t});      // t = 2a
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
