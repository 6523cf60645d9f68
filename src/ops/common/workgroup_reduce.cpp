#include "ops/common/workgroup_reduce.h"

#include <cstdlib>
#include <string_view>

#include "ops/common/wgsl_types.h"
#include "ops/common/workgroup_reduce_subgroup.wgsl.h"
#include "ops/common/workgroup_reduce_tree.wgsl.h"

namespace wgx::ops {

bool use_subgroups(const Recorder& rec) {
    if (!rec.device().features.subgroups) return false;
    const char* env = std::getenv("WGX_SUBGROUPS");
    return env == nullptr || std::string_view(env) != "0";
}

std::string workgroup_reduce_prelude(DType dtype, bool subgroups) {
    // No `enable subgroups;`: the WGSL standard asks for it, but naga (wgpu-native 29) rejects
    // it ("not yet supported") and takes the subgroup built-ins once the device has the
    // feature. wgsl_alias puts "enable f16;" first where needed.
    std::string s = wgsl_alias(dtype);
    s += subgroups ? wgsl::ops_common_workgroup_reduce_subgroup
                   : wgsl::ops_common_workgroup_reduce_tree;
    return s;
}

}  // namespace wgx::ops
