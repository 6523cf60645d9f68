#include "ops/matmul/gemm.h"

#include <fmt/format.h>

#include "core/dispatch_geometry.h"
#include "wgx/error.h"

namespace wgx::ops {

void record_gemm(Recorder& rec, std::string_view label, const GemmCall& call) {
    const GemmParams& p = call.p;
    const DeviceInfo& device = rec.device();
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
    const uint32_t max_dim = device.limits.max_workgroups_per_dimension;
    if (grid.x > max_dim || grid.y > max_dim || grid.z > max_dim || p.batch == 0) {
        throw InvalidArgument(fmt::format(
            "{}: a GEMM of {} x [{}, {}] needs {}x{}x{} workgroups of {}x{} outputs; the device "
            "allows 1..{} per dimension.",
            label, p.batch, p.M, p.N, grid.x, grid.y, grid.z, v->bm(), v->bn(), max_dim));
    }
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
