// Ops defined outside src/ops: recorded directly, chained with built-in ops, and a shader that
// does not compile gives an error naming the op with the compiler's message.
#include "normalize_image.h"
#include "test_util.h"

namespace wgx::test {
namespace {

TEST(CustomOp, NormalizeImageMatchesReference) {
    const int64_t H = 5, W = 7;
    auto ints = random_ints(H * W * 3, 3, 0, 255);
    std::vector<uint8_t> pixels(ints.begin(), ints.end());
    std::array<float, 3> mean{0.485f, 0.456f, 0.406f}, stdev{0.229f, 0.224f, 0.225f};
    example::NormalizeImage normalize(mean, stdev);

    Tensor image = ctx().tensor(DType::u8, {H, W, 3}).set_data(pixels);
    Tensor planes = ctx().tensor(DType::f32, {1, 3, H, W});
    Tensor scale = ctx().tensor(DType::f32, {3, 1, 1}).set_data({2.f, 3.f, 4.f});
    Tensor scaled = ctx().tensor(DType::f32, {1, 3, H, W});
    poison(planes);
    ctx().reset();
    ctx().record(normalize, {image, planes});
    ctx().record(op("aten.mul.Tensor"), {planes, scale, scaled});  // then a built-in op
    ctx().submit();

    std::vector<double> want(3 * H * W), want_scaled(3 * H * W);
    for (int c = 0; c < 3; ++c)
        for (int64_t i = 0; i < H * W; ++i) {
            double v = (pixels[i * 3 + c] / 255.0 - mean[c]) / stdev[c];
            want[c * H * W + i] = v;
            want_scaled[c * H * W + i] = v * (c + 2);
        }
    EXPECT_LE(max_rel_error(planes.get_data<float>(), want), 1e-6);
    EXPECT_LE(max_rel_error(scaled.get_data<float>(), want_scaled), 1e-6);
    ctx().reset();
}

class BrokenShader final : public Op {
  public:
    std::string_view name() const override { return "example.broken"; }
    void record(Recorder& rec, const Args&) const override {
        rec.kernel("example.broken", "@compute @workgroup_size(1) fn main() { let x: f32 = 1u; }");
    }
};

TEST(CustomOp, ShaderCompileErrorNamesTheOpAndQuotesTheCompiler) {
    BrokenShader broken;
    try {
        ctx().record(broken, {});
        FAIL() << "expected an error";
    } catch (const GpuError& e) {
        std::string m = e.what();
        EXPECT_NE(m.find("example.broken"), std::string::npos) << m;
        EXPECT_NE(m.find("u32"), std::string::npos) << m;  // the compiler's own words
    }
    // The context stays usable afterwards.
    Tensor t = ctx().tensor(DType::f32, {2}).set_data({1.f, 2.f});
    EXPECT_EQ(t.get_data<float>(), (std::vector<float>{1.f, 2.f}));
    ctx().reset();
}

}  // namespace
}  // namespace wgx::test
