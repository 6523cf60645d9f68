// The quantized ops of ExecuTorch's LLM exports (src/ops/quant) against references written here:
//   torchao.choose_qparams_affine: exact against torchao's formulas evaluated in float32 (what
//     torchao computes on a float32 input), per token, per group, per tensor, all three mapping
//     types, int8 / int32 / int64 zero points (int8 ones packed four a word, block counts not a
//     multiple of four), explicit eps and ranges;
//   et_vk.linear_q4gsw: float64 sums of x times the dequantized 4-bit weights, max_rel_error <=
//     2e-5 (float32 sums of up to 2048 terms); decode (1 row) and prefill (up to 127 rows, more
//     than one block of 8; from 16 rows the tiled GEMM, and under WGX_Q4_GEMM=0, a ctest entry
//     of its own that runs the 8-bit and gated layers below too, the kernel of 8 rows) shapes,
//     odd N, padded weight rows (Kp > K), bias and none, rank 3;
//   et_vk.linear_dq8ca_q4gsw: the same with x first quantized per row to int8 as torchao does
//     (the quantization evaluated in float32, the product in float64), max_rel_error <= 2e-5;
//     int8 and int32 zero points, rows too long for 8 in workgroup memory, and the whole 8da4w
//     layer as the exporter writes it (choose_qparams_affine feeding the linear);
//   wgx.linear_dq8ca_q4gsw (the two in one, passes/fuse_dynamic_quant): exactly the pair's;
//   et_vk.embedding_q4gsw: within 1e-7 (one float32 rounding of (nibble - 8) * scale), both nibble
//   orders, int32 and int64 indices, out-of-range
//     indices giving zero rows; quantized_decomposed.embedding_4bit / embedding_byte (both
//     overloads): within 1e-7 ((value - zero_point) * scale, one float32 rounding), int8 and
//     uint8 values, with and without zero points, per-row and per-group scales.
// Inputs are seeded random values (never all zeros), outputs poisoned with NaN first, and every
// op's argument checks are exercised with one bad argument each.
#include <algorithm>
#include <cmath>
#include <limits>

#include "test_util.h"

namespace wgx::test {
namespace {

void run(const Op& o, std::vector<Arg> args) {
    ctx().reset();
    ctx().record(o, args);
    ctx().submit();
}

constexpr int64_t kFloat = 6, kChar = 1, kInt = 3;  // c10::ScalarType codes

// ---------------------------------------------------------------------------------------------
// 4-bit weights: values 0..15 (the stored nibble; the weight is nibble - 8), packed two a byte.

std::vector<int32_t> random_nibbles(size_t n, uint32_t seed) { return random_ints(n, seed, 0, 15); }

// Row-major [rows, cols] nibbles into [rows, cols / 2] bytes; `even_low`: the even column of
// each pair in the low nibble (a linear layer's packing).
std::vector<uint8_t> pack_nibbles(const std::vector<int32_t>& nib, int64_t rows, int64_t cols,
                                  bool even_low = true) {
    std::vector<uint8_t> out(size_t(rows * cols / 2));
    for (int64_t r = 0; r < rows; ++r) {
        for (int64_t b = 0; b < cols / 2; ++b) {
            const auto even = uint8_t(nib[size_t(r * cols + 2 * b)]);
            const auto odd = uint8_t(nib[size_t(r * cols + 2 * b + 1)]);
            out[size_t(r * cols / 2 + b)] =
                even_low ? uint8_t(even | (odd << 4)) : uint8_t(odd | (even << 4));
        }
    }
    return out;
}

// Positive scales of a realistic size (a 4-bit weight spans -8 .. 7 scales).
std::vector<float> random_scales(size_t n, uint32_t seed) {
    auto v = random_floats(n, seed);
    for (float& s : v) s = 0.002f + 0.03f * std::abs(s);
    return v;
}

// ---------------------------------------------------------------------------------------------
// torchao's choose_qparams_affine, in float32 as torchao evaluates it on a float32 input.

struct Qparams {
    std::vector<float> scale;
    std::vector<int64_t> zero_point;
};

enum class Mapping { asymmetric, symmetric, symmetric_no_clipping };

Qparams choose_qparams_ref(const std::vector<float>& x, int64_t block, Mapping mode, int64_t qmin,
                           int64_t qmax, float eps) {
    Qparams q;
    for (size_t b0 = 0; b0 < x.size(); b0 += size_t(block)) {
        float lo = 0.f, hi = 0.f;
        for (size_t i = b0; i < b0 + size_t(block); ++i)
            lo = std::min(lo, x[i]), hi = std::max(hi, x[i]);
        const auto fmin = float(qmin), fmax = float(qmax);
        float s = 0;
        int64_t zp = (qmax + qmin + 1) / 2;
        if (mode == Mapping::asymmetric) {
            s = std::max((hi - lo) / (fmax - fmin), eps);
            zp = int64_t(std::clamp(fmin - std::nearbyint(lo / s), fmin, fmax));
        } else if (mode == Mapping::symmetric) {
            s = std::max(std::max(-lo, hi) / ((fmax - fmin) / 2.f), eps);
        } else {
            s = std::max(std::max(lo / fmin, hi / fmax), eps);
        }
        q.scale.push_back(s);
        q.zero_point.push_back(zp);
    }
    return q;
}

std::vector<int64_t> read_ints(const Tensor& t) {
    if (t.dtype() == DType::i8) {
        auto v = t.get_data<int8_t>();
        return {v.begin(), v.end()};
    }
    if (t.dtype() == DType::i32) {
        auto v = t.get_data<int32_t>();
        return {v.begin(), v.end()};
    }
    return t.get_data<int64_t>();
}

void poison_ints(Tensor& t) {
    const auto n = size_t(t.numel());
    if (t.dtype() == DType::i8) {
        t.set_data(std::vector<int8_t>(n, int8_t(-77)));
    } else if (t.dtype() == DType::i32) {
        t.set_data(std::vector<int32_t>(n, -777777));
    } else {
        t.set_data(std::vector<int64_t>(n, -777777));
    }
}

const char* mapping_name(Mapping m) {
    switch (m) {
        case Mapping::asymmetric: return "ASYMMETRIC";
        case Mapping::symmetric: return "SYMMETRIC";
        case Mapping::symmetric_no_clipping: return "SYMMETRIC_NO_CLIPPING_ERR";
    }
    return "";
}

TEST(QuantOps, ChooseQparamsAffineMatchesTorchao) {
    struct Case {
        Shape shape;
        std::vector<int64_t> block;
        Mapping mode;
        DType zp_type;
        int64_t qmin, qmax;
        std::optional<double> eps;
        Shape out;  // torchao's output shape for keepdim false
    };
    const std::vector<Case> cases = {
        // per token, as 8da4w exports write it: [1, T, K] blocks [1, 1, K]
        {{1, 5, 64}, {1, 1, 64}, Mapping::asymmetric, DType::i8, -128, 127, {}, {1, 5}},
        {{1, 1, 2048}, {1, 1, 2048}, Mapping::asymmetric, DType::i8, -128, 127, {}, {1, 1}},
        {{1, 9, 37}, {1, 1, 37}, Mapping::asymmetric, DType::i8, -128, 127, {}, {1, 9}},
        // per group along the last dim
        {{6, 96}, {1, 32}, Mapping::symmetric, DType::i32, -8, 7, 1e-6, {6, 3}},
        {{3, 40}, {1, 8}, Mapping::symmetric_no_clipping, DType::i64, -8, 7, {}, {3, 5}},
        // per tensor, unsigned range
        {{5, 7}, {5, 7}, Mapping::asymmetric, DType::i32, 0, 255, 1e-5, {}},
        {{7, 3}, {1, 3}, Mapping::symmetric, DType::i8, -127, 127, {}, {7}},
    };
    uint32_t seed = 1;
    for (const Case& c : cases) {
        auto x = random_floats(size_t(numel(c.shape)), seed++);
        if (c.block == std::vector<int64_t>{1, 1, 64}) {
            for (size_t i = 0; i < 64; ++i) x[i] = std::abs(x[i]);  // a row without negatives
        }
        Tensor tx = ctx().tensor(DType::f32, c.shape).set_data(x);
        Tensor scale = ctx().tensor(DType::f32, c.out);
        Tensor zp = ctx().tensor(c.zp_type, c.out);
        poison(scale);
        poison_ints(zp);
        const int64_t zp_code = c.zp_type == DType::i8 ? kChar : c.zp_type == DType::i32 ? kInt : 4;
        run(op("torchao.choose_qparams_affine.default"),
            {tx, std::string(mapping_name(c.mode)), c.block, std::nullopt, c.qmin, c.qmax,
             c.eps ? Arg(*c.eps) : Arg(), kFloat, zp_code, false, Arg::TensorList{scale, zp}});
        const int64_t block = numel(c.shape) / std::max<int64_t>(numel(c.out), 1);
        const float eps = c.eps ? float(*c.eps) : std::numeric_limits<float>::min();
        const Qparams want = choose_qparams_ref(x, block, c.mode, c.qmin, c.qmax, eps);
        EXPECT_EQ(scale.get_data<float>(), want.scale) << shape_string(c.shape);
        EXPECT_EQ(read_ints(zp), want.zero_point) << shape_string(c.shape);
    }
}

TEST(QuantOps, ChooseQparamsAffineRejectsBadArguments) {
    Tensor x = ctx().tensor(DType::f32, {4, 8}).set_data(random_floats(32, 3));
    Tensor scale = ctx().tensor(DType::f32, {4});
    Tensor zp = ctx().tensor(DType::i8, {4});
    Tensor zp16 = ctx().tensor(DType::f32, {4});
    auto args = [&](std::string mode, std::vector<int64_t> block, Tensor s, Tensor z) {
        return std::vector<Arg>{x,
                                std::move(mode),
                                std::move(block),
                                std::nullopt,
                                -128,
                                127,
                                std::nullopt,
                                kFloat,
                                kChar,
                                false,
                                Arg::TensorList{s, z}};
    };
    const char* name = "torchao.choose_qparams_affine.default";
    expect_invalid(name, args("AFFINE", {1, 8}, scale, zp), "mapping_type AFFINE");
    expect_invalid(name, args("ASYMMETRIC", {1, 3}, scale, zp), "does not divide");
    expect_invalid(name, args("ASYMMETRIC", {2, 4}, scale, zp), "contiguous");
    expect_invalid(name, args("ASYMMETRIC", {1, 1, 8}, scale, zp), "block_size has 3 entries");
    expect_invalid(name, args("ASYMMETRIC", {1, 4}, scale, zp), "one value per block");
    expect_invalid(name, args("ASYMMETRIC", {1, 8}, scale, zp16), "zero_point must be");
}

// ---------------------------------------------------------------------------------------------
// et_vk.linear_q4gsw and et_vk.linear_dq8ca_q4gsw

struct LinearCase {
    Shape x;  // [..., K]
    int64_t N, Kp, G;
    bool bias;
};

struct LinearData {
    std::vector<float> x, scales, bias;
    std::vector<int32_t> nibbles;  // [N, Kp]
};

LinearData linear_data(const LinearCase& c, uint32_t seed) {
    return {random_floats(size_t(numel(c.x)), seed),
            random_scales(size_t(c.Kp / c.G * c.N), seed + 1), random_floats(size_t(c.N), seed + 2),
            random_nibbles(size_t(c.N * c.Kp), seed + 3)};
}

// out[m, n] = sum_k a(m, k) * (nibble - 8) * scale[k / G, n] + bias[n] in float64, where a is
// x itself or its quantize-dequantize.
template <typename RowValue>
std::vector<double> linear_ref(const LinearCase& c, const LinearData& d, RowValue a) {
    const int64_t K = c.x.back(), M = numel(c.x) / K;
    std::vector<double> out;
    for (int64_t m = 0; m < M; ++m) {
        for (int64_t n = 0; n < c.N; ++n) {
            double acc = c.bias ? double(d.bias[size_t(n)]) : 0.0;
            for (int64_t k = 0; k < K; ++k) {
                const double w = double(d.nibbles[size_t(n * c.Kp + k)] - 8) *
                                 double(d.scales[size_t((k / c.G) * c.N + n)]);
                acc += a(m, k) * w;
            }
            out.push_back(acc);
        }
    }
    return out;
}

const std::vector<LinearCase>& linear_cases() {
    static const std::vector<LinearCase> cases = {
        {{1, 64}, 7, 64, 32, true},
        {{1, 8}, 1, 8, 8, false},
        {{5, 96}, 17, 128, 32, false},
        {{9, 256}, 64, 256, 64, true},
        {{2, 10, 48}, 13, 48, 16, true},
        {{1, 128}, 300, 128, 128, false},
        {{1, 1, 2048}, 40, 2048, 32, true},
        {{20, 32}, 5, 32, 32, false},
        // A 127-token prefill chunk and 120 rows (the tiled GEMM unless WGX_Q4_GEMM=0), padded
        // rows, odd N.
        {{127, 256}, 130, 288, 32, true},
        {{3, 40, 64}, 33, 64, 64, false},
        // One row (a decode step): padded rows; several unrolled words or pipelined quads a lane.
        {{1, 96}, 11, 128, 32, false},
        {{1, 8192}, 5, 8192, 64, true},
    };
    return cases;
}

Shape out_shape(const LinearCase& c) {
    Shape s = c.x;
    s.back() = c.N;
    return s;
}

TEST(QuantOps, LinearQ4gswMatchesFloat64) {
    uint32_t seed = 100;
    for (const LinearCase& c : linear_cases()) {
        const LinearData d = linear_data(c, seed);
        seed += 10;
        const int64_t K = c.x.back();
        Tensor tx = ctx().tensor(DType::f32, c.x).set_data(d.x);
        Tensor tw =
            ctx().tensor(DType::u8, {c.N, c.Kp / 2}).set_data(pack_nibbles(d.nibbles, c.N, c.Kp));
        Tensor ts = ctx().tensor(DType::f32, {c.Kp / c.G, c.N}).set_data(d.scales);
        Tensor out = ctx().tensor(DType::f32, out_shape(c));
        poison(out);
        std::vector<Arg> args = {tx, tw, ts, c.G};
        if (c.bias) args.push_back(ctx().tensor(DType::f32, {c.N}).set_data(d.bias));
        args.push_back(out);
        run(op("et_vk.linear_q4gsw.default"), args);
        const auto want =
            linear_ref(c, d, [&](int64_t m, int64_t k) { return double(d.x[size_t(m * K + k)]); });
        EXPECT_LE(max_rel_error(out.get_data<float>(), want), 2e-5)
            << "x " << shape_string(c.x) << " N " << c.N << " Kp " << c.Kp << " G " << c.G;
    }
}

// x quantized per row as torchao's quantize_affine does in float32: clamp(round(x * (1 / s)) +
// zp, -128, 127), then dequantized: (q - zp) * s, in float64.
double quantize_dequantize(float x, float s, int64_t zp) {
    const float inv = 1.f / s;
    const double q = std::clamp(double(std::nearbyint(x * inv)) + double(zp), -128.0, 127.0);
    return (q - double(zp)) * double(s);
}

void check_dq8ca(const LinearCase& c, uint32_t seed, DType zp_type, bool qparams_on_gpu) {
    const LinearData d = linear_data(c, seed);
    const int64_t K = c.x.back(), M = numel(c.x) / K;
    const Qparams qp = choose_qparams_ref(d.x, K, Mapping::asymmetric, -128, 127,
                                          std::numeric_limits<float>::min());
    Shape qshape(c.x.begin(), c.x.end() - 1);
    Tensor tx = ctx().tensor(DType::f32, c.x).set_data(d.x);
    Tensor scale = ctx().tensor(DType::f32, qshape);
    Tensor zp = ctx().tensor(zp_type, qshape);
    if (!qparams_on_gpu) {
        scale.set_data(qp.scale);
        if (zp_type == DType::i8) {
            zp.set_data(std::vector<int8_t>(qp.zero_point.begin(), qp.zero_point.end()));
        } else {
            zp.set_data(std::vector<int32_t>(qp.zero_point.begin(), qp.zero_point.end()));
        }
    }
    // weight_sums: per group, the sum of each column's weights (checked, not read).
    std::vector<int32_t> sums(size_t(c.Kp / c.G * c.N));
    for (int64_t n = 0; n < c.N; ++n) {
        for (int64_t k = 0; k < c.Kp; ++k)
            sums[size_t((k / c.G) * c.N + n)] += d.nibbles[size_t(n * c.Kp + k)] - 8;
    }
    Tensor tw =
        ctx().tensor(DType::u8, {c.N, c.Kp / 2}).set_data(pack_nibbles(d.nibbles, c.N, c.Kp));
    Tensor tsum = ctx().tensor(DType::i32, {c.Kp / c.G, c.N}).set_data(sums);
    Tensor ts = ctx().tensor(DType::f32, {c.Kp / c.G, c.N}).set_data(d.scales);
    Tensor out = ctx().tensor(DType::f32, out_shape(c));
    poison(out);
    std::vector<Arg> args = {tx, scale, zp, tw, tsum, ts, c.G};
    if (c.bias) args.push_back(ctx().tensor(DType::f32, {c.N}).set_data(d.bias));
    args.push_back(out);
    ctx().reset();
    if (qparams_on_gpu) {
        Shape block(c.x.size(), 1);
        block.back() = K;
        ctx().record(op("torchao.choose_qparams_affine.default"),
                     {tx, std::string("ASYMMETRIC"), std::vector<int64_t>(block), std::nullopt,
                      -128, 127, std::nullopt, kFloat, zp_type == DType::i8 ? kChar : kInt, false,
                      Arg::TensorList{scale, zp}});
    }
    ctx().record(op("et_vk.linear_dq8ca_q4gsw.default"), args);
    ctx().submit();
    const auto want = linear_ref(c, d, [&](int64_t m, int64_t k) {
        return quantize_dequantize(d.x[size_t(m * K + k)], qp.scale[size_t(m)],
                                   qp.zero_point[size_t(m)]);
    });
    EXPECT_LE(max_rel_error(out.get_data<float>(), want), 2e-5)
        << "x " << shape_string(c.x) << " N " << c.N << " Kp " << c.Kp << " G " << c.G << " zp "
        << dtype_name(zp_type) << (qparams_on_gpu ? " (qparams on the GPU)" : "");
    (void)M;
}

TEST(QuantOps, LinearDq8caQ4gswMatchesFloat64) {
    uint32_t seed = 300;
    for (const LinearCase& c : linear_cases()) {
        check_dq8ca(c, seed, DType::i8, false);
        check_dq8ca(c, seed + 1, DType::i32, false);
        seed += 10;
    }
    // 8 rows of 4096 int8 values do not fit beside the partial sums in 16 KiB: fewer rows a
    // workgroup.
    check_dq8ca({{8, 4096}, 9, 4096, 32, true}, 900, DType::i8, false);
}

// The 8da4w layer as the exporter writes it: choose_qparams_affine's outputs feed the linear.
TEST(QuantOps, Dq8caLayerWithQparamsOnTheGpu) {
    uint32_t seed = 500;
    for (const LinearCase& c : linear_cases()) check_dq8ca(c, seed += 10, DType::i8, true);
}

// wgx.linear_dq8ca_q4gsw (what passes/fuse_dynamic_quant makes of the pair above) finds each
// row's scale and zero point itself: its outputs equal the pair's exactly.
TEST(QuantOps, OwnQparamsLinearEqualsChooseQparamsAndLinear) {
    uint32_t seed = 600;
    std::vector<LinearCase> cases = linear_cases();
    cases.push_back({{8, 4096}, 9, 4096, 32, true});
    for (const LinearCase& c : cases) {
        const LinearData d = linear_data(c, seed += 10);
        const int64_t K = c.x.back();
        Shape qshape(c.x.begin(), c.x.end() - 1);
        Shape block(c.x.size(), 1);
        block.back() = K;
        Tensor tx = ctx().tensor(DType::f32, c.x).set_data(d.x);
        Tensor scale = ctx().tensor(DType::f32, qshape);
        Tensor zp = ctx().tensor(DType::i8, qshape);
        Tensor tw =
            ctx().tensor(DType::u8, {c.N, c.Kp / 2}).set_data(pack_nibbles(d.nibbles, c.N, c.Kp));
        Tensor tsum = ctx()
                          .tensor(DType::i32, {c.Kp / c.G, c.N})
                          .set_data(std::vector<int32_t>(size_t(c.Kp / c.G * c.N), 0));
        Tensor ts = ctx().tensor(DType::f32, {c.Kp / c.G, c.N}).set_data(d.scales);
        Arg bias = c.bias ? Arg(ctx().tensor(DType::f32, {c.N}).set_data(d.bias)) : Arg();
        Tensor pair = ctx().tensor(DType::f32, out_shape(c));
        Tensor own = ctx().tensor(DType::f32, out_shape(c));
        poison(pair);
        poison(own);
        ctx().reset();
        ctx().record(op("torchao.choose_qparams_affine.default"),
                     {tx, std::string("ASYMMETRIC"), std::vector<int64_t>(block), std::nullopt,
                      -128, 127, std::nullopt, kFloat, kChar, false, Arg::TensorList{scale, zp}});
        ctx().record(op("et_vk.linear_dq8ca_q4gsw.default"),
                     {tx, scale, zp, tw, tsum, ts, c.G, bias, pair});
        ctx().record(op("wgx.linear_dq8ca_q4gsw.default"),
                     {tx, double(std::numeric_limits<float>::min()), tw, tsum, ts, c.G, bias, own});
        ctx().submit();
        EXPECT_EQ(own.get_data<float>(), pair.get_data<float>())
            << "x " << shape_string(c.x) << " N " << c.N << " G " << c.G;
    }
    expect_invalid("wgx.linear_dq8ca_q4gsw.default",
                   {ctx().tensor(DType::f32, {1, 64}), -1.0, ctx().tensor(DType::u8, {4, 32}),
                    ctx().tensor(DType::i32, {2, 4}), ctx().tensor(DType::f32, {2, 4}), int64_t(32),
                    std::nullopt, ctx().tensor(DType::f32, {1, 4})},
                   "eps must be >= 0");
}

// wgx.gated_linear_q4gsw (fuse_gated_linear): silu(x gate^T) * (x up^T), with float or 8-bit
// activations, against the float64 products of the same weights.
TEST(QuantOps, GatedLinearIsSiluOfGateTimesUp) {
    uint32_t seed = 700;
    for (LinearCase c : linear_cases()) {
        c.bias = false;  // a gated layer has none
        for (const bool dq8ca : {false, true}) {
            const LinearData gate = linear_data(c, seed += 10);
            LinearData up = linear_data(c, seed += 10);
            up.x = gate.x;  // one input
            const int64_t K = c.x.back();
            Tensor tx = ctx().tensor(DType::f32, c.x).set_data(gate.x);
            auto weights = [&](const LinearData& d) {
                return std::pair{ctx()
                                     .tensor(DType::u8, {c.N, c.Kp / 2})
                                     .set_data(pack_nibbles(d.nibbles, c.N, c.Kp)),
                                 ctx().tensor(DType::f32, {c.Kp / c.G, c.N}).set_data(d.scales)};
            };
            const auto [gw, gs] = weights(gate);
            const auto [uw, us] = weights(up);
            Tensor out = ctx().tensor(DType::f32, out_shape(c));
            poison(out);
            const Arg eps = dq8ca ? Arg(double(std::numeric_limits<float>::min())) : Arg();
            run(op("wgx.gated_linear_q4gsw.default"), {tx, eps, gw, gs, uw, us, c.G, out});
            const Qparams qp = choose_qparams_ref(gate.x, K, Mapping::asymmetric, -128, 127,
                                                  std::numeric_limits<float>::min());
            auto a = [&](int64_t m, int64_t k) {
                const float v = gate.x[size_t(m * K + k)];
                return dq8ca ? quantize_dequantize(v, qp.scale[size_t(m)], qp.zero_point[size_t(m)])
                             : double(v);
            };
            const auto g = linear_ref(c, gate, a), u = linear_ref(c, up, a);
            std::vector<double> want(g.size());
            for (size_t i = 0; i < g.size(); ++i) want[i] = g[i] / (1 + std::exp(-g[i])) * u[i];
            EXPECT_LE(max_rel_error(out.get_data<float>(), want), 2e-5)
                << "x " << shape_string(c.x) << " N " << c.N << " G " << c.G
                << (dq8ca ? " 8-bit activations" : " float activations");
        }
    }
    Tensor x = ctx().tensor(DType::f32, {1, 64});
    Tensor w = ctx().tensor(DType::u8, {4, 32}), s = ctx().tensor(DType::f32, {2, 4});
    expect_invalid("wgx.gated_linear_q4gsw.default",
                   {x, Arg(), w, s, ctx().tensor(DType::u8, {5, 32}), s, int64_t(32),
                    ctx().tensor(DType::f32, {1, 4})},
                   "up_weights");
}

// et_vk.linear_qcs4w: one scale per output channel, the even column in the high nibble.
TEST(QuantOps, LinearQcs4wMatchesFloat64) {
    uint32_t seed = 800;
    for (LinearCase c : linear_cases()) {
        c.G = c.Kp;  // one group a row: the per-channel reference
        c.bias = false;
        const LinearData d = linear_data(c, seed += 10);
        Tensor tx = ctx().tensor(DType::f32, c.x).set_data(d.x);
        Tensor tw = ctx()
                        .tensor(DType::u8, {c.N, c.Kp / 2})
                        .set_data(pack_nibbles(d.nibbles, c.N, c.Kp, /*even_low=*/false));
        Tensor ts = ctx().tensor(DType::f32, {c.N}).set_data(d.scales);
        Tensor out = ctx().tensor(DType::f32, out_shape(c));
        poison(out);
        run(op("et_vk.linear_qcs4w.default"), {tx, tw, ts, out});
        const int64_t K = c.x.back();
        const auto want =
            linear_ref(c, d, [&](int64_t m, int64_t k) { return double(d.x[size_t(m * K + k)]); });
        EXPECT_LE(max_rel_error(out.get_data<float>(), want), 2e-5)
            << "x " << shape_string(c.x) << " N " << c.N << " Kp " << c.Kp;
    }
    Tensor x = ctx().tensor(DType::f32, {2, 64});
    expect_invalid("et_vk.linear_qcs4w.default",
                   {x, ctx().tensor(DType::u8, {4, 32}), ctx().tensor(DType::f32, {5}),
                    ctx().tensor(DType::f32, {2, 4})},
                   "scales");
}

// aten._weight_int8pack_mm: int8 weights, one scale per output channel.
TEST(QuantOps, WeightInt8packMmMatchesFloat64) {
    struct Case {
        Shape x;
        int64_t N;
    };
    uint32_t seed = 900;
    for (const Case& c : std::vector<Case>{
             {{1, 64}, 7}, {{5, 96}, 17}, {{2, 3, 8}, 300}, {{1, 2048}, 40}, {{9, 4}, 1}}) {
        const int64_t K = c.x.back(), M = numel(c.x) / K;
        const auto x = random_floats(size_t(numel(c.x)), seed++);
        const auto w = random_ints(size_t(c.N * K), seed++, -128, 127);
        const auto s = random_scales(size_t(c.N), seed++);
        Shape out_dims = c.x;
        out_dims.back() = c.N;
        Tensor out = ctx().tensor(DType::f32, out_dims);
        poison(out);
        run(op("aten._weight_int8pack_mm.default"),
            {ctx().tensor(DType::f32, c.x).set_data(x),
             ctx().tensor(DType::i8, {c.N, K}).set_data(std::vector<int8_t>(w.begin(), w.end())),
             ctx().tensor(DType::f32, {c.N}).set_data(s), out});
        std::vector<double> want;
        for (int64_t m = 0; m < M; ++m) {
            for (int64_t n = 0; n < c.N; ++n) {
                double acc = 0;
                for (int64_t k = 0; k < K; ++k)
                    acc += double(x[size_t(m * K + k)]) * double(w[size_t(n * K + k)]);
                want.push_back(acc * double(s[size_t(n)]));
            }
        }
        EXPECT_LE(max_rel_error(out.get_data<float>(), want), 2e-5)
            << "x " << shape_string(c.x) << " N " << c.N;
    }
    Tensor x = ctx().tensor(DType::f32, {2, 6});
    expect_invalid("aten._weight_int8pack_mm.default",
                   {x, ctx().tensor(DType::i8, {4, 6}), ctx().tensor(DType::f32, {4}),
                    ctx().tensor(DType::f32, {2, 4})},
                   "multiple of 4");
}

TEST(QuantOps, LinearQ4gswRejectsBadArguments) {
    Tensor x = ctx().tensor(DType::f32, {2, 64}).set_data(random_floats(128, 4));
    Tensor w = ctx().tensor(DType::u8, {6, 32});
    Tensor s = ctx().tensor(DType::f32, {2, 6});
    Tensor out = ctx().tensor(DType::f32, {2, 6});
    const char* name = "et_vk.linear_q4gsw.default";
    expect_invalid(name, {x, w, s, int64_t(12), out},
                   "group_size must be a positive multiple of 8");
    expect_invalid(name, {x, ctx().tensor(DType::u8, {6, 16}), s, int64_t(32), out},
                   "hold 32 columns");
    expect_invalid(name, {x, ctx().tensor(DType::i32, {6, 32}), s, int64_t(32), out}, "weights");
    expect_invalid(name, {x, w, ctx().tensor(DType::f32, {6, 2}), int64_t(32), out},
                   "weight_scales");
    expect_invalid(
        name,
        {ctx().tensor(DType::f32, {2, 60}), ctx().tensor(DType::u8, {6, 30}), s, int64_t(32), out},
        "multiple of 8");
    expect_invalid(name, {x, w, s, int64_t(32), ctx().tensor(DType::f32, {2, 5})}, "out");
    const char* dq = "et_vk.linear_dq8ca_q4gsw.default";
    Tensor sums = ctx().tensor(DType::i32, {2, 6});
    expect_invalid(dq,
                   {x, ctx().tensor(DType::f32, {3}), ctx().tensor(DType::i8, {3}), w, sums, s,
                    int64_t(32), out},
                   "one value per row");
    expect_invalid(dq,
                   {x, ctx().tensor(DType::f32, {2}), ctx().tensor(DType::f32, {2}), w, sums, s,
                    int64_t(32), out},
                   "input_zero_point must be int8 or int32");
    expect_invalid(dq,
                   {x, ctx().tensor(DType::f32, {2}), ctx().tensor(DType::i8, {2}), w,
                    ctx().tensor(DType::i32, {6, 2}), s, int64_t(32), out},
                   "weight_sums");
}

// ---------------------------------------------------------------------------------------------
// et_vk.embedding_q4gsw

TEST(QuantOps, EmbeddingQ4gswGathersDequantizedRows) {
    struct Case {
        int64_t V, D, G;
        Shape indices;
        DType index_type;
        bool linear_layout;
    };
    const std::vector<Case> cases = {
        {13, 64, 32, {2, 3}, DType::i64, true}, {13, 64, 32, {5}, DType::i64, false},
        {512, 16, 8, {1, 7}, DType::i32, true}, {31, 48, 16, {9}, DType::i32, false},
        {3, 2, 2, {4}, DType::i64, true},
    };
    uint32_t seed = 700;
    for (const Case& c : cases) {
        const auto nib = random_nibbles(size_t(c.V * c.D), seed++);
        const auto scales = random_scales(size_t(c.V * c.D / c.G), seed++);
        auto idx32 = random_ints(size_t(numel(c.indices)), seed++, 0, int(c.V - 1));
        idx32[0] = int32_t(c.V);  // out of range: a row of zeros
        if (idx32.size() > 2) idx32[2] = -1;
        std::vector<int64_t> idx(idx32.begin(), idx32.end());
        Tensor tw = ctx()
                        .tensor(DType::u8, {c.V, c.D / 2})
                        .set_data(pack_nibbles(nib, c.V, c.D, c.linear_layout));
        Tensor ts = ctx().tensor(DType::f32, {c.V, c.D / c.G}).set_data(scales);
        Tensor ti = ctx().tensor(c.index_type, c.indices);
        if (c.index_type == DType::i64) {
            ti.set_data(idx);
        } else {
            ti.set_data(idx32);
        }
        Shape os = c.indices;
        os.push_back(c.D);
        Tensor out = ctx().tensor(DType::f32, os);
        poison(out);
        run(op("et_vk.embedding_q4gsw.default"), {tw, ts, c.G, ti, c.linear_layout, out});
        std::vector<double> want;
        for (int64_t i : idx) {
            for (int64_t d = 0; d < c.D; ++d) {
                want.push_back(i < 0 || i >= c.V
                                   ? 0.0
                                   : double(nib[size_t(i * c.D + d)] - 8) *
                                         double(scales[size_t(i * (c.D / c.G) + d / c.G)]));
            }
        }
        EXPECT_LE(max_rel_error(out.get_data<float>(), want), 1e-7)
            << "V " << c.V << " D " << c.D << " G " << c.G
            << (c.linear_layout ? "" : " high first");
    }
}

// quantized_decomposed.embedding_4bit / embedding_byte (the portable path's -E 4,G and -E 8,G):
// (value - zero_point) * scale per group, the 4-bit even column in the high nibble.
TEST(QuantOps, DecomposedQuantizedEmbeddingsGatherDequantizedRows) {
    struct Case {
        int64_t V, D, groups;
        int bits;
        DType value_type;
        bool zero_points, dtype_overload, rank1_scales;
    };
    const std::vector<Case> cases = {
        {17, 64, 2, 4, DType::u8, false, true, false},
        {9, 48, 3, 4, DType::u8, true, false, false},
        {5, 10, 1, 4, DType::u8, true, true, true},
        {21, 32, 4, 8, DType::i8, false, true, false},
        {7, 12, 3, 8, DType::u8, true, false, false},
        {4, 7, 1, 8, DType::i8, true, false, true},
    };
    uint32_t seed = 800;
    for (const Case& c : cases) {
        const int64_t G = c.D / c.groups;
        std::vector<int32_t> values =
            c.bits == 4
                ? random_nibbles(size_t(c.V * c.D), seed++)
                : random_ints(size_t(c.V * c.D), seed++, c.value_type == DType::i8 ? -128 : 0,
                              c.value_type == DType::i8 ? 127 : 255);
        const auto scales = random_scales(size_t(c.V * c.groups), seed++);
        auto zps = random_floats(size_t(c.V * c.groups), seed++);
        for (float& z : zps) z = std::round(z * 3.f);
        std::vector<int64_t> idx = {1, c.V - 1, c.V + 3, 0, 2};
        Tensor tw;
        if (c.bits == 4) {
            tw = ctx()
                     .tensor(DType::u8, {c.V, c.D / 2})
                     .set_data(pack_nibbles(values, c.V, c.D, false));
        } else if (c.value_type == DType::i8) {
            tw = ctx()
                     .tensor(DType::i8, {c.V, c.D})
                     .set_data(std::vector<int8_t>(values.begin(), values.end()));
        } else {
            tw = ctx()
                     .tensor(DType::u8, {c.V, c.D})
                     .set_data(std::vector<uint8_t>(values.begin(), values.end()));
        }
        const Shape sshape = c.rank1_scales ? Shape{c.V} : Shape{c.V, c.groups};
        Tensor ts = ctx().tensor(DType::f32, sshape).set_data(scales);
        Tensor ti = ctx().tensor(DType::i64, {5}).set_data(idx);
        Tensor out = ctx().tensor(DType::f32, {5, c.D});
        poison(out);
        const int64_t qmin = c.bits == 4 ? -8 : -128, qmax = c.bits == 4 ? 7 : 127;
        std::vector<Arg> args = {tw, ts, std::nullopt, qmin, qmax, ti};
        if (c.zero_points) args[2] = ctx().tensor(DType::f32, sshape).set_data(zps);
        if (c.dtype_overload) args.push_back(kFloat);
        args.push_back(out);
        const std::string name = std::string("quantized_decomposed.embedding_") +
                                 (c.bits == 4 ? "4bit" : "byte") +
                                 (c.dtype_overload ? ".dtype" : ".default");
        run(op(name), args);
        std::vector<double> want;
        for (int64_t i : idx) {
            for (int64_t d = 0; d < c.D; ++d) {
                if (i < 0 || i >= c.V) {
                    want.push_back(0.0);
                    continue;
                }
                const size_t g = size_t(i * c.groups + d / G);
                const double v = double(values[size_t(i * c.D + d)]) - (c.bits == 4 ? 8.0 : 0.0);
                want.push_back((v - (c.zero_points ? double(zps[g]) : 0.0)) * double(scales[g]));
            }
        }
        EXPECT_LE(max_rel_error(out.get_data<float>(), want), 1e-7)
            << name << " V " << c.V << " D " << c.D;
    }
    Tensor w = ctx().tensor(DType::u8, {4, 8});
    Tensor s = ctx().tensor(DType::f32, {4, 2});
    Tensor idx = ctx().tensor(DType::i64, {2});
    Tensor out = ctx().tensor(DType::f32, {2, 16});
    const char* name = "quantized_decomposed.embedding_4bit.default";
    expect_invalid(name, {w, s, std::nullopt, int64_t(0), int64_t(15), idx, out},
                   "weight_quant_min -8");
    expect_invalid(
        name,
        {w, ctx().tensor(DType::f32, {3, 2}), std::nullopt, int64_t(-8), int64_t(7), idx, out},
        "weight_scales");
    expect_invalid(name, {w, s, ctx().tensor(DType::f32, {4}), int64_t(-8), int64_t(7), idx, out},
                   "weight_zero_points");
    expect_invalid(
        "quantized_decomposed.embedding_byte.default",
        {ctx().tensor(DType::i32, {4, 16}), s, std::nullopt, int64_t(-128), int64_t(127), idx, out},
        "weight must be int8 or uint8");
}

TEST(QuantOps, EmbeddingQ4gswRejectsBadArguments) {
    Tensor w = ctx().tensor(DType::u8, {10, 16});
    Tensor s = ctx().tensor(DType::f32, {10, 1});
    Tensor idx = ctx().tensor(DType::i64, {3});
    Tensor out = ctx().tensor(DType::f32, {3, 32});
    const char* name = "et_vk.embedding_q4gsw.default";
    expect_invalid(name, {w, s, int64_t(12), idx, true, out}, "do not divide");
    expect_invalid(name, {w, ctx().tensor(DType::f32, {10, 2}), int64_t(32), idx, true, out},
                   "weight_scales");
    expect_invalid(name, {w, s, int64_t(32), ctx().tensor(DType::f32, {3}), true, out},
                   "indices must be");
    expect_invalid(name, {w, s, int64_t(32), idx, true, ctx().tensor(DType::f32, {3, 16})}, "out");
    expect_invalid(name, {ctx().tensor(DType::u8, {160}), s, int64_t(32), idx, true, out}, "2-D");
}

}  // namespace
}  // namespace wgx::test
