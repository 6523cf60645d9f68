#include "ops/matmul/matmul.h"

#include <fmt/format.h>

#include "core/dispatch_geometry.h"
#include "ops/matmul/mm_tiled.wgsl.h"
#include "ops/matmul/mm_vec4.wgsl.h"

namespace wgx::ops {

void record_matmul(Recorder& rec, std::string_view label, const Tensor& a, const Tensor& b,
                   const Tensor& c, const MatmulParams& p) {
    bool vec4 = p.K % 4 == 0 && p.N % 4 == 0;
    Kernel k = vec4 ? rec.kernel(fmt::format("{}/vec4", label), std::string(wgsl::ops_matmul_mm_vec4))
                    : rec.kernel(fmt::format("{}/tiled", label),
                                 std::string(wgsl::ops_matmul_mm_tiled));
    Grid grid{static_cast<uint32_t>(ceil_div(p.N, 32)), static_cast<uint32_t>(ceil_div(p.M, 32)),
              p.batch};
    rec.dispatch(k, {a, b, c, Binding::uniform(p)}, grid);
}

}  // namespace wgx::ops
