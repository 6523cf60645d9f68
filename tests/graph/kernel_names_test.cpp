// Out-variant kernel names -> functional graph names.
#include <gtest/gtest.h>

#include "graph/pte/kernel_names.h"

namespace wgx::graph {
namespace {

TEST(KernelNames, GeneralRuleAndTable) {
    const std::pair<std::pair<const char*, const char*>, const char*> cases[] = {
        {{"aten::add", "out"}, "aten.add.Tensor"},
        {{"aten::mul", "out"}, "aten.mul.Tensor"},
        {{"aten::add", "Scalar_out"}, "aten.add.Scalar"},
        {{"aten::convolution", "out"}, "aten.convolution.default"},
        {{"aten::_softmax", "out"}, "aten._softmax.default"},
        {{"aten::mean", "out"}, "aten.mean.dim"},
        {{"aten::sum", "IntList_out"}, "aten.sum.dim_IntList"},
        {{"aten::pow", "Tensor_Scalar_out"}, "aten.pow.Tensor_Scalar"},
        {{"aten::slice_copy", "Tensor_out"}, "aten.slice_copy.Tensor"},
        {{"aten::upsample_nearest2d", "vec_out"}, "aten.upsample_nearest2d.vec"},
        {{"aten::where", "self_out"}, "aten.where.self"},
        {{"aten::div", "out_mode"}, "aten.div.Tensor_mode"},
        {{"aten::max", "unary_out"}, "aten.max.default"},
        {{"aten::sym_size", "int"}, "sym_size.int"},
        {{"executorch_prim::et_view", "default"}, "aten.view_copy.default"},
        {{"executorch_prim::add", "Scalar"}, "add"},
        {{"executorch_prim::floordiv", "Scalar"}, "floordiv"},
        {{"quantized_decomposed::quantize_per_tensor", "out"},
         "quantized_decomposed.quantize_per_tensor.default"},
        {{"quantized_decomposed::quantize_per_tensor", "Tensor_out"},
         "quantized_decomposed.quantize_per_tensor.tensor"},
        {{"quantized_decomposed::dequantize_per_tensor", "Tensor_out"},
         "quantized_decomposed.dequantize_per_tensor.tensor"},
        {{"quantized_decomposed::dequantize_per_channel", "out"},
         "quantized_decomposed.dequantize_per_channel.default"},
        {{"quantized_decomposed::choose_qparams", "Tensor_out"},
         "quantized_decomposed.choose_qparams.tensor"},
        {{"dim_order_ops::_clone_dim_order", "out"}, "dim_order_ops._clone_dim_order.default"},
        {{"llama::update_cache", "out"}, "update_cache.default"},
        {{"my_ns::custom", ""}, "my_ns.custom.default"},
        {{"aten::relu", "default"}, "aten.relu.default"},
    };
    for (const auto& [kernel, expected] : cases) {
        EXPECT_EQ(functional_op(kernel.first, kernel.second).name, expected)
            << kernel.first << "." << kernel.second;
    }
}

TEST(KernelNames, ArgumentFixups) {
    const FunctionalOp full = functional_op("aten::full", "out");
    EXPECT_EQ(full.name, "aten.full.default");
    EXPECT_EQ(full.null_position, 2);
    EXPECT_EQ(full.null_count, 4);
    const FunctionalOp norm = functional_op("aten::native_layer_norm", "out");
    EXPECT_EQ(norm.output_count, 3);
    EXPECT_EQ(functional_op("aten::relu", "out").output_count, 1);
    EXPECT_EQ(functional_op("quantized_decomposed::choose_qparams", "Tensor_out").output_count, 2);
    EXPECT_EQ(functional_op("quantized_decomposed::choose_qparams_per_token_asymmetric", "out")
                  .output_count,
              2);
}

}  // namespace
}  // namespace wgx::graph
