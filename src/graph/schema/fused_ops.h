// The written schema of the engine's own ops, the `wgx.*` calls the graph passes make (and of
// the exporters' convolution ops, whose argument prefix they share): each op's graph name and
// the position of every argument, and the activations an epilogue applies, with the names those
// take as string arguments. The passes build calls through these and the ops read them through
// the same, so the two cannot drift apart. Header-only and GPU-free: the graph room owns it,
// the ops may include it (docs/ARCHITECTURE.md).
//
// Every op's output comes last (`out`); `count` is the number of arguments. The meaning of each
// argument is documented at the op (src/ops/...), its shape rules there too.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace wgx::schema {

// An activation applied in a fused epilogue, after the bias. As op arguments they are strings:
// the program format stores strings (as aten.gelu's `approximate`), and a name reads the same
// in a dumped program.json as in the source.
//   gelu       exact GELU (through erf), as aten.gelu with approximate "none"
//   gelu_tanh  aten.gelu with approximate "tanh"
//   silu       x * sigmoid(x), as aten.silu
//   hardswish  x * clamp(x + 3, 0, 6) / 6, as aten.hardswish
enum class Activation : uint32_t { none = 0, gelu = 1, gelu_tanh = 2, silu = 3, hardswish = 4 };

inline constexpr std::array<std::string_view, 5> kActivationNames = {"none", "gelu", "gelu_tanh",
                                                                     "silu", "hardswish"};

constexpr std::string_view activation_name(Activation a) {
    return kActivationNames[static_cast<size_t>(a)];
}

// nullopt for a name that is none of the above.
constexpr std::optional<Activation> activation_named(std::string_view name) {
    for (size_t i = 0; i < kActivationNames.size(); ++i) {
        if (kActivationNames[i] == name) return static_cast<Activation>(i);
    }
    return std::nullopt;
}

// aten.convolution.default: [input, weight, bias?, stride, padding, dilation, transposed,
// output_padding, groups, out]. Its first nine arguments are the prefix of every convolution op
// below; what a schema adds sits between `groups` and `out`.
struct Convolution {
    static constexpr std::string_view name = "aten.convolution.default";
    enum : size_t {
        input,
        weight,
        bias,
        stride,
        padding,
        dilation,
        transposed,
        output_padding,
        groups,
        out,
        count
    };
    static constexpr size_t prefix = groups + 1;  // the shared arguments, input .. groups
};

// et_vk.conv_with_clamp.default (ExecuTorch's Vulkan partitioner writes it): clamp(conv(x)).
struct ConvWithClamp {
    static constexpr std::string_view name = "et_vk.conv_with_clamp.default";
    enum : size_t { output_min = Convolution::prefix, output_max, out, count };
};

// wgx.conv_add_clamp.default: clamp(conv(x) + residual, output_min, output_max).
struct ConvAddClamp {
    static constexpr std::string_view name = "wgx.conv_add_clamp.default";
    enum : size_t { residual = Convolution::prefix, output_min, output_max, out, count };
};

// wgx.conv_activation.default: act(conv(x)), `activation` "silu" or "hardswish".
struct ConvActivation {
    static constexpr std::string_view name = "wgx.conv_activation.default";
    enum : size_t { activation = Convolution::prefix, out, count };
};

// wgx.linear_epilogue.default: y = act(input @ weight^T + bias) * scale + residual, optionally
// stored channels-first.
struct LinearEpilogue {
    static constexpr std::string_view name = "wgx.linear_epilogue.default";
    enum : size_t { input, weight, bias, activation, scale, residual, channels_first, out, count };
};

// wgx.linear_dq8ca_q4gsw.default: et_vk.linear_dq8ca_q4gsw with the input's per-row int8
// scale and zero point computed inside (asymmetric, -128..127, `eps` the smallest scale), as
// the torchao.choose_qparams_affine call before it computed them: [input, eps, weights,
// weight_sums? (never read; fuse_dynamic_quant passes none), weight_scales, group_size, bias?,
// out].
struct LinearDq8caOwnQparams {
    static constexpr std::string_view name = "wgx.linear_dq8ca_q4gsw.default";
    enum : size_t { input, eps, weights, weight_sums, weight_scales, group_size, bias, out, count };
};

// wgx.gated_linear_q4gsw.default: a SwiGLU pair of 4-bit linear layers of one input,
// silu(input gate_weights^T) * (input up_weights^T), each as et_vk.linear_q4gsw (eps none:
// float activations) or wgx.linear_dq8ca_q4gsw (eps a number: 8-bit activations, their qparams
// found in the kernel) computes it; no bias.
struct GatedLinearQ4gsw {
    static constexpr std::string_view name = "wgx.gated_linear_q4gsw.default";
    enum : size_t {
        input,
        eps,
        gate_weights,
        gate_scales,
        up_weights,
        up_scales,
        group_size,
        out,
        count
    };
};

// wgx.attention.default: softmax(scale * q @ k^T) @ v over strided views of q, k and v.
struct Attention {
    static constexpr std::string_view name = "wgx.attention.default";
    enum : size_t { q, k, v, q_view, k_view, v_view, sizes, scale, zero_masked_rows, out, count };
    // `sizes` holds [B, Lq, Lk, D, DV]; each view [offset, batch, row, col] element strides.
    static constexpr size_t sizes_count = 5, view_count = 4;
};

// wgx.mul_sigmoid.default: self * sigmoid(gate).
struct MulSigmoid {
    static constexpr std::string_view name = "wgx.mul_sigmoid.default";
    enum : size_t { self, gate, out, count };
};

// wgx.mul_hardsigmoid.default: self * hardsigmoid(gate).
struct MulHardsigmoid {
    static constexpr std::string_view name = "wgx.mul_hardsigmoid.default";
    enum : size_t { self, gate, out, count };
};

// wgx.silu_mul.default: silu(self) * other, same shapes: the gated unit of a SwiGLU feed-forward
// layer (Llama's w2(silu(w1 x) * w3 x)).
struct SiluMul {
    static constexpr std::string_view name = "wgx.silu_mul.default";
    enum : size_t { self, other, out, count };
};

// wgx.add_rms_norm.default: sum = self + other, norm = rms_norm(sum, weight, eps), same shapes;
// `out` is the list (sum, norm): a transformer's residual add and the norm after it.
struct AddRmsNorm {
    static constexpr std::string_view name = "wgx.add_rms_norm.default";
    enum : size_t { self, other, weight, eps, out, count };
};

// wgx.channel_shuffle.default: ShuffleNet's shuffle of cat(tensors, dim) in `groups` groups,
// then split along `dim` into split_sizes (an int list; none: no split, `out` one tensor).
struct ChannelShuffle {
    static constexpr std::string_view name = "wgx.channel_shuffle.default";
    enum : size_t { tensors, dim, groups, split_sizes, out, count };
};

}  // namespace wgx::schema
