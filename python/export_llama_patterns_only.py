"""Run ExecuTorch's export_llama with the Vulkan partitioner limited to its quantized patterns.

`python export_llama_patterns_only.py ARGS` is `python -m executorch.examples.models.llama.export_llama
ARGS`, except that with --vulkan the partitioner delegates only the subgraphs it fuses into one
quantized Vulkan op (the quantized linear layers and embeddings: et_vk.linear_q4gsw,
et_vk.linear_dq8ca_q4gsw, et_vk.embedding_q4gsw, ...) and leaves every other op in the plain
program. The hybrid families need this: a whole-model --vulkan export of them puts the first op
on each recurrent or conv state inside a delegate that holds its own constant copy of the state,
so the state never carries over between steps (docs/LLM.md), while the plain program writes it
back explicitly. The partitioner's other fused patterns (rope, sdpa, rms norm, select_as_symint)
stay out too, but for the activations' dynamic quantization ahead of an 8da4w linear: a delegate
that returns the cache position as a symbolic int makes the exporter's later retrace fail on a
data-dependent slice.
"""

from __future__ import annotations

import operator
import sys

import torch

ACTIVATION_QUANT_OPS = ("torchao.choose_qparams_affine.", "torchao.quantize_affine.")


def main() -> None:
    import executorch.backends.vulkan.partitioner.vulkan_partitioner as vulkan_partitioner
    import executorch.backends.vulkan.serialization.vulkan_graph_builder as vulkan_graph_builder
    from executorch.examples.models.llama import export_llama

    every_pattern = vulkan_partitioner.vk_patterns.get_all_fusable_subgraphs

    def quantized_patterns(graph_module):
        matches = every_pattern(graph_module)
        return [m for m in matches if ".quantized_" in type(m).__module__]

    is_supported = vulkan_partitioner.VulkanSupportedOperators._is_node_supported

    def fused_only(self, node):
        if node.op != "call_function":
            return False
        if node in self.fusable_nodes:
            return True
        # The activations' dynamic quantization ahead of a fused 8da4w linear: the exporter's
        # runtime has no out variants of these, so they must be delegated as in a full export.
        # (An edge op prints as "<EdgeOpOverload: torchao.quantize_affine.default>: schema = ...".)
        target = str(node.target)
        if any(op in target for op in ACTIVATION_QUANT_OPS):
            return is_supported(self, node)
        # The scale and zero point taken out of a choose_qparams_affine: outside the delegate
        # they would cut it in two, and the linear layer's half would no longer see where its
        # input's qparams come from (the exporter then writes an unfused layer whose delegate
        # takes fewer inputs than its call passes).
        if node.target is operator.getitem and isinstance(node.args[0], torch.fx.Node):
            return any(op in str(node.args[0].target) for op in ACTIVATION_QUANT_OPS[:1])
        return False

    # The serializer leaves a delegate's unused inputs out of its VkGraph, while the program's
    # call still passes them (every delegate here gets the sequence length as a SymInt that its
    # fused ops no longer read): the runtime would then take the inputs and outputs at the wrong
    # positions. Listing them keeps the two aligned.
    builder = vulkan_graph_builder.VkGraphBuilder
    process_placeholder = builder.process_placeholder_node

    def keep_unused_inputs(self, node):
        if node.users or vulkan_graph_builder.is_param_node(self.program, node):
            return process_placeholder(self, node)
        ids = self.create_node_value(node)
        self.input_ids += [ids] if isinstance(ids, int) else ids

    builder.process_placeholder_node = keep_unused_inputs
    vulkan_partitioner.vk_patterns.get_all_fusable_subgraphs = quantized_patterns
    vulkan_partitioner.VulkanSupportedOperators._is_node_supported = fused_only
    export_llama.main()


if __name__ == "__main__":
    sys.argv[0] = "export_llama"
    main()
