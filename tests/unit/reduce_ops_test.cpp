// Reductions (sum, mean, amax, amin, argmax, argmin) and softmax / log_softmax against float64
// references written here: any set of dims (first, middle, last, several, all; negative;
// keepdim), ranks 1..5 with sizes 1, odd and prime, both kernel variants (an invocation per
// output and a workgroup per output), integer inputs, ties and NaN. Softmax rows run on both
// workgroup-reduction paths (subgroup operations and the workgroup-memory fallback).
// Tolerance: max_rel_error <= 1e-5 (float32 accumulation of up to ~5,000 terms in tree order).
// float16: inputs are rounded to float16 on the host and the float64 reference uses the rounded
// values; the kernels compute in float32 and round each output once, so the error is at most
// half a float16 ulp of the value (2^-11 relative) plus the float32 error: kHalfTol.
// max/min/argmax/argmin stay exact.
#include <algorithm>
#include <functional>
#include <limits>

#include "base/half.h"
#include "half_test_util.h"
#include "reduction_paths.h"
#include "test_util.h"

namespace wgx::test {
namespace {

std::vector<int64_t> unravel(int64_t i, const Shape& s) {
    std::vector<int64_t> c(s.size());
    for (size_t d = s.size(); d-- > 0;) {
        c[d] = i % s[d];
        i /= s[d];
    }
    return c;
}

std::vector<int64_t> wrapped(const std::vector<int64_t>& dims, size_t rank) {
    std::vector<int64_t> w;
    for (int64_t d : dims) w.push_back(d < 0 ? d + int64_t(rank) : d);
    if (w.empty()) {
        for (size_t d = 0; d < rank; ++d) w.push_back(int64_t(d));
    }
    return w;
}

bool contains(const std::vector<int64_t>& v, int64_t x) {
    return std::find(v.begin(), v.end(), x) != v.end();
}

Shape reduced(const Shape& s, const std::vector<int64_t>& dims, bool keepdim) {
    Shape out;
    for (size_t d = 0; d < s.size(); ++d) {
        if (!contains(dims, int64_t(d))) {
            out.push_back(s[d]);
        } else if (keepdim) {
            out.push_back(1);
        }
    }
    return out;
}

// The flat output index each input element reduces into, and its index in the reduced
// sub-tensor (row-major over the reduced dims).
std::pair<int64_t, int64_t> place(int64_t i, const Shape& s, const std::vector<int64_t>& dims) {
    auto c = unravel(i, s);
    int64_t o = 0, r = 0;
    for (size_t d = 0; d < s.size(); ++d) {
        if (contains(dims, int64_t(d))) {
            r = r * s[d] + c[d];
        } else {
            o = o * s[d] + c[d];
        }
    }
    return {o, r};
}

// Reference for sum/mean/max/min/argmax/argmin in float64.
std::vector<double> reduce_ref(const std::vector<double>& x, const Shape& s,
                               const std::vector<int64_t>& dims, const std::string& kind) {
    int64_t outputs = numel(reduced(s, dims, false));
    int64_t count = numel(s) / outputs;
    std::vector<double> acc(outputs, 0), best(outputs, NAN);
    std::vector<int64_t> arg(outputs, -1);
    for (int64_t i = 0; i < numel(s); ++i) {
        auto [o, r] = place(i, s, dims);
        double v = x[i];
        acc[o] += v;
        bool is_max = kind == "max" || kind == "argmax";
        bool take = arg[o] < 0 || (std::isnan(v) && !std::isnan(best[o])) ||
                    (!std::isnan(best[o]) && (is_max ? v > best[o] : v < best[o]));
        if (take) {
            best[o] = v;
            arg[o] = r;
        }
    }
    std::vector<double> out(outputs);
    for (int64_t o = 0; o < outputs; ++o) {
        if (kind == "sum") out[o] = acc[o];
        if (kind == "mean") out[o] = acc[o] / double(count);
        if (kind == "max" || kind == "min") out[o] = best[o];
        if (kind == "argmax" || kind == "argmin") out[o] = double(arg[o]);
    }
    return out;
}

Tensor poisoned(DType dt, const Shape& s) {
    Tensor t = ctx().tensor(dt, s);
    if (dt == DType::f32) {
        poison(t);
    } else if (dt == DType::i64) {
        t.set_data(std::vector<int64_t>(numel(s), -987654));
    } else {
        t.set_data(std::vector<int32_t>(numel(s), -987654));
    }
    return t;
}

std::vector<double> as_doubles(const Tensor& t) {
    if (t.dtype() == DType::f32) {
        auto v = t.get_data<float>();
        return {v.begin(), v.end()};
    }
    if (t.dtype() == DType::i64) {
        auto v = t.get_data<int64_t>();
        return {v.begin(), v.end()};
    }
    auto v = t.get_data<int32_t>();
    return {v.begin(), v.end()};
}

std::string dims_name(const Shape& s) {
    std::string r;
    for (auto d : s) r += (r.empty() ? "" : "x") + std::to_string(d);
    return r.empty() ? "scalar" : r;
}

// float16 data: values rounded on the host, and read back as doubles.
constexpr double kHalfTol = 0x1p-11 + 1e-5;

std::vector<uint16_t> to_half(const std::vector<float>& v) {
    std::vector<uint16_t> h;
    for (float x : v) h.push_back(float_to_half(x));
    return h;
}

std::vector<double> from_half(const std::vector<uint16_t>& h) {
    std::vector<double> v;
    for (uint16_t x : h) v.push_back(half_to_float(x));
    return v;
}

std::vector<float> half_floats(const Tensor& t) {
    std::vector<float> v;
    for (uint16_t x : t.get_data<uint16_t>()) v.push_back(half_to_float(x));
    return v;
}

Tensor poisoned_half(const Shape& s) {
    return ctx().tensor(DType::f16, s).set_data(std::vector<uint16_t>(numel(s), 0x7e00));
}

struct Case {
    Shape shape;
    std::vector<int64_t> dims;  // [] = all
};

// Each hits a variant: an invocation per output (short rows; kept dims innermost with many
// outputs) or a workgroup per output (long rows; few outputs).
const std::vector<Case>& cases() {
    static const std::vector<Case> c = {
        {{1}, {0}},
        {{13}, {0}},
        {{5003}, {}},      // one long row, all dims
        {{7, 1000}, {1}},  // workgroup, contiguous rows
        {{7, 1000}, {-1}},
        {{600, 3}, {0}},               // few outputs, strided rows: workgroup
        {{300, 257}, {0}},             // many kept inner outputs: per invocation, coalesced
        {{3, 5, 7}, {1}},              // middle dim, short rows
        {{2, 9, 31, 5}, {1, 3}},       // two separated dims
        {{2, 9, 31, 5}, {-3, -2}},     // two adjacent dims (merged)
        {{4, 1, 6, 5, 3}, {0, 2, 4}},  // rank 5, three dims
        {{4, 1, 6, 5, 3}, {}},         // all of rank 5
        {{17, 29}, {0, 1}},
    };
    return c;
}

TEST(ReduceOps, SumMeanAmaxAminOverAnyDims) {
    for (const Case& c : cases()) {
        auto xf = random_floats(numel(c.shape), 100 + uint32_t(c.shape.size()));
        std::vector<double> x(xf.begin(), xf.end());
        Tensor tx = ctx().tensor(DType::f32, c.shape).set_data(xf);
        auto dims = wrapped(c.dims, c.shape.size());
        for (bool keepdim : {false, true}) {
            Shape out_shape = reduced(c.shape, dims, keepdim);
            Tensor sum = poisoned(DType::f32, out_shape);
            Tensor mean = poisoned(DType::f32, out_shape);
            Tensor amax = poisoned(DType::f32, out_shape);
            Tensor amin = poisoned(DType::f32, out_shape);
            std::string what = dims_name(c.shape) + (keepdim ? " keepdim" : "");
            ctx().reset();
            ctx().record(op("aten.sum.dim_IntList"), {tx, c.dims, keepdim, Arg(), sum});
            ctx().record(op("aten.mean.dim"), {tx, c.dims, keepdim, Arg(), mean});
            ctx().record(op("aten.amax.default"), {tx, c.dims, keepdim, amax});
            ctx().record(op("aten.amin.default"), {tx, c.dims, keepdim, amin});
            ctx().submit();
            EXPECT_LE(max_rel_error(sum.get_data<float>(), reduce_ref(x, c.shape, dims, "sum")),
                      1e-5)
                << "sum " << what;
            EXPECT_LE(max_rel_error(mean.get_data<float>(), reduce_ref(x, c.shape, dims, "mean")),
                      1e-5)
                << "mean " << what;
            EXPECT_EQ(as_doubles(amax), reduce_ref(x, c.shape, dims, "max")) << "amax " << what;
            EXPECT_EQ(as_doubles(amin), reduce_ref(x, c.shape, dims, "min")) << "amin " << what;
        }
    }
    // dim=None means every dim for sum and mean.
    Shape s = {6, 7};
    auto xf = random_floats(42, 7);
    Tensor tx = ctx().tensor(DType::f32, s).set_data(xf);
    Tensor sum = poisoned(DType::f32, {});
    Tensor mean = poisoned(DType::f32, {1, 1});
    ctx().reset();
    ctx().record(op("aten.sum.dim_IntList"), {tx, Arg(), false, Arg(), sum});
    ctx().record(op("aten.mean.dim"), {tx, Arg(), true, Arg(), mean});
    ctx().submit();
    std::vector<double> x(xf.begin(), xf.end());
    EXPECT_LE(max_rel_error(sum.get_data<float>(), reduce_ref(x, s, {0, 1}, "sum")), 1e-5);
    EXPECT_LE(max_rel_error(mean.get_data<float>(), reduce_ref(x, s, {0, 1}, "mean")), 1e-5);
    ctx().reset();
}

TEST(ReduceOps, Float16ReductionsComputeInFloat32) {
    WGX_SKIP_WITHOUT_F16();
    for (const Case& c : cases()) {
        auto h = to_half(random_floats(numel(c.shape), 600 + uint32_t(c.shape.size())));
        std::vector<double> x = from_half(h);
        Tensor tx = ctx().tensor(DType::f16, c.shape).set_data(h);
        auto dims = wrapped(c.dims, c.shape.size());
        // argmax/argmin take one dim or none (every dim).
        std::optional<Arg> arg_dim;
        if (c.dims.size() == 1) arg_dim = Arg(c.dims[0]);
        if (c.dims.empty()) arg_dim = Arg();
        for (bool keepdim : {false, true}) {
            Shape out_shape = reduced(c.shape, dims, keepdim);
            Tensor sum = poisoned_half(out_shape), mean = poisoned_half(out_shape);
            Tensor amax = poisoned_half(out_shape), amin = poisoned_half(out_shape);
            Shape arg_shape =
                c.dims.empty() ? (keepdim ? Shape(c.shape.size(), 1) : Shape{}) : out_shape;
            Tensor argmax = poisoned(DType::i64, arg_shape),
                   argmin = poisoned(DType::i64, arg_shape);
            std::string what = dims_name(c.shape) + (keepdim ? " keepdim" : "");
            ctx().reset();
            ctx().record(op("aten.sum.dim_IntList"), {tx, c.dims, keepdim, Arg(), sum});
            ctx().record(op("aten.mean.dim"), {tx, c.dims, keepdim, Arg(), mean});
            ctx().record(op("aten.amax.default"), {tx, c.dims, keepdim, amax});
            ctx().record(op("aten.amin.default"), {tx, c.dims, keepdim, amin});
            if (arg_dim) {
                ctx().record(op("aten.argmax.default"), {tx, *arg_dim, keepdim, argmax});
                ctx().record(op("aten.argmin.default"), {tx, *arg_dim, keepdim, argmin});
            }
            ctx().submit();
            EXPECT_LE(max_rel_error(half_floats(sum), reduce_ref(x, c.shape, dims, "sum")),
                      kHalfTol)
                << "sum " << what;
            EXPECT_LE(max_rel_error(half_floats(mean), reduce_ref(x, c.shape, dims, "mean")),
                      kHalfTol)
                << "mean " << what;
            EXPECT_EQ(from_half(amax.get_data<uint16_t>()), reduce_ref(x, c.shape, dims, "max"))
                << "amax " << what;
            EXPECT_EQ(from_half(amin.get_data<uint16_t>()), reduce_ref(x, c.shape, dims, "min"))
                << "amin " << what;
            if (arg_dim) {
                EXPECT_EQ(as_doubles(argmax), reduce_ref(x, c.shape, dims, "argmax")) << what;
                EXPECT_EQ(as_doubles(argmin), reduce_ref(x, c.shape, dims, "argmin")) << what;
            }
        }
    }
    // Ties among float16 values (few distinct ones): argmax/argmin give the first index.
    auto ti = random_ints(7 * 1000, 601, -3, 3);
    std::vector<float> tf(ti.begin(), ti.end());
    std::vector<double> tx(ti.begin(), ti.end());
    Tensor tied = ctx().tensor(DType::f16, {7, 1000}).set_data(to_half(tf));
    Tensor argmax = poisoned(DType::i64, {7}), argmin = poisoned(DType::i64, {7});
    // An int32 mean stored as float16 (dtype=torch.float16, ScalarType code 5).
    Tensor ints = ctx().tensor(DType::i32, {7, 1000}).set_data(ti);
    Tensor imean = poisoned_half({7});
    ctx().reset();
    ctx().record(op("aten.argmax.default"), {tied, int64_t(1), false, argmax});
    ctx().record(op("aten.argmin.default"), {tied, int64_t(-1), false, argmin});
    ctx().record(op("aten.mean.dim"), {ints, std::vector<int64_t>{1}, false, int64_t(5), imean});
    ctx().submit();
    EXPECT_EQ(as_doubles(argmax), reduce_ref(tx, {7, 1000}, {1}, "argmax"));
    EXPECT_EQ(as_doubles(argmin), reduce_ref(tx, {7, 1000}, {1}, "argmin"));
    EXPECT_LE(max_rel_error(half_floats(imean), reduce_ref(tx, {7, 1000}, {1}, "mean")), kHalfTol);
    ctx().reset();
}

TEST(ReduceOps, IntegerSumsAreExactAndWidenToInt64) {
    Shape s = {5, 11, 3};
    auto xi = random_ints(numel(s), 200, -100000, 100000);
    std::vector<double> x(xi.begin(), xi.end());
    for (DType dt : {DType::i32, DType::i64}) {
        Tensor tx = ctx().tensor(dt, s);
        if (dt == DType::i32) {
            tx.set_data(xi);
        } else {
            tx.set_data(std::vector<int64_t>(xi.begin(), xi.end()));
        }
        Tensor out = poisoned(DType::i64, {5, 3});
        Tensor amax = poisoned(dt, {5, 1, 3});
        Tensor mean = poisoned(DType::f32, {5, 3});
        ctx().reset();
        ctx().record(op("aten.sum.dim_IntList"), {tx, std::vector<int64_t>{1}, false, Arg(), out});
        ctx().record(op("aten.amax.default"), {tx, std::vector<int64_t>{-2}, true, amax});
        ctx().record(op("aten.mean.dim"), {tx, std::vector<int64_t>{1}, false, int64_t(6), mean});
        ctx().submit();
        EXPECT_EQ(as_doubles(out), reduce_ref(x, s, {1}, "sum")) << dtype_name(dt);
        EXPECT_EQ(as_doubles(amax), reduce_ref(x, s, {1}, "max")) << dtype_name(dt);
        EXPECT_LE(max_rel_error(mean.get_data<float>(), reduce_ref(x, s, {1}, "mean")), 1e-6);
    }
    // Counting true values: bool (packed four to a word) summed into int64.
    std::vector<uint8_t> flags;
    std::vector<double> fx;
    for (int v : random_ints(7 * 13, 201, 0, 1)) {
        flags.push_back(uint8_t(v));
        fx.push_back(v);
    }
    Tensor tb = ctx().tensor(DType::boolean, {7, 13}).set_data(flags);
    Tensor count = poisoned(DType::i64, {13});
    Tensor total = poisoned(DType::i64, {});
    ctx().reset();
    ctx().record(op("aten.sum.dim_IntList"), {tb, std::vector<int64_t>{0}, false, Arg(), count});
    ctx().record(op("aten.sum.default"), {tb, Arg(), total});
    ctx().submit();
    EXPECT_EQ(as_doubles(count), reduce_ref(fx, {7, 13}, {0}, "sum"));
    EXPECT_EQ(as_doubles(total), reduce_ref(fx, {7, 13}, {0, 1}, "sum"));
    ctx().reset();
}

TEST(ReduceOps, ArgmaxArgminFirstIndexOnTies) {
    struct ArgCase {
        Shape shape;
        std::optional<int64_t> dim;
    };
    std::vector<ArgCase> arg_cases = {
        {{1}, 0},
        {{29}, std::nullopt},
        {{7, 1000}, 1},
        {{600, 3}, 0},
        {{300, 257}, -2},
        {{3, 5, 7}, 1},
        {{2, 3, 5, 7}, -1},
        {{4, 1, 6, 5, 3}, std::nullopt},
        {{4, 1, 6, 5, 3}, 2},
    };
    for (const ArgCase& c : arg_cases) {
        // Few distinct values, so ties are everywhere.
        auto xi = random_ints(numel(c.shape), 300, -3, 3);
        std::vector<float> xf(xi.begin(), xi.end());
        std::vector<double> x(xi.begin(), xi.end());
        Tensor tx = ctx().tensor(DType::f32, c.shape).set_data(xf);
        Tensor ti = ctx().tensor(DType::i32, c.shape).set_data(xi);
        std::vector<int64_t> dims;
        if (c.dim) {
            dims = {*c.dim < 0 ? *c.dim + int64_t(c.shape.size()) : *c.dim};
        } else {
            dims = wrapped({}, c.shape.size());
        }
        for (bool keepdim : {false, true}) {
            Shape out_shape = c.dim     ? reduced(c.shape, dims, keepdim)
                              : keepdim ? Shape(c.shape.size(), 1)
                                        : Shape{};
            Arg dim = c.dim ? Arg(*c.dim) : Arg();
            Tensor amax = poisoned(DType::i64, out_shape);
            Tensor amin = poisoned(DType::i64, out_shape);
            Tensor imax = poisoned(DType::i64, out_shape);
            ctx().reset();
            ctx().record(op("aten.argmax.default"), {tx, dim, keepdim, amax});
            ctx().record(op("aten.argmin.default"), {tx, dim, keepdim, amin});
            ctx().record(op("aten.argmax.default"), {ti, dim, keepdim, imax});
            ctx().submit();
            std::string what = dims_name(c.shape) + (keepdim ? " keepdim" : "");
            EXPECT_EQ(as_doubles(amax), reduce_ref(x, c.shape, dims, "argmax")) << what;
            EXPECT_EQ(as_doubles(amin), reduce_ref(x, c.shape, dims, "argmin")) << what;
            EXPECT_EQ(as_doubles(imax), reduce_ref(x, c.shape, dims, "argmax")) << "int32 " << what;
        }
    }
    ctx().reset();
}

TEST(ReduceOps, NaNPropagatesThroughMaxAndArgmax) {
    // NaN wins max, min, argmax and argmin (the first NaN's index), as in PyTorch.
    std::vector<float> xf = {1, 5, NAN, 7, NAN, -2, 3, 4, 9, 0, -1, 2};
    Tensor tx = ctx().tensor(DType::f32, {2, 6}).set_data(xf);
    Tensor amax = poisoned(DType::f32, {2});
    Tensor amin = poisoned(DType::f32, {2});
    Tensor argmax = poisoned(DType::i64, {2});
    Tensor argmin = poisoned(DType::i64, {2});
    ctx().reset();
    ctx().record(op("aten.amax.default"), {tx, std::vector<int64_t>{1}, false, amax});
    ctx().record(op("aten.amin.default"), {tx, std::vector<int64_t>{1}, false, amin});
    ctx().record(op("aten.argmax.default"), {tx, int64_t(1), false, argmax});
    ctx().record(op("aten.argmin.default"), {tx, int64_t(-1), false, argmin});
    ctx().submit();
    auto mx = amax.get_data<float>();
    auto mn = amin.get_data<float>();
    EXPECT_TRUE(std::isnan(mx[0]));
    EXPECT_EQ(mx[1], 9.f);
    EXPECT_TRUE(std::isnan(mn[0]));
    EXPECT_EQ(mn[1], -1.f);
    EXPECT_EQ(argmax.get_data<int64_t>(), (std::vector<int64_t>{2, 2}));
    EXPECT_EQ(argmin.get_data<int64_t>(), (std::vector<int64_t>{2, 4}));
    ctx().reset();
}

// --- softmax ---------------------------------------------------------------------------------

std::vector<double> softmax_ref(const std::vector<double>& x, const Shape& s, int64_t dim,
                                bool log) {
    int64_t inner = 1;
    for (size_t d = size_t(dim) + 1; d < s.size(); ++d) inner *= s[d];
    int64_t n = s[dim];
    std::vector<double> out(x.size());
    for (int64_t row = 0; row < numel(s) / n; ++row) {
        int64_t base = (row / inner) * n * inner + row % inner;
        double m = -INFINITY, sum = 0;
        for (int64_t k = 0; k < n; ++k) m = std::max(m, x[base + k * inner]);
        for (int64_t k = 0; k < n; ++k) sum += std::exp(x[base + k * inner] - m);
        for (int64_t k = 0; k < n; ++k) {
            double v = x[base + k * inner] - m;
            out[base + k * inner] = log ? v - std::log(sum) : std::exp(v) / sum;
        }
    }
    return out;
}

struct SoftmaxCase {
    Shape shape;
    float scale;  // large scales would overflow exp without the max subtraction
};

// Rows shorter and longer than a workgroup (up to 256 invocations), strided and contiguous, odd
// and prime lengths; every dim of each is tested.
const std::vector<SoftmaxCase>& softmax_cases() {
    static const std::vector<SoftmaxCase> c = {
        {{1}, 1},        {{13}, 1},        {{3, 1000}, 30},        {{2, 3, 5, 7}, 1},
        {{300, 5}, 100}, {{2, 600, 3}, 1}, {{1, 7, 1, 3, 11}, 50}, {{5, 37}, 10},
        {{2, 4099}, 5},
    };
    return c;
}

// Softmax and log_softmax of every case on every dim, in float32 (tolerance 1e-5) or float16
// (inputs rounded on the host, kHalfTol).
void check_softmax_every_dim(DType dtype, const std::string& path) {
    for (const SoftmaxCase& c : softmax_cases()) {
        auto xf = random_floats(numel(c.shape), 400);
        for (float& v : xf) v *= c.scale;
        bool half = dtype == DType::f16;
        std::vector<uint16_t> xh = to_half(xf);
        std::vector<double> x = half ? from_half(xh) : std::vector<double>(xf.begin(), xf.end());
        Tensor tx = ctx().tensor(dtype, c.shape);
        if (half) {
            tx.set_data(xh);
        } else {
            tx.set_data(xf);
        }
        int64_t rank = int64_t(c.shape.size());
        for (int64_t dim = -rank; dim < rank; ++dim) {
            int64_t d = dim < 0 ? dim + rank : dim;
            Tensor sm = half ? poisoned_half(c.shape) : poisoned(DType::f32, c.shape);
            Tensor lsm = half ? poisoned_half(c.shape) : poisoned(DType::f32, c.shape);
            ctx().reset();
            ctx().record(op("aten._softmax.default"), {tx, dim, false, sm});
            ctx().record(op("aten._log_softmax.default"), {tx, dim, false, lsm});
            ctx().submit();
            std::string what = std::string(dtype_name(dtype)) + " " + path + " " +
                               dims_name(c.shape) + " dim " + std::to_string(dim);
            double tol = half ? kHalfTol : 1e-5;
            auto got_sm = half ? half_floats(sm) : sm.get_data<float>();
            auto got_lsm = half ? half_floats(lsm) : lsm.get_data<float>();
            EXPECT_LE(max_rel_error(got_sm, softmax_ref(x, c.shape, d, false)), tol)
                << "softmax " << what;
            EXPECT_LE(max_rel_error(got_lsm, softmax_ref(x, c.shape, d, true)), tol)
                << "log_softmax " << what;
        }
    }
    ctx().reset();
}

TEST(ReduceOps, SoftmaxAndLogSoftmaxOnEveryDim) {
    on_both_reduction_paths(
        [](const std::string& path) { check_softmax_every_dim(DType::f32, path); });
    // aten.softmax.int: [self, dim, dtype?, out].
    auto xf = random_floats(35, 401);
    std::vector<double> x(xf.begin(), xf.end());
    Tensor tx = ctx().tensor(DType::f32, {5, 7}).set_data(xf);
    Tensor sm = poisoned(DType::f32, {5, 7});
    ctx().reset();
    ctx().record(op("aten.softmax.int"), {tx, int64_t(1), Arg(), sm});
    ctx().submit();
    EXPECT_LE(max_rel_error(sm.get_data<float>(), softmax_ref(x, {5, 7}, 1, false)), 1e-5);
    ctx().reset();
}

TEST(ReduceOps, Float16SoftmaxComputesInFloat32) {
    WGX_SKIP_WITHOUT_F16();
    on_both_reduction_paths(
        [](const std::string& path) { check_softmax_every_dim(DType::f16, path); });
    // aten.log_softmax.int with dtype=torch.float16 (code 5), self's own dtype.
    auto h = to_half(random_floats(3 * 300, 402));
    Tensor tx = ctx().tensor(DType::f16, {3, 300}).set_data(h);
    Tensor lsm = poisoned_half({3, 300});
    ctx().reset();
    ctx().record(op("aten.log_softmax.int"), {tx, int64_t(-1), int64_t(5), lsm});
    ctx().submit();
    EXPECT_LE(max_rel_error(half_floats(lsm), softmax_ref(from_half(h), {3, 300}, 1, true)),
              kHalfTol);
    ctx().reset();
}

TEST(ReduceOps, SoftmaxRowsUseSubgroupsWhereOffered) {
    // The label of the kernel chosen for rows of 1000, on each path: the subgroup variant
    // exactly where the device has subgroups and WGX_SUBGROUPS is not 0.
    Tensor tx = ctx().tensor(DType::f32, {3, 1000}).set_data(random_floats(3000, 403));
    Tensor sm = poisoned(DType::f32, {3, 1000});
    on_both_reduction_paths([&](const std::string& path) {
        ctx().reset();
        ctx().record(op("aten._softmax.default"), {tx, int64_t(1), false, sm});
        auto labels = recorded_kernels();
        if (labels.empty()) GTEST_SKIP() << "no timestamp queries to read kernel labels";
        bool subgroups = path == "subgroups" && ctx().device_info().features.subgroups;
        EXPECT_EQ(labels,
                  std::vector<std::string>{subgroups ? "aten._softmax.default/workgroup_subgroups"
                                                     : "aten._softmax.default/workgroup"})
            << path;
    });
    ctx().reset();
}

// --- errors ------------------------------------------------------------------------------------

TEST(ReduceOps, BadArgumentsAreRejected) {
    Tensor x = ctx().tensor(DType::f32, {2, 3}).set_data(random_floats(6, 500));
    Tensor xi = ctx().tensor(DType::i32, {2, 3}).set_data(random_ints(6, 501));
    Tensor o2 = ctx().tensor(DType::f32, {2});
    Tensor o3 = ctx().tensor(DType::f32, {3});
    Tensor l2 = ctx().tensor(DType::i64, {2});
    Tensor i2 = ctx().tensor(DType::i32, {2});
    Tensor o23 = ctx().tensor(DType::f32, {2, 3});
    expect_invalid("aten.sum.dim_IntList", {x, std::vector<int64_t>{1}, false, Arg(), o3}, "[2]");
    expect_invalid("aten.sum.dim_IntList", {x, std::vector<int64_t>{2}, false, Arg(), o2}, "dim 2");
    expect_invalid("aten.sum.dim_IntList", {x, std::vector<int64_t>{1, -1}, false, Arg(), o2},
                   "more than once");
    expect_invalid("aten.sum.dim_IntList", {xi, std::vector<int64_t>{1}, false, Arg(), i2},
                   "int64");
    expect_invalid("aten.mean.dim", {xi, std::vector<int64_t>{1}, false, Arg(), o2}, "floating");
    expect_invalid("aten.amax.default", {x, std::vector<int64_t>{1}, false, l2}, "float32");
    expect_invalid("aten.argmax.default", {x, int64_t(1), false, o2}, "int64");
    expect_invalid("aten.argmin.default", {x, int64_t(-3), false, l2}, "dim -3");
    expect_invalid("aten._softmax.default", {x, int64_t(2), false, o23}, "dim 2");
    expect_invalid("aten._softmax.default", {x, int64_t(1), true, o23}, "half_to_float");
    expect_invalid("aten._log_softmax.default", {xi, int64_t(1), false, o23}, "int32");
    expect_invalid("aten._log_softmax.default", {x, int64_t(1), false, o3}, "out");
}

TEST(ReduceOps, Float16DoesNotMixWithFloat32) {
    WGX_SKIP_WITHOUT_F16();
    Tensor h = ctx().tensor(DType::f16, {2, 3}).set_data(to_half(random_floats(6, 502)));
    Tensor f2 = ctx().tensor(DType::f32, {2});
    Tensor f23 = ctx().tensor(DType::f32, {2, 3});
    Tensor h2 = ctx().tensor(DType::f16, {2});
    Tensor h23 = ctx().tensor(DType::f16, {2, 3});
    Tensor x = ctx().tensor(DType::f32, {2, 3}).set_data(random_floats(6, 503));
    // sum of float16 into float32 (dtype=torch.float32, code 6), and the other way round.
    expect_invalid("aten.sum.dim_IntList", {h, std::vector<int64_t>{1}, false, int64_t(6), f2},
                   "both must be float16 or neither");
    expect_invalid("aten.mean.dim", {x, std::vector<int64_t>{1}, false, int64_t(5), h2},
                   "both must be float16 or neither");
    expect_invalid("aten.amax.default", {h, std::vector<int64_t>{1}, false, f2}, "float16");
    expect_invalid("aten._softmax.default", {h, int64_t(1), false, f23}, "expected float16");
    expect_invalid("aten._softmax.default", {h, int64_t(1), true, f23}, "half_to_float");
    // aten.softmax.int's dtype (an int; errors name the op by its main name, _softmax).
    expect_invalid("aten._softmax.default", {h, int64_t(1), int64_t(6), h23}, "differs from self");
    expect_invalid("aten._log_softmax.default", {x, int64_t(1), false, h23}, "expected float32");
}

TEST(ReduceOps, Float16NeedsShaderF16) {
    // A device made without optional features has no shader-f16: float16 is refused clearly.
    DeviceOptions options;
    options.request_optional_features = false;
    Context plain = Context::create(options);
    ASSERT_FALSE(plain.device_info().features.shader_f16);
    Tensor h = plain.tensor(DType::f16, {2, 3}).set_data(to_half(random_floats(6, 504)));
    Tensor h2 = plain.tensor(DType::f16, {2});
    Tensor h23 = plain.tensor(DType::f16, {2, 3});
    Tensor l2 = plain.tensor(DType::i64, {2});
    auto expect_refused = [&](std::string_view name, std::vector<Arg> args) {
        expect_refused_without_f16(plain, name, std::move(args));
    };
    expect_refused("aten.sum.dim_IntList", {h, std::vector<int64_t>{1}, false, Arg(), h2});
    expect_refused("aten.amax.default", {h, std::vector<int64_t>{1}, false, h2});
    expect_refused("aten.argmax.default", {h, int64_t(1), false, l2});
    expect_refused("aten._softmax.default", {h, int64_t(1), false, h23});
    expect_refused("aten._log_softmax.default", {h, int64_t(0), false, h23});
    plain.destroy();
}

}  // namespace
}  // namespace wgx::test

namespace wgx::test {
namespace {

// The inclusive prefix sums of `v` (shape s) along dim d, in float64.
std::vector<double> cumsum_ref(const std::vector<double>& v, const Shape& s, int64_t d) {
    int64_t inner = 1;
    for (size_t k = size_t(d) + 1; k < s.size(); ++k) inner *= s[k];
    const int64_t n = s[size_t(d)], outer = numel(s) / (n * inner);
    std::vector<double> out(v.size());
    for (int64_t o = 0; o < outer; ++o) {
        for (int64_t i = 0; i < inner; ++i) {
            double acc = 0;
            for (int64_t k = 0; k < n; ++k) {
                const size_t at = size_t((o * n + k) * inner + i);
                acc += v[at];
                out[at] = acc;
            }
        }
    }
    return out;
}

TEST(ReduceOps, CumsumAlongEachDimOfFloatsAndIntegers) {
    const Shape s = {3, 5, 7};
    const auto f = random_floats(size_t(numel(s)), 71);
    const auto ints = random_ints(size_t(numel(s)), 72);
    for (int64_t dim : {0, 1, 2, -1, -3}) {
        const int64_t d = dim < 0 ? dim + 3 : dim;
        // float32: summed in order in float32, so within a few ulps of the running |sum|.
        {
            Tensor x = ctx().tensor(DType::f32, s).set_data(f);
            Tensor out = ctx().tensor(DType::f32, s);
            poison(out);
            ctx().reset();
            ctx().record(op("aten.cumsum.default"), {x, dim, Arg(), out});
            ctx().submit();
            const auto got = out.get_data<float>();
            std::vector<double> abs_f;
            for (float v : f) abs_f.push_back(std::abs(v));
            const auto want = cumsum_ref({f.begin(), f.end()}, s, d);
            const auto scale = cumsum_ref(abs_f, s, d);
            for (size_t i = 0; i < got.size(); ++i) {
                EXPECT_NEAR(got[i], want[i], 8 * 0x1p-24 * std::max(1.0, scale[i]))
                    << "dim " << dim << " at " << i;
            }
        }
        // int32 and int64 (int32 in, int64 out: PyTorch's promotion): exact.
        for (const auto& [in_type, out_type] :
             {std::pair{DType::i32, DType::i32}, std::pair{DType::i64, DType::i64},
              std::pair{DType::i32, DType::i64}}) {
            Tensor x = ctx().tensor(in_type, s);
            if (in_type == DType::i32) {
                x.set_data(ints);
            } else {
                x.set_data(std::vector<int64_t>(ints.begin(), ints.end()));
            }
            Tensor out = ctx().tensor(out_type, s);
            ctx().reset();
            ctx().record(op("aten.cumsum.default"), {x, dim, Arg(), out});
            ctx().submit();
            std::vector<double> got;
            if (out_type == DType::i32) {
                for (int32_t v : out.get_data<int32_t>()) got.push_back(v);
            } else {
                for (int64_t v : out.get_data<int64_t>()) got.push_back(double(v));
            }
            EXPECT_EQ(got, cumsum_ref({ints.begin(), ints.end()}, s, d))
                << "dim " << dim << " " << dtype_name(in_type) << " -> " << dtype_name(out_type);
        }
    }
    // float16: float16 inputs summed in float32, each output rounded once.
    if (ctx().device_info().features.shader_f16) {
        const auto h = round_to_half(f);
        Tensor x = half_tensor(s, h);
        Tensor out = ctx().tensor(DType::f16, s);
        ctx().reset();
        ctx().record(op("aten.cumsum.default"), {x, int64_t(1), Arg(), out});
        ctx().submit();
        const auto bits = out.get_data<uint16_t>();
        const auto want = cumsum_ref({h.begin(), h.end()}, s, 1);
        for (size_t i = 0; i < bits.size(); ++i) {
            EXPECT_NEAR(half_to_float(bits[i]), want[i], 1e-3 * std::max(1.0, std::abs(want[i])))
                << "float16 at " << i;
        }
    }
    // Bool input and a converting out are refused.
    Tensor flags = ctx().tensor(DType::boolean, {4});
    Tensor counts = ctx().tensor(DType::i64, {4});
    EXPECT_THROW(ctx().record(op("aten.cumsum.default"), {flags, int64_t(0), Arg(), counts}),
                 InvalidArgument);
    Tensor x = ctx().tensor(DType::f32, {4});
    EXPECT_THROW(ctx().record(op("aten.cumsum.default"), {x, int64_t(0), Arg(), counts}),
                 InvalidArgument);
    ctx().reset();
}

}  // namespace
}  // namespace wgx::test

namespace wgx::test {
namespace {

// The stable ascending (or descending) order of each line of `v` along dim d, NaN largest, and
// the first k of it: {values, indices}.
std::pair<std::vector<double>, std::vector<int64_t>> sort_ref(const std::vector<double>& v,
                                                              const Shape& s, int64_t d, int64_t k,
                                                              bool descending) {
    int64_t inner = 1;
    for (size_t j = size_t(d) + 1; j < s.size(); ++j) inner *= s[j];
    const int64_t n = s[size_t(d)], outer = numel(s) / (n * inner);
    auto greater = [](double a, double b) { return (std::isnan(a) && !std::isnan(b)) || a > b; };
    std::vector<double> values(size_t(outer * k * inner));
    std::vector<int64_t> indices(values.size());
    for (int64_t o = 0; o < outer; ++o) {
        for (int64_t c = 0; c < inner; ++c) {
            std::vector<int64_t> order(static_cast<size_t>(n));
            for (int64_t i = 0; i < n; ++i) order[size_t(i)] = i;
            auto at = [&](int64_t i) { return v[size_t((o * n + i) * inner + c)]; };
            std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
                return descending ? greater(at(a), at(b)) : greater(at(b), at(a));
            });
            for (int64_t r = 0; r < k; ++r) {
                values[size_t((o * k + r) * inner + c)] = at(order[size_t(r)]);
                indices[size_t((o * k + r) * inner + c)] = order[size_t(r)];
            }
        }
    }
    return {values, indices};
}

// Bits-equal comparison that treats NaN as equal to NaN.
void expect_same_values(const std::vector<float>& got, const std::vector<double>& want,
                        const std::string& what) {
    ASSERT_EQ(got.size(), want.size()) << what;
    for (size_t i = 0; i < got.size(); ++i) {
        if (std::isnan(want[i])) {
            EXPECT_TRUE(std::isnan(got[i])) << what << " at " << i;
        } else {
            EXPECT_EQ(double(got[i]), want[i]) << what << " at " << i;
        }
    }
}

TEST(ReduceOps, SortAndTopkAlongEachDimWithTiesAndNaN) {
    const Shape s = {3, 6, 5};
    // Values in steps of 0.5 (ties occur) and two NaNs.
    auto ints = random_ints(size_t(numel(s)), 81, -4, 4);
    std::vector<float> f;
    for (int v : ints) f.push_back(0.5f * float(v));
    f[4] = NAN;
    f[17] = NAN;
    const std::vector<double> fd(f.begin(), f.end());
    for (int64_t dim : {0, 1, 2, -1}) {
        const int64_t d = dim < 0 ? dim + 3 : dim;
        for (bool descending : {false, true}) {
            for (const char* name : {"aten.sort.default", "aten.topk.default"}) {
                const bool topk = std::string(name) == "aten.topk.default";
                const int64_t k = topk ? 3 : s[size_t(d)];
                Shape out_shape = s;
                out_shape[size_t(d)] = k;
                Tensor x = ctx().tensor(DType::f32, s).set_data(f);
                Tensor values = ctx().tensor(DType::f32, out_shape);
                Tensor indices = ctx().tensor(DType::i64, out_shape);
                poison(values);
                ctx().reset();
                if (topk) {
                    ctx().record(op(name), {x, k, dim, descending, true, values, indices});
                } else {
                    ctx().record(op(name), {x, dim, descending, values, indices});
                }
                ctx().submit();
                const auto [want_v, want_i] = sort_ref(fd, s, d, k, descending);
                const std::string what = std::string(name) + " dim " + std::to_string(dim) +
                                         (descending ? " descending" : " ascending");
                expect_same_values(values.get_data<float>(), want_v, what);
                EXPECT_EQ(indices.get_data<int64_t>(), want_i) << what;
                ctx().reset();
            }
        }
    }
    // int32, and sort.stable's argument order.
    Tensor x = ctx().tensor(DType::i32, s).set_data(ints);
    Tensor values = ctx().tensor(DType::i32, s);
    Tensor indices = ctx().tensor(DType::i64, s);
    ctx().reset();
    ctx().record(op("aten.sort.stable"), {x, true, int64_t(1), false, values, indices});
    ctx().submit();
    const auto [want_v, want_i] =
        sort_ref(std::vector<double>(ints.begin(), ints.end()), s, 1, 6, false);
    std::vector<double> got_v;
    for (int32_t v : values.get_data<int32_t>()) got_v.push_back(v);
    EXPECT_EQ(got_v, want_v);
    EXPECT_EQ(indices.get_data<int64_t>(), want_i);
    // k beyond the dim is refused.
    Tensor small = ctx().tensor(DType::f32, {2, 3});
    Tensor v4 = ctx().tensor(DType::f32, {2, 4});
    Tensor i4 = ctx().tensor(DType::i64, {2, 4});
    EXPECT_THROW(
        ctx().record(op("aten.topk.default"), {small, int64_t(4), int64_t(1), true, true, v4, i4}),
        InvalidArgument);
    ctx().reset();
}

}  // namespace
}  // namespace wgx::test
