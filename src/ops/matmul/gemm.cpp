#include "ops/matmul/gemm.h"

#include <fmt/format.h>

#include "core/dispatch_geometry.h"
#include "ops/matmul/gemm.wgsl.h"

namespace wgx::ops {

void record_gemm(Recorder& rec, std::string_view label, const Tensor& a, const Tensor& b,
                 const std::optional<Tensor>& bias, const Tensor& c, const GemmParams& p,
                 bool trans_b) {
    bool has_bias = bias && p.beta != 0.f;
    Kernel k = rec.kernel(fmt::format("{}/gemm{}{}", label, trans_b ? "_nt" : "",
                                      has_bias ? "_bias" : ""),
                          std::string(wgsl::ops_matmul_gemm),
                          {{"TRANS_B", trans_b ? 1.0 : 0.0}, {"HAS_BIAS", has_bias ? 1.0 : 0.0}});
    Grid grid{static_cast<uint32_t>(ceil_div(p.N, 32)), static_cast<uint32_t>(ceil_div(p.M, 32)),
              p.batch};
    // An absent bias binds a (never read).
    rec.dispatch(k, {a, b, has_bias ? *bias : a, c, Binding::uniform(p)}, grid);
}

}  // namespace wgx::ops
