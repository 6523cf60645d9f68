// The quantized_decomposed ops of PT2E programs (src/ops/qdq) against CPU references of the
// same arithmetic as torch/ao/quantization/fx/_decomposed.py, written here: float32 products
// and sums (each correctly rounded, as the CPU reference does them), round half to even
// (nearbyint), exact divisions. Random inputs (never all zeros), shapes of 1 to 70000 elements
// including odd ones (int8 / uint8 outputs whose last word is partly used), outputs poisoned
// first with values that differ from the reference everywhere:
//   quantize_per_tensor.{default,tensor}, quantize_per_channel: exact (every int equal), int8,
//     uint8, int32, restricted ranges ([-127, 127]), exact ties (x * inv_scale = k + 0.5);
//   dequantize_per_tensor.{default,tensor}, dequantize_per_channel: exact (float32 equal),
//     with and without zero points, out_dtype given and not;
//   choose_qparams_per_token_asymmetric, quantize_per_token, dequantize_per_token: exact,
//     float64 scales (the reference then quantizes in float64; exact ties too) and float32 ones;
//   choose_qparams.tensor: exact scale and zero point, 120 random inputs (one-sided, mixed,
//     tiny ranges that hit eps), both workgroup-reduction paths; these also check the kernels'
//     correctly rounded division;
//   bad arguments: InvalidArgument naming the op and the argument.
#include <cmath>
#include <cstdint>
#include <limits>

#include "reduction_paths.h"
#include "test_util.h"

namespace wgx::test {
namespace {

constexpr const char* kQuantize = "quantized_decomposed.quantize_per_tensor.default";
constexpr const char* kQuantizeTensor = "quantized_decomposed.quantize_per_tensor.tensor";
constexpr const char* kQuantizeChannel = "quantized_decomposed.quantize_per_channel.default";
constexpr const char* kDequantize = "quantized_decomposed.dequantize_per_tensor.default";
constexpr const char* kDequantizeTensor = "quantized_decomposed.dequantize_per_tensor.tensor";
constexpr const char* kDequantizeChannel = "quantized_decomposed.dequantize_per_channel.default";
constexpr const char* kChooseQparams = "quantized_decomposed.choose_qparams.tensor";
constexpr const char* kChoosePerToken =
    "quantized_decomposed.choose_qparams_per_token_asymmetric.default";
constexpr const char* kQuantizeToken = "quantized_decomposed.quantize_per_token.default";
constexpr const char* kDequantizeToken = "quantized_decomposed.dequantize_per_token.default";

// c10::ScalarType codes.
int64_t scalar_type(DType t) {
    switch (t) {
        case DType::u8: return 0;
        case DType::i8: return 1;
        case DType::i32: return 3;
        default: return 6;
    }
}

struct Range {
    int64_t min, max;
};

Range full_range(DType t) {
    if (t == DType::i8) return {-128, 127};
    if (t == DType::u8) return {0, 255};
    return {std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()};
}

// The reference's quantize of one value: round(x * inv_scale) + zero_point in float32, clamped.
int64_t quantize_ref(float x, float inv_scale, float zero_point, Range r) {
    const float rounded = std::nearbyint(x * inv_scale);
    const float v = rounded + zero_point;
    return int64_t(std::clamp(v, float(r.min), float(r.max)));
}

// Reads an integer tensor of any quantized dtype as int64.
std::vector<int64_t> read_ints(const Tensor& t) {
    std::vector<int64_t> out;
    switch (t.dtype()) {
        case DType::i8:
            for (int8_t v : t.get_data<int8_t>()) out.push_back(v);
            break;
        case DType::u8:
            for (uint8_t v : t.get_data<uint8_t>()) out.push_back(v);
            break;
        default:
            for (int32_t v : t.get_data<int32_t>()) out.push_back(v);
    }
    return out;
}

// Uploads int64 values into t, of a dtype that holds them.
void set_ints(Tensor& t, const std::vector<int64_t>& v) {
    switch (t.dtype()) {
        case DType::i8: t.set_data(std::vector<int8_t>(v.begin(), v.end())); break;
        case DType::u8: t.set_data(std::vector<uint8_t>(v.begin(), v.end())); break;
        case DType::i32: t.set_data(std::vector<int32_t>(v.begin(), v.end())); break;
        default: t.set_data(v);
    }
}

Tensor int_tensor(DType t, const Shape& shape, const std::vector<int64_t>& v) {
    Tensor out = ctx().tensor(t, shape);
    set_ints(out, v);
    return out;
}

// Poisons an integer output with values that differ from `want` everywhere.
void poison_ints(Tensor& t, const std::vector<int64_t>& want) {
    std::vector<int64_t> bad(want.size());
    for (size_t i = 0; i < want.size(); ++i) bad[i] = want[i] == 5 ? 6 : 5;
    set_ints(t, bad);
}

void run(const char* name, std::vector<Arg> args) {
    ctx().reset();
    ctx().record(op(name), args);
    ctx().submit();
}

// Random values scaled so most land inside the quantized range and some are clamped.
std::vector<float> spread_floats(size_t n, uint32_t seed, float scale, float width) {
    auto v = random_floats(n, seed);
    for (float& x : v) x *= scale * width;
    return v;
}

struct QuantCase {
    Shape shape;
    DType dtype;
    Range range;
    double scale;
    int64_t zero_point;
};

std::vector<QuantCase> quant_cases() {
    return {
        {{7}, DType::i8, {-128, 127}, 0.05, 3},
        {{3, 5}, DType::u8, {0, 255}, 0.031, 128},
        {{2, 3, 4, 5}, DType::i8, {-127, 127}, 0.0123, 0},
        {{1}, DType::u8, {0, 255}, 0.2, 17},
        {{4099}, DType::i32, full_range(DType::i32), 0.001, -5},
        {{3, 333}, DType::i8, {-128, 127}, 0.0071, -20},
        {{70001}, DType::u8, {0, 255}, 0.013, 100},
        {{2, 9}, DType::i32, {-1000, 1000}, 0.0004, 7},
    };
}

// ---------------------------------------------------------------------------------------------
// quantize

TEST(QuantDecomposed, QuantizePerTensorMatchesReference) {
    uint32_t seed = 1;
    for (const QuantCase& c : quant_cases()) {
        const auto n = size_t(numel(c.shape));
        const float width = c.dtype == DType::i32 ? 1500.f : 60.f;
        const auto x = spread_floats(n, seed++, float(c.scale), width);
        const float inv = float(1.0 / c.scale);
        std::vector<int64_t> want(n);
        for (size_t i = 0; i < n; ++i)
            want[i] = quantize_ref(x[i], inv, float(c.zero_point), c.range);
        Tensor tx = ctx().tensor(DType::f32, c.shape).set_data(x);
        Tensor out = ctx().tensor(c.dtype, c.shape);
        poison_ints(out, want);
        run(kQuantize,
            {tx, c.scale, c.zero_point, c.range.min, c.range.max, scalar_type(c.dtype), out});
        EXPECT_EQ(read_ints(out), want) << shape_string(c.shape) << " " << dtype_name(c.dtype);

        // The .tensor form, with the scale as float64 [1] and the zero point as int64 [1]; the
        // reference uses 1.0 / scale.item(), so the float32 scale's exact reciprocal.
        const float s32 = float(c.scale);
        const float inv32 = float(1.0 / double(s32));
        for (size_t i = 0; i < n; ++i) {
            want[i] = quantize_ref(x[i], inv32, float(c.zero_point), c.range);
        }
        Tensor ts = ctx().tensor(DType::f64, {1}).set_data(std::vector<double>{double(s32)});
        Tensor tz = ctx().tensor(DType::i64, {1}).set_data(std::vector<int64_t>{c.zero_point});
        poison_ints(out, want);
        run(kQuantizeTensor, {tx, ts, tz, c.range.min, c.range.max, scalar_type(c.dtype), out});
        EXPECT_EQ(read_ints(out), want) << ".tensor " << shape_string(c.shape);
    }
}

// x * inv_scale exactly k + 0.5: round half to even, not away from zero.
TEST(QuantDecomposed, QuantizeRoundsHalfToEven) {
    std::vector<float> x;
    for (int k = -40; k <= 40; ++k) x.push_back(0.125f * float(2 * k + 1));  // (k + 0.5) / 4
    Tensor tx = ctx().tensor(DType::f32, {int64_t(x.size())}).set_data(x);
    Tensor out = ctx().tensor(DType::i8, {int64_t(x.size())});
    std::vector<int64_t> want;
    for (float v : x) want.push_back(int64_t(std::nearbyint(v * 4.f)) + 1);
    poison_ints(out, want);
    run(kQuantize, {tx, 0.25, int64_t(1), int64_t(-128), int64_t(127), int64_t(1), out});
    EXPECT_EQ(read_ints(out), want);
}

struct ChannelCase {
    Shape shape;
    int64_t axis;
    DType dtype;
};

const std::vector<ChannelCase> kChannelCases = {
    {{8, 3, 3, 3}, 0, DType::i8}, {{5, 7}, 1, DType::u8},     {{3, 4, 5}, -1, DType::i8},
    {{13}, 0, DType::i32},        {{2, 65, 3}, 1, DType::i8}, {{1, 1, 1}, 2, DType::u8},
};

TEST(QuantDecomposed, QuantizePerChannelMatchesReference) {
    uint32_t seed = 100;
    for (const ChannelCase& c : kChannelCases) {
        const auto n = size_t(numel(c.shape));
        const auto axis = size_t(c.axis < 0 ? c.axis + int64_t(c.shape.size()) : c.axis);
        const int64_t C = c.shape[axis];
        int64_t inner = 1;
        for (size_t d = axis + 1; d < c.shape.size(); ++d) inner *= c.shape[d];
        const Range r = full_range(c.dtype);
        std::vector<float> scales(static_cast<size_t>(C));
        std::vector<int64_t> zps(static_cast<size_t>(C));
        auto sr = random_floats(size_t(C), seed++);
        auto zr = random_ints(size_t(C), seed++, c.dtype == DType::u8 ? 0 : -30, 30);
        for (int64_t ch = 0; ch < C; ++ch) {
            scales[size_t(ch)] = 0.01f * (1.f + std::abs(sr[size_t(ch)]));
            zps[size_t(ch)] = zr[size_t(ch)];
        }
        const auto x = spread_floats(n, seed++, 0.02f, 60.f);
        std::vector<int64_t> want(n);
        for (size_t i = 0; i < n; ++i) {
            const auto ch = size_t((int64_t(i) / inner) % C);
            const float inv = float(1.0 / double(scales[ch]));  // exact reciprocal in float32
            want[i] = quantize_ref(x[i], inv, float(zps[ch]), r);
        }
        Tensor tx = ctx().tensor(DType::f32, c.shape).set_data(x);
        Tensor ts = ctx().tensor(DType::f32, {C}).set_data(scales);
        Tensor tz = ctx().tensor(DType::i64, {C}).set_data(zps);
        Tensor out = ctx().tensor(c.dtype, c.shape);
        poison_ints(out, want);
        run(kQuantizeChannel, {tx, ts, tz, c.axis, r.min, r.max, scalar_type(c.dtype), out});
        EXPECT_EQ(read_ints(out), want) << shape_string(c.shape) << " axis " << c.axis;
    }
}

// ---------------------------------------------------------------------------------------------
// dequantize

std::vector<int64_t> random_quantized(size_t n, uint32_t seed, Range r) {
    const int lo = int(std::max<int64_t>(r.min, -100000));
    const int hi = int(std::min<int64_t>(r.max, 100000));
    auto v = random_ints(n, seed, lo, hi);
    return {v.begin(), v.end()};
}

TEST(QuantDecomposed, DequantizePerTensorMatchesReference) {
    uint32_t seed = 300;
    for (const QuantCase& c : quant_cases()) {
        const auto n = size_t(numel(c.shape));
        const auto q = random_quantized(n, seed++, c.range);
        const float s = float(c.scale);
        std::vector<double> want(n);
        for (size_t i = 0; i < n; ++i) want[i] = (float(q[i]) - float(c.zero_point)) * s;
        Tensor tq = int_tensor(c.dtype, c.shape, q);
        Tensor out = ctx().tensor(DType::f32, c.shape);
        poison(out);
        run(kDequantize,
            {tq, c.scale, c.zero_point, c.range.min, c.range.max, scalar_type(c.dtype), out});
        EXPECT_EQ(max_rel_error(out.get_data<float>(), want), 0.0) << shape_string(c.shape);

        // The .tensor form, with out_dtype given (float32).
        Tensor ts = ctx().tensor(DType::f64, {1}).set_data(std::vector<double>{double(s)});
        Tensor tz = ctx().tensor(DType::i64, {1}).set_data(std::vector<int64_t>{c.zero_point});
        poison(out);
        run(kDequantizeTensor,
            {tq, ts, tz, c.range.min, c.range.max, scalar_type(c.dtype), int64_t(6), out});
        EXPECT_EQ(max_rel_error(out.get_data<float>(), want), 0.0) << ".tensor";
    }
}

TEST(QuantDecomposed, DequantizePerChannelMatchesReference) {
    uint32_t seed = 400;
    for (const ChannelCase& c : kChannelCases) {
        for (bool with_zp : {true, false}) {
            const auto n = size_t(numel(c.shape));
            const auto axis = size_t(c.axis < 0 ? c.axis + int64_t(c.shape.size()) : c.axis);
            const int64_t C = c.shape[axis];
            int64_t inner = 1;
            for (size_t d = axis + 1; d < c.shape.size(); ++d) inner *= c.shape[d];
            const Range r = full_range(c.dtype);
            auto scales = random_floats(size_t(C), seed++);
            for (float& s : scales) s = 0.003f * (1.f + std::abs(s));
            auto zr = random_ints(size_t(C), seed++, c.dtype == DType::u8 ? 0 : -30, 30);
            const std::vector<int64_t> zps(zr.begin(), zr.end());
            const auto q = random_quantized(n, seed++, r);
            std::vector<double> want(n);
            for (size_t i = 0; i < n; ++i) {
                const auto ch = size_t((int64_t(i) / inner) % C);
                want[i] = float(double(q[i] - (with_zp ? zps[ch] : 0)) * double(scales[ch]));
            }
            Tensor tq = int_tensor(c.dtype, c.shape, q);
            Tensor ts = ctx().tensor(DType::f32, {C}).set_data(scales);
            Tensor tz = ctx().tensor(DType::i64, {C}).set_data(zps);
            Tensor out = ctx().tensor(DType::f32, c.shape);
            poison(out);
            run(kDequantizeChannel, {tq, ts, with_zp ? Arg(tz) : Arg(std::nullopt), c.axis, r.min,
                                     r.max, scalar_type(c.dtype), std::nullopt, out});
            EXPECT_EQ(max_rel_error(out.get_data<float>(), want), 0.0)
                << shape_string(c.shape) << " axis " << c.axis << " zp " << with_zp;
        }
    }
}

// Quantize then dequantize: within half a step of the input wherever it was not clamped.
TEST(QuantDecomposed, RoundTripStaysWithinHalfAStep) {
    const Shape shape = {5, 37};
    const auto x = spread_floats(size_t(numel(shape)), 77, 0.02f, 40.f);
    Tensor tx = ctx().tensor(DType::f32, shape).set_data(x);
    Tensor tq = ctx().tensor(DType::i8, shape);
    Tensor out = ctx().tensor(DType::f32, shape);
    poison(out);
    run(kQuantize, {tx, 0.02, int64_t(-3), int64_t(-128), int64_t(127), int64_t(1), tq});
    run(kDequantize, {tq, 0.02, int64_t(-3), int64_t(-128), int64_t(127), int64_t(1), out});
    const auto got = out.get_data<float>();
    for (size_t i = 0; i < x.size(); ++i) {
        if (x[i] / 0.02f - 3 > 126.f || x[i] / 0.02f - 3 < -127.f) continue;
        EXPECT_LE(std::abs(got[i] - x[i]), 0.0100001f) << i;
    }
}

// ---------------------------------------------------------------------------------------------
// choose_qparams

struct Qparams {
    float scale;
    int64_t zero_point;
};

Qparams choose_qparams_ref(const std::vector<float>& x, Range r, float eps) {
    float lo = x[0], hi = x[0];
    for (float v : x) lo = std::min(lo, v), hi = std::max(hi, v);
    const float min_neg = std::min(lo, 0.f), max_pos = std::max(hi, 0.f);
    const float scale = std::max((max_pos - min_neg) / float(r.max - r.min), eps);
    const auto zp = int64_t(r.min) - int64_t(std::nearbyint(min_neg / scale));
    return {scale, std::clamp(zp, r.min, r.max)};
}

TEST(QuantDecomposed, ChooseQparamsMatchesReference) {
    on_both_reduction_paths([](const std::string& path) {
        uint32_t seed = 500;
        const std::vector<size_t> sizes = {1, 2, 5, 17, 255, 256, 1000, 70001};
        for (int i = 0; i < 120; ++i) {
            const size_t n = sizes[size_t(i) % sizes.size()];
            if (n > 1000 && i > 8) continue;  // one large case per path is enough
            auto x = random_floats(n, seed++);
            const float mag = std::pow(10.f, float(i % 7) - 4.f);  // 1e-4 ... 1e2
            for (float& v : x) {
                v *= mag;
                if (i % 5 == 1) v = std::abs(v);   // all positive: min_neg is 0
                if (i % 5 == 2) v = -std::abs(v);  // all negative: max_pos is 0
                if (i % 5 == 3) v += 3 * mag;      // mostly positive, asymmetric
            }
            const DType dt = i % 2 ? DType::u8 : DType::i8;
            const Range r = i % 3 == 2 && dt == DType::i8 ? Range{-127, 127} : full_range(dt);
            const float eps = i % 4 == 0 ? 1e-5f : float(std::numeric_limits<float>::epsilon());
            const Qparams want = choose_qparams_ref(x, r, eps);
            Tensor tx = ctx().tensor(DType::f32, {int64_t(n)}).set_data(x);
            Tensor ts = ctx().tensor(DType::f64, {1}).set_data(std::vector<double>{-7.0});
            Tensor tz = ctx().tensor(DType::i64, {1}).set_data(std::vector<int64_t>{-999});
            run(kChooseQparams,
                {tx, r.min, r.max, double(eps), scalar_type(dt), Arg::TensorList{ts, tz}});
            EXPECT_EQ(ts.get_data<double>()[0], double(want.scale))
                << path << " case " << i << " n " << n;
            EXPECT_EQ(tz.get_data<int64_t>()[0], want.zero_point) << path << " case " << i;
        }
    });
}

// ---------------------------------------------------------------------------------------------
// per token

// _choose_qparams_per_token_asymmetric_impl in float32, for one row.
Qparams per_token_ref(const float* row, int64_t n) {
    float lo = row[0], hi = row[0];
    for (int64_t k = 0; k < n; ++k) lo = std::min(lo, row[k]), hi = std::max(hi, row[k]);
    const float min_neg = std::min(lo, 0.f), max_pos = std::max(hi, 0.f);
    const float scale =
        std::max((max_pos - min_neg) / 255.f, std::numeric_limits<float>::epsilon());
    const float descaled_min = min_neg / scale, descaled_max = max_pos / scale;
    const float from_min = -128.f + descaled_min, from_max = 127.f + descaled_max;
    const float zp = from_min + from_max > 0 ? -128.f - descaled_min : 127.f - descaled_max;
    return {scale, int64_t(std::nearbyint(std::clamp(zp, -128.f, 127.f)))};
}

struct TokenCase {
    Shape shape;
    bool float64_scales;
};

// choose_qparams_per_token_asymmetric, then quantize_per_token and dequantize_per_token with
// its outputs: each exact against the reference, which with float64 scales quantizes in
// float64 (x * (1 / scale) + zero_point, rounded), with float32 ones in float32.
TEST(QuantDecomposed, PerTokenOpsMatchReference) {
    const std::vector<TokenCase> cases = {
        {{1, 7}, true},     {{3, 5}, true},    {{2, 3, 64}, true}, {{4, 1}, true},
        {{17, 300}, true},  {{1, 4099}, true}, {{5, 33}, false},   {{2, 2, 9}, false},
        {{9, 1000}, false}, {{3, 257}, true},
    };
    on_both_reduction_paths([&](const std::string& path) {
        uint32_t seed = 700;
        for (const TokenCase& c : cases) {
            const auto n = size_t(numel(c.shape));
            const int64_t D = c.shape.back(), T = int64_t(n) / D;
            auto x = random_floats(n, seed++);
            for (size_t i = 0; i < n; ++i) {
                if ((i / size_t(D)) % 3 == 1) x[i] = std::abs(x[i]) * 0.01f;  // one-sided rows
                if ((i / size_t(D)) % 3 == 2) x[i] = x[i] * 30.f - 10.f;
            }
            Shape qshape = c.shape;
            qshape.back() = 1;
            std::vector<float> want_scale(static_cast<size_t>(T));
            std::vector<int64_t> want_zp(static_cast<size_t>(T));
            for (int64_t t = 0; t < T; ++t) {
                const Qparams q = per_token_ref(&x[size_t(t * D)], D);
                want_scale[size_t(t)] = q.scale;
                want_zp[size_t(t)] = q.zero_point;
            }
            Tensor tx = ctx().tensor(DType::f32, c.shape).set_data(x);
            const DType sdt = c.float64_scales ? DType::f64 : DType::f32;
            Tensor ts = ctx().tensor(sdt, qshape);
            Tensor tz = ctx().tensor(DType::i64, qshape);
            if (c.float64_scales) {
                ts.set_data(std::vector<double>(size_t(T), -1.0));
            } else {
                ts.set_data(std::vector<float>(size_t(T), -1.f));
            }
            tz.set_data(std::vector<int64_t>(size_t(T), 999));
            run(kChoosePerToken, {tx, int64_t(1), Arg::TensorList{ts, tz}});
            std::vector<double> got_scale;
            if (c.float64_scales) {
                got_scale = ts.get_data<double>();
            } else {
                for (float v : ts.get_data<float>()) got_scale.push_back(v);
            }
            EXPECT_EQ(got_scale, std::vector<double>(want_scale.begin(), want_scale.end()))
                << path << " " << shape_string(c.shape);
            EXPECT_EQ(tz.get_data<int64_t>(), want_zp) << path << " " << shape_string(c.shape);

            std::vector<int64_t> want_q(n);
            std::vector<double> want_dq(n);
            for (size_t i = 0; i < n; ++i) {
                const auto t = i / size_t(D);
                const float s = want_scale[t];
                double v;
                if (c.float64_scales) {
                    v = std::nearbyint(double(x[i]) * (1.0 / double(s)) + double(want_zp[t]));
                } else {
                    v = std::nearbyint(x[i] * (1.f / s) + float(want_zp[t]));
                }
                want_q[i] = int64_t(std::clamp(v, -128.0, 127.0));
                want_dq[i] = float(double(want_q[i] - want_zp[t]) * double(s));
            }
            Tensor tq = ctx().tensor(DType::i8, c.shape);
            poison_ints(tq, want_q);
            run(kQuantizeToken, {tx, ts, tz, int64_t(-128), int64_t(127), int64_t(1), tq});
            EXPECT_EQ(read_ints(tq), want_q) << path << " " << shape_string(c.shape);
            Tensor out = ctx().tensor(DType::f32, c.shape);
            poison(out);
            run(kDequantizeToken,
                {tq, ts, tz, int64_t(-128), int64_t(127), int64_t(1), int64_t(6), out});
            EXPECT_EQ(max_rel_error(out.get_data<float>(), want_dq), 0.0)
                << path << " " << shape_string(c.shape);
        }
    });
}

// Exact ties with float64 scales: x / scale + zero_point a half-integer goes to the even one.
TEST(QuantDecomposed, QuantizePerTokenRoundsExactTiesToEven) {
    std::vector<float> x;
    for (int k = -30; k <= 30; ++k) x.push_back(0.25f * float(2 * k + 1));  // x / 0.5 = k + 0.5
    const int64_t T = 2, D = int64_t(x.size()) / 2;
    x.resize(size_t(T * D));
    const std::vector<double> scales = {0.5, 0.5};
    const std::vector<int64_t> zps = {3, -4};
    std::vector<int64_t> want(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
        const double v = std::nearbyint(double(x[i]) / 0.5 + double(zps[i / size_t(D)]));
        want[i] = int64_t(std::clamp(v, -128.0, 127.0));
    }
    Tensor tx = ctx().tensor(DType::f32, {T, D}).set_data(x);
    Tensor ts = ctx().tensor(DType::f64, {T, 1}).set_data(scales);
    Tensor tz = ctx().tensor(DType::i64, {T, 1}).set_data(zps);
    Tensor tq = ctx().tensor(DType::i8, {T, D});
    poison_ints(tq, want);
    run(kQuantizeToken, {tx, ts, tz, int64_t(-128), int64_t(127), int64_t(1), tq});
    EXPECT_EQ(read_ints(tq), want);
}

// ---------------------------------------------------------------------------------------------
// bad arguments

TEST(QuantDecomposed, BadArgumentsAreRejected) {
    Tensor x = ctx().tensor(DType::f32, {2, 3}).set_data(random_floats(6, 1));
    Tensor q8 = ctx().tensor(DType::i8, {2, 3});
    Tensor u8 = ctx().tensor(DType::u8, {2, 3});
    Tensor f = ctx().tensor(DType::f32, {2, 3});
    Tensor f16 = ctx().tensor(DType::f16, {2, 3});
    Tensor s2 = ctx().tensor(DType::f32, {2}).set_data(std::vector<float>{0.1f, 0.2f});
    Tensor z2 = ctx().tensor(DType::i64, {2}).set_data(std::vector<int64_t>{0, 1});
    Tensor z3 = ctx().tensor(DType::i64, {3}).set_data(std::vector<int64_t>{0, 1, 2});
    Tensor zf = ctx().tensor(DType::f32, {2}).set_data(std::vector<float>{0, 1});
    const int64_t i8 = 1, u8c = 0, f32c = 6, f16c = 5;
    const int64_t lo = -128, hi = 127;

    expect_invalid(kQuantize, {x, 0.1, int64_t(0), lo, int64_t(200), i8, q8}, {"quant_max"});
    expect_invalid(kQuantize, {x, 0.1, int64_t(0), int64_t(-129), hi, i8, q8}, {"quant_min"});
    expect_invalid(kQuantize, {x, 0.1, int64_t(0), int64_t(5), int64_t(4), i8, q8}, {"quant_min"});
    expect_invalid(kQuantize, {x, 0.0, int64_t(0), lo, hi, i8, q8}, {"scale"});
    expect_invalid(kQuantize, {x, 0.1, int64_t(0), int64_t(0), hi, u8c, q8}, {"out", "uint8"});
    expect_invalid(kQuantize, {x, 0.1, int64_t(0), lo, hi, f32c, f}, {"dtype", "float32"});
    expect_invalid(kQuantize, {q8, 0.1, int64_t(0), lo, hi, i8, q8}, {"input", "float32"});
    expect_invalid(kQuantize, {x, 0.1, int64_t(0), lo, hi, i8, ctx().tensor(DType::i8, {6})},
                   {"out", "shape"});
    expect_invalid(kQuantizeTensor, {x, s2, z2, lo, hi, i8, q8}, {"scale", "elements"});
    expect_invalid(kQuantizeChannel, {x, s2, z2, int64_t(1), lo, hi, i8, q8},
                   {"scales", "elements"});
    expect_invalid(kQuantizeChannel, {x, s2, zf, int64_t(0), lo, hi, i8, q8},
                   {"zero_points", "float32"});
    expect_invalid(kQuantizeChannel, {x, s2, z2, int64_t(2), lo, hi, i8, q8}, {"axis"});

    expect_invalid(kDequantize, {u8, 0.1, int64_t(0), lo, hi, i8, f}, {"input", "uint8"});
    expect_invalid(kDequantize, {q8, 0.1, int64_t(0), lo, hi, i8, f16c, f16}, {"out_dtype"});
    expect_invalid(kDequantize, {q8, 0.1, int64_t(0), lo, hi, i8, q8}, {"out", "int8"});
    expect_invalid(kDequantizeChannel, {q8, s2, z3, int64_t(0), lo, hi, i8, std::nullopt, f},
                   {"zero_points", "elements"});

    Tensor scale = ctx().tensor(DType::f64, {1});
    Tensor zp = ctx().tensor(DType::i64, {1});
    expect_invalid(kChooseQparams, {x, lo, hi, 0.0, i8, Arg::TensorList{scale, zp}}, {"eps"});
    expect_invalid(kChooseQparams, {x, int64_t(1), hi, 1e-5, i8, Arg::TensorList{scale, zp}},
                   {"include 0"});
    expect_invalid(kChooseQparams, {x, lo, hi, 1e-5, i8, Arg::TensorList{scale}}, {"outputs"});
    expect_invalid(kChooseQparams,
                   {x, lo, hi, 1e-5, i8, Arg::TensorList{scale, ctx().tensor(DType::f32, {1})}},
                   {"zero_point", "float32"});

    Tensor s23 = ctx().tensor(DType::f64, {2, 1});
    Tensor z23 = ctx().tensor(DType::i64, {2, 1});
    expect_invalid(kChoosePerToken, {q8, i8, Arg::TensorList{s23, z23}}, {"input", "float32"});
    expect_invalid(kChoosePerToken, {x, i8, Arg::TensorList{scale, zp}}, {"scale", "elements"});
    expect_invalid(kQuantizeToken, {x, s23, z3, lo, hi, i8, q8}, {"zero_points", "elements"});
    expect_invalid(kDequantizeToken, {q8, s23, z23, lo, hi, i8, f16c, f16}, {"out_dtype"});
}

}  // namespace
}  // namespace wgx::test
