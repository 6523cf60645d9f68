// Fill ops, logical_not, any.dim, as_strided_copy, the dim-order copies and prepack; which ops
// declare float16 and how they refuse it on a device without shader-f16.
#include <string_view>

#include "half_test_util.h"
#include "test_util.h"

namespace wgx::test {
namespace {

template <typename T>
std::vector<T> run_fill(const std::string& name, DType dt, const Shape& s, std::vector<Arg> args) {
    Tensor out = ctx().tensor(dt, s);
    args.push_back(out);
    ctx().reset();
    ctx().record(op(name), args);
    ctx().submit();
    auto r = out.get_data<T>();
    ctx().reset();
    return r;
}

TEST(FillOps, EveryDtypeAndOddSizes) {
    for (int64_t n : {1, 3, 5, 1030}) {
        Shape s{n};
        auto f =
            run_fill<float>("aten.full.default", DType::f32, s, {std::vector<int64_t>{n}, -2.5});
        EXPECT_EQ(f, std::vector<float>(n, -2.5f));
        auto i =
            run_fill<int64_t>("aten.full.default", DType::i64, s, {std::vector<int64_t>{n}, 7.9});
        EXPECT_EQ(i, std::vector<int64_t>(n, 7));  // truncated toward zero
        auto b =
            run_fill<uint8_t>("aten.ones.default", DType::boolean, s, {std::vector<int64_t>{n}});
        EXPECT_EQ(b, std::vector<uint8_t>(n, 1));
        auto u =
            run_fill<uint8_t>("aten.full.default", DType::u8, s, {std::vector<int64_t>{n}, 200.0});
        EXPECT_EQ(u, std::vector<uint8_t>(n, 200));
        auto h =
            run_fill<uint16_t>("aten.full.default", DType::f16, s, {std::vector<int64_t>{n}, 1.5});
        EXPECT_EQ(h, std::vector<uint16_t>(n, 0x3e00));  // 1.5 in IEEE half
        Tensor like = ctx().tensor(DType::f32, s);
        auto z = run_fill<float>("aten.zeros_like.default", DType::f32, s, {like});
        EXPECT_EQ(z, std::vector<float>(n, 0.f));
        auto fl = run_fill<float>("aten.full_like.default", DType::f32, s, {like, 3.0});
        EXPECT_EQ(fl, std::vector<float>(n, 3.f));
    }
}

TEST(FillOps, ScalarTensorIsRankZero) {
    EXPECT_EQ(run_fill<float>("aten.scalar_tensor.default", DType::f32, {}, {-100.0}),
              std::vector<float>{-100.f});
    EXPECT_EQ(run_fill<int64_t>("aten.scalar_tensor.default", DType::i64, {}, {int64_t(3)}),
              std::vector<int64_t>{3});
    Tensor vector = ctx().tensor(DType::f32, {2});
    EXPECT_THROW(ctx().record(op("aten.scalar_tensor.default"), {1.0, vector}), InvalidArgument);
    ctx().reset();
}

TEST(FillOps, WrongOutShapeIsAnError) {
    Tensor out = ctx().tensor(DType::f32, {4});
    EXPECT_THROW(ctx().record(op("aten.full.default"), {std::vector<int64_t>{5}, 1.0, out}),
                 InvalidArgument);
    ctx().reset();
}

TEST(LogicalOps, NotOfBoolAndFloat) {
    for (int64_t n : {1, 6, 13}) {
        auto ints = random_ints(n, 4, -1, 1);
        std::vector<uint8_t> b;
        std::vector<float> f;
        for (int v : ints) {
            b.push_back(v > 0);
            f.push_back(float(v));
        }
        Tensor tb = ctx().tensor(DType::boolean, {n}).set_data(b);
        Tensor tf = ctx().tensor(DType::f32, {n}).set_data(f);
        Tensor ob = ctx().tensor(DType::boolean, {n});
        Tensor of = ctx().tensor(DType::boolean, {n});
        ctx().reset();
        ctx().record(op("aten.logical_not.default"), {tb, ob});
        ctx().record(op("aten.logical_not.default"), {tf, of});
        ctx().submit();
        auto gb = ob.get_data<uint8_t>(), gf = of.get_data<uint8_t>();
        for (int64_t i = 0; i < n; ++i) {
            EXPECT_EQ(gb[i], b[i] ? 0 : 1) << i;
            EXPECT_EQ(gf[i], f[i] != 0 ? 0 : 1) << i;
        }
        ctx().reset();
    }
}

// logical_and / or / xor of inputs of any dtypes (and two different ones), broadcast, against
// truth(x) = x != 0 (NaN true, -0.0 false), at odd sizes so that every packing offset is written.
TEST(LogicalOps, AndOrXorOfMixedDtypesWithBroadcast) {
    const Shape sa = {3, 1, 5}, sb = {1, 4, 5}, so = {3, 4, 5};
    auto ia = random_ints(15, 51, -1, 1), ib = random_ints(20, 52, -1, 1);
    std::vector<float> fa, fb;
    for (int v : ia) fa.push_back(float(v));
    for (int v : ib) fb.push_back(float(v) * 0.5f);
    fa[0] = -0.f, fa[1] = NAN, fb[2] = -0.f;
    auto truth = [](double v) { return std::isnan(v) || v != 0; };
    // Each input as a tensor of `dt` holding `v` (bools and small ints from the signs).
    auto make = [](DType dt, const Shape& s, const std::vector<float>& v) {
        if (dt == DType::f16) return half_tensor(s, v);
        // Integers hold each value's sign (NaN: 1), which keeps its truth.
        std::vector<int64_t> signs;
        for (float x : v) signs.push_back(std::isnan(x) ? 1 : (x > 0) - (x < 0));
        Tensor t = ctx().tensor(dt, s);
        switch (dt) {
            case DType::f32: t.set_data(v); break;
            case DType::i64: t.set_data(signs); break;
            case DType::i32: t.set_data(std::vector<int32_t>(signs.begin(), signs.end())); break;
            default: {  // bool, uint8, int8: a byte per element
                std::vector<uint8_t> bytes;
                for (float x : v) bytes.push_back(std::isnan(x) || x != 0 ? 1 : 0);
                if (dt != DType::i8) {
                    t.set_data(bytes);
                } else {
                    t.set_data(std::vector<int8_t>(bytes.begin(), bytes.end()));
                }
            }
        }
        return t;
    };
    const std::pair<DType, DType> pairs[] = {
        {DType::boolean, DType::boolean}, {DType::boolean, DType::f32},
        {DType::f32, DType::f32},         {DType::i64, DType::u8},
        {DType::f16, DType::i32},         {DType::i8, DType::boolean}};
    const std::pair<const char*, bool (*)(bool, bool)> ops[] = {
        {"aten.logical_and.default", [](bool x, bool y) { return x && y; }},
        {"aten.logical_or.default", [](bool x, bool y) { return x || y; }},
        {"aten.logical_xor.default", [](bool x, bool y) { return x != y; }}};
    for (const auto& [da, db] : pairs) {
        for (const auto& [name, f] : ops) {
            // The byte dtypes hold 0/1, so NaN and -0.0 only reach the float inputs.
            Tensor ta = make(da, sa, fa), tb = make(db, sb, fb);
            Tensor out = ctx().tensor(DType::boolean, so);
            ctx().reset();
            ctx().record(op(name), {ta, tb, out});
            ctx().submit();
            auto got = out.get_data<uint8_t>();
            for (int64_t i = 0; i < 3; ++i) {
                for (int64_t j = 0; j < 4; ++j) {
                    for (int64_t k = 0; k < 5; ++k) {
                        const bool want = f(truth(fa[i * 5 + k]), truth(fb[j * 5 + k]));
                        EXPECT_EQ(got[(i * 4 + j) * 5 + k], want ? 1 : 0)
                            << name << " " << dtype_name(da) << " x " << dtype_name(db) << " at "
                            << i << "," << j << "," << k;
                    }
                }
            }
            ctx().reset();
        }
    }
    // out must be bool and of the broadcast shape.
    Tensor ta = make(DType::f32, sa, fa), tb = make(DType::f32, sb, fb);
    Tensor wrong_dtype = ctx().tensor(DType::f32, so),
           wrong_shape = ctx().tensor(DType::boolean, sb);
    EXPECT_THROW(ctx().record(op("aten.logical_and.default"), {ta, tb, wrong_dtype}),
                 InvalidArgument);
    EXPECT_THROW(ctx().record(op("aten.logical_or.default"), {ta, tb, wrong_shape}),
                 InvalidArgument);
    ctx().reset();
}

TEST(ReduceOps, AnyAlongEachDim) {
    const Shape s{3, 5, 2};
    auto ints = random_ints(30, 5, -3, 3);
    std::vector<float> f;
    for (int v : ints) f.push_back(v > 1 ? float(v) : 0.f);  // mostly zeros: any() varies
    Tensor x = ctx().tensor(DType::f32, s).set_data(f);
    for (int dim = 0; dim < 3; ++dim) {
        for (bool keep : {false, true}) {
            Shape os;
            for (int d = 0; d < 3; ++d) {
                if (d != dim)
                    os.push_back(s[d]);
                else if (keep)
                    os.push_back(1);
            }
            Tensor out = ctx().tensor(DType::boolean, os);
            ctx().reset();
            ctx().record(op("aten.any.dim"), {x, int64_t(dim - 3), keep, out});  // negative dim
            ctx().submit();
            auto got = out.get_data<uint8_t>();
            size_t k = 0;
            for (int a = 0; a < (dim == 0 ? 1 : 3); ++a)
                for (int b = 0; b < (dim == 1 ? 1 : 5); ++b)
                    for (int c = 0; c < (dim == 2 ? 1 : 2); ++c) {
                        bool want = false;
                        for (int r = 0; r < s[dim]; ++r) {
                            int i0 = dim == 0 ? r : a, i1 = dim == 1 ? r : b, i2 = dim == 2 ? r : c;
                            want |= f[(i0 * 5 + i1) * 2 + i2] != 0;
                        }
                        ASSERT_EQ(got[k++], want ? 1 : 0) << "dim " << dim;
                    }
            ctx().reset();
        }
    }
}

TEST(ShapeOps, AsStridedCopyGathersAndChecksBounds) {
    auto v = random_floats(24, 6);
    Tensor x = ctx().tensor(DType::f32, {24}).set_data(v);
    Tensor out = ctx().tensor(DType::f32, {3, 4});
    ctx().reset();
    ctx().record(op("aten.as_strided_copy.default"),
                 {x, std::vector<int64_t>{3, 4}, std::vector<int64_t>{5, 2}, int64_t(1), out});
    ctx().submit();
    auto got = out.get_data<float>();
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 4; ++j)
            ASSERT_EQ(got[i * 4 + j], v[1 + i * 5 + j * 2]) << i << "," << j;
    ctx().reset();
    EXPECT_THROW(
        ctx().record(op("aten.as_strided_copy.default"),
                     {x, std::vector<int64_t>{3, 4}, std::vector<int64_t>{9, 2}, int64_t(1), out}),
        InvalidArgument);
    ctx().reset();
}

TEST(ShapeOps, Float16AsStridedCloneDimOrderAndPrepackAreExact) {
    auto v = round_to_half(random_floats(25, 8));  // odd: the last word is half used
    Tensor x = half_tensor({25}, v);
    Tensor out = half_output({3, 4});
    Tensor same = half_output({5, 5});
    Tensor packed = half_output({5, 5});
    Tensor square = half_tensor({5, 5}, v);
    ctx().reset();
    ctx().record(op("aten.as_strided_copy.default"),
                 {x, std::vector<int64_t>{3, 4}, std::vector<int64_t>{5, 2}, int64_t(3), out});
    ctx().record(op("dim_order_ops._clone_dim_order.default"), {square, false, Arg(), same});
    ctx().record(op("et_vk.prepack.default"), {square, packed});
    ctx().submit();
    auto got = read_half(out);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 4; ++j)
            ASSERT_EQ(got[i * 4 + j], v[3 + i * 5 + j * 2]) << i << "," << j;
    EXPECT_EQ(read_half(same), v);
    EXPECT_EQ(read_half(packed), v);
    ctx().reset();
}

TEST(ShapeOps, DimOrderCopiesAcceptOnlyTheContiguousOrder) {
    auto v = random_floats(6, 7);
    Tensor x = ctx().tensor(DType::f32, {2, 3}).set_data(v);
    Tensor y = ctx().tensor(DType::i32, {2, 3});
    Tensor z = ctx().tensor(DType::f32, {2, 3});
    ctx().reset();
    ctx().record(op("dim_order_ops._to_dim_order_copy.default"),
                 {x, Arg(), Arg(), Arg(), Arg(), false, std::vector<int64_t>{0, 1}, y});
    ctx().record(op("dim_order_ops._clone_dim_order.default"), {x, false, Arg(), z});
    ctx().record(op("et_vk.prepack.default"), {x, z});
    ctx().submit();
    auto gy = y.get_data<int32_t>();
    for (int i = 0; i < 6; ++i) EXPECT_EQ(gy[i], int32_t(std::trunc(v[i])));
    EXPECT_EQ(z.get_data<float>(), v);
    ctx().reset();
    EXPECT_THROW(ctx().record(op("dim_order_ops._clone_dim_order.default"),
                              {x, false, std::vector<int64_t>{1, 0}, z}),
                 InvalidArgument);
    ctx().reset();
}

// The ops that take float16 say so (a float16 program hands them float16 tensors; the tests of
// each family check they compute right); the ops whose arguments name their output dtype do not.
TEST(Float16Ops, OpsDeclareWhatTheyTake) {
    const char* takes[] = {
        // elementwise
        "aten.relu.default",
        "aten.sigmoid.default",
        "aten.tanh.default",
        "aten.silu.default",
        "aten.hardswish.default",
        "aten.hardsigmoid.default",
        "aten.gelu.default",
        "aten.hardtanh.default",
        "aten.clamp.default",
        "aten.leaky_relu.default",
        "aten.exp.default",
        "aten.log.default",
        "aten.sqrt.default",
        "aten.rsqrt.default",
        "aten.neg.default",
        "aten.abs.default",
        "aten.sin.default",
        "aten.cos.default",
        "aten.erf.default",
        "aten.reciprocal.default",
        "aten.floor.default",
        "aten.ceil.default",
        "aten.round.default",
        "aten.trunc.default",
        "aten.sign.default",
        "aten.add.Tensor",
        "aten.sub.Tensor",
        "aten.mul.Tensor",
        "aten.div.Tensor",
        "aten.div.Tensor_mode",
        "aten.maximum.default",
        "aten.minimum.default",
        "aten.pow.Tensor_Tensor",
        "aten.add.Scalar",
        "aten.sub.Scalar",
        "aten.rsub.Scalar",
        "aten.mul.Scalar",
        "aten.div.Scalar",
        "aten.pow.Tensor_Scalar",
        "wgx.mul_sigmoid.default",
        "wgx.mul_hardsigmoid.default",
        "aten.where.self",
        "aten.logical_not.default",
        "aten.eq.Tensor",
        "aten.ne.Scalar",
        "aten.lt.Tensor",
        "aten.le.Scalar",
        "aten.gt.Tensor",
        "aten.ge.Scalar",
        // pool, resize
        "aten.max_pool2d.default",
        "aten.max_pool2d_with_indices.default",
        "aten.avg_pool2d.default",
        "aten._adaptive_avg_pool2d.default",
        "aten.adaptive_avg_pool2d.default",
        "aten.upsample_bilinear2d.vec",
        "aten.upsample_nearest2d.vec",
        "aten.pixel_shuffle.default",
        // shape
        "aten.view_copy.default",
        "aten._unsafe_view.default",
        "aten.permute_copy.default",
        "aten.cat.default",
        "aten.split_copy.Tensor",
        "aten.split_with_sizes_copy.default",
        "aten.slice_copy.Tensor",
        "aten.select_copy.int",
        "aten.squeeze_copy.dims",
        "aten.squeeze_copy.default",
        "aten.unsqueeze_copy.default",
        "aten.expand_copy.default",
        "aten.clone.default",
        "dim_order_ops._clone_dim_order.default",
        "aten.repeat.default",
        "aten.flip.default",
        "aten.constant_pad_nd.default",
        "aten.as_strided_copy.default",
        "aten.alias_copy.default",
        "aten.alias.default",
        "et_vk.prepack.default",
    };
    for (const char* name : takes) EXPECT_TRUE(op(name).accepts_float16()) << name;
    const char* refuses[] = {
        "aten._to_copy.default", "dim_order_ops._to_dim_order_copy.default",
        "aten.full.default",     "aten.full_like.default",
        "aten.zeros.default",    "aten.zeros_like.default",
        "aten.ones.default",     "aten.ones_like.default",
        "aten.fill.Scalar",
    };
    for (const char* name : refuses) EXPECT_FALSE(op(name).accepts_float16()) << name;
}

// A device without shader-f16 (optional features not requested): ops whose kernels declare f16
// refuse float16 tensors with InvalidArgument naming the op and the feature, instead of a shader
// compilation error; the shape ops, which move 16-bit lanes as bits, still work.
TEST(Float16Ops, WithoutShaderF16KernelsRefuseAndCopiesWork) {
    DeviceOptions options;
    options.request_optional_features = false;
    Context plain = Context::create(options);
    ASSERT_FALSE(plain.device_info().features.shader_f16);
    using Ints = std::vector<int64_t>;
    Tensor x = plain.tensor(DType::f16, {1, 4, 2, 3});
    Tensor y = plain.tensor(DType::f16, {1, 4, 2, 3});
    Tensor small = plain.tensor(DType::f16, {1, 4, 1, 1});
    Tensor big = plain.tensor(DType::f16, {1, 4, 4, 6});
    Tensor shuffled = plain.tensor(DType::f16, {1, 1, 4, 6});
    Tensor mask = plain.tensor(DType::boolean, {1, 4, 2, 3});
    struct Call {
        const char* name;
        std::vector<Arg> args;
    };
    const std::vector<Call> calls = {
        {"aten.relu.default", {x, y}},
        {"aten.clamp.default", {x, 0.0, 1.0, y}},
        {"aten.add.Tensor", {x, x, y}},
        {"wgx.mul_sigmoid.default", {x, small, y}},
        {"aten.lt.Tensor", {x, x, mask}},
        {"aten.gt.Scalar", {x, 0.5, mask}},
        {"aten.where.self", {mask, x, x, y}},
        {"aten.max_pool2d.default", {x, Ints{2, 3}, Ints{}, Ints{0, 0}, Ints{1, 1}, false, small}},
        {"aten.avg_pool2d.default", {x, Ints{2, 3}, Ints{}, Ints{0, 0}, false, true, Arg(), small}},
        {"aten._adaptive_avg_pool2d.default", {x, Ints{1, 1}, small}},
        {"aten.upsample_nearest2d.vec", {x, Ints{4, 6}, Arg(), big}},
        {"aten.upsample_bilinear2d.vec", {x, Ints{4, 6}, false, Arg(), big}},
        {"aten.pixel_shuffle.default", {big, int64_t(2), shuffled}},
    };
    for (const Call& c : calls) {
        try {
            plain.record(op(c.name), c.args);
            ADD_FAILURE() << c.name << ": float16 accepted without shader-f16";
        } catch (const InvalidArgument& e) {
            std::string m = e.what();
            EXPECT_NE(m.find(c.name), std::string::npos) << m;
            EXPECT_NE(m.find("shader-f16"), std::string::npos) << m;
        }
        plain.reset();
    }
    // A copy works: float16 moves as bits.
    auto v = round_to_half(random_floats(24, 9));
    std::vector<uint16_t> bits;
    for (float f : v) bits.push_back(float_to_half(f));
    x.set_data(bits);
    Tensor t = plain.tensor(DType::f16, {1, 4, 3, 2});
    plain.record(op("aten.permute_copy.default"), {x, Ints{0, 1, 3, 2}, t});
    plain.submit();
    std::vector<uint16_t> got = t.get_data<uint16_t>();
    for (int c = 0; c < 4; ++c)
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 2; ++j)
                ASSERT_EQ(got[(c * 3 + i) * 2 + j], bits[(c * 2 + j) * 3 + i]) << c << i << j;
    plain.destroy();
}

}  // namespace
}  // namespace wgx::test
