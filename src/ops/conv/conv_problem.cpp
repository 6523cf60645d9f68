#include "ops/conv/conv_problem.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "ops/common/float16_support.h"

namespace wgx::ops {
namespace {

using Conv = schema::Convolution;
using schema::Activation;

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
            args.fail(fmt::format("{} values must be >= {}, got {}.", name, min, list_string(v)));
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
        args.fail(
            fmt::format("argument {} (activation) must be a string, \"silu\" or "
                        "\"hardswish\"; got {}.",
                        i, args[i].describe()));
    }
    const std::optional<Activation> a = schema::activation_named(*s);
    if (a == Activation::silu || a == Activation::hardswish) return *a;
    args.fail(fmt::format("activation must be \"silu\" or \"hardswish\", got \"{}\".", *s));
}

void check_fits_u32(const Args& args, const Tensor& t, const char* name) {
    if (t.numel() > std::numeric_limits<int32_t>::max()) {
        args.fail(fmt::format("{} {} has more elements than the kernels index (2^31).", name,
                              shape_string(t.shape())));
    }
}

}  // namespace

ParsedConvolution parse_convolution(const Recorder& rec, const Args& args, ConvSchema form) {
    const size_t count = form == ConvSchema::plain        ? Conv::count
                         : form == ConvSchema::activation ? schema::ConvActivation::count
                         : form == ConvSchema::clamp      ? size_t(schema::ConvWithClamp::count)
                                                          : size_t(schema::ConvAddClamp::count);
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
                                    {{&input, "input"},
                                     {&weight, "weight"},
                                     {bias ? &*bias : nullptr, "bias"},
                                     {residual ? &*residual : nullptr, "residual"},
                                     {&out, "out"}});

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
        args.fail(
            fmt::format("input channels ({}) must be divisible by groups ({}).", C_in, groups));
    }
    const int64_t cin_g = C_in / groups;
    int64_t C_out = 0;
    if (!transposed) {
        // weight [C_out, C_in / groups, kH, kW]
        C_out = ws[0];
        if (ws[1] != cin_g || C_out % groups != 0) {
            args.fail(fmt::format(
                "weight {} must be [C_out, C_in / groups = {}, ...] with C_out "
                "divisible by groups ({}), for input {}.",
                shape_string(weight.shape()), cin_g, groups, shape_string(input.shape())));
        }
        if (out_pad[0] != 0 || out_pad[1] != 0) {
            args.fail(
                fmt::format("output_padding {} must be zero unless transposed.",
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
                args.fail(fmt::format(
                    "output_padding {} must be smaller than stride or dilation.",
                    list_string(args.int_list(Conv::output_padding, "output_padding"))));
            }
        }
    }
    if (bias && (bias->rank() != 1 || bias->shape()[0] != C_out)) {
        args.fail(
            fmt::format("bias must have shape [{}], got {}.", C_out, shape_string(bias->shape())));
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

    ParsedConvolution parsed{{}, {input, weight, bias, residual, out}};
    ConvProblem& pr = parsed.problem;
    pr.dtype = dt;
    pr.dims = dims;
    pr.N = N, pr.C_in = C_in, pr.H_in = H_in, pr.W_in = W_in;
    pr.C_out = C_out, pr.H_out = o[0], pr.W_out = o[1];
    pr.kH = kH, pr.kW = kW;
    pr.stride = stride, pr.padding = padding, pr.dilation = dilation, pr.output_padding = out_pad;
    pr.groups = groups;
    pr.transposed = transposed;
    pr.has_bias = bias.has_value();
    pr.has_residual = residual.has_value();
    pr.activation = activation;
    if (form == ConvSchema::clamp || form == ConvSchema::residual_clamp) {
        // (size_t: the two schemas' enums are distinct types.)
        const size_t lo_at = form == ConvSchema::clamp ? size_t(schema::ConvWithClamp::output_min)
                                                       : size_t(schema::ConvAddClamp::output_min);
        const size_t hi_at = form == ConvSchema::clamp ? size_t(schema::ConvWithClamp::output_max)
                                                       : size_t(schema::ConvAddClamp::output_max);
        pr.out_min = bound(args, lo_at, "output_min");
        pr.out_max = bound(args, hi_at, "output_max");
    }
    return parsed;
}

}  // namespace wgx::ops
