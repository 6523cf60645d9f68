// record_convolution: parse (conv_problem.h), choose a method (conv_method.h), and record it
// with that method's recorder below.
#include "ops/conv/conv2d.h"

#include <fmt/format.h>

#include <cstdlib>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "core/dispatch_geometry.h"
#include "ops/common/math.wgsl.h"
#include "ops/common/wgsl_types.h"
#include "ops/conv/conv2d_depthwise.wgsl.h"
#include "ops/conv/conv2d_depthwise_tiled.wgsl.h"
#include "ops/conv/conv2d_direct.wgsl.h"
#include "ops/conv/conv_common.wgsl.h"
#include "ops/conv/conv_method.h"
#include "ops/conv/conv_params.wgsl.h"
#include "ops/conv/conv_problem.h"
#include "ops/conv/im2col.wgsl.h"
#include "ops/matmul/gemm.h"

namespace wgx::ops {
namespace {

// The workgroup size the direct kernels ask for (the tiled depthwise kernel's is fixed at it).
constexpr uint32_t kDirectWorkgroup = 64;

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

// The uniform of the direct kernels and of the unfold (conv_params.wgsl).
ConvParams conv_params(const ConvProblem& pr) {
    ConvParams p{};
    p.N = uint32_t(pr.N), p.C_in = uint32_t(pr.C_in), p.H_in = uint32_t(pr.H_in);
    p.W_in = uint32_t(pr.W_in);
    p.C_out = uint32_t(pr.C_out), p.H_out = uint32_t(pr.H_out), p.W_out = uint32_t(pr.W_out);
    p.groups = uint32_t(pr.groups);
    p.kH = uint32_t(pr.kH), p.kW = uint32_t(pr.kW);
    p.stride_h = uint32_t(pr.stride[0]), p.stride_w = uint32_t(pr.stride[1]);
    p.pad_h = uint32_t(pr.padding[0]), p.pad_w = uint32_t(pr.padding[1]);
    p.dil_h = uint32_t(pr.dilation[0]), p.dil_w = uint32_t(pr.dilation[1]);
    p.cin_g = uint32_t(pr.cin_g()), p.cout_g = uint32_t(pr.cout_g());
    p.co_blocks = uint32_t(ceil_div(pr.cout_g(), 4));
    p.x_blocks = uint32_t(ceil_div(pr.W_out, 4));
    if (pr.has_bias) p.flags |= kConvHasBias;
    if (pr.out_min) p.flags |= kConvHasMin, p.out_min = *pr.out_min;
    if (pr.out_max) p.flags |= kConvHasMax, p.out_max = *pr.out_max;
    return p;
}

// One convolution being recorded: what every method's recorder reads.
struct ConvJob {
    Recorder& rec;
    const Args& args;
    const ConvProblem& pr;
    const ConvOperands& t;
    ConvParams p;  // conv_params(pr)
};

// The element type first ("enable f16;" must precede every declaration), then the uniform.
std::string params_wgsl(const ConvProblem& pr) {
    return wgsl_alias(pr.dtype, "S") + std::string(wgsl::ops_conv_conv_params);
}

// --- the GEMM methods --------------------------------------------------------------------------

// The GEMM form of a convolution: out[n] = W [C_out, K] @ B[n] [K, HW] + bias, with the weight
// shared by every image, the bias broadcast along the columns and the activation, the residual
// and the clamp in the GEMM's epilogue (ops/matmul/gemm.h). `implicit`: B is the input gathered
// as its unfold. `grouped`: the GEMM's batch is the groups of one image instead of the images
// (group z multiplies its C_out / groups weight rows by its C_in / groups input planes, into its
// C_out / groups output planes; every stride below then steps one group).
void record_as_gemm(const ConvJob& job, const Tensor& b, uint64_t K, std::string_view kind,
                    std::optional<GemmConvGeometry> implicit = std::nullopt, bool grouped = false) {
    const ConvProblem& pr = job.pr;
    const uint64_t HW = uint64_t(pr.H_out) * uint64_t(pr.W_out);
    const uint64_t rows = uint64_t(pr.C_out) / (grouped ? pr.groups : 1);
    const uint64_t planes = uint64_t(pr.C_in) / (grouped ? pr.groups : 1);
    GemmCall call{job.t.weight, b, job.t.bias, job.t.out};
    call.p.M = uint32_t(rows);
    call.p.N = uint32_t(HW);
    call.p.K = uint32_t(K);
    call.p.batch = uint32_t(grouped ? pr.groups : pr.N);
    call.p.a_batch_stride = grouped ? uint32_t(rows * K) : 0;
    // An implicit GEMM's B is the input itself, one image (or group) per batch.
    call.p.b_batch_stride = implicit ? uint32_t(planes * pr.H_in * pr.W_in) : uint32_t(K * HW);
    call.p.c_batch_stride = uint32_t(rows * HW);
    call.p.bias_batch_stride = grouped ? uint32_t(rows) : 0;
    call.p.bias_row_stride = 1;
    call.p.bias_col_stride = 0;
    call.p.alpha = 1.0f;
    call.p.beta = pr.has_bias ? 1.0f : 0.0f;
    call.trans_a = pr.transposed;  // a transposed 1x1 weight is [C_in, C_out]
    call.activation = pr.activation;
    call.residual = job.t.residual;
    call.out_min = pr.out_min;
    call.out_max = pr.out_max;
    call.conv = implicit;
    record_gemm(job.rec, fmt::format("{}/{}", job.args.op(), kind), call);
}

// out[n] [C_out, HW] = W [C_out, C_in] @ x[n] [C_in, HW] (W transposed for transposed).
void record_pointwise_gemm(const ConvJob& job) {
    record_as_gemm(job, job.t.input, uint64_t(job.pr.C_in),
                   job.pr.transposed ? "pointwise_gemm_t" : "pointwise_gemm");
}

// B is the unfolded input [C_in * kH * kW, HW] per image, gathered where the GEMM loads it
// (gemm_implicit_conv.wgsl): no scratch, no unfolding pass, no size limit but the grid's;
// grouped, K spans one group's channels. docs/PERFORMANCE.md#implicit-gemm-convolutions.
void record_implicit_gemm(const ConvJob& job, bool grouped) {
    const ConvProblem& pr = job.pr;
    const ConvParams& p = job.p;
    GemmConvGeometry g{};
    g.H_in = uint32_t(pr.H_in), g.W_in = uint32_t(pr.W_in), g.plane = uint32_t(pr.H_in * pr.W_in);
    g.W_out = uint32_t(pr.W_out);
    g.stride_h = p.stride_h, g.stride_w = p.stride_w, g.pad_h = p.pad_h, g.pad_w = p.pad_w;
    g.dil_h = p.dil_h, g.dil_w = p.dil_w, g.kH = p.kH, g.kW = p.kW;
    record_as_gemm(job, job.t.input, uint64_t(pr.cin_g()) * uint64_t(pr.kH) * uint64_t(pr.kW),
                   grouped ? "grouped_implicit_gemm" : "implicit_gemm", g, grouped);
}

// The explicit form (WGX_IMPLICIT_GEMM=0): unfold the input (im2col) into a scratch
// [N, C_in * kH * kW, HW], then the same GEMM. The scratch has the input's element type: the
// unfold only copies values, so a float16 one is exact and halves the traffic of both passes.
void record_im2col_gemm(const ConvJob& job) {
    const ConvProblem& pr = job.pr;
    Recorder& rec = job.rec;
    const uint64_t HW = uint64_t(pr.H_out) * uint64_t(pr.W_out);
    const uint64_t K = uint64_t(pr.C_in) * uint64_t(pr.kH) * uint64_t(pr.kW);
    const uint64_t unfolded = uint64_t(pr.N) * K * HW;
    Tensor cols = rec.scratch(pr.dtype, {int64_t(pr.N), int64_t(K), int64_t(HW)});
    ConvParams q = job.p;
    q.threads = uint32_t(unfolded);
    const uint32_t iwg = rec.workgroup_size(256);
    Kernel unfold =
        rec.kernel(fmt::format("{}/im2col{}", job.args.op(), pr.dtype == DType::f16 ? " f16" : ""),
                   params_wgsl(pr) + std::string(wgsl::ops_conv_im2col), {{"WG", double(iwg)}});
    rec.dispatch(unfold, {job.t.input, cols, Binding::uniform(q)}, rec.grid_1d(unfolded, iwg));
    record_as_gemm(job, cols, K, "im2col_gemm");
}

// --- the direct kernels ------------------------------------------------------------------------
// Their epilogue: the activation, the residual (HAS_RESIDUAL) and the clamp.

// conv_common.wgsl after the uniform, with the activation written into its //@ACTIVATE line
// (and the math it calls prepended); without one the line goes, and the text is what it was
// before activations existed.
std::string direct_common_wgsl(const ConvProblem& pr) {
    const bool activate = pr.activation != Activation::none;
    std::string common = params_wgsl(pr) +
                         (activate ? std::string(wgsl::ops_common_math) : std::string()) +
                         std::string(wgsl::ops_conv_conv_common);
    replace_wgsl_marker(common, "ACTIVATE",
                        activate ? fmt::format("    v = {};\n", activation_wgsl(pr.activation, "v"))
                                 : std::string());
    return common;
}

// A direct kernel's label, e.g. "aten.convolution.default/depthwise silu residual f16".
std::string direct_label(const ConvJob& job, std::string_view kind) {
    const ConvProblem& pr = job.pr;
    return fmt::format("{}/{}{}{}{}", job.args.op(), kind, activation_label(pr.activation),
                       pr.has_residual ? " residual" : "", pr.dtype == DType::f16 ? " f16" : "");
}

double has_residual(const ConvProblem& pr) { return pr.has_residual ? 1.0 : 0.0; }

// Binds input, weight, bias, out, the uniform and the residual. Without a bias the weight
// stands in for its binding (read-only twice is fine), without a residual the input; the
// shaders read them only under kConvHasBias and HAS_RESIDUAL.
void dispatch_direct(const ConvJob& job, const Kernel& kern, const ConvParams& u, Grid grid) {
    const ConvOperands& t = job.t;
    job.rec.dispatch(kern,
                     {t.input, t.weight, t.bias ? *t.bias : t.weight, t.out, Binding::uniform(u),
                      t.residual ? *t.residual : t.input},
                     grid);
}

// 1-D invocations of the depthwise and direct kernels; more than u32 cannot be indexed.
uint32_t direct_threads(const ConvJob& job, uint64_t threads) {
    if (threads > std::numeric_limits<uint32_t>::max()) job.args.fail("output too large to index.");
    return uint32_t(threads);
}

// Depthwise through workgroup memory (conv2d_depthwise_tiled.wgsl): a workgroup per 8 x 32
// output tile of one plane stages the input that tile reads once.
// docs/PERFORMANCE.md#depthwise-kernels.
void record_depthwise_tiled(const ConvJob& job) {
    const ConvProblem& pr = job.pr;
    const uint64_t tiles_x = (uint64_t(pr.W_out) + 31) / 32, tiles_y = (uint64_t(pr.H_out) + 7) / 8;
    const uint64_t planes = uint64_t(pr.N) * uint64_t(pr.C_out);
    Kernel kern = job.rec.kernel(
        direct_label(job, "depthwise_tiled"),
        direct_common_wgsl(pr) + std::string(wgsl::ops_conv_conv2d_depthwise_tiled),
        {{"HAS_RESIDUAL", has_residual(pr)}, {"KH", double(job.p.kH)}, {"KW", double(job.p.kW)}});
    dispatch_direct(job, kern, job.p, Grid{uint32_t(tiles_x), uint32_t(tiles_y), uint32_t(planes)});
}

// Depthwise (channel multiplier < 4): one thread per output channel and 4 columns, no wasted
// channel lanes.
void record_depthwise(const ConvJob& job) {
    const ConvProblem& pr = job.pr;
    const uint32_t wg = job.rec.workgroup_size(kDirectWorkgroup);
    const uint64_t threads =
        uint64_t(pr.N) * uint64_t(pr.C_out) * uint64_t(pr.H_out) * job.p.x_blocks;
    ConvParams u = job.p;
    u.threads = direct_threads(job, threads);
    Kernel kern =
        job.rec.kernel(direct_label(job, "depthwise"),
                       direct_common_wgsl(pr) + std::string(wgsl::ops_conv_conv2d_depthwise),
                       {{"WG", double(wg)},
                        {"HAS_RESIDUAL", has_residual(pr)},
                        {"KH", double(job.p.kH)},
                        {"KW", double(job.p.kW)}});
    dispatch_direct(job, kern, u, job.rec.grid_1d(threads, wg));
}

// The direct kernel, 4 output channels x 4 columns per thread; the transposed form gathers the
// taps that reach each output.
void record_direct(const ConvJob& job) {
    const ConvProblem& pr = job.pr;
    const uint32_t wg = job.rec.workgroup_size(kDirectWorkgroup);
    const uint64_t threads = uint64_t(pr.N) * uint64_t(pr.groups) * job.p.co_blocks *
                             uint64_t(pr.H_out) * job.p.x_blocks;
    ConvParams u = job.p;
    u.threads = direct_threads(job, threads);
    Kernel kern = job.rec.kernel(direct_label(job, pr.transposed ? "direct_t" : "direct"),
                                 direct_common_wgsl(pr) + std::string(wgsl::ops_conv_conv2d_direct),
                                 {{"WG", double(wg)},
                                  {"TRANSPOSED", pr.transposed ? 1.0 : 0.0},
                                  {"HAS_RESIDUAL", has_residual(pr)}});
    dispatch_direct(job, kern, u, job.rec.grid_1d(threads, wg));
}

// What choose_conv_method reads of the device.
ConvLimits conv_limits(const Recorder& rec) {
    const DeviceInfo& device = rec.device();
    ConvLimits limits;
    limits.cpu_adapter = device.adapter.type == AdapterType::cpu;
    limits.max_workgroups_per_dimension = device.limits.max_workgroups_per_dimension;
    limits.max_storage_binding_bytes = device.limits.max_storage_binding_bytes;
    limits.max_buffer_bytes = device.limits.max_buffer_bytes;
    limits.workgroup_size = rec.workgroup_size(kDirectWorkgroup);
    return limits;
}

}  // namespace

void record_convolution(Recorder& rec, const Args& args, ConvSchema form) {
    const ParsedConvolution parsed = parse_convolution(rec, args, form);
    const ConvJob job{rec, args, parsed.problem, parsed.operands, conv_params(parsed.problem)};
    switch (choose_conv_method(parsed.problem, conv_limits(rec), implicit_gemm_enabled())) {
        case ConvMethod::pointwise_gemm: return record_pointwise_gemm(job);
        case ConvMethod::implicit_gemm: return record_implicit_gemm(job, false);
        case ConvMethod::grouped_implicit_gemm: return record_implicit_gemm(job, true);
        case ConvMethod::im2col_gemm: return record_im2col_gemm(job);
        case ConvMethod::depthwise_tiled: return record_depthwise_tiled(job);
        case ConvMethod::depthwise: return record_depthwise(job);
        case ConvMethod::direct: return record_direct(job);
    }
}

}  // namespace wgx::ops
