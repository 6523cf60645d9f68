#include "conv_bench.h"

#include <fmt/format.h>

#include <cmath>

#include "wgx/op.h"

namespace wgx::bench {
namespace {

struct ConvCase {
    int64_t c_in, h, w, c_out, k, stride, pad, groups;
    const char* where;
    int64_t batch = 1;  // images; the batch-32 cases move enough bytes to be bandwidth bound
};

const std::vector<ConvCase> kCases = {
    {64, 56, 56, 64, 3, 1, 1, 1, "ResNet-18 layer1"},
    {256, 14, 14, 256, 3, 1, 1, 1, "ResNet-18 layer3"},
    {64, 56, 56, 128, 3, 2, 1, 1, "ResNet-18 layer2 entry"},
    {256, 56, 56, 64, 1, 1, 0, 1, "ResNet-50 bottleneck reduce"},
    {64, 56, 56, 256, 1, 1, 0, 1, "ResNet-50 bottleneck expand"},
    {144, 56, 56, 24, 1, 1, 0, 1, "MobileNetV2 projection"},
    {256, 56, 56, 512, 1, 2, 0, 1, "ResNet-50 downsample"},
    {144, 56, 56, 144, 3, 1, 1, 144, "MobileNetV2 depthwise"},
    {96, 112, 112, 96, 3, 2, 1, 96, "MobileNetV2 depthwise"},
    {672, 14, 14, 672, 5, 1, 2, 672, "MobileNetV3 depthwise"},
    {72, 56, 56, 72, 5, 2, 2, 72, "MobileNetV3 depthwise"},
    {3, 224, 224, 64, 7, 2, 3, 1, "ResNet stem"},
    {3, 224, 224, 32, 3, 2, 1, 1, "MobileNetV2 stem"},
    // Batch 32: hundreds of megabytes per call, where halving the bytes (float16) should show.
    {144, 56, 56, 144, 3, 1, 1, 144, "MobileNetV2 depthwise, batch 32", 32},
    {144, 56, 56, 24, 1, 1, 0, 1, "MobileNetV2 projection, batch 32", 32},
};

std::string kind(const ConvCase& c) {
    if (c.groups == c.c_in && c.groups > 1) return fmt::format("dw{}x{}/{}", c.k, c.k, c.stride);
    return fmt::format("{}x{}/{}", c.k, c.k, c.stride);
}

// float64 convolution (bias included), [N, C_out, H_out, W_out].
std::vector<double> reference(const ConvCase& c, int64_t ho, int64_t wo,
                              const std::vector<float>& in, const std::vector<float>& w,
                              const std::vector<float>& bias) {
    const int64_t cin_g = c.c_in / c.groups, cout_g = c.c_out / c.groups;
    std::vector<double> out(c.batch * c.c_out * ho * wo);
    for (int64_t n = 0; n < c.batch; ++n) {
        for (int64_t co = 0; co < c.c_out; ++co) {
            double* o = out.data() + (n * c.c_out + co) * ho * wo;
            for (int64_t i = 0; i < ho * wo; ++i) o[i] = bias[co];
            const int64_t g = co / cout_g;
            for (int64_t ci = 0; ci < cin_g; ++ci) {
                const float* x = in.data() + ((n * c.c_in) + g * cin_g + ci) * c.h * c.w;
                for (int64_t ky = 0; ky < c.k; ++ky) {
                    for (int64_t kx = 0; kx < c.k; ++kx) {
                        const double wv = w[((co * cin_g + ci) * c.k + ky) * c.k + kx];
                        for (int64_t y = 0; y < ho; ++y) {
                            const int64_t iy = y * c.stride - c.pad + ky;
                            if (iy < 0 || iy >= c.h) continue;
                            for (int64_t xo = 0; xo < wo; ++xo) {
                                const int64_t ix = xo * c.stride - c.pad + kx;
                                if (ix < 0 || ix >= c.w) continue;
                                o[y * wo + xo] += wv * x[iy * c.w + ix];
                            }
                        }
                    }
                }
            }
        }
    }
    return out;
}

// fp32 sums of at most 3 * 7 * 7 or 256 * 9 products of values in [-1, 1).
constexpr double kConvTolerance = 1e-4;

}  // namespace

void bench_conv(Context& ctx, const MeasureOptions& options, const std::string& filter, DType dtype,
                std::vector<Result>& rows) {
    const double element = dtype == DType::f16 ? 2.0 : 4.0;
    for (const ConvCase& c : kCases) {
        const int64_t ho = (c.h + 2 * c.pad - c.k) / c.stride + 1;
        const int64_t wo = (c.w + 2 * c.pad - c.k) / c.stride + 1;
        Result r;
        r.group = "conv";
        r.name = fmt::format("conv {} {}->{} {}x{}{} ({})", kind(c), c.c_in, c.c_out, c.h, c.w,
                             dtype_suffix(dtype), c.where);
        if (!filter.empty() && r.name.find(filter) == std::string::npos) continue;
        fmt::print(stderr, "  {}\n", r.name);

        const int64_t cin_g = c.c_in / c.groups;
        std::vector<float> in = random_values(c.batch * c.c_in * c.h * c.w, 31);
        std::vector<float> w = random_values(c.c_out * cin_g * c.k * c.k, 32);
        std::vector<float> bias = random_values(c.c_out, 33);
        // (float16: rounded in place, so the reference uses what the GPU reads)
        Tensor tin = upload(ctx, dtype, {c.batch, c.c_in, c.h, c.w}, in);
        Tensor tw = upload(ctx, dtype, {c.c_out, cin_g, c.k, c.k}, w);
        Tensor tb = upload(ctx, dtype, {c.c_out}, bias);
        Tensor tout = poisoned(ctx, dtype, {c.batch, c.c_out, ho, wo});  // unwritten outputs fail

        r.flops = 2.0 * double(c.batch * c.c_out * ho * wo) * double(cin_g * c.k * c.k);
        r.bytes =
            element * double(in.size() + w.size() + bias.size() + c.batch * c.c_out * ho * wo);
        const std::vector<int64_t> stride{c.stride, c.stride}, pad{c.pad, c.pad}, one{1, 1},
            zero{0, 0};
        Measured m = measure(
            ctx,
            [&] {
                ctx.record(op("aten.convolution.default"),
                           {tin, tw, tb, stride, pad, one, false, zero, c.groups, tout});
            },
            [&] {
                return check_all(r, download(tout), reference(c, ho, wo, in, w, bias),
                                 dtype == DType::f16 ? kFloat16Tolerance : kConvTolerance);
            },
            options);
        add_measured(rows, std::move(r), m);
    }
}

}  // namespace wgx::bench
