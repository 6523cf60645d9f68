// Runs a test body on both workgroup-reduction paths of the row kernels (softmax, layer norm,
// group norm): subgroup operations, where the device has the `subgroups` feature, and the
// workgroup-memory fallback, forced by WGX_SUBGROUPS=0 (see src/ops/common/workgroup_reduce.h).
#pragma once

#include <cstdlib>
#include <functional>
#include <string>

#include "test_util.h"

namespace wgx::test {

// Sets WGX_SUBGROUPS=0 while alive (or clears it), restoring the previous value afterwards.
class SubgroupsSetting {
  public:
    explicit SubgroupsSetting(bool allowed) {
        if (const char* old = std::getenv("WGX_SUBGROUPS")) old_ = old;
        if (allowed) {
            unsetenv("WGX_SUBGROUPS");
        } else {
            setenv("WGX_SUBGROUPS", "0", 1);
        }
    }
    ~SubgroupsSetting() {
        if (old_.empty()) {
            unsetenv("WGX_SUBGROUPS");
        } else {
            setenv("WGX_SUBGROUPS", old_.c_str(), 1);
        }
    }
    SubgroupsSetting(const SubgroupsSetting&) = delete;
    SubgroupsSetting& operator=(const SubgroupsSetting&) = delete;

  private:
    std::string old_;
};

// Calls body("subgroups") with subgroups allowed, then body("fallback") with them forced off.
inline void on_both_reduction_paths(const std::function<void(const std::string&)>& body) {
    for (bool allowed : {true, false}) {
        SubgroupsSetting setting(allowed);
        body(allowed ? "subgroups" : "fallback");
    }
}

// The kernel labels of everything recorded in ctx(), from one profiled run (empty when the
// device has no timestamp queries).
inline std::vector<std::string> recorded_kernels() {
    std::vector<std::string> labels;
    if (!ctx().device_info().features.timestamp_query) return labels;
    for (const DispatchTime& d : ctx().profile().dispatches) labels.push_back(d.kernel);
    return labels;
}

}  // namespace wgx::test
