#include "ops/matmul/gemm.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "core/dispatch_geometry.h"
#include "ops/common/math.wgsl.h"
#include "ops/common/row_split.h"
#include "ops/common/wgsl_types.h"
#include "ops/matmul/gemm_epilogue.wgsl.h"
#include "ops/matmul/gemm_params.wgsl.h"
#include "ops/matmul/gemm_splitk_reduce.wgsl.h"
#include "ops/matmul/gemv.wgsl.h"
#include "wgx/error.h"

namespace wgx::ops {

namespace {

void check_grid(std::string_view label, const GemmParams& p, Grid grid, const DeviceInfo& device,
                std::string_view what) {
    const uint32_t max_dim = device.limits.max_workgroups_per_dimension;
    if (grid.x > max_dim || grid.y > max_dim || grid.z > max_dim || p.batch == 0) {
        throw InvalidArgument(fmt::format(
            "{}: a GEMM of {} x [{}, {}] needs {}x{}x{} workgroups ({}); the device allows 1..{} "
            "per dimension.",
            label, p.batch, p.M, p.N, grid.x, grid.y, grid.z, what, max_dim));
    }
}

// The one storage type of the call's tensors: float32, or float16 on a device with shader-f16.
// The ops check their arguments first (one_float_type); this guards the internal callers.
DType call_dtype(std::string_view label, const GemmCall& call, const DeviceInfo& device) {
    const DType dt = storage_dtype(call.a.dtype());
    if (dt != DType::f32 && dt != DType::f16) {
        throw InvalidArgument(fmt::format("{}: a GEMM takes float32 or float16 tensors, got {}.",
                                          label, dtype_name(call.a.dtype())));
    }
    for (const Tensor* t :
         {call.q4 ? nullptr : &call.b, call.q4 ? &call.q4->scales : nullptr, &call.c,
          call.bias ? &*call.bias : nullptr, call.residual ? &*call.residual : nullptr,
          call.scale ? &*call.scale : nullptr}) {
        if (t && storage_dtype(t->dtype()) != dt) {
            throw InvalidArgument(fmt::format(
                "{}: a GEMM's tensors must share one float type; A is {} but another is {}.", label,
                dtype_name(call.a.dtype()), dtype_name(t->dtype())));
        }
    }
    if (dt == DType::f16 && !device.features.shader_f16) {
        throw InvalidArgument(fmt::format(
            "{}: float16 tensors need the adapter's shader-f16 feature, which this device lacks.",
            label));
    }
    return dt;
}

// The clamp bounds of the epilogue, unbounded where absent, and C's row stride.
GemmUniform uniform_for(const GemmCall& call) {
    const float inf = std::numeric_limits<float>::infinity();
    return GemmUniform{call.p,
                       0,
                       1,
                       call.out_min.value_or(-inf),
                       call.out_max.value_or(inf),
                       call.c_row_stride ? call.c_row_stride : call.p.N,
                       0,
                       0,
                       0};
}

bool has_clamp(const GemmCall& call) { return call.out_min || call.out_max; }

// " f16" in the labels of float16 kernels.
const char* dt_label(DType dt) { return dt == DType::f16 ? " f16" : ""; }

// The epilogue's tail in kernel labels.
std::string epilogue_label(const GemmCall& call, bool has_bias) {
    return fmt::format(
        "{}{}{}{}{}", has_bias ? " bias" : "", activation_label(call.activation),
        call.scale ? (call.scale_rows ? " scale rows" : " scale") : "",
        call.residual ? (call.residual_multiplies ? " times residual" : " residual") : "",
        has_clamp(call) ? " clamp" : "");
}

// The overrides of gemv.wgsl and gemm_splitk_reduce.wgsl for the activation and the scale.
double activation_override(const GemmCall& call) {
    return static_cast<double>(static_cast<uint32_t>(call.activation));
}

// gemm_epilogue.wgsl for the call. GELU is chosen by the ACTIVATION override; the activations
// added later (SiLU, hardswish) are written into its //@ACTIVATE line instead, which the others
// drop, so the kernels of none and GELU keep the text they had before those existed. The
// residual step adds, or multiplies (residual_multiplies).
std::string epilogue_wgsl(const GemmCall& call) {
    std::string text(wgsl::ops_matmul_gemm_epilogue);
    const bool spliced =
        call.activation == Activation::silu || call.activation == Activation::hardswish;
    replace_wgsl_marker(
        text, "ACTIVATE",
        spliced ? fmt::format("    v = {};\n", activation_wgsl(call.activation, "v")) : "");
    replace_wgsl_marker(
        text, "RESIDUAL",
        fmt::format("        v {} f32(residual[at]);\n", call.residual_multiplies ? "*=" : "+="));
    return text;
}

void record_gemv(Recorder& rec, std::string_view label, const GemmCall& call, DType dt) {
    const GemmParams& p = call.p;
    if (call.trans_a) {
        throw InvalidArgument(fmt::format("{}: the gemv kernel reads A as stored [M, K].", label));
    }
    const bool has_bias = call.bias.has_value() && p.beta != 0.f;
    const uint32_t wg = rec.workgroup_size(256);
    const uint32_t columns = call.trans_b ? wg / 32 : 16;  // per workgroup, see gemv.wgsl
    Grid grid{static_cast<uint32_t>(ceil_div(p.N, columns)), p.M, p.batch};
    check_grid(label, p, grid, rec.device(), fmt::format("{} columns each", columns));
    Kernel k = rec.kernel(fmt::format("{}/gemv{}{}{}", label, call.trans_b ? " tB" : "",
                                      epilogue_label(call, has_bias), dt_label(dt)),
                          wgsl_alias(dt, "S") + std::string(wgsl::ops_matmul_gemm_params) +
                              std::string(wgsl::ops_common_math) +
                              std::string(wgsl::ops_matmul_gemv) + epilogue_wgsl(call),
                          {{"WG", double(wg)},
                           {"TRANS_B", call.trans_b ? 1.0 : 0.0},
                           {"HAS_BIAS", has_bias ? 1.0 : 0.0},
                           {"HAS_RESIDUAL", call.residual ? 1.0 : 0.0},
                           {"HAS_CLAMP", has_clamp(call) ? 1.0 : 0.0},
                           {"ACTIVATION", activation_override(call)},
                           {"HAS_SCALE", call.scale ? 1.0 : 0.0},
                           {"SCALE_ROWS", call.scale_rows ? 1.0 : 0.0}});
    // Absent operands bind A (never read).
    rec.dispatch(k,
                 {call.a, call.b, has_bias ? *call.bias : call.a, call.c,
                  Binding::uniform(uniform_for(call)), call.residual.value_or(call.a),
                  call.scale.value_or(call.a)},
                 grid);
}

// The K chunking of a tiled GEMM: `splits` chunks of `k_chunk` (a multiple of the variant's K
// step), every chunk non-empty, and the grid's z (batch * splits) within the device's limit.
struct KSplit {
    uint32_t splits = 1, k_chunk = 0;
};

KSplit plan_split(const GemmCall& call, const GemmVariant& v, const DeviceInfo& device) {
    const GemmParams& p = call.p;
    uint64_t want =
        call.splits ? call.splits : choose_gemm_splits(device, v, p.M, p.N, p.K, p.batch);
    const uint64_t steps = std::max<uint64_t>(1, ceil_div(p.K, v.bk));
    want = std::min<uint64_t>(
        {want, steps, device.limits.max_workgroups_per_dimension / std::max<uint32_t>(p.batch, 1)});
    if (want < 2) return {};
    const uint64_t chunk = ceil_div(steps, want) * v.bk;
    return {static_cast<uint32_t>(ceil_div(p.K, chunk)), static_cast<uint32_t>(chunk)};
}

// The second pass of a split-K GEMM: adds the chunks' partial sums and applies the epilogue.
void record_splitk_reduce(Recorder& rec, std::string_view label, const GemmCall& call,
                          const Tensor& partial, GemmUniform u, bool has_bias, DType dt) {
    const uint32_t wg = rec.workgroup_size(256);
    const uint64_t outputs = uint64_t(u.p.batch) * u.p.M * u.p.N;
    // An absent bias or residual binds A (never read): unlike the float32 partial sums it is of
    // the storage type S those bindings declare.
    Kernel k = rec.kernel(
        fmt::format("{}/split-K reduce{}{}", label, epilogue_label(call, has_bias), dt_label(dt)),
        wgsl_alias(dt, "S") + std::string(wgsl::ops_matmul_gemm_params) +
            std::string(wgsl::ops_common_math) + std::string(wgsl::ops_matmul_gemm_splitk_reduce) +
            epilogue_wgsl(call),
        {{"WG", double(wg)},
         {"HAS_BIAS", has_bias ? 1.0 : 0.0},
         {"HAS_RESIDUAL", call.residual ? 1.0 : 0.0},
         {"HAS_CLAMP", has_clamp(call) ? 1.0 : 0.0},
         {"ACTIVATION", activation_override(call)},
         {"HAS_SCALE", call.scale ? 1.0 : 0.0},
         {"SCALE_ROWS", call.scale_rows ? 1.0 : 0.0}});
    rec.dispatch(k,
                 {partial, has_bias ? *call.bias : call.a, call.c, Binding::uniform(u),
                  call.residual.value_or(call.a), call.scale.value_or(call.a)},
                 rec.grid_1d(outputs, wg));
}

// A weight B [N, K] (trans_b) larger than one storage binding: one GEMM per range of its rows,
// each computing those columns of C. C, the residual, the bias and a per-column scale are bound
// from the range's first column on (split_rows keeps those starts aligned too) and C's rows stay
// the full width apart, so every part writes its columns in place.
void record_column_parts(Recorder& rec, std::string_view label, const GemmCall& call) {
    const GemmParams& p = call.p;
    const uint64_t es = device_size(call.b.dtype());
    const std::vector<RowRange> parts =
        split_rows(rec.device().limits, p.N, uint64_t(p.K) * es, {es},
                   fmt::format("{}: weight {} {}", label, dtype_name(call.b.dtype()),
                               shape_string(call.b.shape())));
    const auto from = [](const Tensor& t, int64_t first) {
        return t.view(first, {t.numel() - first});
    };
    for (const RowRange& r : parts) {
        GemmCall part = call;
        part.b = call.b.view(r.first * p.K, {r.count, int64_t(p.K)});
        part.p.N = static_cast<uint32_t>(r.count);
        part.c_row_stride = call.c_row_stride ? call.c_row_stride : p.N;
        part.c = from(call.c, r.first);
        if (call.residual) part.residual = from(*call.residual, r.first);
        if (call.bias && p.bias_col_stride) {
            part.bias = from(*call.bias, r.first * p.bias_col_stride);
        }
        if (call.scale && !call.scale_rows) part.scale = from(*call.scale, r.first);
        record_gemm(rec, label, part);  // its B fits one binding: no further split
    }
}

}  // namespace

void record_gemm(Recorder& rec, std::string_view label, const GemmCall& call) {
    const GemmParams& p = call.p;
    const DeviceInfo& device = rec.device();
    const DType dt = call_dtype(label, call, device);
    if (call.q4 && (!call.trans_b || call.conv || call.scale || dt != DType::f32 ||
                    call.variant == kGemvVariant || p.batch != 1 || p.K % 4 != 0 ||
                    call.q4->group == 0 || call.q4->group % 4 != 0)) {
        throw InvalidArgument(fmt::format(
            "{}: 4-bit weights are B read transposed in one float32 GEMM of the tile kernel, "
            "with K and the group multiples of 4 and no scale.",
            label));
    }
    if (call.trans_b && !call.conv && !call.q4 && p.batch == 1 &&
        call.b.device_bytes() > device.limits.max_storage_binding_bytes) {
        record_column_parts(rec, label, call);
        return;
    }
    if (call.conv && (call.trans_b || call.scale || call.variant == kGemvVariant ||
                      call.conv->kH == 0 || call.conv->kW == 0)) {
        throw InvalidArgument(fmt::format(
            "{}: an implicit-GEMM convolution reads B as stored, on the tile kernel, with a "
            "kernel of at least 1x1 and no scale.",
            label));
    }
    if (call.variant == kGemvVariant ||
        (!call.conv && !call.q4 && call.variant.empty() && !call.trans_a && p.M <= kGemvMaxRows)) {
        record_gemv(rec, label, call, dt);
        return;
    }
    const GemmVariant* v = nullptr;
    if (call.variant.empty()) {
        v = &choose_gemm_variant(device, p.M, p.N, p.batch);
    } else {
        v = find_gemm_variant(call.variant);
        if (!v)
            throw InvalidArgument(
                fmt::format("{}: no GEMM variant named '{}'.", label, call.variant));
        if (!gemm_variant_fits(*v, device.limits)) {
            throw InvalidArgument(fmt::format(
                "{}: GEMM variant {} needs {} invocations and {} bytes of workgroup memory per "
                "workgroup; the device allows {} and {}.",
                label, v->name, v->invocations(), v->workgroup_bytes(),
                device.limits.max_workgroup_invocations,
                device.limits.max_workgroup_storage_bytes));
        }
    }

    const KSplit split = plan_split(call, *v, device);
    GemmUniform u = uniform_for(call);
    u.splits = split.splits;
    u.k_chunk = split.k_chunk;
    // With split K the tile pass writes [batch * splits, M, N] partial sums to a scratch.
    GemmUniform tile_u = u;
    if (split.splits > 1) {
        tile_u.p.c_batch_stride = p.M * p.N;
        tile_u.c_row_stride = p.N;
    }

    // vec4 access needs every row (and batch) of the operand to start on a multiple of 4
    // elements along the direction the four lanes run. The same test serves float16: a vec4<f16>
    // needs 8-byte alignment, which a multiple of 4 elements gives (bindings start at multiples
    // of minStorageBufferOffsetAlignment).
    GemmShapeFlags f;
    f.trans_a = call.trans_a;
    f.trans_b = call.trans_b;
    f.vec_a = (call.trans_a ? p.M : p.K) % 4 == 0 && p.a_batch_stride % 4 == 0;
    // An implicit-GEMM convolution's B is gathered by scalars (gemm_implicit_conv.wgsl).
    f.vec_b =
        !call.conv && !call.q4 && (call.trans_b ? p.K : p.N) % 4 == 0 && p.b_batch_stride % 4 == 0;
    f.vec_c = p.N % 4 == 0 && tile_u.p.c_batch_stride % 4 == 0 && tile_u.c_row_stride % 4 == 0;
    f.has_bias = call.bias.has_value() && p.beta != 0.f;
    f.has_residual = call.residual.has_value();
    f.residual_mul = f.has_residual && call.residual_multiplies;
    f.has_clamp = has_clamp(call);
    f.activation = call.activation;
    f.has_scale = call.scale.has_value();
    f.scale_rows = call.scale_rows;
    f.split_k = split.splits > 1;
    f.f16 = dt == DType::f16;
    if (call.conv) f.conv_kh = call.conv->kH, f.conv_kw = call.conv->kW;
    if (call.q4) {
        f.q4_group = call.q4->group;
        f.q4_row_words = call.q4->row_words;
        f.q4_high_first = call.q4->high_first;
    }

    Grid grid{static_cast<uint32_t>(ceil_div(p.N, v->bn())),
              static_cast<uint32_t>(ceil_div(p.M, v->bm())), p.batch * split.splits};
    check_grid(label, p, grid, device, fmt::format("{}x{} outputs each", v->bm(), v->bn()));
    std::string name = fmt::format("{}/gemm {}{}{}", label, v->name, f.trans_a ? " tA" : "",
                                   f.trans_b ? " tB" : "");
    if (call.conv) name += fmt::format(" conv{}x{}", f.conv_kh, f.conv_kw);
    if (call.q4) name += " 4-bit";
    if (f.split_k) {
        name += fmt::format(" split-K {}", split.splits);
    } else {
        name += epilogue_label(call, f.has_bias);
    }
    name += dt_label(dt);
    Kernel k = rec.kernel(name, gemm_wgsl(*v, f));
    const Tensor c =
        f.split_k
            ? rec.scratch(DType::f32, {int64_t(p.batch) * split.splits, int64_t(p.M), int64_t(p.N)})
            : call.c;
    // An absent bias binds A (never read). The scale's and the convolution geometry's binding
    // (both 6, never together) exist only in kernels that use them.
    const bool bind_scale = f.has_scale && !f.split_k;
    const Binding sixth = call.conv    ? Binding::uniform(*call.conv)
                          : call.q4    ? Binding(call.q4->scales)
                          : bind_scale ? Binding(*call.scale)
                                       : Binding(call.a);
    // An absent residual binds an operand too, never read but declared with C's element (a
    // vec4 with vec_c): A, else B, else a scratch, whichever first holds one.
    const auto no_residual = [&]() -> Tensor {
        for (const Tensor* t : {&call.a, &call.b}) {
            if (t->numel() >= 4) return *t;
        }
        return rec.scratch(dt, {4});
    };
    const Binding bindings[] = {call.a,
                                call.b,
                                f.has_bias && !f.split_k ? *call.bias : call.a,
                                c,
                                Binding::uniform(tile_u),
                                f.has_residual && !f.split_k ? *call.residual : no_residual(),
                                sixth};
    rec.dispatch(k, std::span<const Binding>(bindings, bind_scale || call.conv || call.q4 ? 7 : 6),
                 grid);
    if (f.split_k) record_splitk_reduce(rec, label, call, c, u, f.has_bias, dt);
}

void record_gemm(Recorder& rec, std::string_view label, const Tensor& a, const Tensor& b,
                 const std::optional<Tensor>& bias, const Tensor& c, const GemmParams& p,
                 bool trans_b) {
    GemmCall call{a, b, bias, c, p};
    call.trans_b = trans_b;
    record_gemm(rec, label, call);
}

}  // namespace wgx::ops
