// The PT2E-quantized plain programs of tests/quant (python/export_pt2e.py: XNNPACKQuantizer,
// static per-tensor, static per-channel and dynamic int8, and a model calling the per-token
// ops itself; exported without a delegate) run on the engine and match PyTorch eager on the
// converted model.
//
// Tolerance: the quantize ops are exact (tests/unit/quant_decomposed_ops_test.cpp), but the
// float convolutions and matrix products between them sum in another order than PyTorch's, so
// a value within a rounding error of a quantization boundary may land one step to the other
// side, and that step travels on through the later layers. With a quantized output (the static
// models) the error is therefore counted in output steps (the scale of the last dequantize):
// at most 2 steps anywhere, and at most 10% of the outputs off at all. A float output (the
// dynamic models, whose linear layers end in float) gets a relative limit instead: max abs error
// over max |expected| at most 2e-2, which is about one step of the dynamically quantized input
// propagated through a layer. A weight-only model (the Vulkan quantizer's linear layers) has no
// such step: its meta.json's float_tolerance (1e-4) is the limit instead.
//
// EfficientNetLite0Top1MatchesPyTorch: the real classifier, PT2E-quantized into the ignored
// .cache/pt2e/efficientnet_lite0 by `python/export_pt2e.py --efficientnet`, classifies each
// test photo as the quantized model does in PyTorch (same top-1); it skips when the export is
// absent. The logits' max abs error is printed, not checked.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "io/npy.h"
#include "wgx/wgx.h"

namespace wgx::test {
namespace {

namespace fs = std::filesystem;

fs::path quant_dir() {
    const char* env = std::getenv("WGX_TESTS_DIR");
    return (env ? fs::path(env) : fs::path(WGX_TESTS_DIR)) / "quant";
}

Context& quant_ctx() {
    static Context c = [] {
        setenv("XDG_RUNTIME_DIR", "/tmp", 0);  // silences Mesa's Wayland probe
        return Context::create();
    }();
    return c;
}

std::vector<std::string> quant_programs() {
    std::vector<std::string> names;
    if (!fs::exists(quant_dir())) return names;
    for (const auto& e : fs::directory_iterator(quant_dir())) {
        if (fs::exists(e.path() / "meta.json")) names.push_back(e.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
}

std::vector<float> floats(const io::NpyArray& a) {
    EXPECT_EQ(a.dtype, DType::f32);
    std::vector<float> v(a.data.size() / 4);
    std::memcpy(v.data(), a.data.data(), a.data.size());
    return v;
}

class QuantPrograms : public ::testing::TestWithParam<std::string> {};

TEST_P(QuantPrograms, PlainProgramMatchesPyTorch) {
    const fs::path dir = quant_dir() / GetParam();
    std::ifstream meta_file(dir / "meta.json");
    const nlohmann::json meta = nlohmann::json::parse(meta_file);
    Program program = Program::load(dir / "program.pte");
    for (const OpCount& op : program.op_counts()) {
        EXPECT_NE(program.find_op(op.name), nullptr) << op.name << " has no GPU op";
    }
    ASSERT_EQ(program.inputs().size(), 1u);
    ASSERT_EQ(program.outputs().size(), 1u);
    Context& ctx = quant_ctx();
    io::NpyArray in = io::read_npy(dir / "input_0.npy");
    std::vector<Tensor> io = {ctx.tensor(in.dtype, in.shape).set_bytes(in.data),
                              ctx.tensor(program.outputs()[0].dtype, program.outputs()[0].shape)};
    ctx.reset();
    ctx.record(program, io);
    ctx.submit();
    const std::vector<float> got = io[1].get_data<float>();
    ctx.reset();
    const io::NpyArray want_npy = io::read_npy(dir / "expected_0.npy");
    ASSERT_EQ(io[1].shape(), want_npy.shape);
    const std::vector<float> want = floats(want_npy);

    double max_err = 0, max_ref = 0;
    size_t off = 0;
    for (size_t i = 0; i < want.size(); ++i) {
        ASSERT_TRUE(std::isfinite(got[i])) << i;
        const double d = std::abs(double(got[i]) - double(want[i]));
        max_err = std::max(max_err, d);
        max_ref = std::max(max_ref, std::abs(double(want[i])));
        if (d > 0) ++off;
    }
    const double step = meta["output_step"].get<double>();
    if (step > 0) {
        const double steps = max_err / step;
        const double off_fraction = double(off) / double(want.size());
        std::printf("[quant] %s: max error %.3g steps of %.3g, %zu of %zu outputs off\n",
                    GetParam().c_str(), steps, step, off, want.size());
        EXPECT_LE(steps, 2.0 + 1e-3) << GetParam();
        EXPECT_LE(off_fraction, 0.10) << GetParam();
    } else {
        const double rel = max_err / std::max(max_ref, 1e-30);
        const double limit = meta.value("float_tolerance", 2e-2);
        std::printf(
            "[quant] %s: max abs error over max |expected| %.3g (limit %.3g), %zu of %zu "
            "outputs off\n",
            GetParam().c_str(), rel, limit, off, want.size());
        EXPECT_LE(rel, limit) << GetParam();
    }
}

size_t argmax(const std::vector<float>& v) {
    return size_t(std::max_element(v.begin(), v.end()) - v.begin());
}

TEST(QuantRealModel, EfficientNetLite0Top1MatchesPyTorch) {
    const fs::path dir = fs::path(WGX_SOURCE_DIR) / ".cache" / "pt2e" / "efficientnet_lite0";
    if (!fs::exists(dir / "program.pte") || !fs::exists(dir / "meta.json")) {
        GTEST_SKIP() << "no " << dir << ": run python/export_pt2e.py --efficientnet";
    }
    std::ifstream meta_file(dir / "meta.json");
    const nlohmann::json meta = nlohmann::json::parse(meta_file);
    Program program = Program::load(dir / "program.pte");
    Context& ctx = quant_ctx();
    for (const auto& [photo, info] : meta["photos"].items()) {
        io::NpyArray in = io::read_npy(dir / ("input_" + photo + ".npy"));
        const std::vector<float> want = floats(io::read_npy(dir / ("expected_" + photo + ".npy")));
        std::vector<Tensor> io = {
            ctx.tensor(in.dtype, in.shape).set_bytes(in.data),
            ctx.tensor(program.outputs()[0].dtype, program.outputs()[0].shape)};
        ctx.reset();
        ctx.record(program, io);
        ctx.submit();
        const std::vector<float> got = io[1].get_data<float>();
        ctx.reset();
        ASSERT_EQ(got.size(), want.size());
        double max_err = 0;
        for (size_t i = 0; i < got.size(); ++i) {
            max_err = std::max(max_err, std::abs(double(got[i]) - double(want[i])));
        }
        const std::string label = meta["labels"][argmax(got)].get<std::string>();
        std::printf(
            "[quant] efficientnet_lite0 %s: top-1 %s (PyTorch quantized: %s, float: %s), "
            "max logit error %.3g\n",
            photo.c_str(), label.c_str(), info["top1_quantized"].get<std::string>().c_str(),
            info["top1_float"].get<std::string>().c_str(), max_err);
        EXPECT_EQ(argmax(got), argmax(want)) << photo;
    }
}

INSTANTIATE_TEST_SUITE_P(Quant, QuantPrograms, ::testing::ValuesIn(quant_programs()),
                         [](const auto& info) { return info.param; });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(QuantPrograms);

}  // namespace
}  // namespace wgx::test
