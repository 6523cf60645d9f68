#include "ops/matmul/gemm.h"

#include <fmt/format.h>

#include "core/dispatch_geometry.h"
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

void record_gemv(Recorder& rec, std::string_view label, const GemmCall& call) {
    const GemmParams& p = call.p;
    if (call.trans_a) {
        throw InvalidArgument(fmt::format("{}: the gemv kernel reads A as stored [M, K].", label));
    }
    const bool has_bias = call.bias.has_value() && p.beta != 0.f;
    const uint32_t wg = rec.workgroup_size(256);
    const uint32_t columns = call.trans_b ? wg / 32 : 16;  // per workgroup, see gemv.wgsl
    Grid grid{static_cast<uint32_t>(ceil_div(p.N, columns)), p.M, p.batch};
    check_grid(label, p, grid, rec.device(), fmt::format("{} columns each", columns));
    Kernel k = rec.kernel(fmt::format("{}/gemv{}{}", label, call.trans_b ? " tB" : "",
                                      has_bias ? " bias" : ""),
                          std::string(wgsl::ops_matmul_gemv),
                          {{"WG", double(wg)},
                           {"TRANS_B", call.trans_b ? 1.0 : 0.0},
                           {"HAS_BIAS", has_bias ? 1.0 : 0.0}});
    rec.dispatch(k, {call.a, call.b, has_bias ? *call.bias : call.a, call.c, Binding::uniform(p)},
                 grid);
}

}  // namespace

void record_gemm(Recorder& rec, std::string_view label, const GemmCall& call) {
    const GemmParams& p = call.p;
    const DeviceInfo& device = rec.device();
    if (call.variant == kGemvVariant ||
        (call.variant.empty() && !call.trans_a && p.M <= kGemvMaxRows)) {
        record_gemv(rec, label, call);
        return;
    }
    const GemmVariant* v = nullptr;
    if (call.variant.empty()) {
        v = &choose_gemm_variant(device, p.M, p.N, p.batch);
    } else {
        v = find_gemm_variant(call.variant);
        if (!v) throw InvalidArgument(fmt::format("{}: no GEMM variant named '{}'.", label, call.variant));
        if (!gemm_variant_fits(*v, device.limits)) {
            throw InvalidArgument(fmt::format(
                "{}: GEMM variant {} needs {} invocations and {} bytes of workgroup memory per "
                "workgroup; the device allows {} and {}.",
                label, v->name, v->invocations(), v->workgroup_bytes(),
                device.limits.max_workgroup_invocations, device.limits.max_workgroup_storage_bytes));
        }
    }

    // vec4 access needs every row (and batch) of the operand to start on a multiple of 4
    // elements along the direction the four lanes run.
    GemmShapeFlags f;
    f.trans_a = call.trans_a;
    f.trans_b = call.trans_b;
    f.vec_a = (call.trans_a ? p.M : p.K) % 4 == 0 && p.a_batch_stride % 4 == 0;
    f.vec_b = (call.trans_b ? p.K : p.N) % 4 == 0 && p.b_batch_stride % 4 == 0;
    f.vec_c = p.N % 4 == 0 && p.c_batch_stride % 4 == 0;
    f.has_bias = call.bias.has_value() && p.beta != 0.f;

    Grid grid{static_cast<uint32_t>(ceil_div(p.N, v->bn())),
              static_cast<uint32_t>(ceil_div(p.M, v->bm())), p.batch};
    check_grid(label, p, grid, device, fmt::format("{}x{} outputs each", v->bm(), v->bn()));
    Kernel k = rec.kernel(fmt::format("{}/gemm {}{}{}{}", label, v->name, f.trans_a ? " tA" : "",
                                      f.trans_b ? " tB" : "", f.has_bias ? " bias" : ""),
                          gemm_wgsl(*v, f));
    // An absent bias binds A (never read).
    rec.dispatch(k, {call.a, call.b, f.has_bias ? *call.bias : call.a, call.c, Binding::uniform(p)},
                 grid);
}

void record_gemm(Recorder& rec, std::string_view label, const Tensor& a, const Tensor& b,
                 const std::optional<Tensor>& bias, const Tensor& c, const GemmParams& p,
                 bool trans_b) {
    GemmCall call{a, b, bias, c, p};
    call.trans_b = trans_b;
    record_gemm(rec, label, call);
}

}  // namespace wgx::ops
