// Linear layers with 4-bit group-wise symmetric weights, as ExecuTorch's Vulkan partitioner
// writes them for `export_llama -qmode 4w` and `-qmode 8da4w`:
//   et_vk.linear_q4gsw.default: [x [..., K], weights uint8 [N, Kp / 2], weight_scales
//     [Kp / G, N], group_size G, bias [N]?, out [..., N]]
//   et_vk.linear_dq8ca_q4gsw.default: [x, input_scale [rows of x], input_zero_point [rows of x]
//     (int8 or int32), weights, weight_sums int32 [Kp / G, N], weight_scales, group_size,
//     bias?, out]: x quantized per row to int8 with the given scale and zero point (the outputs
//     of torchao.choose_qparams_affine), the product taken in integers.
// Packing (ExecuTorch's custom_ops_lib): weight w[n, k] = nibble - 8, the low nibble of byte
// k / 2 of row n for even k, the high one for odd k; rows may be padded past x's K (Kp >= K),
// the padding ignored. weight_sums (per group, the sum of a column's weights, which an integer
// kernel needs to remove the zero point) is checked but recomputed from the weights in the
// kernel, which saves reading it. float32 only, as the exporter writes these ops.
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <string_view>

#include "graph/schema/fused_ops.h"
#include "ops/common/dims.h"
#include "ops/common/wgsl_types.h"
#include "ops/common/workgroup_reduce.h"
#include "ops/matmul/gemm.h"
#include "ops/quant/dq8_math.wgsl.h"
#include "ops/quant/dq8_rows.wgsl.h"
#include "ops/quant/linear_q4gsw.wgsl.h"
#include "ops/registry.h"

namespace wgx::ops {
namespace {

struct Q4gswParams {
    uint32_t M, N, K, row_words;
    uint32_t words_per_group, has_bias;
    float eps;
    uint32_t pad;
};
static_assert(sizeof(Q4gswParams) == 32);

constexpr uint32_t kMaxRows = 8;  // MAX_ROWS of the kernel
// From this many rows a layer runs as the tiled GEMM (record_q4_prefill) instead of the kernel
// of 8 rows a workgroup: on the H200 a 512-token prefill of Llama-3.2-1B's shapes went from 2700
// to 5848 tok/s (4w) and from 1648 to 5761 (8da4w; docs/PERFORMANCE.md). WGX_Q4_GEMM=0 keeps
// the 8-row kernel, to measure the difference. Read once.
constexpr int64_t kGemmMinRows = 16;

bool q4_gemm_enabled() {
    static const bool enabled = [] {
        const char* env = std::getenv("WGX_Q4_GEMM");
        return !(env != nullptr && std::string_view(env) == "0");
    }();
    return enabled;
}

struct Q4gswCall {
    const Tensor* x;
    const Tensor* weights;
    const Tensor* scales;
    std::optional<Tensor> bias;
    const Tensor* out;
    int64_t group_size;
    const Tensor* x_scale = nullptr;  // with dynamic 8-bit activations
    const Tensor* x_zp = nullptr;
    std::optional<double> own_eps;  // 8-bit activations whose qparams the kernel finds
    // A SwiGLU pair: out = silu(x w^T) * (x up^T), up of the weights' shapes, no bias.
    const Tensor* up_weights = nullptr;
    const Tensor* up_scales = nullptr;
    // et_vk.linear_qcs4w: one scale per output channel (scales [N], one group of Kp) and the
    // even column in the high nibble.
    bool per_channel = false;
};

struct Dq8RowsParams {
    uint32_t M, K;
    float eps;
    uint32_t pad;
};
static_assert(sizeof(Dq8RowsParams) == 16);

// x with each row quantized to 8 bits and dequantized again (dq8_rows.wgsl), in a scratch.
Tensor record_dq8_rows(Recorder& rec, std::string_view name, const Q4gswCall& c, int64_t M,
                       int64_t K, bool zp_bytes) {
    const Tensor& x = *c.x;
    const bool own = c.own_eps.has_value();
    Tensor out = rec.scratch(DType::f32, {M, K});
    const uint32_t wg = rec.workgroup_size(256);
    const bool subgroups = use_subgroups(rec);
    Kernel k = rec.kernel(
        fmt::format("{}/dq8 rows{}{}", name,
                    own        ? ""
                    : zp_bytes ? " zp8"
                               : " zp32",
                    subgroups ? " subgroups" : ""),
        workgroup_reduce_prelude(DType::f32, subgroups) + std::string(wgsl::ops_quant_dq8_math) +
            std::string(wgsl::ops_quant_dq8_rows),
        {{"WG", double(wg)}, {"OWN_QPARAMS", own ? 1.0 : 0.0}, {"ZP_BYTES", zp_bytes ? 1.0 : 0.0}});
    const Dq8RowsParams p{uint32_t(M), uint32_t(K), float(own ? *c.own_eps : 0.0), 0};
    rec.dispatch(k, {x, out, Binding::uniform(p), c.x_scale ? *c.x_scale : x, c.x_zp ? *c.x_zp : x},
                 rec.grid_1d(uint64_t(M), 1));
    return out;
}

// A prefill: the engine's tiled GEMM with the weights unpacked where its B tile is loaded, each
// weight then serving a tile of rows instead of the 8 of linear_q4gsw.wgsl. 8-bit activations
// are quantized and dequantized again first (the same values the integer kernel multiplies);
// a gated pair is two GEMMs, the up projection's into a scratch that the gate's epilogue
// multiplies in after its SiLU.
void record_q4_prefill(Recorder& rec, std::string_view name, const Q4gswCall& c, int64_t M,
                       int64_t N, int64_t K, int64_t Kp, bool zp_bytes) {
    const bool dq8ca = c.x_scale != nullptr || c.own_eps.has_value();
    const Tensor x = dq8ca ? record_dq8_rows(rec, name, c, M, K, zp_bytes) : *c.x;
    const auto gemm = [&](const Tensor& weights, const Tensor& scales, const Tensor& out) {
        GemmCall g{x, weights, c.bias, out, GemmParams{}};
        g.p.M = uint32_t(M);
        g.p.N = uint32_t(N);
        g.p.K = uint32_t(K);
        g.p.batch = 1;
        g.p.bias_col_stride = c.bias ? 1 : 0;
        g.p.alpha = 1.f;
        g.p.beta = 1.f;
        g.trans_b = true;
        g.q4 = GemmQ4{scales, uint32_t(c.per_channel ? Kp : c.group_size), uint32_t(Kp / 8),
                      c.per_channel};
        return g;
    };
    if (c.up_weights == nullptr) {
        record_gemm(rec, name, gemm(*c.weights, *c.scales, *c.out));
        return;
    }
    const Tensor up = rec.scratch(DType::f32, {M, N});
    record_gemm(rec, fmt::format("{} up", name), gemm(*c.up_weights, *c.up_scales, up));
    GemmCall gate = gemm(*c.weights, *c.scales, *c.out);
    gate.activation = Activation::silu;
    gate.residual = up;
    gate.residual_multiplies = true;
    record_gemm(rec, fmt::format("{} gate", name), gate);
}

void record_q4gsw(Recorder& rec, const Args& args, std::string_view name, const Q4gswCall& c) {
    const Tensor &x = *c.x, &weights = *c.weights, &scales = *c.scales, &out = *c.out;
    expect_dtype(args, x, DType::f32, "input");
    expect_dtype(args, weights, DType::u8, "weights");
    expect_dtype(args, scales, DType::f32, "weight_scales");
    expect_dtype(args, out, DType::f32, "out");
    if (x.rank() < 1) args.fail("input must have at least one dim.");
    if (weights.rank() != 2) {
        args.fail(fmt::format("weights must be 2-D uint8 [out_features, in_features / 2], got {}.",
                              shape_string(weights.shape())));
    }
    const int64_t K = x.shape().back(), N = weights.shape()[0], Kp = weights.shape()[1] * 2;
    const int64_t G = c.group_size;
    if (G < 8 || G % 8 != 0) {
        args.fail(fmt::format("group_size must be a positive multiple of 8, got {}.", G));
    }
    if (K % 8 != 0) {
        args.fail(
            fmt::format("in_features must be a multiple of 8 (the kernel reads 8 weights a "
                        "word), got {}.",
                        K));
    }
    if (Kp < K || Kp % G != 0) {
        args.fail(
            fmt::format("weights {} hold {} columns for an input of {} features and groups "
                        "of {}: expected at least {} and a multiple of {}.",
                        shape_string(weights.shape()), Kp, K, G, K, G));
    }
    if (c.per_channel) {
        expect_shape(args, scales, {N}, "scales");
    } else {
        expect_shape(args, scales, {Kp / G, N}, "weight_scales");
    }
    const bool gated = c.up_weights != nullptr;
    if (gated) {
        expect_dtype(args, *c.up_weights, DType::u8, "up_weights");
        expect_shape(args, *c.up_weights, weights.shape(), "up_weights");
        expect_dtype(args, *c.up_scales, DType::f32, "up_scales");
        expect_shape(args, *c.up_scales, scales.shape(), "up_scales");
        if (c.bias) args.fail("a gated layer takes no bias.");
    }
    if (c.bias) {
        expect_dtype(args, *c.bias, DType::f32, "bias");
        expect_shape(args, *c.bias, {N}, "bias");
    }
    Shape want = x.shape();
    want.back() = N;
    expect_shape(args, out, want, "out");
    const int64_t M = x.numel() / std::max<int64_t>(K, 1);
    const bool own = c.own_eps.has_value();
    const bool dq8ca = c.x_scale != nullptr || own;
    bool zp_bytes = false;
    if (own && !(*c.own_eps >= 0)) args.fail(fmt::format("eps must be >= 0, got {}.", *c.own_eps));
    if (dq8ca && !own) {
        expect_dtype(args, *c.x_scale, DType::f32, "input_scale");
        if (c.x_scale->numel() != M || c.x_zp->numel() != M) {
            args.fail(
                fmt::format("input_scale {} and input_zero_point {} must hold one value per "
                            "row of the input ({} rows).",
                            shape_string(c.x_scale->shape()), shape_string(c.x_zp->shape()), M));
        }
        const DType zt = c.x_zp->dtype();
        if (zt != DType::i8 && zt != DType::i32 && zt != DType::i64) {
            args.fail(
                fmt::format("input_zero_point must be int8 or int32, got {}.", dtype_name(zt)));
        }
        zp_bytes = zt == DType::i8;
    }
    for (const auto& [t, what] : {std::pair{&x, "input"}, {&weights, "weights"}, {&out, "out"}}) {
        expect_indexable(args, *t, what);
    }
    if (M == 0 || N == 0) return;

    if (M >= kGemmMinRows && q4_gemm_enabled()) {
        record_q4_prefill(rec, name, c, M, N, K, Kp, zp_bytes);
        return;
    }

    // Rows of x per workgroup: one for a decode step; up to 8 for a prefill, each weight word
    // then serving 8 rows. With DQ8CA the quantized rows (K bytes each) must also fit in
    // workgroup memory beside the 1 KB of partial sums.
    const uint32_t wg = rec.workgroup_size(256);
    const uint32_t lanes = std::min<uint32_t>(32, wg);
    uint32_t rows = uint32_t(std::min<int64_t>(M, kMaxRows));
    if (dq8ca) {
        const uint64_t budget = rec.device().limits.max_workgroup_storage_bytes;
        const uint64_t reserved = uint64_t(wg) * 8 + 64;  // two reduction arrays, row qparams
        if (budget < reserved + uint64_t(K)) {
            args.fail(
                fmt::format("an input row of {} features quantized to int8 does not fit in "
                            "the device's {} bytes of workgroup memory.",
                            K, budget));
        }
        rows = uint32_t(std::min<uint64_t>(rows, (budget - reserved) / uint64_t(K)));
    }
    const Q4gswParams p{uint32_t(M),
                        uint32_t(N),
                        uint32_t(K),
                        uint32_t(Kp / 8),
                        uint32_t(G / 8),
                        c.bias ? 1u : 0u,
                        float(own ? *c.own_eps : 0.0),
                        0};
    // Output columns per workgroup: with a gated pair half its column slots take the up rows.
    const uint32_t columns = wg / lanes / (gated ? 2 : 1);
    if (columns == 0) args.fail("the device's workgroups are too small for a gated layer.");
    const Grid grid{uint32_t((N + columns - 1) / columns), uint32_t((M + rows - 1) / rows), 1};
    if (grid.x > rec.device().limits.max_workgroups_per_dimension ||
        grid.y > rec.device().limits.max_workgroups_per_dimension) {
        args.fail(fmt::format("{} x {} workgroups exceed the device's {} per dimension.", grid.x,
                              grid.y, rec.device().limits.max_workgroups_per_dimension));
    }
    // Quads: 16-byte loads of 32 weights, one group's scale each. Only for one row (a decode
    // step) with 8-bit activations, which the workgroup has staged: float activations would then
    // be read 128 bytes a lane from global memory, lanes 128 bytes apart, and with 8 rows the
    // two quads' partial products take more registers. Both measured slower than words on the
    // H200: q4w decode 231 -> 196 tok/s, 8da4w prefill 2529 -> 1853 tok/s
    // (docs/PERFORMANCE.md); 8da4w decode gained 189.5 -> 213.2 tok/s.
    const bool quads = dq8ca && rows == 1 && K % 32 == 0 && Kp % 32 == 0 && G % 32 == 0;
    std::string text =
        std::string(wgsl::ops_quant_dq8_math) + std::string(wgsl::ops_quant_linear_q4gsw);
    replace_wgsl_marker(
        text, "WEIGHT_QUADS",
        quads ? "@group(0) @binding(8) var<storage, read> w4: array<vec4<u32>>;\n"
                "fn load_quad(i: u32) -> vec4<u32> { return w4[i]; }\n"
              : "fn load_quad(i: u32) -> vec4<u32> {\n"
                "    return vec4<u32>(w[4u * i], w[4u * i + 1u], w[4u * i + 2u], w[4u * i + 3u]);\n"
                "}\n");
    // The up weights take the bindings after the quads (8 with them, else from 8).
    const int up_at = quads ? 9 : 8;
    replace_wgsl_marker(
        text, "UP_WEIGHTS",
        !gated ? std::string("fn up_word(i: u32) -> u32 { return 0u; }\n"
                             "fn up_scale(i: u32) -> f32 { return 0.0; }\n"
                             "fn up_quad(i: u32) -> vec4<u32> { return vec4<u32>(0u); }\n")
               : fmt::format("@group(0) @binding({}) var<storage, read> u: array<u32>;\n"
                             "@group(0) @binding({}) var<storage, read> u_scales: array<f32>;\n"
                             "fn up_word(i: u32) -> u32 {{ return u[i]; }}\n"
                             "fn up_scale(i: u32) -> f32 {{ return u_scales[i]; }}\n",
                             up_at, up_at + 1) +
                     (quads ? "@group(0) @binding(11) var<storage, read> u4: array<vec4<u32>>;\n"
                              "fn up_quad(i: u32) -> vec4<u32> { return u4[i]; }\n"
                            : "fn up_quad(i: u32) -> vec4<u32> {\n"
                              "    return vec4<u32>(u[4u * i], u[4u * i + 1u], u[4u * i + 2u], "
                              "u[4u * i + 3u]);\n"
                              "}\n"));
    Kernel k = rec.kernel(fmt::format("{}/rows{}{}{}", name, rows, quads ? " quads" : "",
                                      dq8ca && !own && !zp_bytes ? " zp32" : ""),
                          text,
                          {{"WG", double(wg)},
                           {"LANES", double(lanes)},
                           {"ROWS", double(rows)},
                           {"DQ8CA", dq8ca ? 1.0 : 0.0},
                           {"ZP_BYTES", zp_bytes ? 1.0 : 0.0},
                           {"XS_WORDS", dq8ca ? double(rows * (K / 4)) : 1.0},
                           {"QUADS", quads ? 1.0 : 0.0},
                           {"GATED", gated ? 1.0 : 0.0},
                           {"HIGH_FIRST", c.per_channel ? 1.0 : 0.0},
                           {"OWN_QPARAMS", own ? 1.0 : 0.0}});
    // Absent operands bind x (never read).
    std::vector<Binding> bindings = {x,
                                     weights,
                                     scales,
                                     c.bias.value_or(x),
                                     out,
                                     Binding::uniform(p),
                                     c.x_scale ? *c.x_scale : x,
                                     c.x_zp ? *c.x_zp : x};
    if (quads) bindings.push_back(weights);
    if (gated) {
        bindings.insert(bindings.end(), {*c.up_weights, *c.up_scales});
        if (quads) bindings.push_back(*c.up_weights);
    }
    rec.dispatch(k, bindings, grid);
}

class LinearQ4gsw final : public BuiltinOp {
  public:
    std::string_view name() const override { return "et_vk.linear_q4gsw.default"; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(5, 6);
        Q4gswCall c{&args.tensor(0, "input"),
                    &args.tensor(1, "weights"),
                    &args.tensor(2, "weight_scales"),
                    args.size() == 6 ? args.optional_tensor(4, "bias") : std::nullopt,
                    &args.tensor(args.size() - 1, "out"),
                    args.integer(3, "group_size")};
        record_q4gsw(rec, args, name(), c);
    }
};

class LinearDq8caQ4gsw final : public BuiltinOp {
  public:
    std::string_view name() const override { return "et_vk.linear_dq8ca_q4gsw.default"; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(8, 9);
        const Tensor& weights = args.tensor(3, "weights");
        const Tensor& sums = args.tensor(4, "weight_sums");
        const Tensor& scales = args.tensor(5, "weight_scales");
        expect_dtype(args, sums, DType::i32, "weight_sums");
        expect_shape(args, sums, scales.shape(), "weight_sums");
        Q4gswCall c{&args.tensor(0, "input"),
                    &weights,
                    &scales,
                    args.size() == 9 ? args.optional_tensor(7, "bias") : std::nullopt,
                    &args.tensor(args.size() - 1, "out"),
                    args.integer(6, "group_size"),
                    &args.tensor(1, "input_scale"),
                    &args.tensor(2, "input_zero_point")};
        record_q4gsw(rec, args, name(), c);
    }
};

// wgx.linear_dq8ca_q4gsw.default (schema::LinearDq8caOwnQparams): the same layer with the
// input's qparams found in the kernel; passes/fuse_dynamic_quant makes it from a
// choose_qparams_affine call and the linear layers that read its outputs.
class LinearDq8caOwnQparams final : public BuiltinOp {
    using S = schema::LinearDq8caOwnQparams;

  public:
    std::string_view name() const override { return schema::LinearDq8caOwnQparams::name; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(S::count, S::count);
        Q4gswCall c{&args.tensor(S::input, "input"),
                    &args.tensor(S::weights, "weights"),
                    &args.tensor(S::weight_scales, "weight_scales"),
                    args.optional_tensor(S::bias, "bias"),
                    &args.tensor(S::out, "out"),
                    args.integer(S::group_size, "group_size")};
        if (!args.is_none(S::weight_sums)) {  // none from fuse_dynamic_quant: never read
            expect_dtype(args, args.tensor(S::weight_sums, "weight_sums"), DType::i32,
                         "weight_sums");
        }
        c.own_eps = args.number(S::eps, "eps");
        record_q4gsw(rec, args, name(), c);
    }
};

// et_vk.linear_qcs4w.default: [x [..., K], weights uint8 [N, ceil(K / 2)], scales [N], out]:
// 4-bit weights with one symmetric scale per output channel (the Vulkan quantizer's 4-bit
// weight-only linear), w[n, k] = (nibble - 8) * scales[n], the even column in the high nibble
// (ExecuTorch's fuse_quantized_ops packs them so). The 4-bit group-wise kernel with one group.
class LinearQcs4w final : public BuiltinOp {
  public:
    std::string_view name() const override { return "et_vk.linear_qcs4w.default"; }
    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(4, 4);
        const Tensor& weights = args.tensor(1, "weights");
        if (weights.rank() != 2) {
            args.fail(
                fmt::format("weights must be 2-D uint8 [out_features, in_features / 2], got {}.",
                            shape_string(weights.shape())));
        }
        Q4gswCall c{&args.tensor(0, "input"),  &weights,
                    &args.tensor(2, "scales"), std::nullopt,
                    &args.tensor(3, "out"),    weights.shape()[1] * 2};
        c.per_channel = true;
        record_q4gsw(rec, args, name(), c);
    }
};

// wgx.gated_linear_q4gsw.default (schema::GatedLinearQ4gsw): the w1 / w3 pair of a SwiGLU
// feed-forward layer and the silu * mul after them in one dispatch; passes/fuse_gated_linear
// makes it from the two layers and the wgx.silu_mul that reads them.
class GatedLinearQ4gsw final : public BuiltinOp {
    using S = schema::GatedLinearQ4gsw;

  public:
    std::string_view name() const override { return schema::GatedLinearQ4gsw::name; }
    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(S::count, S::count);
        Q4gswCall c{&args.tensor(S::input, "input"),
                    &args.tensor(S::gate_weights, "gate_weights"),
                    &args.tensor(S::gate_scales, "gate_scales"),
                    std::nullopt,
                    &args.tensor(S::out, "out"),
                    args.integer(S::group_size, "group_size")};
        if (!args.is_none(S::eps)) c.own_eps = args.number(S::eps, "eps");
        c.up_weights = &args.tensor(S::up_weights, "up_weights");
        c.up_scales = &args.tensor(S::up_scales, "up_scales");
        record_q4gsw(rec, args, name(), c);
    }
};

}  // namespace

const Op& linear_qcs4w_op() {
    static const LinearQcs4w op;
    return op;
}

const Op& gated_linear_q4gsw_op() {
    static const GatedLinearQ4gsw op;
    return op;
}

const Op& linear_dq8ca_own_qparams_op() {
    static const LinearDq8caOwnQparams op;
    return op;
}

const Op& linear_q4gsw_op() {
    static const LinearQ4gsw op;
    return op;
}

const Op& linear_dq8ca_q4gsw_op() {
    static const LinearDq8caQ4gsw op;
    return op;
}

}  // namespace wgx::ops
