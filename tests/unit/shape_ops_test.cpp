// Shape ops (view/permute/cat/split/slice/select/unsqueeze/squeeze/expand/clone/_to_copy/repeat/
// flip/roll/constant_pad_nd/alias) against references written here: exact equality, every dtype
// (packed bool/uint8/int8 and float16 included), ranks 1..5 with sizes 1, odd and prime, and a
// grid large enough to fold.
#include <cstring>
#include <functional>
#include <limits>
#include <optional>

#include "base/half.h"
#include "test_util.h"

namespace wgx::test {
namespace {

const std::vector<DType> kAllTypes = {DType::f32,     DType::f16, DType::i32, DType::i64,
                                      DType::boolean, DType::u8,  DType::i8,  DType::f64};

// --- values of any dtype, carried as doubles on the host ----------------------------------------

uint16_t f16_from(double v) { return float_to_half(static_cast<float>(v)); }
double f16_to(uint16_t h) { return half_to_float(h); }

void fill(Tensor& t, const std::vector<double>& v) {
    switch (t.dtype()) {
        case DType::f32: t.set_data(std::vector<float>(v.begin(), v.end())); break;
        case DType::f64: t.set_data(v); break;
        case DType::i32: t.set_data(std::vector<int32_t>(v.begin(), v.end())); break;
        case DType::i64: t.set_data(std::vector<int64_t>(v.begin(), v.end())); break;
        case DType::i8: t.set_data(std::vector<int8_t>(v.begin(), v.end())); break;
        case DType::u8: t.set_data(std::vector<uint8_t>(v.begin(), v.end())); break;
        case DType::boolean: {
            std::vector<uint8_t> b;
            for (double x : v) b.push_back(x != 0);
            t.set_data(b);
            break;
        }
        case DType::f16: {
            std::vector<uint16_t> h;
            for (double x : v) h.push_back(f16_from(x));
            t.set_data(h);
            break;
        }
    }
}

Tensor make(DType dt, const Shape& shape, const std::vector<double>& v) {
    Tensor t = ctx().tensor(dt, shape);
    fill(t, v);
    return t;
}

std::vector<double> read(const Tensor& t) {
    switch (t.dtype()) {
        case DType::f32: {
            auto v = t.get_data<float>();
            return {v.begin(), v.end()};
        }
        case DType::f64: return t.get_data<double>();
        case DType::i32: {
            auto v = t.get_data<int32_t>();
            return {v.begin(), v.end()};
        }
        case DType::i64: {
            auto v = t.get_data<int64_t>();
            return {v.begin(), v.end()};
        }
        case DType::i8: {
            auto v = t.get_data<int8_t>();
            return {v.begin(), v.end()};
        }
        case DType::u8:
        case DType::boolean: {
            auto v = t.get_data<uint8_t>();
            return {v.begin(), v.end()};
        }
        case DType::f16: {
            std::vector<double> r;
            for (uint16_t h : t.get_data<uint16_t>()) r.push_back(f16_to(h));
            return r;
        }
    }
    return {};
}

// Fixed-seed values exactly representable in dt, never all zero.
std::vector<double> sample(DType dt, size_t n, uint32_t seed) {
    std::vector<double> v;
    switch (dt) {
        case DType::f32:
        case DType::f64:
            for (float x : random_floats(n, seed)) v.push_back(x);
            return v;
        case DType::f16:
            for (int x : random_ints(n, seed, -1000, 1000)) v.push_back(x / 8.0);
            break;
        case DType::boolean:
            for (int x : random_ints(n, seed, 0, 1)) v.push_back(x);
            break;
        case DType::u8:
            for (int x : random_ints(n, seed, 0, 255)) v.push_back(x);
            break;
        case DType::i8:
            for (int x : random_ints(n, seed, -128, 127)) v.push_back(x);
            break;
        default:
            for (int x : random_ints(n, seed, -100000, 100000)) v.push_back(x);
            break;
    }
    v[0] = v[0] == 0 ? 1 : v[0];
    return v;
}

// Fills a tensor with a value no test output holds, so unwritten elements show up.
void poison_any(Tensor& t) {
    if (t.dtype() == DType::boolean) {  // a byte that is neither 0 nor 1
        t.set_bytes(std::vector<std::byte>(t.numel(), std::byte{0xA5}));
        return;
    }
    double v = -123457;
    if (t.dtype() == DType::f32 || t.dtype() == DType::f64) v = NAN;
    if (t.dtype() == DType::f16) v = -1000.125;
    if (t.dtype() == DType::u8) v = 0xA5;
    if (t.dtype() == DType::i8) v = -91;
    fill(t, std::vector<double>(t.numel(), v));
}

Tensor output(DType dt, const Shape& shape) {
    Tensor t = ctx().tensor(dt, shape);
    poison_any(t);
    return t;
}

void run(std::string_view name, std::vector<Arg> args) {
    ctx().reset();
    ctx().record(op(name), args);
    ctx().submit();
}

// --- index arithmetic for references -----------------------------------------------------------

std::vector<int64_t> unravel(int64_t i, const Shape& s) {
    std::vector<int64_t> c(s.size());
    for (size_t d = s.size(); d-- > 0;) {
        c[d] = i % s[d];
        i /= s[d];
    }
    return c;
}

int64_t ravel(const std::vector<int64_t>& c, const Shape& s) {
    int64_t i = 0;
    for (size_t d = 0; d < s.size(); ++d) i = i * s[d] + c[d];
    return i;
}

// out[o] = in[source(coords of o)], or `fill` where source returns nullopt.
std::vector<double> gather_ref(
    const std::vector<double>& in, const Shape& in_shape, const Shape& out_shape,
    const std::function<std::optional<std::vector<int64_t>>(const std::vector<int64_t>&)>& source,
    double fill = 0) {
    std::vector<double> out(numel(out_shape));
    for (int64_t o = 0; o < numel(out_shape); ++o) {
        auto c = source(unravel(o, out_shape));
        out[o] = c ? in[ravel(*c, in_shape)] : fill;
    }
    return out;
}

std::string dims_name(const Shape& s) {
    std::string r;
    for (auto d : s) r += (r.empty() ? "" : "x") + std::to_string(d);
    return r.empty() ? "scalar" : r;
}

// --- reshapes: buffer copies ------------------------------------------------------------------

TEST(ShapeOps, ViewCopyInfersMinusOneForEveryDtype) {
    for (DType dt : kAllTypes) {
        auto v = sample(dt, 2 * 3 * 5 * 7, 1);
        Tensor x = make(dt, {2, 3, 5, 7}, v);
        Tensor a = output(dt, {6, 35});
        Tensor b = output(dt, {5, 1, 42});
        run("aten.view_copy.default", {x, std::vector<int64_t>{6, -1}, a});
        EXPECT_EQ(read(a), v) << dtype_name(dt);
        run("aten._unsafe_view.default", {x, std::vector<int64_t>{5, 1, -1}, b});
        EXPECT_EQ(read(b), v) << dtype_name(dt);
    }
    Tensor x = make(DType::f32, {13}, sample(DType::f32, 13, 2));
    Tensor s = output(DType::f32, {1, 13, 1});
    run("aten.view_copy.default", {x, std::vector<int64_t>{1, 13, 1}, s});
    EXPECT_EQ(read(s), read(x));
}

TEST(ShapeOps, UnsqueezeSqueezeCloneAliasAreCopies) {
    struct Case {
        std::string name;
        std::vector<Arg> extra;
        Shape out;
    };
    std::vector<Case> cases = {
        {"aten.unsqueeze_copy.default", {int64_t(0)}, {1, 3, 1, 7}},
        {"aten.unsqueeze_copy.default", {int64_t(3)}, {3, 1, 7, 1}},
        {"aten.unsqueeze_copy.default", {int64_t(-1)}, {3, 1, 7, 1}},
        {"aten.unsqueeze_copy.default", {int64_t(-4)}, {1, 3, 1, 7}},
        {"aten.squeeze_copy.dims", {std::vector<int64_t>{-2}}, {3, 7}},
        {"aten.squeeze_copy.dims", {std::vector<int64_t>{0, 1}}, {3, 7}},  // dim 0 is not 1: kept
        {"aten.squeeze_copy.dim", {int64_t(2)}, {3, 1, 7}},
        {"aten.squeeze_copy.default", {}, {3, 7}},
        {"aten.clone.default", {Arg()}, {3, 1, 7}},
        {"aten.alias_copy.default", {}, {3, 1, 7}},
        {"aten.alias.default", {}, {3, 1, 7}},
    };
    // 21 elements: float16 ends in half a word.
    for (DType dt : {DType::i64, DType::f16}) {
        auto v = sample(dt, 3 * 7, 3);
        Tensor x = make(dt, {3, 1, 7}, v);
        for (const Case& c : cases) {
            Tensor out = output(dt, c.out);
            std::vector<Arg> args = {x};
            args.insert(args.end(), c.extra.begin(), c.extra.end());
            args.push_back(out);
            run(c.name, args);
            EXPECT_EQ(read(out), v) << c.name << " " << dtype_name(dt);
        }
    }
    Tensor one = make(DType::boolean, {1}, {1});
    Tensor scalar = output(DType::boolean, {});
    run("aten.squeeze_copy.default", {one, scalar});
    EXPECT_EQ(read(scalar), std::vector<double>{1});
}

// --- gathers ---------------------------------------------------------------------------------

TEST(ShapeOps, PermuteRanksOneToFive) {
    struct Case {
        Shape in;
        std::vector<int64_t> perm;
    };
    std::vector<Case> cases = {
        {{13}, {0}},
        {{1}, {-1}},
        {{7, 5}, {1, 0}},
        {{3, 1, 5}, {2, 0, 1}},
        {{2, 3, 5, 7}, {0, 2, 3, 1}},   // NCHW -> NHWC
        {{2, 7, 5, 3}, {0, 3, -3, 2}},  // NHWC -> NCHW, negative dim
        {{2, 3, 1, 5, 4}, {4, 2, 0, 3, 1}},
        {{3, 4, 5}, {0, 1, 2}},  // identity: one merged dim
    };
    for (const Case& c : cases) {
        Shape out_shape;
        std::vector<int64_t> perm;
        for (auto p : c.perm) perm.push_back(p < 0 ? p + int64_t(c.in.size()) : p);
        for (auto p : perm) out_shape.push_back(c.in[p]);
        auto v = sample(DType::f32, numel(c.in), 4);
        auto want = gather_ref(v, c.in, out_shape, [&](const std::vector<int64_t>& o) {
            std::vector<int64_t> i(o.size());
            for (size_t d = 0; d < o.size(); ++d) i[perm[d]] = o[d];
            return std::optional(i);
        });
        Tensor x = make(DType::f32, c.in, v);
        Tensor out = output(DType::f32, out_shape);
        run("aten.permute_copy.default", {x, c.perm, out});
        EXPECT_EQ(read(out), want) << dims_name(c.in);
    }
}

TEST(ShapeOps, PermuteEveryDtype) {
    // Packed types (bool, uint8, int8: 4 per word; float16: 2) with odd sizes, so words hold
    // elements of different rows.
    Shape in = {3, 5, 7};
    Shape out_shape = {7, 3, 5};
    for (DType dt : kAllTypes) {
        auto v = sample(dt, numel(in), 5);
        auto want = gather_ref(v, in, out_shape, [](const std::vector<int64_t>& o) {
            return std::optional(std::vector<int64_t>{o[1], o[2], o[0]});
        });
        Tensor x = make(dt, in, v);
        Tensor out = output(dt, out_shape);
        run("aten.permute_copy.default", {x, std::vector<int64_t>{2, 0, 1}, out});
        EXPECT_EQ(read(out), want) << dtype_name(dt);
    }
}

TEST(ShapeOps, SliceWithStepsAndOpenEnds) {
    const int64_t kEnd = std::numeric_limits<int64_t>::max();
    Shape in = {5, 11, 3};
    struct Case {
        int64_t dim;
        Arg start, end;
        int64_t step;
    };
    std::vector<Case> cases = {
        {1, int64_t(2), kEnd, 3},   // 2, 5, 8
        {1, int64_t(-4), kEnd, 1},  // last four
        {-2, Arg(), Arg(), 2},      // none: whole dim
        {0, int64_t(1), int64_t(-1), 1},
        {2, int64_t(1), int64_t(2), 1},
        {0, int64_t(-100), int64_t(100), 4},  // clamped
        {1, int64_t(10), kEnd, 5},            // one element
    };
    for (DType dt : {DType::f32, DType::u8, DType::boolean, DType::f16, DType::i64}) {
        auto v = sample(dt, numel(in), 6);
        Tensor x = make(dt, in, v);
        for (const Case& c : cases) {
            int64_t dim = c.dim < 0 ? c.dim + 3 : c.dim;
            int64_t size = in[dim];
            int64_t start = c.start.is_none() ? 0 : std::get<int64_t>(c.start.value());
            int64_t end = c.end.is_none() ? kEnd : std::get<int64_t>(c.end.value());
            if (start < 0) start += size;
            if (end < 0) end += size;
            start = std::clamp<int64_t>(start, 0, size);
            end = std::clamp<int64_t>(end, start, size);
            Shape out_shape = in;
            out_shape[dim] = (end - start + c.step - 1) / c.step;
            auto want = gather_ref(v, in, out_shape, [&](std::vector<int64_t> o) {
                o[dim] = start + o[dim] * c.step;
                return std::optional(o);
            });
            Tensor out = output(dt, out_shape);
            run("aten.slice_copy.Tensor", {x, c.dim, c.start, c.end, c.step, out});
            EXPECT_EQ(read(out), want) << dtype_name(dt) << " dim " << c.dim << " step " << c.step;
        }
    }
}

TEST(ShapeOps, SelectNegativeDimAndIndex) {
    Shape in = {4, 3, 5, 2};
    for (DType dt : {DType::f32, DType::i8, DType::f16}) {
        auto v = sample(dt, numel(in), 7);
        Tensor x = make(dt, in, v);
        for (auto [dim, index] :
             std::vector<std::pair<int64_t, int64_t>>{{0, 3}, {1, -1}, {-2, 2}, {3, 0}, {-1, -2}}) {
            int64_t d = dim < 0 ? dim + 4 : dim;
            int64_t i = index < 0 ? index + in[d] : index;
            Shape out_shape = in;
            out_shape.erase(out_shape.begin() + d);
            auto want = gather_ref(v, in, out_shape, [&](std::vector<int64_t> o) {
                o.insert(o.begin() + d, i);
                return std::optional(o);
            });
            Tensor out = output(dt, out_shape);
            run("aten.select_copy.int", {x, dim, index, out});
            EXPECT_EQ(read(out), want) << dtype_name(dt) << " dim " << dim << " index " << index;
        }
    }
    Tensor v = make(DType::i32, {7}, sample(DType::i32, 7, 8));
    Tensor s = output(DType::i32, {});
    run("aten.select_copy.int", {v, int64_t(0), int64_t(-3), s});
    EXPECT_EQ(read(s), std::vector<double>{read(v)[4]});
}

TEST(ShapeOps, ExpandRepeatFlip) {
    for (DType dt : {DType::f32, DType::boolean, DType::f16, DType::i64}) {
        // expand: [3, 1, 5] -> [2, 3, 7, 5] with -1 and a new leading dim.
        Shape in = {3, 1, 5};
        auto v = sample(dt, numel(in), 9);
        Tensor x = make(dt, in, v);
        Shape e_shape = {2, 3, 7, 5};
        Tensor e = output(dt, e_shape);
        run("aten.expand_copy.default", {x, std::vector<int64_t>{2, -1, 7, -1}, false, e});
        EXPECT_EQ(read(e), gather_ref(v, in, e_shape,
                                      [](const std::vector<int64_t>& o) {
                                          return std::optional(std::vector<int64_t>{o[1], 0, o[3]});
                                      }))
            << "expand " << dtype_name(dt);

        // repeat: [3, 1, 5] by [2, 1, 3, 2] -> [2, 3, 3, 10].
        Shape r_shape = {2, 3, 3, 10};
        Tensor r = output(dt, r_shape);
        run("aten.repeat.default", {x, std::vector<int64_t>{2, 1, 3, 2}, r});
        EXPECT_EQ(
            read(r),
            gather_ref(v, in, r_shape,
                       [](const std::vector<int64_t>& o) {
                           return std::optional(std::vector<int64_t>{o[1] % 3, o[2] % 1, o[3] % 5});
                       }))
            << "repeat " << dtype_name(dt);

        // flip of dims {0, -1} and of nothing.
        Tensor f = output(dt, in);
        run("aten.flip.default", {x, std::vector<int64_t>{0, -1}, f});
        EXPECT_EQ(
            read(f),
            gather_ref(v, in, in,
                       [](const std::vector<int64_t>& o) {
                           return std::optional(std::vector<int64_t>{2 - o[0], o[1], 4 - o[2]});
                       }))
            << "flip " << dtype_name(dt);
        Tensor g = output(dt, in);
        run("aten.flip.default", {x, std::vector<int64_t>{}, g});
        EXPECT_EQ(read(g), v) << "flip [] " << dtype_name(dt);
    }
    // rank 5 repeat of a rank-2 input and a 1-D flip.
    Shape in = {3, 2};
    auto v = sample(DType::u8, 6, 10);
    Tensor x = make(DType::u8, in, v);
    Shape r_shape = {2, 1, 3, 3, 4};
    Tensor r = output(DType::u8, r_shape);
    run("aten.repeat.default", {x, std::vector<int64_t>{2, 1, 3, 1, 2}, r});
    EXPECT_EQ(read(r), gather_ref(v, in, r_shape, [](const std::vector<int64_t>& o) {
                  return std::optional(std::vector<int64_t>{o[3], o[4] % 2});
              }));
    auto w = sample(DType::f32, 17, 11);
    Tensor y = make(DType::f32, {17}, w);
    Tensor fy = output(DType::f32, {17});
    run("aten.flip.default", {y, std::vector<int64_t>{0}, fy});
    EXPECT_EQ(read(fy), std::vector<double>(w.rbegin(), w.rend()));
}

// torch.roll's definition: out[c] = in[(c - shift) mod n] along each rolled dim.
int64_t rolled(int64_t c, int64_t shift, int64_t n) { return (((c - shift) % n) + n) % n; }

TEST(ShapeOps, RollAlongDimsAndFlattened) {
    for (DType dt : kAllTypes) {
        // [3, 5, 7]: a negative shift, one beyond the size, two shifts on one dim (they add),
        // and a dim of size 1.
        const Shape in = {3, 5, 7};
        auto v = sample(dt, numel(in), 21);
        Tensor x = make(dt, in, v);
        Tensor r = output(dt, in);
        run("aten.roll.default",
            {x, std::vector<int64_t>{-2, 9, 1, 3}, std::vector<int64_t>{1, -1, 0, 0}, r});
        EXPECT_EQ(read(r),
                  gather_ref(v, in, in,
                             [](const std::vector<int64_t>& o) {
                                 return std::optional(std::vector<int64_t>{
                                     rolled(o[0], 4, 3), rolled(o[1], -2, 5), rolled(o[2], 9, 7)});
                             }))
            << "roll dims " << dtype_name(dt);
        // No dims: the flattened tensor, by a shift larger than it and negative.
        for (int64_t shift : {17, -110, 0}) {
            Tensor f = output(dt, in);
            run("aten.roll.default", {x, std::vector<int64_t>{shift}, std::vector<int64_t>{}, f});
            std::vector<double> want(v.size());
            const auto n = static_cast<int64_t>(v.size());
            for (int64_t i = 0; i < n; ++i) want[i] = v[rolled(i, shift, n)];
            EXPECT_EQ(read(f), want) << "roll flat " << shift << " " << dtype_name(dt);
        }
    }
    // A rank-1 roll of 1 element and a rank-5 one.
    Tensor one = make(DType::f32, {1}, {4.5});
    Tensor o1 = output(DType::f32, {1});
    run("aten.roll.default", {one, std::vector<int64_t>{5}, std::vector<int64_t>{0}, o1});
    EXPECT_EQ(read(o1), std::vector<double>{4.5});
    const Shape in5 = {2, 1, 3, 2, 5};
    auto w = sample(DType::i32, numel(in5), 22);
    Tensor y = make(DType::i32, in5, w);
    Tensor o5 = output(DType::i32, in5);
    run("aten.roll.default", {y, std::vector<int64_t>{1, -4}, std::vector<int64_t>{4, 2}, o5});
    EXPECT_EQ(read(o5), gather_ref(w, in5, in5, [](const std::vector<int64_t>& o) {
                  return std::optional(std::vector<int64_t>{o[0], o[1], rolled(o[2], -4, 3), o[3],
                                                            rolled(o[4], 1, 5)});
              }));
    // Mismatched shifts and dims, and one shift too many without dims, are refused.
    Tensor bad = output(DType::i32, in5);
    EXPECT_THROW(
        run("aten.roll.default", {y, std::vector<int64_t>{1, 2}, std::vector<int64_t>{0}, bad}),
        InvalidArgument);
    EXPECT_THROW(
        run("aten.roll.default", {y, std::vector<int64_t>{1, 2}, std::vector<int64_t>{}, bad}),
        InvalidArgument);
    EXPECT_THROW(
        run("aten.roll.default", {y, std::vector<int64_t>{1}, std::vector<int64_t>{5}, bad}),
        InvalidArgument);
}

TEST(ShapeOps, IndexSelectAlongEachDimOf32And16BitTypes) {
    const Shape in = {3, 5, 4};
    for (DType dt : {DType::f32, DType::f16, DType::i32, DType::i64, DType::f64}) {
        auto v = sample(dt, numel(in), 31);
        Tensor x = make(dt, in, v);
        for (int64_t dim : {0, 1, -1}) {
            const int64_t d = dim < 0 ? dim + 3 : dim;
            // Repeats, reversed order, and one index outside [0, size) (its slice is zeros).
            const std::vector<int64_t> idx = {in[d] - 1, 0, 2, 2, in[d] + 3};
            for (DType it : {DType::i64, DType::i32}) {
                Tensor index = make(it, {5}, std::vector<double>(idx.begin(), idx.end()));
                Shape out_shape = in;
                out_shape[d] = 5;
                Tensor out = output(dt, out_shape);
                run("aten.index_select.default", {x, dim, index, out});
                EXPECT_EQ(read(out),
                          gather_ref(v, in, out_shape,
                                     [&](const std::vector<int64_t>& o) {
                                         auto c = o;
                                         c[d] = idx[o[d]];
                                         if (c[d] >= in[d]) {
                                             return std::optional<std::vector<int64_t>>();
                                         }
                                         return std::optional(c);
                                     }))
                    << "index_select dim " << dim << " " << dtype_name(dt) << " by "
                    << dtype_name(it);
            }
        }
    }
    // Byte types, a 2-D index and a float index are refused.
    Tensor flags = make(DType::boolean, {4}, {1, 0, 1, 1});
    Tensor one = make(DType::i64, {1}, {0});
    Tensor flag_out = output(DType::boolean, {1});
    EXPECT_THROW(run("aten.index_select.default", {flags, int64_t(0), one, flag_out}),
                 InvalidArgument);
    Tensor x = make(DType::f32, in, sample(DType::f32, numel(in), 32));
    Tensor idx2 = make(DType::i64, {1, 2}, {0, 1});
    Tensor fidx = make(DType::f32, {2}, {0, 1});
    Tensor out = output(DType::f32, {3, 2, 4});
    EXPECT_THROW(run("aten.index_select.default", {x, int64_t(1), idx2, out}), InvalidArgument);
    EXPECT_THROW(run("aten.index_select.default", {x, int64_t(1), fidx, out}), InvalidArgument);
}

TEST(ShapeOps, GatherAlongEachDimWithSmallerIndexShapes) {
    const Shape in = {3, 5, 4};
    for (DType dt : {DType::f32, DType::f16, DType::i32, DType::i64}) {
        auto v = sample(dt, numel(in), 41);
        Tensor x = make(dt, in, v);
        for (int64_t dim : {0, 1, -1}) {
            const int64_t d = dim < 0 ? dim + 3 : dim;
            // index [2, 3, 4] with dim's size free (6 > self's along dim 0 and 2 is fine): values
            // in [0, size) with repeats, and one out of range (its element is 0).
            Shape is = {2, 3, 4};
            is[d] = 6;
            std::vector<double> idx(numel(is));
            for (size_t i = 0; i < idx.size(); ++i) idx[i] = double((i * 7 + 3) % in[d]);
            idx[5] = double(in[d] + 2);
            for (DType it : {DType::i64, DType::i32}) {
                Tensor index = make(it, is, idx);
                Tensor out = output(dt, is);
                run("aten.gather.default", {x, dim, index, false, out});
                std::vector<double> want(idx.size());
                for (int64_t o = 0; o < numel(is); ++o) {
                    auto c = unravel(o, is);
                    const auto at = static_cast<int64_t>(idx[o]);
                    if (at >= in[d]) {
                        want[o] = 0;
                        continue;
                    }
                    c[d] = at;
                    want[o] = v[ravel(c, in)];
                }
                EXPECT_EQ(read(out), want)
                    << "gather dim " << dim << " " << dtype_name(dt) << " by " << dtype_name(it);
            }
        }
    }
    // A wrong rank, an index larger than self off the dim, and bool self are refused.
    Tensor x = make(DType::f32, in, sample(DType::f32, numel(in), 42));
    Tensor flat = make(DType::i64, {4}, {0, 1, 2, 0});
    Tensor wide = make(DType::i64, {3, 6, 4}, std::vector<double>(72, 0));
    EXPECT_THROW(run("aten.gather.default", {x, int64_t(0), flat, false, output(DType::f32, {4})}),
                 InvalidArgument);
    EXPECT_THROW(
        run("aten.gather.default", {x, int64_t(0), wide, false, output(DType::f32, {3, 6, 4})}),
        InvalidArgument);
    Tensor flags = make(DType::boolean, {4}, {1, 0, 1, 0});
    EXPECT_THROW(
        run("aten.gather.default", {flags, int64_t(0), flat, false, output(DType::boolean, {4})}),
        InvalidArgument);
}

// torch's scatter semantics, index position by index position in row-major order.
std::vector<double> scatter_ref(const std::vector<double>& self, const Shape& s,
                                const std::vector<double>& index, const Shape& is,
                                const std::vector<double>& src, const Shape& ss, int64_t d,
                                const std::string& mode, bool include_self, double value) {
    std::vector<double> out = self;
    std::vector<int> count(self.size(), include_self ? 1 : 0);
    std::vector<bool> touched(self.size(), false);
    for (int64_t p = 0; p < numel(is); ++p) {
        auto c = unravel(p, is);
        const double v = mode == "value" ? value : src[ravel(c, ss)];
        c[d] = static_cast<int64_t>(index[p]);
        const auto t = static_cast<size_t>(ravel(c, s));
        const bool first = !touched[t] && !include_self;
        touched[t] = true;
        if (mode == "src" || mode == "value") {
            out[t] = v;
        } else if (mode == "sum" || mode == "mean") {
            out[t] = first ? v : out[t] + v;
        } else if (mode == "prod") {
            out[t] = first ? v : out[t] * v;
        } else if (mode == "amax") {
            out[t] = first ? v : std::max(out[t], v);
        } else {
            out[t] = first ? v : std::min(out[t], v);
        }
        if (mode == "mean") ++count[t];
    }
    if (mode == "mean") {
        for (size_t t = 0; t < out.size(); ++t) {
            if (touched[t]) out[t] /= count[t];
        }
    }
    return out;
}

TEST(ShapeOps, ScatterAddAndReduceWithRepeatedIndices) {
    const Shape s = {3, 5, 4}, ss = {3, 6, 4};
    for (int64_t dim : {0, 1, -1}) {
        const int64_t d = dim < 0 ? dim + 3 : dim;
        // index [2, 4, 3] (dim's size up to src's), values in [0, size) with repeats.
        Shape is = {2, 4, 3};
        is[d] = d == 1 ? 6 : 2;
        std::vector<double> idx(numel(is));
        for (size_t i = 0; i < idx.size(); ++i) idx[i] = double((i * 5 + 1) % s[d]);
        const Shape src_shape = {3, 6, 4};
        for (DType dt : {DType::f32, DType::i32}) {
            auto self_v = sample(dt, numel(s), 51);
            auto src_v = sample(dt, numel(src_shape), 52);
            Tensor self = make(dt, s, self_v);
            Tensor src = make(dt, src_shape, src_v);
            Tensor index = make(DType::i64, is, idx);
            struct Mode {
                const char* op;
                std::string reduce;
                bool include_self;
            };
            std::vector<Mode> modes = {{"aten.scatter.src", "src", false},
                                       {"aten.scatter.value", "value", false},
                                       {"aten.scatter_add.default", "sum", true}};
            for (const char* r : {"sum", "prod", "mean", "amax", "amin"}) {
                for (bool inc : {true, false}) {
                    // Integer mean is refused (below); integer products of these values
                    // overflow int32, so the float case covers prod.
                    if (dt == DType::i32 &&
                        (std::string(r) == "mean" || std::string(r) == "prod")) {
                        continue;
                    }
                    modes.push_back({"aten.scatter_reduce.two", r, inc});
                }
            }
            for (const Mode& m : modes) {
                Tensor out = output(dt, s);
                if (m.reduce == "value") {
                    run(m.op, {self, dim, index, 2.5, out});
                } else if (std::string(m.op) == "aten.scatter_reduce.two") {
                    run(m.op, {self, dim, index, src, m.reduce, m.include_self, out});
                } else {
                    run(m.op, {self, dim, index, src, out});
                }
                const double value = dt == DType::i32 ? 2 : 2.5;
                const auto want = scatter_ref(self_v, s, idx, is, src_v, src_shape, d, m.reduce,
                                              m.include_self, value);
                const auto got = read(out);
                ASSERT_EQ(got.size(), want.size());
                for (size_t i = 0; i < got.size(); ++i) {
                    EXPECT_NEAR(got[i], want[i], 1e-5 * std::max(1.0, std::abs(want[i])))
                        << m.op << " " << m.reduce << (m.include_self ? " with self" : "")
                        << " dim " << dim << " " << dtype_name(dt) << " at " << i;
                }
            }
        }
    }
    // An unknown reduce and integer mean are refused.
    Tensor self = make(DType::f32, s, sample(DType::f32, numel(s), 53));
    Tensor src = make(DType::f32, ss, sample(DType::f32, numel(ss), 54));
    Tensor index = make(DType::i64, {1, 1, 1}, {0});
    EXPECT_THROW(
        run("aten.scatter_reduce.two",
            {self, int64_t(0), index, src, std::string("median"), true, output(DType::f32, s)}),
        InvalidArgument);
    Tensor iself = make(DType::i32, s, sample(DType::i32, numel(s), 55));
    Tensor isrc = make(DType::i32, ss, sample(DType::i32, numel(ss), 56));
    EXPECT_THROW(run("aten.scatter_reduce.two", {iself, int64_t(0), index, isrc,
                                                 std::string("mean"), true, output(DType::i32, s)}),
                 InvalidArgument);
}

TEST(ShapeOps, ArangeOfIntegersAndFloats) {
    struct Case {
        double start, end, step;
        DType dtype;
    };
    for (const Case& c :
         {Case{2, 23, 3, DType::i64}, Case{5, -6, -2, DType::i32}, Case{-1, 2, 0.25, DType::f32},
          Case{0.5, 3.3, 0.7, DType::f32}, Case{0, 1, 1, DType::i64}}) {
        const auto n = static_cast<int64_t>(std::ceil((c.end - c.start) / c.step));
        Tensor out = output(c.dtype, {n});
        run("aten.arange.start_step", {c.start, c.end, c.step, out});
        const std::vector<double> got = read(out);
        ASSERT_EQ(static_cast<int64_t>(got.size()), n);
        for (int64_t i = 0; i < n; ++i) {
            const double want = c.start + static_cast<double>(i) * c.step;
            EXPECT_NEAR(got[i], want, 1e-6 * std::max(1.0, std::abs(want)))
                << "arange(" << c.start << ", " << c.end << ", " << c.step << ")[" << i << "]";
        }
    }
    Tensor nine = output(DType::i64, {9});
    run("aten.arange.default", {int64_t(9), nine});
    EXPECT_EQ(read(nine), (std::vector<double>{0, 1, 2, 3, 4, 5, 6, 7, 8}));
    // A zero step, an out of the wrong length and a bool out are refused.
    Tensor four = output(DType::i64, {4});
    EXPECT_THROW(run("aten.arange.start_step", {0.0, 4.0, 0.0, four}), InvalidArgument);
    EXPECT_THROW(run("aten.arange.start_step", {0.0, 5.0, 1.0, four}), InvalidArgument);
    Tensor flags = output(DType::boolean, {4});
    EXPECT_THROW(run("aten.arange.start_step", {0.0, 4.0, 1.0, flags}), InvalidArgument);
}

TEST(ShapeOps, ConstantPadNdPadsAndCrops) {
    struct Case {
        Shape in;
        std::vector<int64_t> pad;
        double value;
    };
    std::vector<Case> cases = {
        {{7}, {2, 3}, 0.5},
        {{2, 3, 5, 4}, {1, 1, 2, 0}, -2.0},   // last dim (1, 1), then (2, 0)
        {{3, 5, 6}, {-1, 2, 0, 0, 1, 1}, 1},  // crop one from the start of the last dim
        {{4, 9}, {-2, -3, 1, -1}, 3},         // crops only in the last dim
        {{1, 2, 3, 1, 2}, {0, 1, 1, 0, 0, 0, 2, 0}, 0},
    };
    for (DType dt : {DType::f32, DType::f16, DType::boolean, DType::i8, DType::i64}) {
        for (const Case& c : cases) {
            auto v = sample(dt, numel(c.in), 12);
            Shape out_shape = c.in;
            size_t r = c.in.size();
            for (size_t k = 0; 2 * k < c.pad.size(); ++k) {
                out_shape[r - 1 - k] += c.pad[2 * k] + c.pad[2 * k + 1];
            }
            double fill = dt == DType::boolean                  ? (c.value != 0)
                          : dt == DType::i8 || dt == DType::i64 ? std::trunc(c.value)
                                                                : c.value;
            auto want = gather_ref(
                v, c.in, out_shape,
                [&](std::vector<int64_t> o) -> std::optional<std::vector<int64_t>> {
                    for (size_t k = 0; 2 * k < c.pad.size(); ++k) {
                        size_t d = r - 1 - k;
                        o[d] -= c.pad[2 * k];
                        if (o[d] < 0 || o[d] >= c.in[d]) return std::nullopt;
                    }
                    return o;
                },
                fill);
            Tensor x = make(dt, c.in, v);
            Tensor out = output(dt, out_shape);
            run("aten.constant_pad_nd.default", {x, c.pad, c.value, out});
            EXPECT_EQ(read(out), want) << dtype_name(dt) << " " << dims_name(c.in);
        }
    }
}

// --- cat and split ----------------------------------------------------------------------------

void check_cat(DType dt, const std::vector<Shape>& shapes, int64_t dim, uint32_t seed) {
    size_t rank = shapes[0].size();
    int64_t d = dim < 0 ? dim + int64_t(rank) : dim;
    Shape out_shape = shapes[0];
    out_shape[d] = 0;
    Arg::TensorList inputs;
    std::vector<std::vector<double>> values;
    for (size_t k = 0; k < shapes.size(); ++k) {
        values.push_back(sample(dt, numel(shapes[k]), seed + uint32_t(k)));
        inputs.push_back(make(dt, shapes[k], values.back()));
        out_shape[d] += shapes[k][d];
    }
    std::vector<double> want(numel(out_shape));
    for (int64_t o = 0; o < numel(out_shape); ++o) {
        auto c = unravel(o, out_shape);
        size_t k = 0;
        while (c[d] >= shapes[k][d]) c[d] -= shapes[k++][d];
        want[o] = values[k][ravel(c, shapes[k])];
    }
    Tensor out = output(dt, out_shape);
    run("aten.cat.default", {inputs, dim, out});
    EXPECT_EQ(read(out), want) << dtype_name(dt) << " " << shapes.size() << " inputs, dim " << dim
                               << ", out " << dims_name(out_shape);
}

TEST(ShapeOps, CatOneAndNineInputsOnEachDim) {
    const Shape base = {3, 5, 7};
    for (DType dt : {DType::f32, DType::boolean, DType::f16, DType::i64}) {
        for (int64_t dim = 0; dim < 3; ++dim) {
            check_cat(dt, {base}, dim, 20);
            std::vector<Shape> nine;
            for (int k = 0; k < 9; ++k) {
                Shape s = base;
                s[dim] = 1 + (k * 5) % 4;  // sizes 1..4 and odd totals: words straddle inputs
                nine.push_back(s);
            }
            check_cat(dt, nine, dim - 3, 30);  // negative dims
        }
    }
    check_cat(DType::u8, {{2, 1, 3, 1, 5}, {2, 1, 3, 2, 5}}, 3, 40);  // rank 5
    check_cat(DType::i32, {{11}, {2}, {13}}, 0, 50);
}

// Narrow types whose every input slab along dim is whole 32-bit words move as words, four
// inputs per dispatch: with inner a multiple of the lanes, or (inner odd) with the slabs merged
// into rows of words. Five inputs take two dispatches.
TEST(ShapeOps, CatOfWholeWordSlabsOfPackedTypes) {
    check_cat(DType::f16, {{2, 4, 6}, {2, 2, 6}, {2, 6, 6}, {2, 1, 6}, {2, 3, 6}}, 1, 70);
    check_cat(DType::f16, {{3, 5, 2}, {3, 5, 4}, {3, 5, 6}}, 2, 71);
    check_cat(DType::f16, {{4, 3, 5}, {2, 3, 5}}, 0, 72);
    check_cat(DType::f16, {{7, 2}, {7, 4}, {7, 2}, {7, 2}, {7, 6}}, -1, 73);
    check_cat(DType::boolean, {{2, 3, 4}, {2, 3, 8}, {2, 3, 4}}, 2, 74);
    check_cat(DType::boolean, {{2, 4, 3}, {2, 8, 3}}, 1, 75);
    check_cat(DType::u8, {{6, 4}, {2, 4}}, 0, 76);
    check_cat(DType::i8, {{5, 2, 2}, {5, 6, 2}, {5, 2, 2}}, 1, 77);
}

TEST(ShapeOps, SplitWithSizesAndSplitCopy) {
    Shape in = {4, 11, 3};
    for (DType dt : {DType::f32, DType::u8, DType::f16}) {
        auto v = sample(dt, numel(in), 60);
        Tensor x = make(dt, in, v);
        auto check = [&](const std::string& name, Arg sizes_arg, const std::vector<int64_t>& sizes,
                         int64_t dim, bool skip_second) {
            int64_t d = dim < 0 ? dim + 3 : dim;
            Arg::TensorList outs;
            for (size_t k = 0; k < sizes.size(); ++k) {
                Shape s = in;
                s[d] = sizes[k];
                if (k == 1 && skip_second) {
                    outs.push_back(std::nullopt);
                } else {
                    outs.push_back(output(dt, s));
                }
            }
            run(name, {x, sizes_arg, dim, outs});
            int64_t offset = 0;
            for (size_t k = 0; k < sizes.size(); ++k) {
                if (outs[k]) {
                    Shape s = in;
                    s[d] = sizes[k];
                    auto want = gather_ref(v, in, s, [&](std::vector<int64_t> o) {
                        o[d] += offset;
                        return std::optional(o);
                    });
                    EXPECT_EQ(read(*outs[k]), want)
                        << name << " " << dtype_name(dt) << " piece " << k;
                }
                offset += sizes[k];
            }
        };
        check("aten.split_with_sizes_copy.default", std::vector<int64_t>{2, 5, 1, 3}, {2, 5, 1, 3},
              1, false);
        check("aten.split_with_sizes_copy.default", std::vector<int64_t>{1, 3}, {1, 3}, 0, false);
        check("aten.split_with_sizes_copy.default", std::vector<int64_t>{3}, {3}, -1, false);
        check("aten.split_copy.Tensor", int64_t(4), {4, 4, 3}, -2, true);  // remainder, absent out
        check("aten.split_copy.Tensor", int64_t(2), {2, 1}, 2, false);
    }
}

// --- dtype conversion ---------------------------------------------------------------------------

// What PyTorch's .to(dtype) gives for a value of the test's ranges.
double converted(double x, DType to) {
    switch (to) {
        case DType::boolean: return x != 0;
        case DType::i32:
        case DType::i64: return std::trunc(x);
        case DType::u8: return double(uint8_t(int64_t(std::trunc(x))));
        case DType::i8: return double(int8_t(int64_t(std::trunc(x))));
        case DType::f32: return double(float(x));
        case DType::f16: return f16_to(f16_from(x));
        default: return x;
    }
}

TEST(ShapeOps, ToCopyConvertsBetweenEveryPair) {
    const Shape shape = {3, 7};  // 21 elements: a partial last word for every packed type
    for (DType from : kAllTypes) {
        // Values every target holds exactly or truncates like PyTorch: multiples of 1/8 in
        // [-100, 100] (f16-exact), with zeros for the bool path.
        std::vector<double> v;
        for (int x : random_ints(numel(shape), 70 + int(from), -800, 800)) v.push_back(x / 8.0);
        v[3] = 0;
        v[4] = 0.5;
        v[5] = -0.75;
        for (double& x : v) {
            if (!is_float(from)) x = std::trunc(x);
            if (from == DType::u8 || from == DType::boolean) x = std::abs(x);
            if (from == DType::boolean) x = x != 0;
        }
        Tensor x = make(from, shape, v);
        for (DType to : kAllTypes) {
            Tensor out = output(to, shape);
            run("aten._to_copy.default", {x, Arg(), Arg(), Arg(), Arg(), false, Arg(), out});
            std::vector<double> want;
            for (double e : v) want.push_back(converted(e, to));
            EXPECT_EQ(read(out), want) << dtype_name(from) << " -> " << dtype_name(to);
        }
    }
    // Large magnitudes: float -> int32 truncates toward zero; int32 -> uint8/int8 wraps.
    Tensor big = make(DType::f32, {5}, {1e6 + 0.5, -1e6 - 0.5, 16777215, -2.5, 300});
    Tensor as_int = output(DType::i32, {5});
    run("aten._to_copy.default", {big, int64_t(3), Arg(), Arg(), Arg(), false, Arg(), as_int});
    EXPECT_EQ(read(as_int), (std::vector<double>{1000000, -1000000, 16777215, -2, 300}));
    Tensor wide = make(DType::i32, {4}, {300, -1, 16777217, -129});
    Tensor bytes = output(DType::u8, {4});
    Tensor sbytes = output(DType::i8, {4});
    Tensor floats = output(DType::f32, {4});
    run("aten._to_copy.default", {wide, Arg(), Arg(), Arg(), Arg(), false, Arg(), bytes});
    EXPECT_EQ(read(bytes), (std::vector<double>{44, 255, 1, 127}));
    run("aten._to_copy.default", {wide, Arg(), Arg(), Arg(), Arg(), false, Arg(), sbytes});
    EXPECT_EQ(read(sbytes), (std::vector<double>{44, -1, 1, 127}));
    run("aten._to_copy.default", {wide, Arg(), Arg(), Arg(), Arg(), false, Arg(), floats});
    EXPECT_EQ(read(floats), (std::vector<double>{300, -1, 16777216, -129}));
    // float16 beyond its range becomes infinity; NaN to bool is true.
    Tensor edge = make(DType::f32, {3}, {70000, -1e9, NAN});
    Tensor half = output(DType::f16, {3});
    Tensor flags = output(DType::boolean, {3});
    run("aten._to_copy.default", {edge, Arg(), Arg(), Arg(), Arg(), false, Arg(), half});
    auto h = read(half);
    EXPECT_EQ(h[0], INFINITY);
    EXPECT_EQ(h[1], -INFINITY);
    EXPECT_TRUE(std::isnan(h[2]));
    run("aten._to_copy.default", {edge, Arg(), Arg(), Arg(), Arg(), false, Arg(), flags});
    EXPECT_EQ(read(flags), (std::vector<double>{1, 1, 1}));
}

// --- a grid that folds --------------------------------------------------------------------------

TEST(ShapeOps, TransposeLargeEnoughToFoldTheGrid) {
    // 4100 x 4100 elements: more than 65,535 workgroups of 256 invocations.
    const int64_t n = 4100;
    std::vector<float> v(n * n);
    for (int64_t i = 0; i < n * n; ++i) v[i] = float(i % 9973) + 0.5f;
    Tensor x = ctx().tensor(DType::f32, {n, n}).set_data(v);
    Tensor out = ctx().tensor(DType::f32, {n, n});
    poison(out);
    run("aten.permute_copy.default", {x, std::vector<int64_t>{1, 0}, out});
    auto got = out.get_data<float>();
    for (int64_t r = 0; r < n; ++r) {
        for (int64_t c = 0; c < n; ++c) {
            if (got[r * n + c] != v[c * n + r]) {
                FAIL() << "out[" << r << ", " << c << "] = " << got[r * n + c] << ", want "
                       << v[c * n + r];
            }
        }
    }
    ctx().reset();
}

// --- errors ------------------------------------------------------------------------------------

TEST(ShapeOps, BadArgumentsAreRejected) {
    Tensor x = make(DType::f32, {2, 3}, sample(DType::f32, 6, 80));
    Tensor b = make(DType::boolean, {2, 3}, sample(DType::boolean, 6, 81));
    Tensor o23 = output(DType::f32, {2, 3});
    Tensor o32 = output(DType::f32, {3, 2});
    Tensor o6 = output(DType::f32, {6});
    Tensor o7 = output(DType::f32, {7});
    Tensor i6 = output(DType::i32, {6});
    expect_invalid("aten.view_copy.default", {x, std::vector<int64_t>{-1, -1}, o6}, "-1");
    expect_invalid("aten.view_copy.default", {x, std::vector<int64_t>{7}, o7}, "size");
    expect_invalid("aten.view_copy.default", {x, std::vector<int64_t>{6}, o32}, "out");
    expect_invalid("aten.view_copy.default", {x, std::vector<int64_t>{6}, i6}, "dtype");
    expect_invalid("aten.permute_copy.default", {x, std::vector<int64_t>{0, 0}, o23}, "dims");
    expect_invalid("aten.permute_copy.default", {x, std::vector<int64_t>{1, 0}, o23}, "[2, 3]");
    expect_invalid("aten.permute_copy.default", {x, std::vector<int64_t>{2, 0}, o32}, "dims 2");
    expect_invalid("aten.permute_copy.default", {b, std::vector<int64_t>{1, 0}, o32}, "bool");
    expect_invalid("aten.slice_copy.Tensor",
                   {x, int64_t(1), int64_t(0), int64_t(2), int64_t(0), o23}, "step");
    expect_invalid("aten.slice_copy.Tensor",
                   {x, int64_t(2), int64_t(0), int64_t(2), int64_t(1), o23}, "dim 2");
    expect_invalid("aten.select_copy.int", {x, int64_t(1), int64_t(3), o23}, "index 3");
    expect_invalid("aten.expand_copy.default", {x, std::vector<int64_t>{4, 3}, false, o23},
                   "expand");
    expect_invalid("aten.repeat.default", {x, std::vector<int64_t>{2}, o23}, "repeats");
    expect_invalid("aten.constant_pad_nd.default", {x, std::vector<int64_t>{1}, 0.0, o23}, "pad");
    expect_invalid("aten.constant_pad_nd.default", {x, std::vector<int64_t>{-2, -1}, 0.0, o23},
                   "dim 1");
    expect_invalid("aten.cat.default", {Arg::TensorList{x, b}, int64_t(0), o23}, "tensors[1]");
    expect_invalid("aten.cat.default", {Arg::TensorList{x, o32}, int64_t(0), o23}, "tensors[1]");
    expect_invalid("aten.cat.default", {Arg::TensorList{x, x}, int64_t(0), o23}, "[4, 3]");
    expect_invalid("aten.cat.default", {Arg::TensorList{x, std::nullopt}, int64_t(0), o23},
                   "absent");
    expect_invalid("aten.split_with_sizes_copy.default",
                   {x, std::vector<int64_t>{1, 1}, int64_t(1), Arg::TensorList{o23, o23}},
                   "add up");
    expect_invalid("aten.split_copy.Tensor", {x, int64_t(2), int64_t(1), Arg::TensorList{o23}},
                   "2");
    expect_invalid("aten._to_copy.default", {x, Arg(), Arg(), Arg(), Arg(), false, Arg(), o32},
                   "out");
    expect_invalid("aten._to_copy.default", {x, int64_t(4), Arg(), Arg(), Arg(), false, Arg(), o23},
                   "int64");
    expect_invalid("aten.unsqueeze_copy.default", {x, int64_t(3), o23}, "dim 3");
}

}  // namespace
}  // namespace wgx::test
