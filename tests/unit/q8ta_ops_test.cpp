// ExecuTorch's Vulkan static int8 ops (src/ops/quant/q8ta_*) against float64 references of the
// same quantized arithmetic written here: the real input (q - zero_point) * scale, the real
// weight w * scale[oc], their convolution summed in float64 (+ bias, relu), requantized with
// round half to even. A GPU int8 output passes when it is the reference's integer, or one of
// the two integers around it when the real value lies within 1e-3 of a half (float32 rounding
// of the scales may then go either way). Convolutions: plain, strided, padded, dilated, grouped,
// 1 x 1, depthwise (padded weight rows) and transposed (a scatter reference, not the kernel's
// gather), odd sizes, bias and none, relu and none; linear layers of one and several rows; the
// float-in, float-out linear_q8ta_q8csw; q8ta_add (alpha 1 and not) and q8ta_relu over sizes
// that are not a multiple of four; q8ta_pixel_shuffle (factors 2 and 3, requantized). Inputs are
// seeded random int8 values, outputs poisoned first.
#include <algorithm>
#include <cmath>

#include "test_util.h"

namespace wgx::test {
namespace {

void run(const Op& o, std::vector<Arg> args) {
    ctx().reset();
    ctx().record(o, args);
    ctx().submit();
}

struct QP {
    double scale;
    int64_t zero_point;
};

std::vector<int8_t> to_int8(const std::vector<int32_t>& v) { return {v.begin(), v.end()}; }

// Checks int8 `got` against real values `want` requantized with `out`.
void expect_requantized(const std::vector<int8_t>& got, const std::vector<double>& want, QP out,
                        const std::string& what) {
    ASSERT_EQ(got.size(), want.size()) << what;
    size_t bad = 0;
    for (size_t i = 0; i < got.size(); ++i) {
        const double exact = want[i] / out.scale + double(out.zero_point);
        const double lo = std::clamp(std::nearbyint(exact - 1e-3), -128.0, 127.0);
        const double hi = std::clamp(std::nearbyint(exact + 1e-3), -128.0, 127.0);
        if (double(got[i]) < lo || double(got[i]) > hi) {
            if (bad++ < 3) {
                ADD_FAILURE() << what << ": element " << i << " is " << int(got[i])
                              << ", reference " << exact;
            }
        }
    }
    EXPECT_EQ(bad, 0u) << what;
}

// Positive per-channel weight scales.
std::vector<float> weight_scales(size_t n, uint32_t seed) {
    auto v = random_floats(n, seed);
    for (float& s : v) s = 0.002f + 0.01f * std::abs(s);
    return v;
}

struct ConvCase {
    const char* what;
    int64_t N, C_in, H, W, C_out, kH, kW;
    int64_t sh, sw, ph, pw, dh, dw, groups;
    bool depthwise = false, transposed = false, bias = true, relu = false;
    int64_t oph = 0, opw = 0;  // transposed: output padding
};

// The reference: out[n, oc, oh, ow] in float64 from the real input and weights; `wt(oc, ic, kh,
// kw)` is the weight of output channel oc from its group's input channel ic.
template <typename Weight>
std::vector<double> conv_ref(const ConvCase& c, const std::vector<int32_t>& x, QP xq,
                             const Weight& wt, const std::vector<float>& scales,
                             const std::vector<float>& bias, int64_t Ho, int64_t Wo) {
    const int64_t cin_g = c.C_in / c.groups, cout_g = c.C_out / c.groups;
    std::vector<double> out(size_t(c.N * c.C_out * Ho * Wo), 0.0);
    auto xr = [&](int64_t n, int64_t ic, int64_t h, int64_t w) {
        return (double(x[size_t(((n * c.C_in + ic) * c.H + h) * c.W + w)]) -
                double(xq.zero_point)) *
               xq.scale;
    };
    auto at = [&](int64_t n, int64_t oc, int64_t h, int64_t w) -> double& {
        return out[size_t(((n * c.C_out + oc) * Ho + h) * Wo + w)];
    };
    for (int64_t n = 0; n < c.N; ++n) {
        for (int64_t oc = 0; oc < c.C_out; ++oc) {
            const int64_t g = oc / cout_g;
            for (int64_t ic = 0; ic < cin_g; ++ic) {
                for (int64_t kh = 0; kh < c.kH; ++kh) {
                    for (int64_t kw = 0; kw < c.kW; ++kw) {
                        const double wr = double(wt(oc, ic, kh, kw)) * double(scales[size_t(oc)]);
                        if (c.transposed) {  // scatter each input position
                            for (int64_t ih = 0; ih < c.H; ++ih) {
                                for (int64_t iw = 0; iw < c.W; ++iw) {
                                    const int64_t oh = ih * c.sh - c.ph + kh * c.dh;
                                    const int64_t ow = iw * c.sw - c.pw + kw * c.dw;
                                    if (oh < 0 || oh >= Ho || ow < 0 || ow >= Wo) continue;
                                    at(n, oc, oh, ow) += xr(n, g * cin_g + ic, ih, iw) * wr;
                                }
                            }
                            continue;
                        }
                        for (int64_t oh = 0; oh < Ho; ++oh) {
                            for (int64_t ow = 0; ow < Wo; ++ow) {
                                const int64_t ih = oh * c.sh - c.ph + kh * c.dh;
                                const int64_t iw = ow * c.sw - c.pw + kw * c.dw;
                                if (ih < 0 || ih >= c.H || iw < 0 || iw >= c.W) continue;
                                at(n, oc, oh, ow) += xr(n, g * cin_g + ic, ih, iw) * wr;
                            }
                        }
                    }
                }
            }
        }
    }
    for (size_t i = 0; i < out.size(); ++i) {
        const int64_t oc = int64_t(i / size_t(Ho * Wo)) % c.C_out;
        if (c.bias) out[i] += double(bias[size_t(oc)]);
        if (c.relu) out[i] = std::max(out[i], 0.0);
    }
    return out;
}

TEST(Q8taOps, ConvolutionsMatchFloat64) {
    const std::vector<ConvCase> cases = {
        {"3x2 kernel, stride (2, 1), padding (1, 0), dilation (1, 2)", 2, 5, 9, 7, 6, 3, 2, 2, 1, 1,
         0, 1, 2, 1},
        {"grouped, relu, no bias", 1, 6, 5, 8, 8, 3, 3, 1, 1, 1, 1, 1, 1, 2, false, false, false,
         true},
        {"1x1", 3, 7, 4, 5, 9, 1, 1, 1, 1, 0, 0, 1, 1, 1},
        {"depthwise 3x3, stride 2", 1, 6, 9, 7, 6, 3, 3, 2, 2, 1, 1, 1, 1, 6, true},
        {"depthwise 5x3, dilation 2, relu", 2, 5, 8, 9, 5, 5, 3, 1, 1, 2, 1, 2, 1, 5, true, false,
         true, true},
        {"transposed 3x3, stride 2, padding 1, output padding 1",
         1,
         5,
         4,
         3,
         6,
         3,
         3,
         2,
         2,
         1,
         1,
         1,
         1,
         1,
         false,
         true,
         true,
         false,
         1,
         1},
        {"transposed grouped 2x2, stride 2, no bias", 2, 4, 3, 5, 8, 2, 2, 2, 2, 0, 0, 1, 1, 2,
         false, true, false, true},
    };
    uint32_t seed = 4100;
    for (const ConvCase& c : cases) {
        const QP xq{0.02 + 0.001 * double(seed % 7), int64_t(seed % 21) - 10};
        const QP oq{0.05, -3};
        int64_t Ho, Wo;
        if (c.transposed) {
            Ho = (c.H - 1) * c.sh - 2 * c.ph + c.dh * (c.kH - 1) + c.oph + 1;
            Wo = (c.W - 1) * c.sw - 2 * c.pw + c.dw * (c.kW - 1) + c.opw + 1;
        } else {
            Ho = (c.H + 2 * c.ph - c.dh * (c.kH - 1) - 1) / c.sh + 1;
            Wo = (c.W + 2 * c.pw - c.dw * (c.kW - 1) - 1) / c.sw + 1;
        }
        const int64_t cin_g = c.C_in / c.groups;
        const int64_t OCp = (c.C_out + 3) / 4 * 4;
        const auto x = random_ints(size_t(c.N * c.C_in * c.H * c.W), seed++, -128, 127);
        const auto scales = weight_scales(size_t(OCp), seed++);
        const auto bias = random_floats(size_t(OCp), seed++);
        Shape w_shape;
        std::vector<int32_t> w;
        int64_t Kp = 0;
        if (c.depthwise) {
            w_shape = {c.kH, c.kW, OCp};  // padded channels hold values never read
            w = random_ints(size_t(c.kH * c.kW * OCp), seed++, -127, 127);
        } else {
            Kp = (c.kH * c.kW * cin_g + 3) / 4 * 4 + 4;  // a padded row
            w_shape = {c.C_out, Kp};
            w = random_ints(size_t(c.C_out * Kp), seed++, -127, 127);
        }
        auto wt = [&](int64_t oc, int64_t ic, int64_t kh, int64_t kw) {
            if (c.depthwise) return w[size_t((kh * c.kW + kw) * OCp + oc)];
            return w[size_t(oc * Kp + (kh * c.kW + kw) * cin_g + ic)];
        };
        const auto want = conv_ref(c, x, xq, wt, scales, bias, Ho, Wo);
        Tensor out = ctx().tensor(DType::i8, {c.N, c.C_out, Ho, Wo});
        out.set_data(std::vector<int8_t>(size_t(out.numel()), int8_t(-77)));
        // Built one by one: GCC 12 warns (falsely) about a braced list of this many Args.
        std::vector<Arg> args;
        args.emplace_back(ctx().tensor(DType::i8, {c.N, c.C_in, c.H, c.W}).set_data(to_int8(x)));
        args.emplace_back(xq.scale);
        args.emplace_back(xq.zero_point);
        args.emplace_back(ctx().tensor(DType::i8, w_shape).set_data(to_int8(w)));
        args.emplace_back(
            ctx().tensor(DType::i32, {OCp}).set_data(std::vector<int32_t>(size_t(OCp), 0)));
        args.emplace_back(ctx().tensor(DType::f32, {OCp}).set_data(scales));
        args.emplace_back(oq.scale);
        args.emplace_back(oq.zero_point);
        args.emplace_back(c.bias ? Arg(ctx().tensor(DType::f32, {OCp}).set_data(bias))
                                 : Arg(std::nullopt));
        args.emplace_back(std::vector<int64_t>{c.kH, c.kW});
        args.emplace_back(std::vector<int64_t>{c.sh, c.sw});
        args.emplace_back(std::vector<int64_t>{c.ph, c.pw});
        if (c.transposed) args.push_back(std::vector<int64_t>{c.oph, c.opw});
        args.push_back(std::vector<int64_t>{c.dh, c.dw});
        args.push_back(c.groups);
        args.push_back(std::string(c.relu ? "relu" : "none"));
        args.push_back(out);
        const char* name = c.transposed  ? "et_vk.q8ta_conv2d_transposed.default"
                           : c.depthwise ? "et_vk.q8ta_conv2d_dw.default"
                           : c.kH == 1   ? "et_vk.q8ta_conv2d_pw.default"
                                         : "et_vk.q8ta_conv2d.default";
        run(op(name), args);
        expect_requantized(out.get_data<int8_t>(), want, oq, c.what);
    }
}

std::vector<double> linear_ref(const std::vector<double>& xr, const std::vector<int32_t>& w,
                               const std::vector<float>& scales, const std::vector<float>* bias,
                               int64_t M, int64_t K, int64_t N, bool relu) {
    std::vector<double> out;
    for (int64_t m = 0; m < M; ++m) {
        for (int64_t n = 0; n < N; ++n) {
            double acc = 0;
            for (int64_t k = 0; k < K; ++k) {
                acc += xr[size_t(m * K + k)] * double(w[size_t(n * K + k)]) *
                       double(scales[size_t(n)]);
            }
            if (bias) acc += double((*bias)[size_t(n)]);
            out.push_back(relu ? std::max(acc, 0.0) : acc);
        }
    }
    return out;
}

TEST(Q8taOps, LinearLayersMatchFloat64) {
    struct Case {
        Shape x;
        int64_t N;
        bool bias, relu;
    };
    uint32_t seed = 4300;
    for (const Case& c : std::vector<Case>{
             {{1, 13}, 9, true, false}, {{3, 4, 13}, 10, true, true}, {{5, 64}, 7, false, false}}) {
        const int64_t K = c.x.back(), M = numel(c.x) / K, Np = (c.N + 3) / 4 * 4;
        const QP xq{0.03, 5}, oq{0.04, -9};
        const auto x = random_ints(size_t(numel(c.x)), seed++, -128, 127);
        const auto w = random_ints(size_t(c.N * K), seed++, -127, 127);
        const auto scales = weight_scales(size_t(Np), seed++);
        const auto bias = random_floats(size_t(Np), seed++);
        std::vector<double> xr;
        for (int32_t q : x) xr.push_back((double(q) - double(xq.zero_point)) * xq.scale);
        const auto want = linear_ref(xr, w, scales, c.bias ? &bias : nullptr, M, K, c.N, c.relu);
        Shape out_dims = c.x;
        out_dims.back() = c.N;
        for (const char* name : {"et_vk.q8ta_linear.default", "et_vk.q8ta_linear_gemv.default"}) {
            Tensor out = ctx().tensor(DType::i8, out_dims);
            out.set_data(std::vector<int8_t>(size_t(out.numel()), int8_t(-77)));
            run(op(name),
                {ctx().tensor(DType::i8, c.x).set_data(to_int8(x)), xq.scale, xq.zero_point,
                 ctx().tensor(DType::i8, {c.N, K}).set_data(to_int8(w)),
                 ctx().tensor(DType::i32, {Np}).set_data(std::vector<int32_t>(size_t(Np), 0)),
                 ctx().tensor(DType::f32, {Np}).set_data(scales), oq.scale, oq.zero_point,
                 c.bias ? Arg(ctx().tensor(DType::f32, {Np}).set_data(bias)) : Arg(std::nullopt),
                 std::string(c.relu ? "relu" : "none"), out});
            expect_requantized(out.get_data<int8_t>(), want, oq,
                               std::string(name) + " x " + shape_string(c.x));
        }
    }
}

// linear_q8ta_q8csw: a float input quantized in the layer, a float output.
TEST(Q8taOps, FloatInputLinearMatchesFloat64) {
    const int64_t M = 3, K = 21, N = 6, Np = 8;
    const QP xq{0.02, -4};
    const auto x = random_floats(size_t(M * K), 4400);
    const auto w = random_ints(size_t(N * K), 4401, -127, 127);
    const auto scales = weight_scales(size_t(Np), 4402);
    const auto bias = random_floats(size_t(Np), 4403);
    std::vector<double> xr;  // quantize_per_tensor in float32, as the reference does
    const float inv = float(1.0 / xq.scale);
    for (float v : x) {
        const double q =
            std::clamp(double(std::nearbyint(v * inv)) + double(xq.zero_point), -128.0, 127.0);
        xr.push_back((q - double(xq.zero_point)) * xq.scale);
    }
    const auto want = linear_ref(xr, w, scales, &bias, M, K, N, false);
    Tensor out = ctx().tensor(DType::f32, {M, N});
    poison(out);
    run(op("et_vk.linear_q8ta_q8csw.default"),
        {ctx().tensor(DType::f32, {M, K}).set_data(x), xq.scale, xq.zero_point,
         ctx().tensor(DType::i8, {N, K}).set_data(to_int8(w)),
         ctx().tensor(DType::i32, {Np}).set_data(std::vector<int32_t>(size_t(Np), 0)),
         ctx().tensor(DType::f32, {Np}).set_data(scales),
         ctx().tensor(DType::f32, {Np}).set_data(bias), out});
    EXPECT_LE(max_rel_error(out.get_data<float>(), want), 1e-5);
}

TEST(Q8taOps, AddAndReluMatchFloat64) {
    for (const Shape& shape : std::vector<Shape>{{2, 3, 7, 5}, {1, 9}, {4}}) {
        const auto n = size_t(numel(shape));
        const auto a = random_ints(n, 4500 + uint32_t(n), -128, 127);
        const auto b = random_ints(n, 4600 + uint32_t(n), -128, 127);
        const QP aq{0.03, -7}, bq{0.011, 12}, oq{0.035, 3};
        for (double alpha : {1.0, -0.5}) {
            std::vector<double> want;
            for (size_t i = 0; i < n; ++i) {
                want.push_back((a[i] - aq.zero_point) * aq.scale +
                               alpha * (b[i] - bq.zero_point) * bq.scale);
            }
            Tensor out = ctx().tensor(DType::i8, shape);
            out.set_data(std::vector<int8_t>(n, int8_t(-77)));
            run(op("et_vk.q8ta_add.default"),
                {ctx().tensor(DType::i8, shape).set_data(to_int8(a)),
                 ctx().tensor(DType::i8, shape).set_data(to_int8(b)), aq.scale, aq.zero_point,
                 bq.scale, bq.zero_point, oq.scale, oq.zero_point, alpha, out});
            expect_requantized(out.get_data<int8_t>(), want, oq, "q8ta_add " + shape_string(shape));
        }
        std::vector<double> want;
        for (size_t i = 0; i < n; ++i)
            want.push_back(std::max(0.0, (a[i] - aq.zero_point) * aq.scale));
        Tensor out = ctx().tensor(DType::i8, shape);
        out.set_data(std::vector<int8_t>(n, int8_t(-77)));
        run(op("et_vk.q8ta_relu.default"), {ctx().tensor(DType::i8, shape).set_data(to_int8(a)),
                                            aq.scale, aq.zero_point, oq.scale, oq.zero_point, out});
        expect_requantized(out.get_data<int8_t>(), want, oq, "q8ta_relu " + shape_string(shape));
    }
}

TEST(Q8taOps, PixelShuffleMatchesFloat64) {
    struct Case {
        Shape in;
        int64_t r;
    };
    for (const Case& c : std::vector<Case>{{{2, 8, 3, 5}, 2}, {{1, 18, 2, 3}, 3}}) {
        const auto n = size_t(numel(c.in));
        const auto x = random_ints(n, 4700 + uint32_t(n), -128, 127);
        const QP xq{0.02, 9}, oq{0.03, -4};
        const int64_t C = c.in[1] / (c.r * c.r), H = c.in[2] * c.r, W = c.in[3] * c.r;
        std::vector<double> want;
        for (int64_t b = 0; b < c.in[0]; ++b) {
            for (int64_t ch = 0; ch < C; ++ch) {
                for (int64_t h = 0; h < H; ++h) {
                    for (int64_t w = 0; w < W; ++w) {
                        const int64_t ic = ch * c.r * c.r + (h % c.r) * c.r + w % c.r;
                        const int32_t q =
                            x[size_t(((b * c.in[1] + ic) * c.in[2] + h / c.r) * c.in[3] + w / c.r)];
                        want.push_back((q - xq.zero_point) * xq.scale);
                    }
                }
            }
        }
        Tensor out = ctx().tensor(DType::i8, {c.in[0], C, H, W});
        out.set_data(std::vector<int8_t>(n, int8_t(-77)));
        run(op("et_vk.q8ta_pixel_shuffle.default"),
            {ctx().tensor(DType::i8, c.in).set_data(to_int8(x)), xq.scale, xq.zero_point,
             1.0 / oq.scale, oq.zero_point, c.r, out});
        expect_requantized(out.get_data<int8_t>(), want, oq, "pixel shuffle " + shape_string(c.in));
    }
    expect_invalid("et_vk.q8ta_pixel_shuffle.default",
                   {ctx().tensor(DType::i8, {1, 6, 2, 2}), 0.1, int64_t(0), 10.0, int64_t(0),
                    int64_t(2), ctx().tensor(DType::i8, {1, 1, 4, 4})},
                   "upscale_factor");
}

TEST(Q8taOps, RejectBadArguments) {
    Tensor x = ctx().tensor(DType::i8, {1, 4, 5, 5});
    Tensor w = ctx().tensor(DType::i8, {8, 36});
    Tensor sums = ctx().tensor(DType::i32, {8});
    Tensor s = ctx().tensor(DType::f32, {8});
    Tensor out = ctx().tensor(DType::i8, {1, 8, 5, 5});
    auto conv = [&](Arg input, Arg weights, double zp, Arg activation, Arg o) {
        std::vector<Arg> args;
        for (Arg a : {input, Arg(0.1), Arg(int64_t(zp)), weights, Arg(sums), Arg(s), Arg(0.1),
                      Arg(int64_t(0)), Arg(std::nullopt)}) {
            args.push_back(std::move(a));
        }
        for (int64_t v : {3, 1, 1, 1}) args.emplace_back(std::vector<int64_t>{v, v});
        args.emplace_back(int64_t(1));
        args.push_back(std::move(activation));
        args.push_back(std::move(o));
        return args;
    };
    const char* name = "et_vk.q8ta_conv2d.default";
    expect_invalid(
        name, conv(ctx().tensor(DType::f32, {1, 4, 5, 5}), w, 0, std::string("none"), out), "x");
    expect_invalid(name, conv(x, w, 200, std::string("none"), out), "input_zero_point");
    expect_invalid(name, conv(x, w, 0, std::string("gelu"), out), "activation");
    expect_invalid(name, conv(x, ctx().tensor(DType::i8, {8, 20}), 0, std::string("none"), out),
                   "weights");
    expect_invalid(name, conv(x, w, 0, std::string("none"), ctx().tensor(DType::i8, {1, 8, 4, 5})),
                   "out");
    expect_invalid("et_vk.q8ta_conv2d_dw.default",
                   conv(x, ctx().tensor(DType::i8, {3, 3, 8}), 0, std::string("none"), out),
                   "depthwise");
    Tensor a = ctx().tensor(DType::i8, {2, 5});
    expect_invalid("et_vk.q8ta_add.default",
                   {a, ctx().tensor(DType::i8, {2, 4}), 0.1, int64_t(0), 0.1, int64_t(0), 0.1,
                    int64_t(0), 1.0, ctx().tensor(DType::i8, {2, 5})},
                   "input_b");
    expect_invalid("et_vk.q8ta_relu.default",
                   {a, -0.1, int64_t(0), 0.1, int64_t(0), ctx().tensor(DType::i8, {2, 5})},
                   "input_scale");
    expect_invalid(
        "et_vk.q8ta_linear.default",
        {ctx().tensor(DType::i8, {2, 7}), 0.1, int64_t(0), ctx().tensor(DType::i8, {3, 8}), sums, s,
         0.1, int64_t(0), std::nullopt, std::string("none"), ctx().tensor(DType::i8, {2, 3})},
        "features");
}

}  // namespace
}  // namespace wgx::test
