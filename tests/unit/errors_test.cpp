// Clear errors for bad op arguments: each names the op and the values involved.
#include "test_util.h"

namespace wgx::test {
namespace {

std::string error_of(const Op& o, std::initializer_list<Arg> args) {
    try {
        ctx().record(o, args);
    } catch (const InvalidArgument& e) {
        ctx().reset();
        return e.what();
    }
    ctx().reset();
    return "";
}

TEST(OpErrors, MismatchedShapes) {
    Tensor a = ctx().tensor(DType::f32, {2, 3});
    Tensor b = ctx().tensor(DType::f32, {4});
    Tensor out = ctx().tensor(DType::f32, {2, 3});
    std::string m = error_of(op("aten.add.Tensor"), {a, b, out});
    EXPECT_NE(m.find("aten.add.Tensor"), std::string::npos) << m;
    EXPECT_NE(m.find("[2, 3]"), std::string::npos) << m;
    EXPECT_NE(m.find("[4]"), std::string::npos) << m;

    Tensor wrong_out = ctx().tensor(DType::f32, {3, 2});
    m = error_of(op("aten.mul.Tensor"), {a, a, wrong_out});
    EXPECT_NE(m.find("output shape [3, 2]"), std::string::npos) << m;
}

TEST(OpErrors, WrongDtype) {
    Tensor a = ctx().tensor(DType::f32, {4});
    Tensor i = ctx().tensor(DType::i32, {4});
    std::string m = error_of(op("aten.mul.Tensor"), {a, i, a});
    EXPECT_NE(m.find("float32"), std::string::npos) << m;
    EXPECT_NE(m.find("int32"), std::string::npos) << m;
    Tensor b = ctx().tensor(DType::boolean, {4});
    m = error_of(op("aten.add.Tensor"), {b, b, b});
    EXPECT_NE(m.find("bool"), std::string::npos) << m;
}

TEST(OpErrors, BadRank) {
    Tensor a3 = ctx().tensor(DType::f32, {2, 2, 2});
    Tensor a2 = ctx().tensor(DType::f32, {2, 2});
    std::string m = error_of(op("aten.mm.default"), {a3, a2, a2});
    EXPECT_NE(m.find("2-D"), std::string::npos) << m;
    EXPECT_NE(m.find("[2, 2, 2]"), std::string::npos) << m;
}

TEST(OpErrors, WrongArgumentCountAndKind) {
    Tensor a = ctx().tensor(DType::f32, {2});
    std::string m = error_of(op("aten.mul.Tensor"), {a, a});
    EXPECT_NE(m.find("expects 3 arguments, got 2"), std::string::npos) << m;
    m = error_of(op("aten.mul.Tensor"), {a, 2.0, a});
    EXPECT_NE(m.find("argument 1 (other) must be a tensor, got double 2"), std::string::npos) << m;
}

TEST(OpErrors, UnknownOpName) { EXPECT_THROW(op("aten.does_not_exist.default"), InvalidArgument); }

TEST(SeedExample, TwoOpsGiveTheDocumentedResult) {
    // The seed's program example, recorded op by op: (in1 + 1.5 * in2) @ in3.
    Tensor in1 = ctx().tensor(DType::f32, {2, 2}).set_data({1.f, 2.f, 3.f, 4.f});
    Tensor in2 = ctx().tensor(DType::f32, {2, 2}).set_data({10.f, 20.f, 30.f, 40.f});
    Tensor in3 = ctx().tensor(DType::f32, {2, 2}).set_data({1.f, 2.f, 3.f, 4.f});
    Tensor temp = ctx().tensor(DType::f32, {2, 2});
    Tensor out = ctx().tensor(DType::f32, {2, 2});
    ctx().reset();
    ctx().record(op("aten.add.Tensor"), {in1, in2, 1.5, temp});
    ctx().record(op("aten.mm.default"), {temp, in3, out});
    ctx().submit();
    ctx().sync();
    EXPECT_EQ(out.get_data<float>(), (std::vector<float>{112, 160, 240, 352}));
    ctx().reset();
}

}  // namespace
}  // namespace wgx::test
