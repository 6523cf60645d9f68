#include "graph/pte/kernel_names.h"

#include <vector>

namespace wgx::graph {

namespace {

struct Exception {
    std::string_view kernel;  // "namespace::op.overload" as the file spells it
    FunctionalOp op;
};

// Where the general rule ("out" -> "default", "X_out" -> "X") gives the wrong functional
// overload, changes the argument list, or the op has several outputs. Keep it small; an op
// missing here surfaces as an unknown op name, never as a silent misreading.
const std::vector<Exception>& exceptions() {
    static const std::vector<Exception> table = {
        // View ops are rewritten by ExecuTorch to its own primitive; it copies here.
        {"executorch_prim::et_view.default", {"aten.view_copy.default"}},
        // Binary ops whose functional overload is "Tensor", not "default".
        {"aten::add.out", {"aten.add.Tensor"}},
        {"aten::sub.out", {"aten.sub.Tensor"}},
        {"aten::mul.out", {"aten.mul.Tensor"}},
        {"aten::div.out", {"aten.div.Tensor"}},
        {"aten::div.out_mode", {"aten.div.Tensor_mode"}},
        // Reductions whose out overload pairs with a differently named functional one.
        {"aten::mean.out", {"aten.mean.dim"}},
        {"aten::mean.dtype_out", {"aten.mean.default"}},
        {"aten::sum.IntList_out", {"aten.sum.dim_IntList"}},
        {"aten::var.out", {"aten.var.dim"}},
        {"aten::std.out", {"aten.std.dim"}},
        {"aten::any.out", {"aten.any.dim"}},
        {"aten::any.all_out", {"aten.any.default"}},
        {"aten::all.out", {"aten.all.dim"}},
        {"aten::all.all_out", {"aten.all.default"}},
        {"aten::max.unary_out", {"aten.max.default"}},
        {"aten::min.unary_out", {"aten.min.default"}},
        // Several outputs.
        {"aten::max.dim_max", {"aten.max.dim", -1, 0, 2}},
        {"aten::min.dim_min", {"aten.min.dim", -1, 0, 2}},
        {"aten::topk.values", {"aten.topk.default", -1, 0, 2}},
        {"aten::sort.values", {"aten.sort.default", -1, 0, 2}},
        {"aten::sort.values_stable", {"aten.sort.stable", -1, 0, 2}},
        {"aten::aminmax.out", {"aten.aminmax.default", -1, 0, 2}},
        {"aten::var_mean.correction_out", {"aten.var_mean.correction", -1, 0, 2}},
        {"aten::std_mean.correction_out", {"aten.std_mean.correction", -1, 0, 2}},
        {"aten::native_dropout.out", {"aten.native_dropout.default", -1, 0, 2}},
        {"aten::max_pool2d_with_indices.out", {"aten.max_pool2d_with_indices.default", -1, 0, 2}},
        {"aten::max_pool3d_with_indices.out", {"aten.max_pool3d_with_indices.default", -1, 0, 2}},
        {"aten::native_layer_norm.out", {"aten.native_layer_norm.default", -1, 0, 3}},
        {"aten::native_group_norm.out", {"aten.native_group_norm.default", -1, 0, 3}},
        {"aten::native_batch_norm.out", {"aten.native_batch_norm.default", -1, 0, 3}},
        {"aten::_native_batch_norm_legit.out", {"aten._native_batch_norm_legit.default", -1, 0, 3}},
        {"aten::_native_batch_norm_legit.no_stats_out",
         {"aten._native_batch_norm_legit.no_stats", -1, 0, 3}},
        {"aten::_native_batch_norm_legit_no_training.out",
         {"aten._native_batch_norm_legit_no_training.default", -1, 0, 3}},
        // Factory-style ops: the out variant lacks dtype, layout, device, pin_memory.
        {"aten::_to_copy.out", {"aten._to_copy.default", 1, 4}},
        {"aten::full.out", {"aten.full.default", 2, 4}},
        {"aten::full_like.out", {"aten.full_like.default", 2, 4}},
        {"aten::zeros.out", {"aten.zeros.default", 1, 4}},
        {"aten::zeros_like.out", {"aten.zeros_like.default", 1, 4}},
        {"aten::ones.out", {"aten.ones.default", 1, 4}},
        {"aten::ones_like.out", {"aten.ones_like.default", 1, 4}},
        {"aten::empty.out", {"aten.empty.memory_format", 1, 4}},
        {"aten::empty_like.out", {"aten.empty_like.default", 1, 4}},
        {"aten::scalar_tensor.out", {"aten.scalar_tensor.default", 1, 4}},
        {"aten::arange.out", {"aten.arange.default", 1, 4}},
        {"aten::arange.start_out", {"aten.arange.start_step", 3, 4}},
        {"aten::randn.out", {"aten.randn.default", 1, 4}},
        {"aten::rand.out", {"aten.rand.default", 1, 4}},
        {"dim_order_ops::_to_dim_order_copy.out",
         {"dim_order_ops._to_dim_order_copy.default", 1, 4}},
        {"dim_order_ops::_empty_dim_order.out", {"dim_order_ops._empty_dim_order.default", 1, 4}},
        // LLM custom ops: the VkGraph spells these without a namespace.
        {"llama::sdpa_with_kv_cache.out", {"sdpa_with_kv_cache.default"}},
        {"llama::update_cache.out", {"update_cache.default"}},
        // PT2E's quantize / dequantize ops: the tensor-qparams overload is "tensor" in
        // lower case, and the choose_qparams ops have two outputs.
        {"quantized_decomposed::quantize_per_tensor.Tensor_out",
         {"quantized_decomposed.quantize_per_tensor.tensor"}},
        {"quantized_decomposed::dequantize_per_tensor.Tensor_out",
         {"quantized_decomposed.dequantize_per_tensor.tensor"}},
        {"quantized_decomposed::choose_qparams.Tensor_out",
         {"quantized_decomposed.choose_qparams.tensor", -1, 0, 2}},
        {"quantized_decomposed::choose_qparams_per_token_asymmetric.out",
         {"quantized_decomposed.choose_qparams_per_token_asymmetric.default", -1, 0, 2}},
        // Symbolic-size query; the VkGraph spelling drops the namespace.
        {"aten::sym_size.int", {"sym_size.int"}},
        {"aten::sym_numel.default", {"sym_numel"}},
        {"aten::sym_stride.int", {"sym_stride.int"}},
        {"aten::sym_storage_offset.default", {"sym_storage_offset"}},
    };
    return table;
}

std::string dotted(std::string_view kernel_name) {
    std::string name(kernel_name);
    for (size_t at = name.find("::"); at != std::string::npos; at = name.find("::", at + 1)) {
        name.replace(at, 2, ".");
    }
    return name;
}

}  // namespace

FunctionalOp functional_op(std::string_view kernel_name, std::string_view overload) {
    const std::string full = std::string(kernel_name) + "." + std::string(overload);
    for (const Exception& entry : exceptions()) {
        if (entry.kernel == full) return entry.op;
    }
    // Symbolic integer arithmetic ("executorch_prim::add" / "Scalar") carries the bare Python
    // operator name in a VkGraph ("add", "floordiv", ...).
    constexpr std::string_view kPrim = "executorch_prim::";
    if (kernel_name.starts_with(kPrim) &&
        (overload == "Scalar" || overload == "default" || overload.empty())) {
        return {std::string(kernel_name.substr(kPrim.size()))};
    }
    std::string functional_overload(overload);
    constexpr std::string_view kOutSuffix = "_out";
    if (overload.empty() || overload == "out") {
        functional_overload = "default";
    } else if (overload.ends_with(kOutSuffix)) {
        functional_overload = overload.substr(0, overload.size() - kOutSuffix.size());
    }
    return {dotted(kernel_name) + "." + functional_overload};
}

}  // namespace wgx::graph
