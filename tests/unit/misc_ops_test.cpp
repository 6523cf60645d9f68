// Fill ops, logical_not, any.dim, as_strided_copy, the dim-order copies and prepack.
#include "test_util.h"

namespace wgx::test {
namespace {

template <typename T> std::vector<T> run_fill(const std::string& name, DType dt, const Shape& s,
                                              std::vector<Arg> args) {
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
        auto f = run_fill<float>("aten.full.default", DType::f32, s, {std::vector<int64_t>{n}, -2.5});
        EXPECT_EQ(f, std::vector<float>(n, -2.5f));
        auto i = run_fill<int64_t>("aten.full.default", DType::i64, s, {std::vector<int64_t>{n}, 7.9});
        EXPECT_EQ(i, std::vector<int64_t>(n, 7));  // truncated toward zero
        auto b = run_fill<uint8_t>("aten.ones.default", DType::boolean, s, {std::vector<int64_t>{n}});
        EXPECT_EQ(b, std::vector<uint8_t>(n, 1));
        auto u = run_fill<uint8_t>("aten.full.default", DType::u8, s, {std::vector<int64_t>{n}, 200.0});
        EXPECT_EQ(u, std::vector<uint8_t>(n, 200));
        auto h = run_fill<uint16_t>("aten.full.default", DType::f16, s, {std::vector<int64_t>{n}, 1.5});
        EXPECT_EQ(h, std::vector<uint16_t>(n, 0x3e00));  // 1.5 in IEEE half
        Tensor like = ctx().tensor(DType::f32, s);
        auto z = run_fill<float>("aten.zeros_like.default", DType::f32, s, {like});
        EXPECT_EQ(z, std::vector<float>(n, 0.f));
        auto fl = run_fill<float>("aten.full_like.default", DType::f32, s, {like, 3.0});
        EXPECT_EQ(fl, std::vector<float>(n, 3.f));
    }
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
                if (d != dim) os.push_back(s[d]);
                else if (keep) os.push_back(1);
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
        for (int j = 0; j < 4; ++j) ASSERT_EQ(got[i * 4 + j], v[1 + i * 5 + j * 2]) << i << "," << j;
    ctx().reset();
    EXPECT_THROW(ctx().record(op("aten.as_strided_copy.default"),
                              {x, std::vector<int64_t>{3, 4}, std::vector<int64_t>{9, 2}, int64_t(1), out}),
                 InvalidArgument);
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

}  // namespace
}  // namespace wgx::test
