// The fused ops' schema (graph/schema/fused_ops.h): activation names round-trip, and the names
// the graph passes write into programs are the ones a dumped program.json has always held.
#include <gtest/gtest.h>

#include "graph/schema/fused_ops.h"

namespace wgx::schema {
namespace {

TEST(FusedOpsSchema, ActivationNamesRoundTrip) {
    for (Activation a : {Activation::none, Activation::gelu, Activation::gelu_tanh,
                         Activation::silu, Activation::hardswish}) {
        EXPECT_EQ(activation_named(activation_name(a)), a) << activation_name(a);
    }
    EXPECT_EQ(activation_name(Activation::gelu_tanh), "gelu_tanh");
    EXPECT_EQ(activation_name(Activation::hardswish), "hardswish");
    EXPECT_EQ(activation_named("relu"), std::nullopt);
    EXPECT_EQ(activation_named(""), std::nullopt);
    EXPECT_EQ(activation_named("SILU"), std::nullopt);
}

// The convolution ops share aten.convolution's first nine arguments; what each adds follows
// `groups`, and the output is last.
TEST(FusedOpsSchema, ConvolutionsShareTheirPrefix) {
    EXPECT_EQ(Convolution::prefix, 9u);
    EXPECT_EQ(Convolution::count, 10u);
    EXPECT_EQ(ConvWithClamp::output_min, 9u);
    EXPECT_EQ(ConvWithClamp::count, 12u);
    EXPECT_EQ(ConvAddClamp::residual, 9u);
    EXPECT_EQ(ConvAddClamp::count, 13u);
    EXPECT_EQ(ConvActivation::activation, 9u);
    EXPECT_EQ(ConvActivation::count, 11u);
    EXPECT_EQ(LinearEpilogue::out, 7u);
    EXPECT_EQ(Attention::out, 9u);
}

}  // namespace
}  // namespace wgx::schema
