// Turning an ExecuTorch out-variant kernel (what `to_executorch()` emits in KernelCalls: name
// "aten::add", overload "out") into the functional op the graph spelling uses everywhere else
// ("aten.add.Tensor", the name a VkGraph would carry), plus the argument fix-ups that make the
// KernelCall's args match the VkGraph convention: functional schema args, then the output.
#pragma once

#include <string>
#include <string_view>

namespace wgx::graph {

struct FunctionalOp {
    std::string name;
    // Out variants of factory-style ops drop `dtype, layout, device, pin_memory`; the
    // functional schema has them. `null_count` Null args go in at `null_position`.
    int null_position = -1;
    int null_count = 0;
    // Ops with several outputs take them as separate trailing out args; the VkGraph convention
    // passes one ValueList of outputs. This many trailing args are packed into one list.
    int output_count = 1;
};

// `kernel_name` like "aten::convolution", `overload` like "out" or "Scalar_out".
FunctionalOp functional_op(std::string_view kernel_name, std::string_view overload);

}  // namespace wgx::graph
