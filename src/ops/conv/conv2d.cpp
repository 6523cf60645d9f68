#include "ops/conv/conv2d.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/dispatch_geometry.h"
#include "graph/schema/fused_ops.h"
#include "ops/conv/conv2d_depthwise.wgsl.h"
#include "ops/conv/conv2d_depthwise_tiled.wgsl.h"
#include "ops/conv/im2col.wgsl.h"
#include "ops/conv/conv2d_direct.wgsl.h"
#include "ops/common/float16_support.h"
#include "ops/common/math.wgsl.h"
#include "ops/common/wgsl_types.h"
#include "ops/matmul/gemm.h"
#include "ops/conv/conv_common.wgsl.h"
#include "ops/conv/conv_params.wgsl.h"

namespace wgx::ops {
namespace {

using Conv = schema::Convolution;

std::string list_string(const std::vector<int64_t>& v) {
    return fmt::format("[{}]", fmt::join(v, ", "));
}

// A per-spatial-dim list of `dims` values; a single value applies to every dim (as PyTorch
// expands it). Each value must be >= `min`.
std::array<int64_t, 2> spatial(const Args& args, size_t i, const char* name, int dims,
                               int64_t min) {
    std::vector<int64_t> v = args.int_list(i, name);
    if (v.size() == 1) v.resize(dims, v[0]);
    if (static_cast<int>(v.size()) != dims) {
        args.fail(fmt::format("{} must have {} value(s) for a {}-D convolution, got {}.", name,
                              dims, dims, list_string(v)));
    }
    for (int64_t x : v) {
        if (x < min) {
            args.fail(fmt::format("{} values must be >= {}, got {}.", name, min,
                                  list_string(v)));
        }
    }
    // 1-D convolutions become 2-D ones over a height of 1: the height gets the neutral value.
    if (dims == 1) return {min == 1 ? 1 : 0, v[0]};
    return {v[0], v[1]};
}

// A clamp bound; none or beyond float's range means unbounded.
std::optional<float> bound(const Args& args, size_t i, const char* name) {
    std::optional<double> v = args.optional_number(i, name);
    if (!v) return std::nullopt;
    if (std::isnan(*v)) args.fail(fmt::format("{} is NaN.", name));
    if (std::abs(*v) >= std::numeric_limits<float>::max()) return std::nullopt;
    return static_cast<float>(*v);
}

// The activation argument of wgx.conv_activation.
Activation activation_arg(const Args& args, size_t i) {
    const auto* s = std::get_if<std::string>(&args[i].value());
    if (s == nullptr) {
        args.fail(fmt::format("argument {} (activation) must be a string, \"silu\" or "
                              "\"hardswish\"; got {}.", i, args[i].describe()));
    }
    const std::optional<Activation> a = schema::activation_named(*s);
    if (a == Activation::silu || a == Activation::hardswish) return *a;
    args.fail(fmt::format("activation must be \"silu\" or \"hardswish\", got \"{}\".", *s));
}

// Whether ungrouped convolutions run as an implicit GEMM (B gathered from the input where the
// GEMM loads it) rather than im2col into a scratch and the GEMM: yes unless the environment sets
// WGX_IMPLICIT_GEMM=0, which keeps the unfold reachable to compare the two. Read once.
bool implicit_gemm_enabled() {
    static const bool enabled = [] {
        const char* env = std::getenv("WGX_IMPLICIT_GEMM");
        return env == nullptr || std::string_view(env) != "0";
    }();
    return enabled;
}

void check_fits_u32(const Args& args, const Tensor& t, const char* name) {
    if (t.numel() > std::numeric_limits<int32_t>::max()) {
        args.fail(fmt::format("{} {} has more elements than the kernels index (2^31).", name,
                              shape_string(t.shape())));
    }
}

}  // namespace

void record_convolution(Recorder& rec, const Args& args, ConvSchema form) {
    const size_t count = form == ConvSchema::plain        ? Conv::count
                         : form == ConvSchema::activation ? schema::ConvActivation::count
                         : form == ConvSchema::clamp      ? schema::ConvWithClamp::count
                                                            : schema::ConvAddClamp::count;
    args.expect_count(count, count);
    const size_t out_index = args.size() - 1;
    const Tensor& input = args.tensor(Conv::input, "input");
    const Tensor& weight = args.tensor(Conv::weight, "weight");
    std::optional<Tensor> bias = args.optional_tensor(Conv::bias, "bias");
    const Tensor& out = args.tensor(out_index, "out");

    const Activation activation = form == ConvSchema::activation
                                          ? activation_arg(args, schema::ConvActivation::activation)
                                          : Activation::none;
    std::optional<Tensor> residual;
    if (form == ConvSchema::residual_clamp) {
        residual = args.tensor(schema::ConvAddClamp::residual, "residual");
        if (residual->shape() != out.shape()) {
            args.fail(fmt::format("residual must have out's shape {}, got {}.",
                                  shape_string(out.shape()), shape_string(residual->shape())));
        }
    }

    // dtypes: one float type throughout, float32 (float64 data is stored as float32 too) or
    // float16 (stored as float16, computed in float32, rounded once on the store).
    const DType dt = one_float_type(rec, args,
                                    {{&input, "input"}, {&weight, "weight"},
                                     {bias ? &*bias : nullptr, "bias"},
                                     {residual ? &*residual : nullptr, "residual"}, {&out, "out"}});

    // ranks: [N, C, L] (1-D) or [N, C, H, W] (2-D); weight and out of the same rank.
    if (input.rank() != 3 && input.rank() != 4) {
        args.fail(fmt::format("input must be 3-D [N, C, L] or 4-D [N, C, H, W], got shape {}.",
                              shape_string(input.shape())));
    }
    const int dims = input.rank() - 2;
    for (auto [t, name] : {std::pair{&weight, "weight"}, {&out, "out"}}) {
        if (t->rank() != input.rank()) {
            args.fail(fmt::format("{} must be {}-D like input {}, got shape {}.", name,
                                  input.rank(), shape_string(input.shape()),
                                  shape_string(t->shape())));
        }
    }
    for (auto [t, name] : {std::pair{&input, "input"}, {&weight, "weight"}, {&out, "out"}}) {
        check_fits_u32(args, *t, name);
    }

    auto stride = spatial(args, Conv::stride, "stride", dims, 1);
    auto padding = spatial(args, Conv::padding, "padding", dims, 0);
    auto dilation = spatial(args, Conv::dilation, "dilation", dims, 1);
    bool transposed = args.boolean(Conv::transposed, "transposed");
    auto out_pad = spatial(args, Conv::output_padding, "output_padding", dims, 0);
    int64_t groups = args.integer(Conv::groups, "groups");
    if (groups < 1) args.fail(fmt::format("groups must be >= 1, got {}.", groups));

    // Shapes as 2-D: [N, C, H, W] with H = 1 for 1-D.
    auto as4 = [&](const Shape& s) -> std::array<int64_t, 4> {
        if (dims == 1) return {s[0], s[1], 1, s[2]};
        return {s[0], s[1], s[2], s[3]};
    };
    auto [N, C_in, H_in, W_in] = as4(input.shape());
    auto ws = as4(weight.shape());
    const int64_t kH = ws[2], kW = ws[3];
    if (C_in % groups != 0) {
        args.fail(fmt::format("input channels ({}) must be divisible by groups ({}).", C_in,
                              groups));
    }
    const int64_t cin_g = C_in / groups;
    int64_t C_out = 0;
    if (!transposed) {
        // weight [C_out, C_in / groups, kH, kW]
        C_out = ws[0];
        if (ws[1] != cin_g || C_out % groups != 0) {
            args.fail(fmt::format("weight {} must be [C_out, C_in / groups = {}, ...] with C_out "
                                  "divisible by groups ({}), for input {}.",
                                  shape_string(weight.shape()), cin_g, groups,
                                  shape_string(input.shape())));
        }
        if (out_pad[0] != 0 || out_pad[1] != 0) {
            args.fail(fmt::format("output_padding {} must be zero unless transposed.",
                                  list_string(args.int_list(Conv::output_padding, "output_padding"))));
        }
    } else {
        // weight [C_in, C_out / groups, kH, kW]
        if (ws[0] != C_in) {
            args.fail(fmt::format("transposed weight {} must be [C_in = {}, C_out / groups, ...].",
                                  shape_string(weight.shape()), C_in));
        }
        C_out = ws[1] * groups;
        for (int d = 0; d < 2; ++d) {
            if (out_pad[d] >= stride[d] && out_pad[d] >= dilation[d]) {
                args.fail(fmt::format("output_padding {} must be smaller than stride or dilation.",
                                      list_string(args.int_list(Conv::output_padding, "output_padding"))));
            }
        }
    }
    const int64_t cout_g = C_out / groups;
    if (bias && (bias->rank() != 1 || bias->shape()[0] != C_out)) {
        args.fail(fmt::format("bias must have shape [{}], got {}.", C_out,
                              shape_string(bias->shape())));
    }

    // Output size, PyTorch's formulas.
    std::array<int64_t, 2> in_sz{H_in, W_in}, k{kH, kW}, o{};
    for (int d = 0; d < 2; ++d) {
        int64_t span = dilation[d] * (k[d] - 1) + 1;
        if (!transposed) {
            int64_t padded = in_sz[d] + 2 * padding[d];
            o[d] = padded >= span ? (padded - span) / stride[d] + 1 : 0;
        } else {
            o[d] = (in_sz[d] - 1) * stride[d] - 2 * padding[d] + span + out_pad[d];
        }
    }
    if (o[0] < 1 || o[1] < 1) {
        args.fail(fmt::format("input {} with kernel {} gives an empty output.",
                              shape_string(input.shape()), shape_string(weight.shape())));
    }
    Shape expected = dims == 1 ? Shape{N, C_out, o[1]} : Shape{N, C_out, o[0], o[1]};
    if (out.shape() != expected) {
        args.fail(fmt::format("out has shape {}, expected {}.", shape_string(out.shape()),
                              shape_string(expected)));
    }

    ConvParams p{};
    p.N = uint32_t(N), p.C_in = uint32_t(C_in), p.H_in = uint32_t(H_in), p.W_in = uint32_t(W_in);
    p.C_out = uint32_t(C_out), p.H_out = uint32_t(o[0]), p.W_out = uint32_t(o[1]);
    p.groups = uint32_t(groups);
    p.kH = uint32_t(kH), p.kW = uint32_t(kW);
    p.stride_h = uint32_t(stride[0]), p.stride_w = uint32_t(stride[1]);
    p.pad_h = uint32_t(padding[0]), p.pad_w = uint32_t(padding[1]);
    p.dil_h = uint32_t(dilation[0]), p.dil_w = uint32_t(dilation[1]);
    p.cin_g = uint32_t(cin_g), p.cout_g = uint32_t(cout_g);
    p.co_blocks = uint32_t(ceil_div(cout_g, 4));
    p.x_blocks = uint32_t(ceil_div(o[1], 4));
    if (bias) p.flags |= kConvHasBias;
    if (form == ConvSchema::clamp || form == ConvSchema::residual_clamp) {
        const size_t lo_at = form == ConvSchema::clamp ? schema::ConvWithClamp::output_min
                                                         : schema::ConvAddClamp::output_min;
        const size_t hi_at = form == ConvSchema::clamp ? schema::ConvWithClamp::output_max
                                                         : schema::ConvAddClamp::output_max;
        if (auto lo = bound(args, lo_at, "output_min")) p.flags |= kConvHasMin, p.out_min = *lo;
        if (auto hi = bound(args, hi_at, "output_max")) p.flags |= kConvHasMax, p.out_max = *hi;
    }

    // Without a bias the weight stands in for its binding (read-only twice is fine); the
    // shader reads it only under kConvHasBias.
    const Tensor& bias_binding = bias ? *bias : weight;
    // The element type first ("enable f16;" must precede every declaration), then the uniform.
    const std::string params_wgsl = wgsl_alias(dt, "S") + std::string(wgsl::ops_conv_conv_params);
    // The direct kernels' activation is written into conv_common.wgsl's //@ACTIVATE line (and
    // the math it calls prepended); without one the line goes, and their text is what it was
    // before activations existed.
    std::string common = params_wgsl +
                         (activation != Activation::none ? std::string(wgsl::ops_common_math)
                                                             : std::string()) +
                         std::string(wgsl::ops_conv_conv_common);
    replace_wgsl_marker(common, "ACTIVATE",
                        activation != Activation::none
                            ? fmt::format("    v = {};\n", activation_wgsl(activation, "v"))
                            : std::string());
    const uint32_t max_dim = rec.device().limits.max_workgroups_per_dimension;

    // Variant 1: a 1x1, stride-1, unpadded, ungrouped convolution is a GEMM per image,
    // out[n] [C_out, HW] = W [C_out, C_in] @ x[n] [C_in, HW] (W transposed for transposed),
    // on the engine's tuned GEMM (ops/matmul/gemm.h). Grids too large for it take the direct
    // kernel below.
    const uint64_t HW = uint64_t(o[0]) * uint64_t(o[1]);
    bool pointwise = kH == 1 && kW == 1 && stride[0] == 1 && stride[1] == 1 && padding[0] == 0 &&
                     padding[1] == 0 && out_pad[0] == 0 && out_pad[1] == 0 && groups == 1;
    const bool pointwise_fits = pointwise && ceil_div(HW, 32) <= max_dim &&
                                ceil_div(C_out, 32) <= max_dim && uint64_t(N) <= max_dim;
    // The GEMM form of a convolution: out[n] = W [C_out, K] @ B[n] [K, HW] + bias, with the
    // weight shared by every image, the bias broadcast along the columns and the residual and
    // the clamp (a fused activation) in the GEMM's epilogue.
    // `grouped`: the GEMM's batch is the groups of one image instead of the images (group z
    // multiplies its C_out / groups weight rows by its C_in / groups input planes, into its
    // C_out / groups output planes; every stride below then steps one group).
    auto record_as_gemm = [&](const Tensor& b, uint64_t K, std::string_view kind,
                              std::optional<GemmConvGeometry> implicit = std::nullopt,
                              bool grouped = false) {
        const uint64_t rows = uint64_t(C_out) / (grouped ? groups : 1);
        const uint64_t planes = uint64_t(C_in) / (grouped ? groups : 1);
        GemmCall call{weight, b, bias, out};
        call.p.M = uint32_t(rows);
        call.p.N = uint32_t(HW);
        call.p.K = uint32_t(K);
        call.p.batch = uint32_t(grouped ? groups : N);
        call.p.a_batch_stride = grouped ? uint32_t(rows * K) : 0;
        // An implicit GEMM's B is the input itself, one image (or group) per batch.
        call.p.b_batch_stride = implicit ? uint32_t(planes * H_in * W_in) : uint32_t(K * HW);
        call.p.c_batch_stride = uint32_t(rows * HW);
        call.p.bias_batch_stride = grouped ? uint32_t(rows) : 0;
        call.p.bias_row_stride = 1;
        call.p.bias_col_stride = 0;
        call.p.alpha = 1.0f;
        call.p.beta = bias ? 1.0f : 0.0f;
        call.trans_a = transposed;  // a transposed 1x1 weight is [C_in, C_out]
        call.activation = activation;
        call.residual = residual;
        if (p.flags & kConvHasMin) call.out_min = p.out_min;
        if (p.flags & kConvHasMax) call.out_max = p.out_max;
        call.conv = implicit;
        record_gemm(rec, fmt::format("{}/{}", args.op(), kind), call);
    };
    if (pointwise_fits) {
        record_as_gemm(input, uint64_t(C_in), transposed ? "pointwise_gemm_t" : "pointwise_gemm");
        return;
    }

    // Variant 1b: any other ungrouped, non-transposed convolution is the same GEMM with B the
    // unfolded input [C_in * kH * kW, HW] per image, gathered where the GEMM loads it (an
    // implicit GEMM, gemm_implicit_conv.wgsl): no scratch, no unfolding pass, and no size limit
    // but the grid's. A grouped convolution of one image with several input channels per group
    // (RegNet's and ResNeXt's 3x3 convolutions) is the same GEMM batched over its groups, K
    // then spanning one group's channels. Depthwise convolutions (one input channel per group)
    // keep their own kernels below; grouped ones over several images would need a weight
    // offset that wraps with the group, so they take the direct kernel.
    const uint64_t K = uint64_t(C_in) * uint64_t(kH) * uint64_t(kW);
    const bool gemm_grid_fits =
        ceil_div(HW, 32) <= max_dim && ceil_div(C_out, 32) <= max_dim && uint64_t(N) <= max_dim;
    const bool grouped = groups > 1;
    const bool implicit_fits =
        grouped ? cin_g > 1 && N == 1 && ceil_div(HW, 32) <= max_dim &&
                      ceil_div(C_out / groups, 32) <= max_dim && uint64_t(groups) <= max_dim
                : gemm_grid_fits;
    if (!transposed && implicit_fits && implicit_gemm_enabled()) {
        GemmConvGeometry g{};
        g.H_in = uint32_t(H_in), g.W_in = uint32_t(W_in), g.plane = uint32_t(H_in * W_in);
        g.W_out = uint32_t(o[1]);
        g.stride_h = p.stride_h, g.stride_w = p.stride_w, g.pad_h = p.pad_h, g.pad_w = p.pad_w;
        g.dil_h = p.dil_h, g.dil_w = p.dil_w, g.kH = p.kH, g.kW = p.kW;
        record_as_gemm(input, uint64_t(cin_g) * uint64_t(kH) * uint64_t(kW),
                       grouped ? "grouped_implicit_gemm" : "implicit_gemm", g, grouped);
        return;
    }

    // Variant 1c (WGX_IMPLICIT_GEMM=0): the explicit form, which unfolds its input (im2col)
    // into a scratch [N, C_in * kH * kW, HW] and runs the same GEMM, when the unfolded input
    // fits one binding and the grid the device. The scratch has the input's element type: the
    // unfold only copies values, so a float16 one is exact and halves the traffic of both passes.
    const uint64_t unfolded = uint64_t(N) * K * HW;
    const uint64_t unfolded_bytes = unfolded * device_size(dt);
    const auto& limits = rec.device().limits;
    if (!transposed && groups == 1 && unfolded_bytes <= limits.max_storage_binding_bytes &&
        unfolded_bytes <= limits.max_buffer_bytes &&
        unfolded <= std::numeric_limits<uint32_t>::max() && gemm_grid_fits) {
        Tensor cols = rec.scratch(dt, {int64_t(N), int64_t(K), int64_t(HW)});
        ConvParams q = p;
        q.threads = uint32_t(unfolded);
        const uint32_t iwg = rec.workgroup_size(256);
        Kernel unfold = rec.kernel(fmt::format("{}/im2col{}", args.op(),
                                               dt == DType::f16 ? " f16" : ""),
                                   params_wgsl + std::string(wgsl::ops_conv_im2col),
                                   {{"WG", double(iwg)}});
        rec.dispatch(unfold, {input, cols, Binding::uniform(q)}, rec.grid_1d(unfolded, iwg));
        record_as_gemm(cols, K, "im2col_gemm");
        return;
    }

    // The direct kernels below: the activation, the residual (HAS_RESIDUAL; the input is bound
    // in its place when there is none) and the clamp in their epilogue.
    ConvParams direct = p;
    const Tensor& residual_binding = residual ? *residual : input;
    const double has_residual = residual ? 1.0 : 0.0;
    const std::string suffix =
        fmt::format("{}{}{}", activation_label(activation), residual ? " residual" : "",
                    dt == DType::f16 ? " f16" : "");
    const uint32_t wg = rec.workgroup_size(64);
    // Variant 2a: pure depthwise (one output channel per group) through workgroup memory, when
    // the staged input tile fits conv2d_depthwise_tiled.wgsl's buffer and the grid the limits.
    // Taken on CPU adapters, for stride 1 on maps at least one tile (32 columns) wide, where every
    // staged element serves kH x kW outputs (narrow maps idle a tile, stride 2 halves the reuse);
    // GPUs keep variant 2, whose taps their caches serve: docs/PERFORMANCE.md#depthwise-kernels.
    const uint64_t staged_rows = 7 * uint64_t(p.stride_h) + (uint64_t(kH) - 1) * p.dil_h + 1;
    const uint64_t staged_cols = 31 * uint64_t(p.stride_w) + (uint64_t(kW) - 1) * p.dil_w + 1;
    const uint64_t tiles_x = (uint64_t(o[1]) + 31) / 32, tiles_y = (uint64_t(o[0]) + 7) / 8;
    const uint64_t planes = uint64_t(N) * uint64_t(C_out);
    const bool cpu_adapter = rec.device().adapter.type == AdapterType::cpu;
    if (cpu_adapter && !transposed && cin_g == 1 && cout_g == 1 && wg == 64 && p.stride_h == 1 &&
        p.stride_w == 1 && o[1] >= 32 &&
        staged_rows * staged_cols <= 1456 && tiles_x <= max_dim && tiles_y <= max_dim &&
        planes <= max_dim) {
        Kernel kern = rec.kernel(fmt::format("{}/depthwise_tiled{}", args.op(), suffix),
                                 common + std::string(wgsl::ops_conv_conv2d_depthwise_tiled),
                                 {{"HAS_RESIDUAL", has_residual},
                                  {"KH", double(p.kH)}, {"KW", double(p.kW)}});
        rec.dispatch(kern, {input, weight, bias_binding, out, Binding::uniform(direct),
                            residual_binding},
                     Grid{uint32_t(tiles_x), uint32_t(tiles_y), uint32_t(planes)});
    } else if (!transposed && cin_g == 1 && cout_g < 4) {
        // Variant 2: one input channel per group and few outputs per group (depthwise, channel
        // multiplier < 4): one thread per output channel and 4 columns, no wasted channel lanes.
        uint64_t threads = uint64_t(N) * uint64_t(C_out) * uint64_t(o[0]) * p.x_blocks;
        if (threads > std::numeric_limits<uint32_t>::max()) args.fail("output too large to index.");
        direct.threads = uint32_t(threads);
        Kernel kern = rec.kernel(fmt::format("{}/depthwise{}", args.op(), suffix),
                                 common + std::string(wgsl::ops_conv_conv2d_depthwise),
                                 {{"WG", double(wg)}, {"HAS_RESIDUAL", has_residual},
                                  {"KH", double(p.kH)}, {"KW", double(p.kW)}});
        rec.dispatch(kern, {input, weight, bias_binding, out, Binding::uniform(direct),
                            residual_binding},
                     rec.grid_1d(threads, wg));
    } else {
        // Variant 3: the direct kernel, 4 output channels x 4 columns per thread; the transposed
        // form gathers the taps that reach each output.
        uint64_t threads =
            uint64_t(N) * uint64_t(groups) * p.co_blocks * uint64_t(o[0]) * p.x_blocks;
        if (threads > std::numeric_limits<uint32_t>::max()) args.fail("output too large to index.");
        direct.threads = uint32_t(threads);
        Kernel kern = rec.kernel(
            fmt::format("{}/direct{}{}", args.op(), transposed ? "_t" : "", suffix),
            common + std::string(wgsl::ops_conv_conv2d_direct),
            {{"WG", double(wg)}, {"TRANSPOSED", transposed ? 1.0 : 0.0},
             {"HAS_RESIDUAL", has_residual}});
        rec.dispatch(kern, {input, weight, bias_binding, out, Binding::uniform(direct),
                            residual_binding},
                     rec.grid_1d(threads, wg));
    }
}

}  // namespace wgx::ops
